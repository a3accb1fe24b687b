/** The app root: the auth gate (login or the app), route matching and page titles. */
import { useCallback, useEffect, useState } from "react";
import { onUnauthorized, request } from "./api.js";
import { DetailPage } from "./DetailPage.jsx";
import { HomePage } from "./HomePage.jsx";
import { Layout } from "./Layout.jsx";
import { ListPage } from "./ListPage.jsx";
import { LoginPage } from "./LoginPage.jsx";
import { Link, matchPath, navigate, useLocation } from "./router.jsx";
import { allowed, rolesText } from "./roles.js";
import { ToastProvider } from "./Toast.jsx";
import { SPEC } from "../spec.gen.js";

function resolve(pathname) {
  for (const route of SPEC.routes) {
    const params = matchPath(route.pattern, pathname);
    if (params) return { route, params };
  }
  return null;
}

function NotFoundPage() {
  return (
    <div className="page">
      <div className="card empty">
        <div className="empty-title">Page not found</div>
        <Link className="btn" to="/">Go home</Link>
      </div>
    </div>
  );
}

function ForbiddenPage({ roles }) {
  return (
    <div className="page">
      <div className="card empty" role="alert" data-testid="forbidden">
        <h1 className="empty-title">Not available to you</h1>
        <p className="muted">This page is for the {rolesText(roles)} role only.</p>
        <Link className="btn" to="/">Go home</Link>
      </div>
    </div>
  );
}

function Page({ match, href, user, forms }) {
  if (!match) return <NotFoundPage />;
  const { route, params } = match;
  if (!allowed(route, user)) return <ForbiddenPage roles={route.roles} />;
  switch (route.kind) {
    case "home":
      return <HomePage user={user} />;
    case "list":
      return <ListPage key={route.entity} entity={SPEC.entities[route.entity]} />;
    case "detail":
      return <DetailPage key={params.id} entity={SPEC.entities[route.entity]} id={params.id} user={user} />;
    case "form": {
      const Form = forms[route.workflow];
      // Keyed by the full URL so opening the form for another row starts from fresh values.
      return Form ? <Form key={href} /> : <NotFoundPage />;
    }
    default:
      return <NotFoundPage />;
  }
}

function App({ forms }) {
  const location = useLocation();
  const [user, setUser] = useState(undefined); // undefined: still asking the server

  useEffect(() => {
    onUnauthorized(() => setUser(null));
    request("GET", "/api/auth/session", undefined, { quiet401: true })
      .then((data) => setUser(data.user ?? null))
      .catch(() => setUser(null));
  }, []);

  // Anonymous visitors only ever see /login; a signed-in user never sees it.
  useEffect(() => {
    if (user === null && location.pathname !== "/login") {
      const next = location.pathname === "/" ? "" : `?next=${encodeURIComponent(location.href)}`;
      navigate(`/login${next}`, { replace: true });
    } else if (user && location.pathname === "/login") {
      const next = location.query.get("next");
      navigate(next && next.startsWith("/") && !next.startsWith("//") ? next : "/", { replace: true });
    }
  }, [user, location]);

  const match = resolve(location.pathname);
  useEffect(() => {
    const title = user ? (match ? match.route.title : "Not found") : "Sign in";
    document.title = `${title} · ${SPEC.title}`;
  }, [user, match?.route]);

  const logout = useCallback(async () => {
    try {
      await request("POST", "/api/auth/logout", {}, { quiet401: true });
    } finally {
      navigate("/login"); // a plain /login: the next person should not land on this user's page
      setUser(null);
    }
  }, []);

  if (user === undefined) return <div className="splash" aria-busy="true">Loading…</div>;
  if (!user || location.pathname === "/login") return <LoginPage onLogin={setUser} />;
  return (
    <Layout user={user} onLogout={logout}>
      <Page match={match} href={location.href} user={user} forms={forms} />
    </Layout>
  );
}

export function Root({ forms }) {
  return (
    <ToastProvider>
      <App forms={forms} />
    </ToastProvider>
  );
}
