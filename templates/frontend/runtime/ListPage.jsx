/** An entity's list page: search, filters, sortable table and pagination, all kept in the URL. */
import { useEffect, useState } from "react";
import { api, withQuery } from "./api.js";
import { CalendarView } from "./CalendarView.jsx";
import { DataTable } from "./DataTable.jsx";
import { EntityForm } from "./EntityForm.jsx";
import { FilterPanel, useDebounced } from "./FilterPanel.jsx";
import { Pagination } from "./Pagination.jsx";
import { rememberListQuery } from "./InboxPane.jsx";
import { fillPath, navigate, useLocation } from "./router.jsx";
import { SPEC } from "../spec.gen.js";

/** Query keys the list API understands; everything else in the page URL is ignored. */
function listKeys(entity) {
  const keys = ["q", "sort", "page"];
  for (const group of entity.filterGroups) for (const filter of group.filters) keys.push(...filter.keys);
  return keys;
}

function SearchBox({ entity, value, onSearch }) {
  const [text, setText, flush] = useDebounced(value, onSearch, 300);
  return (
    <div className="search">
      <span className="search-icon" aria-hidden="true">
        <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
          <circle cx="11" cy="11" r="7" />
          <path d="m20 20-3.5-3.5" />
        </svg>
      </span>
      <input type="search" className="input" data-testid={`search-${entity.name}`} value={text}
        placeholder={`Search ${entity.plural.toLowerCase()}…`} aria-label={`Search ${entity.plural.toLowerCase()}`}
        onChange={(e) => setText(e.target.value)} onKeyDown={(e) => e.key === "Enter" && flush()} />
    </div>
  );
}

export function ListPage({ entity }) {
  const { pathname, search, query } = useLocation();
  const focus = entity.name === SPEC.look.focus;
  const [calendar, setCalendar] = useState(false);
  useEffect(() => {
    if (focus) rememberListQuery(search); // the inbox pane lists what this page lists
  }, [focus, search]);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [creating, setCreating] = useState(false);
  const [reloads, setReloads] = useState(0);
  // Which request the shown data answers: the list is busy until the current one has settled.
  const [settled, setSettled] = useState(null);

  const params = Object.fromEntries(listKeys(entity).map((key) => [key, query.get(key) ?? ""]));
  const page = Math.max(1, Number(params.page) || 1);
  const url = withQuery(entity.api, { ...params, page_size: entity.pageSize });
  const request = `${reloads} ${url}`;
  const busy = settled !== request;

  useEffect(() => {
    let live = true;
    api.get(url)
      .then((result) => {
        if (!live) return;
        setData(result);
        setError(null);
        setSettled(request);
      })
      .catch((err) => {
        if (!live) return;
        setError(err.detail);
        setSettled(request);
      });
    return () => {
      live = false;
    };
  }, [url, reloads]);

  /**
   * Writes changes into the URL; anything but a page change starts again at page 1. Reads the
   * URL when called, not this render's copy: a debounced input may call it after other filters
   * changed, and must not put back the query they replaced.
   */
  const update = (changes) => {
    if (window.location.pathname !== pathname) return; // the page was left meanwhile
    const next = new URLSearchParams(window.location.search);
    for (const [key, value] of Object.entries(changes)) {
      if (value === "" || value === null || value === undefined) next.delete(key);
      else next.set(key, String(value));
    }
    if (!("page" in changes)) next.delete("page");
    const text = next.toString();
    navigate(text ? `${pathname}?${text}` : pathname, { replace: true });
  };

  const clearFilters = () => {
    const changes = {};
    for (const group of entity.filterGroups) for (const filter of group.filters) for (const key of filter.keys) changes[key] = "";
    update(changes);
  };

  const rows = data?.items ?? [];
  return (
    <div className="page">
      <div className="page-header">
        <div>
          <h1 className="page-title">{entity.plural}</h1>
          <p className="page-subtitle">{data ? `${data.total} ${data.total === 1 ? entity.label.toLowerCase() : entity.countNoun}` : "Loading…"}</p>
        </div>
        <div className="actions">
          {focus && SPEC.look.layout === "calendar" && (
            <button type="button" className="btn" data-testid="calendar-toggle" aria-pressed={calendar}
              onClick={() => setCalendar((shown) => !shown)}>
              {calendar ? "Hide calendar" : "Show calendar"}
            </button>
          )}
          {entity.canCreate && !creating && (
            <button type="button" className="btn btn-primary" data-testid={`new-${entity.name}`} onClick={() => setCreating(true)}>
              + New {entity.label.toLowerCase()}
            </button>
          )}
        </div>
      </div>
      {/* The create form replaces the list, so its labels never compete with the filters'. */}
      {creating && (
        <EntityForm entity={entity} onCancel={() => setCreating(false)}
          onDone={(row) => {
            setCreating(false);
            if (row && row.id !== undefined) navigate(fillPath(entity.detailHref, { id: row.id }));
            else setReloads((n) => n + 1);
          }} />
      )}
      {calendar && !creating && <CalendarView entity={entity} />}
      {!creating && <div className="card list-card" aria-busy={busy}>
        <div className="list-toolbar">
          {entity.search && <SearchBox entity={entity} value={params.q} onSearch={(q) => update({ q })} />}
        </div>
        {entity.filterGroups.length > 0 && (
          <FilterPanel entity={entity} query={query} onChange={update} onClear={clearFilters} />
        )}
        {error && <div className="empty error-text" role="alert">Could not load {entity.plural.toLowerCase()}: {error}</div>}
        {!error && !data && <div className="empty muted">Loading…</div>}
        {!error && data && (
          <DataTable entity={entity} rows={rows} busy={busy} sort={params.sort || entity.defaultSort}
            onSort={(sort) => update({ sort })} />
        )}
        {!error && data && (
          <Pagination page={data.page ?? page} pageSize={data.page_size ?? entity.pageSize} total={data.total}
            onPage={(p) => update({ page: p > 1 ? p : "" })} />
        )}
      </div>}
    </div>
  );
}
