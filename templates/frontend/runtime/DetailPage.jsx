/** One row: every field formatted, its workflows as action buttons, edit and delete when allowed. */
import { useEffect, useState } from "react";
import { api, withQuery } from "./api.js";
import { EntityForm } from "./EntityForm.jsx";
import { ConfirmDialog } from "./Modal.jsx";
import { allowed } from "./roles.js";
import { Link, navigate } from "./router.jsx";
import { useToast } from "./Toast.jsx";
import { Value } from "./Value.jsx";

function NotFound({ entity }) {
  return (
    <div className="page">
      <div className="card empty">
        <div className="empty-title">{entity.label} not found</div>
        <p className="muted">It may have been removed, or it belongs to someone else.</p>
        <Link className="btn" to={entity.listHref}>Back to {entity.plural.toLowerCase()}</Link>
      </div>
    </div>
  );
}

/** Rows of another entity that point at this one (an account's cards): the first few, and a
 * link to all of them in their own list, filtered to this row. Nothing when there are none. */
function ChildRows({ child, id }) {
  const [data, setData] = useState(null);
  useEffect(() => {
    let live = true;
    api.get(withQuery(child.api, { [child.param]: id, page_size: CHILD_ROWS }))
      .then((result) => live && setData(result))
      .catch(() => live && setData({ items: [], total: 0 }));
    return () => {
      live = false;
    };
  }, [child.api, child.param, id]);
  if (!data || !data.total) return null;
  const all = withQuery(child.listHref, { [child.param]: id });
  return (
    <section className="card" data-testid={`children-${child.entity}`} aria-label={child.title}>
      <div className="card-head">
        <h2 className="card-title">{child.title}</h2>
        <Link to={all}>View all {data.total}</Link>
      </div>
      <ul className="child-rows">
        {data.items.map((item) => (
          <li key={item.id}>
            {child.canRead ? <Link to={`${child.listHref}/${item.id}`}>{item.label}</Link> : item.label}
          </li>
        ))}
      </ul>
    </section>
  );
}

const CHILD_ROWS = 5;

export function DetailPage({ entity, id, user }) {
  const [row, setRow] = useState(null);
  const [error, setError] = useState(null);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [reloads, setReloads] = useState(0);
  const toast = useToast();

  useEffect(() => {
    let live = true;
    api.get(`${entity.api}/${encodeURIComponent(id)}`)
      .then((result) => live && setRow(result))
      .catch((err) => live && setError(err));
    return () => {
      live = false;
    };
  }, [entity.api, id, reloads]);

  // An action whose form would not take this row (an active card has nothing to unlock; only its
  // approver approves a report) is not offered: its subject's option list says which rows it takes.
  const [offered, setOffered] = useState({});
  useEffect(() => {
    let live = true;
    for (const action of entity.actions) {
      if (!action.offeredUrl || !allowed(action, user)) continue;
      api.get(action.offeredUrl)
        .then((data) => live && setOffered((was) => ({
          ...was, [action.workflow]: new Set((data.items ?? []).map((item) => String(item.id))),
        })))
        .catch(() => live && setOffered((was) => ({ ...was, [action.workflow]: null })));
    }
    return () => {
      live = false;
    };
  }, [entity.actions, id, reloads, user]);
  // A rule that names who may act on the row (`listing.host == me`) hides the action from others.
  const holds = (action) => !action.holder || !row || !user || String(row[action.holder]) === String(user.id);
  const shows = (action) => allowed(action, user) && holds(action) && (!action.offeredUrl || offered[action.workflow] === null
    || Boolean(offered[action.workflow]?.has(String(id))));

  if (error) return error.status === 404 ? <NotFound entity={entity} /> : (
    <div className="page"><div className="card empty error-text" role="alert">{error.detail}</div></div>
  );
  if (!row) return <div className="page"><div className="card empty muted">Loading…</div></div>;

  const remove = async () => {
    try {
      await api.del(`${entity.api}/${row.id}`);
      toast.success(`${entity.label} deleted.`);
      navigate(entity.listHref);
    } catch (err) {
      setDeleting(false);
      toast.error(err.detail);
    }
  };

  return (
    <div className="page">
      <div className="page-header">
        <div>
          <div className="breadcrumb"><Link to={entity.listHref}>{entity.plural}</Link> / {row.label}</div>
          <h1 className="page-title">{row.label}</h1>
        </div>
        <div className="actions">
          {entity.actions.filter(shows).map((action) => (
            <Link key={action.workflow} className="btn" data-testid={`action-${action.workflow}`} role="button"
              to={withQuery(action.href, { [action.subjectParam]: row.id })}>
              {action.label}
            </Link>
          ))}
          {entity.canUpdate && !editing && (
            <button type="button" className="btn" data-testid={`edit-${entity.name}`} onClick={() => setEditing(true)}>Edit</button>
          )}
          {entity.canDelete && (
            <button type="button" className="btn btn-danger-outline" data-testid={`delete-${entity.name}`} onClick={() => setDeleting(true)}>
              Delete
            </button>
          )}
        </div>
      </div>
      {editing && (
        <EntityForm entity={entity} row={row} onCancel={() => setEditing(false)}
          onDone={() => {
            setEditing(false);
            setReloads((n) => n + 1);
          }} />
      )}
      <section className="card" data-testid={`detail-${entity.name}`} aria-label={`${entity.label} details`}>
        <dl className="details">
          {entity.fields.map((field) => (
            <div className="detail-item" key={field.name}>
              <dt>{field.label}</dt>
              <dd data-field={field.name}><Value field={field} row={row} /></dd>
            </div>
          ))}
        </dl>
      </section>
      {(entity.children ?? []).filter((child) => allowed(child, user)).map((child) => <ChildRows key={`${child.entity}-${child.param}`} child={child} id={row.id} />)}
      {deleting && (
        <ConfirmDialog title={`Delete ${entity.label.toLowerCase()}`} danger
          message={`Delete "${row.label}"? This cannot be undone.`} onConfirm={remove} onCancel={() => setDeleting(false)} />
      )}
    </div>
  );
}
