/** The signed-in frame: top bar (title, user, logout) and side navigation (entities, actions). */
import { Link, useLocation } from "./router.jsx";
import { allowed } from "./roles.js";
import { SPEC } from "../spec.gen.js";

function NavLink({ to, testId, children }) {
  const { pathname } = useLocation();
  const active = to === "/" ? pathname === "/" : pathname === to || pathname.startsWith(`${to}/`);
  return (
    <Link to={to} data-testid={testId} className={active ? "nav-link active" : "nav-link"} aria-current={active ? "page" : undefined}>
      {children}
    </Link>
  );
}

export function Layout({ user, onLogout, children }) {
  return (
    <div className="shell">
      <header className="topbar">
        <Link to="/" className="brand"><span className="brand-mark" aria-hidden="true">{SPEC.title.charAt(0)}</span>{SPEC.title}</Link>
        <div className="topbar-user">
          <span className="avatar" aria-hidden="true">{(user.name || user.username).charAt(0)}</span>
          <span className="user-name" data-testid="user-name">{user.name || user.username}</span>
          {user.role && <span className="badge user-role" data-testid="user-role">{user.role}</span>}
          <button type="button" className="btn btn-sm" data-testid="logout" onClick={onLogout}>Log out</button>
        </div>
      </header>
      <nav className="sidenav" aria-label="Main">
        <NavLink to="/" testId="nav-home">Home</NavLink>
        <div className="nav-section">Browse</div>
        {SPEC.nav.filter((item) => allowed(item, user)).map((item) => (
          <NavLink key={item.entity} to={item.href} testId={`nav-${item.entity}`}>{item.label}</NavLink>
        ))}
        {SPEC.actions.some((action) => allowed(action, user)) && <div className="nav-section">Actions</div>}
        {SPEC.actions.filter((action) => allowed(action, user)).map((action) => (
          <NavLink key={action.workflow} to={action.href} testId={`nav-action-${action.workflow}`}>{action.label}</NavLink>
        ))}
      </nav>
      <main className="content">{children}</main>
    </div>
  );
}
