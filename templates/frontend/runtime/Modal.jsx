/** A modal confirmation dialog: focus starts on Confirm, Escape or a backdrop click cancels. */
import { useEffect, useId, useRef } from "react";

export function ConfirmDialog({ title, message, busy = false, danger = false, onConfirm, onCancel }) {
  const confirmRef = useRef(null);
  const id = useId();

  useEffect(() => {
    confirmRef.current?.focus();
    const onKey = (event) => {
      if (event.key === "Escape") onCancel();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [onCancel]);

  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onCancel()}>
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby={`${id}-title`} aria-describedby={`${id}-message`}>
        <h2 id={`${id}-title`} className="modal-title">{title}</h2>
        <p id={`${id}-message`} className="modal-message">{message}</p>
        <div className="modal-actions">
          <button type="button" className="btn" data-testid="confirm-cancel" onClick={onCancel}>
            Cancel
          </button>
          <button
            type="button"
            ref={confirmRef}
            className={danger ? "btn btn-danger" : "btn btn-primary"}
            data-testid="confirm-ok"
            disabled={busy}
            onClick={onConfirm}
          >
            Confirm
          </button>
        </div>
      </div>
    </div>
  );
}
