/** The list table: a label column linking to each row, sortable headers, clickable rows. A wide
 * entity shows its first columns (those people sort, filter and compare by) and the rest on
 * "All columns", so the table fits the screen. */
import { useState } from "react";
import { Link, fillPath, navigate } from "./router.jsx";
import { Value } from "./Value.jsx";

/** `sort` is `col` or `-col`; clicking a column sorts ascending, clicking again descending. */
export function nextSort(sort, key) {
  return sort === key ? `-${key}` : key;
}

function SortHeader({ header, sortKey, sort, onSort }) {
  if (!sortKey) return <th scope="col">{header}</th>;
  const active = sort === sortKey || sort === `-${sortKey}`;
  const descending = sort === `-${sortKey}`;
  return (
    <th scope="col" aria-sort={active ? (descending ? "descending" : "ascending") : "none"}>
      <button type="button" className={active ? "sort-btn active" : "sort-btn"} onClick={() => onSort(nextSort(sort, sortKey))}>
        {header}
        <span className="sort-icon" aria-hidden="true">{active ? (descending ? "▼" : "▲") : "↕"}</span>
      </button>
    </th>
  );
}

/** `busy`: a newer page is loading, so the rows shown are the previous answer's. */
export function DataTable({ entity, rows, busy = false, sort, onSort }) {
  const fields = Object.fromEntries(entity.fields.map((field) => [field.name, field]));
  const [all, setAll] = useState(false);
  const { label } = entity.table;
  const more = entity.table.columns.filter((column) => column.more).length;
  const columns = all ? entity.table.columns : entity.table.columns.filter((column) => !column.more);
  return (
    <div className="table-wrap">
      {more > 0 && (
        <div className="table-tools">
          <button type="button" className="btn btn-sm" data-testid="columns-toggle" aria-pressed={all}
            onClick={() => setAll((was) => !was)}>
            {all ? "Fewer columns" : `All columns (${more} more)`}
          </button>
        </div>
      )}
      <table className="table" data-testid={`list-${entity.name}`} aria-busy={busy}>
        <thead>
          <tr>
            <SortHeader header={label.header} sortKey={label.sortKey} sort={sort} onSort={onSort} />
            {columns.map((column) => (
              <SortHeader key={column.name} header={fields[column.name].label} sortKey={column.sortKey} sort={sort} onSort={onSort} />
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const href = fillPath(entity.detailHref, { id: row.id });
            return (
              <tr key={row.id} data-testid={`row-${entity.name}-${row.id}`} className="row-link" onClick={() => navigate(href)}>
                <td className="cell-label">
                  <Link to={href} onClick={(e) => e.stopPropagation()}>{row.label}</Link>
                </td>
                {columns.map((column) => (
                  <td key={column.name}>
                    <Value field={fields[column.name]} row={row} />
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
      {/* Outside the table so a wide table cannot push the message off screen. */}
      {rows.length === 0 && (
        <div className="empty">
          <div className="empty-title">No {entity.plural.toLowerCase()} found</div>
          <div className="muted">Try a different search or clear the filters.</div>
        </div>
      )}
    </div>
  );
}
