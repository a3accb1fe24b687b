/**
 * Previous / next buttons with "Page X of Y" and the visible row range. The range text carries
 * `data-testid="list-total"` and the list's total as an integer in `data-total`.
 */
export function Pagination({ page, pageSize, total, onPage }) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = Math.min(total, page * pageSize);
  return (
    <nav className="pagination" aria-label="Pagination">
      <span className="muted" data-testid="list-total" data-total={total}>
        {total === 0 ? "No results" : `Showing ${first}–${last} of ${total}`}
      </span>
      <div className="pagination-controls">
        <button type="button" className="btn btn-sm" data-testid="page-prev" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          ← Previous
        </button>
        <span className="page-info" data-testid="page-info">Page {page} of {pages}</span>
        <button type="button" className="btn btn-sm" data-testid="page-next" disabled={page >= pages} onClick={() => onPage(page + 1)}>
          Next →
        </button>
      </div>
    </nav>
  );
}
