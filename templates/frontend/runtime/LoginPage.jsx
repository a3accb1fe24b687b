/** The sign-in page, the only page an anonymous visitor sees. */
import { useState } from "react";
import { request } from "./api.js";
import { useToast } from "./Toast.jsx";
import { SPEC } from "../spec.gen.js";

export function LoginPage({ onLogin }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const toast = useToast();

  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    try {
      // quiet401: a wrong password is reported here, not treated as an expired session.
      const data = await request("POST", "/api/auth/login", { username, password }, { quiet401: true });
      toast.dismiss();
      onLogin(data.user);
    } catch (err) {
      toast.error(err.detail || "Sign-in failed.");
      setBusy(false);
    }
  };

  return (
    <div className="login-screen">
      <form className="card login-card" onSubmit={submit} aria-labelledby="login-title">
        <div className="brand brand-large"><span className="brand-mark" aria-hidden="true">{SPEC.title.charAt(0)}</span>{SPEC.title}</div>
        <h1 id="login-title" className="login-title">Sign in</h1>
        <p className="muted">Use your account to continue.</p>
        <div className="field">
          <label htmlFor="login-username">Username</label>
          <input id="login-username" className="input" data-testid="login-username" autoComplete="username"
            value={username} onChange={(e) => setUsername(e.target.value)} autoFocus required />
        </div>
        <div className="field">
          <label htmlFor="login-password">Password</label>
          <input id="login-password" type="password" className="input" data-testid="login-password"
            autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        </div>
        <button type="submit" className="btn btn-primary btn-block" data-testid="login-submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </div>
  );
}
