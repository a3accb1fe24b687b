/** The dashboard: the seed's panels (balances, what is due, recent activity), a count card per
 * navigable entity and quick links to every workflow form; in the calendar family, the month's
 * calendar of the focus rows first. */
import { useEffect, useState } from "react";
import { api, withQuery } from "./api.js";
import { CalendarView } from "./CalendarView.jsx";
import { formatMoney } from "./format.js";
import { Value } from "./Value.jsx";
import { Link, fillPath } from "./router.jsx";
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

/** One panel of the seed's home page: a few rows through the entity's own list API, each with
 * one value, a total when asked for, and a link to the same list in full. */
function HomePanel({ panel }) {
  const entity = SPEC.entities[panel.entity];
  const [data, setData] = useState(null);
  const query = { ...panel.query, sort: panel.sort ?? "" };
  const url = withQuery(entity.api, { ...query, page_size: panel.total ? 100 : panel.limit });
  useEffect(() => {
    let live = true;
    api.get(url)
      .then((result) => live && setData(result))
      .catch(() => live && setData({ items: [], total: 0 }));
    return () => {
      live = false;
    };
  }, [url]);
  const field = panel.show ? entity.fields.find((f) => f.name === panel.show) : null;
  const rows = (data?.items ?? []).slice(0, panel.limit);
  const sum = panel.total && field ? (data?.items ?? []).reduce((acc, row) => acc + Number(row[field.key] || 0), 0) : null;
  return (
    <section className="card home-panel" aria-label={panel.title} data-testid={`home-${panel.entity}`}>
      <div className="card-head">
        <h2 className="card-title">{panel.title}</h2>
        {data && data.total > 0 && <Link to={withQuery(entity.listHref, query)}>View all {data.total}</Link>}
      </div>
      {!data && <div className="muted">Loading…</div>}
      {data && rows.length === 0 && <div className="muted">Nothing here right now.</div>}
      {rows.length > 0 && (
        <ul className="home-rows">
          {rows.map((row) => (
            <li key={row.id} className="home-row">
              <Link to={fillPath(entity.detailHref, { id: row.id })}>{row.label}</Link>
              {field && <span className="home-value"><Value field={field} row={row} link={false} /></span>}
            </li>
          ))}
        </ul>
      )}
      {sum !== null && data && data.total > 0 && (
        <div className="home-total">
          <span>{data.total > data.items.length ? `Total of the first ${data.items.length}` : "Total"}</span>
          <span className="num">{formatMoney(sum)}</span>
        </div>
      )}
    </section>
  );
}

export function HomePage({ user }) {
  const entities = SPEC.nav.filter((item) => allowed(item, user)).map((item) => SPEC.entities[item.entity]);
  const actions = SPEC.actions.filter((action) => allowed(action, user));
  const focus = SPEC.entities[SPEC.look.focus];
  const calendar = SPEC.look.layout === "calendar" && focus && allowed(focus, user);
  const panels = SPEC.home.filter((panel) => allowed(SPEC.entities[panel.entity], user));
  return (
    <div className="page">
      <div className="page-header">
        <div>
          <h1 className="page-title">Welcome back, {(user.name || user.username).split(" ")[0]}</h1>
          <p className="page-subtitle">Here is what is in {SPEC.title} for you today.</p>
        </div>
      </div>
      {calendar && <CalendarView entity={focus} />}
      {panels.length > 0 && (
        <div className="home-panels">
          {panels.map((panel, i) => <HomePanel key={`${panel.entity}-${i}`} panel={panel} />)}
        </div>
      )}
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
