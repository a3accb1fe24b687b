/** The signed-in frame, in the world's layout family (`SPEC.look.layout`):
 *
 * - sidebar: a top bar (title, user) and the lists and actions down the side (an admin app);
 * - topnav and calendar: a site header with the lists across the top and the actions in a bar
 *   beneath (a consumer site; the calendar family adds a calendar of its dated rows);
 * - inbox: a rail of folders and actions, the list of the focus rows beside the one being read
 *   (a mail client's three panes).
 *
 * Every family links the same pages under the same test ids (`nav-<entity>`, `nav-action-<name>`,
 * `user-name`, `logout`), so claims and the UI solver read any of them alike. */
import { humanize } from "./format.js";
import { InboxPane } from "./InboxPane.jsx";
import { Link, matchPath, useLocation } from "./router.jsx";
import { allowed } from "./roles.js";
import { SPEC } from "../spec.gen.js";

function NavLink({ to, testId, className = "nav-link", children }) {
  const { pathname } = useLocation();
  const active = to === "/" ? pathname === "/" : pathname === to || pathname.startsWith(`${to}/`);
  return (
    <Link to={to} data-testid={testId} className={active ? `${className} active` : className} aria-current={active ? "page" : undefined}>
      {children}
    </Link>
  );
}

function Brand() {
  return (
    <Link to="/" className="brand"><span className="brand-mark" aria-hidden="true">{SPEC.title.charAt(0)}</span>{SPEC.title}</Link>
  );
}

function UserBox({ user, onLogout }) {
  return (
    <div className="topbar-user">
      <span className="avatar" aria-hidden="true">{(user.name || user.username).charAt(0)}</span>
      <span className="user-name" data-testid="user-name">{user.name || user.username}</span>
      {user.role && <span className="badge user-role" data-testid="user-role">{humanize(user.role)}</span>}
      <button type="button" className="btn btn-sm" data-testid="logout" onClick={onLogout}>Log out</button>
    </div>
  );
}

/** What this user may open: the lists of their role and the workflows they may run. */
function navFor(user) {
  return {
    lists: SPEC.nav.filter((item) => allowed(item, user)),
    actions: SPEC.actions.filter((action) => allowed(action, user)),
  };
}

function SidebarShell({ user, onLogout, children }) {
  const { lists, actions } = navFor(user);
  return (
    <div className="shell shell-sidebar">
      <header className="topbar">
        <Brand />
        <UserBox user={user} onLogout={onLogout} />
      </header>
      <nav className="sidenav" aria-label="Main">
        <NavLink to="/" testId="nav-home">Home</NavLink>
        <div className="nav-section">Browse</div>
        {lists.map((item) => <NavLink key={item.entity} to={item.href} testId={`nav-${item.entity}`}>{item.label}</NavLink>)}
        {actions.length > 0 && <div className="nav-section">Actions</div>}
        {actions.map((action) => (
          <NavLink key={action.workflow} to={action.href} testId={`nav-action-${action.workflow}`}>{action.label}</NavLink>
        ))}
      </nav>
      <main className="content">{children}</main>
    </div>
  );
}

function TopNavShell({ user, onLogout, children }) {
  const { lists, actions } = navFor(user);
  return (
    <div className="shell shell-topnav">
      <header className="sitebar">
        <div className="sitebar-inner">
          <Brand />
          <nav className="topnav" aria-label="Main">
            <NavLink to="/" testId="nav-home" className="topnav-link">Home</NavLink>
            {lists.map((item) => (
              <NavLink key={item.entity} to={item.href} testId={`nav-${item.entity}`} className="topnav-link">{item.label}</NavLink>
            ))}
          </nav>
          <UserBox user={user} onLogout={onLogout} />
        </div>
      </header>
      {actions.length > 0 && (
        <nav className="actionbar" aria-label="Actions">
          <div className="actionbar-inner">
            <span className="actionbar-title">I want to</span>
            {actions.map((action) => (
              <NavLink key={action.workflow} to={action.href} testId={`nav-action-${action.workflow}`} className="chip">
                {action.label}
              </NavLink>
            ))}
          </div>
        </nav>
      )}
      <main className="content content-centered">{children}</main>
    </div>
  );
}

/** A folder of the inbox: its list filtered to one value, marked while that is the list shown. */
function FolderLink({ folder }) {
  const { href } = useLocation();
  const active = href === folder.href;
  return (
    <Link to={folder.href} data-testid={`folder-${folder.value}`} className={active ? "nav-link active" : "nav-link"}
      aria-current={active ? "page" : undefined}>
      {humanize(folder.value)}
    </Link>
  );
}

function InboxShell({ user, onLogout, children }) {
  const { lists, actions } = navFor(user);
  const { pathname } = useLocation();
  const focus = SPEC.entities[SPEC.look.focus];
  // The middle pane lists the focus rows while one of them is read; on their own list page the
  // list is the page itself.
  const reading = focus && allowed(focus, user) && matchPath(focus.detailHref, pathname);
  // The rail's button: the first action that writes a new focus row without choosing one (Compose).
  const lead = actions.find((action) => action.workflow === SPEC.look.lead) ?? null;
  return (
    <div className={reading ? "shell shell-inbox reading" : "shell shell-inbox"}>
      <aside className="rail">
        <Brand />
        {lead && (
          <Link to={lead.href} className="btn btn-primary btn-block rail-lead" data-testid="rail-lead">{lead.label}</Link>
        )}
        <nav className="rail-nav" aria-label="Main">
          <NavLink to="/" testId="nav-home">Home</NavLink>
          {focus && allowed(focus, user) && (SPEC.look.folders ?? []).length > 0 && (
            <>
              <div className="nav-section">{focus.plural}</div>
              {SPEC.look.folders.map((folder) => (
                <FolderLink key={folder.value} folder={folder} />
              ))}
            </>
          )}
          <div className="nav-section">Browse</div>
          {lists.map((item) => <NavLink key={item.entity} to={item.href} testId={`nav-${item.entity}`}>{item.label}</NavLink>)}
          {actions.length > 0 && <div className="nav-section">Actions</div>}
          {actions.map((action) => (
            <NavLink key={action.workflow} to={action.href} testId={`nav-action-${action.workflow}`}>{action.label}</NavLink>
          ))}
        </nav>
        <div className="rail-user"><UserBox user={user} onLogout={onLogout} /></div>
      </aside>
      {reading && <InboxPane entity={focus} selected={reading.id} />}
      <main className="content">{children}</main>
    </div>
  );
}

export function Layout({ user, onLogout, children }) {
  switch (SPEC.look.layout) {
    case "inbox":
      return <InboxShell user={user} onLogout={onLogout}>{children}</InboxShell>;
    case "topnav":
    case "calendar":
      return <TopNavShell user={user} onLogout={onLogout}>{children}</TopNavShell>;
    default:
      return <SidebarShell user={user} onLogout={onLogout}>{children}</SidebarShell>;
  }
}
