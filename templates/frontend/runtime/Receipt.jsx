/** What a workflow just did, kept under its form after the toast has gone: its message and a link
 * to each row it made (the transaction a transfer wrote, the message a compose sent). */
import { useEffect, useState } from "react";
import { api } from "./api.js";
import { Link, fillPath } from "./router.jsx";
import { SPEC } from "../spec.gen.js";

/** `{entity: [id, …]}` → the rows the user can open, with their labels as the app shows them. */
function useMadeRows(created) {
  const [rows, setRows] = useState([]);
  useEffect(() => {
    let live = true;
    const wanted = Object.entries(created ?? {}).flatMap(([name, ids]) => {
      const entity = SPEC.entities[name];
      return entity && !entity.builtin ? ids.map((id) => ({ entity, id })) : [];
    });
    Promise.all(wanted.map(({ entity, id }) => api.get(`${entity.api}/${id}`)
      .then((row) => ({ key: `${entity.name}-${id}`, noun: entity.label, label: row.label, href: fillPath(entity.detailHref, { id }) }))
      .catch(() => null)))  // a row made for someone else (the recipient's copy) is not the user's to open
      .then((found) => live && setRows(found.filter(Boolean)));
    return () => {
      live = false;
    };
  }, [created]);
  return rows;
}

export function Receipt({ receipt, onDismiss }) {
  const rows = useMadeRows(receipt.created);
  return (
    <section className="card receipt" role="status" aria-label="Receipt" data-testid="receipt">
      <div className="receipt-head">
        <span className="receipt-mark" aria-hidden="true">✓</span>
        <span className="receipt-message">{receipt.message}</span>
        <button type="button" className="btn btn-sm" onClick={onDismiss}>Done</button>
      </div>
      {rows.length > 0 && (
        <ul className="receipt-rows">
          {rows.map((row) => (
            <li key={row.key}><span className="muted">{row.noun}:</span> <Link to={row.href}>{row.label}</Link></li>
          ))}
        </ul>
      )}
    </section>
  );
}
