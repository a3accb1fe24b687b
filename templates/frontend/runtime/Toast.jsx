/** Toasts: one at a time (so test ids stay unique), success as role=status, errors as role=alert. */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";

const ToastContext = createContext(null);
const LIFETIME_MS = 8000;

export function ToastProvider({ children }) {
  const [toast, setToast] = useState(null);
  const timer = useRef(null);
  const counter = useRef(0);

  const dismiss = useCallback(() => {
    clearTimeout(timer.current);
    setToast(null);
  }, []);

  const show = useCallback((kind, message) => {
    clearTimeout(timer.current);
    counter.current += 1;
    setToast({ kind, message, id: counter.current });
    timer.current = setTimeout(() => setToast(null), LIFETIME_MS);
  }, []);

  useEffect(() => () => clearTimeout(timer.current), []);

  const value = useMemo(
    () => ({ success: (message) => show("success", message), error: (message) => show("error", message), dismiss }),
    [show, dismiss],
  );

  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toast-region">
        {toast && (
          <div
            key={toast.id}
            className={`toast toast-${toast.kind}`}
            role={toast.kind === "success" ? "status" : "alert"}
            data-testid={`toast-${toast.kind}`}
          >
            <span className="toast-icon" aria-hidden="true">{toast.kind === "success" ? "✓" : "!"}</span>
            <span className="toast-message">{toast.message}</span>
            <button type="button" className="toast-close" aria-label="Dismiss notification" onClick={dismiss}>
              ×
            </button>
          </div>
        )}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast() {
  return useContext(ToastContext);
}
