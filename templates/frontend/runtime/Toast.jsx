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
          <div key={toast.id} className={`toast toast-${toast.kind}`}>
            {/* The role and test id sit on the message alone, so its text is exactly the message. */}
            <div className="toast-message" role={toast.kind === "success" ? "status" : "alert"} data-testid={`toast-${toast.kind}`}>
              {toast.message}
            </div>
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
