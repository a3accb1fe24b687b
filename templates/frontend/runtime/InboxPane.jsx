/** The inbox's middle pane: the newest focus rows (messages), the one being read marked, each a
 * link to its page. It lists what the focus list page last showed (the same folder or search),
 * so reading on does not lose the place. */
import { useEffect, useState } from "react";
import { api, withQuery } from "./api.js";
import { formatValue } from "./format.js";
import { Link, fillPath } from "./router.jsx";

const PANE_ROWS = 30;

/** The query of the focus list page the user last had open (kept by ListPage). */
let lastQuery = "";

export function rememberListQuery(search) {
  lastQuery = search;
}

export function InboxPane({ entity, selected }) {
  const [data, setData] = useState(null);
  const fields = Object.fromEntries(entity.fields.map((field) => [field.name, field]));
  const shown = entity.table.columns.filter((column) => !column.more).map((column) => fields[column.name]);
  // Who or what a row is about (a sender, a folder) above its label, and when beside it.
  const from = shown.find((field) => field.kind === "reference") ?? shown.find((field) => field.kind === "enum");
  const when = shown.find((field) => field.kind === "date" || field.kind === "datetime");
  const query = Object.fromEntries(new URLSearchParams(lastQuery));
  delete query.page;
  const url = withQuery(entity.api, { ...query, page_size: PANE_ROWS });
  useEffect(() => {
    let live = true;
    api.get(url)
      .then((result) => live && setData(result))
      .catch(() => live && setData({ items: [], total: 0 }));
    return () => {
      live = false;
    };
  }, [url]);
  const back = lastQuery ? `${entity.listHref}${lastQuery}` : entity.listHref;
  return (
    <aside className="pane" aria-label={`${entity.plural} list`}>
      <div className="pane-head">
        <Link to={back} className="pane-title">{entity.plural}</Link>
        {data && <span className="muted">{data.total}</span>}
      </div>
      {!data && <div className="pane-empty muted">Loading…</div>}
      {data && data.items.length === 0 && <div className="pane-empty muted">Nothing here</div>}
      {data && (
        <ul className="pane-list">
          {data.items.map((row) => {
            const current = String(row.id) === String(selected);
            return (
              <li key={row.id}>
                <Link to={fillPath(entity.detailHref, { id: row.id })} data-testid={`pane-${entity.name}-${row.id}`}
                  className={current ? "pane-item active" : "pane-item"} aria-current={current ? "page" : undefined}>
                  <span className="pane-item-top">
                    <span className="pane-item-from">{from ? formatValue(from, row) : ""}</span>
                    <span className="pane-item-when">{when ? formatValue(when, row) : ""}</span>
                  </span>
                  <span className="pane-item-label">{row.label}</span>
                </Link>
              </li>
            );
          })}
        </ul>
      )}
    </aside>
  );
}
