/** The dashboard: a count card per navigable entity and quick links to every workflow form; in the
 * calendar family, the month's calendar of the focus rows first. */
import { useEffect, useState } from "react";
import { api, withQuery } from "./api.js";
import { CalendarView } from "./CalendarView.jsx";
import { Link } from "./router.jsx";
import { allowed } from "./roles.js";
import { SPEC } from "../spec.gen.js";

function CountCard({ entity }) {
  const [total, setTotal] = useState(null);
  useEffect(() => {
    let live = true;
    api.get(withQuery(entity.api, { page_size: 1 }))
      .then((data) => live && setTotal(data.total))
      .catch(() => live && setTotal("—"));
    return () => {
      live = false;
    };
  }, [entity.api]);
  return (
    <Link className="card stat-card" to={entity.listHref} data-testid={`stat-${entity.name}`}>
      <span className="stat-label">{entity.plural}</span>
      <span className="stat-value">{total ?? "…"}</span>
      <span className="stat-link">View all →</span>
    </Link>
  );
}

export function HomePage({ user }) {
  const entities = SPEC.nav.filter((item) => allowed(item, user)).map((item) => SPEC.entities[item.entity]);
  const actions = SPEC.actions.filter((action) => allowed(action, user));
  const focus = SPEC.entities[SPEC.look.focus];
  const calendar = SPEC.look.layout === "calendar" && focus && allowed(focus, user);
  return (
    <div className="page">
      <div className="page-header">
        <div>
          <h1 className="page-title">Welcome back, {(user.name || user.username).split(" ")[0]}</h1>
          <p className="page-subtitle">Here is what is in {SPEC.title} for you today.</p>
        </div>
      </div>
      {calendar && <CalendarView entity={focus} />}
      <div className="stat-grid">
        {entities.map((entity) => <CountCard key={entity.name} entity={entity} />)}
      </div>
      {actions.length > 0 && (
        <section className="card">
          <h2 className="card-title">Quick actions</h2>
          <div className="quick-actions">
            {actions.map((action) => (
              <Link key={action.workflow} className="quick-action" to={action.href}>
                <span className="quick-action-label">{action.label}</span>
                <span className="muted">{action.hint}</span>
              </Link>
            ))}
          </div>
        </section>
      )}
    </div>
  );
}
