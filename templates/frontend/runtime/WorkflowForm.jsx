/** A workflow's form page: state, validation, optional confirm dialog, submission, toasts and a
 * receipt of what was done. */
import { useCallback, useMemo, useState } from "react";
import { api } from "./api.js";
import { ConfirmDialog } from "./Modal.jsx";
import { Receipt } from "./Receipt.jsx";
import { Link, fillPath, navigate, useLocation } from "./router.jsx";
import { useToast } from "./Toast.jsx";
import { initialValue, toPayload, useFormState, validate } from "./formCore.js";
import { SPEC } from "../spec.gen.js";

/** The subject row the form was opened for (`?<subject param>=<id>`), if any. */
function subjectLink(workflow, query) {
  const id = workflow.subjectParam ? query.get(workflow.subjectParam) : null;
  const entity = workflow.subjectEntity ? SPEC.entities[workflow.subjectEntity] : null;
  if (!id || !entity) return null;
  return { href: fillPath(entity.detailHref, { id }), label: entity.label };
}

export function useWorkflowForm(name) {
  const workflow = SPEC.workflows[name];
  const { query } = useLocation();
  const metas = workflow.params;
  const params = useMemo(() => Object.fromEntries(metas.map((meta) => [meta.name, meta])), [metas]);
  const initial = useMemo(
    () => Object.fromEntries(metas.map((meta) => [meta.name, initialValue(meta, query)])),
    // The form page is keyed by its URL, so the query is fixed for this form's lifetime.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [metas],
  );
  const state = useFormState(initial);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [receipt, setReceipt] = useState(null);
  const toast = useToast();
  const back = subjectLink(workflow, query);

  const send = useCallback(async () => {
    setConfirming(false);
    setBusy(true);
    setReceipt(null);
    try {
      const result = await api.post(workflow.api, toPayload(metas, state.values));
      toast.success(result?.message || "Done.");
      // Opened from a row: go back to it so the change is visible; otherwise start a fresh form,
      // with a receipt of what was done under it.
      if (back) navigate(back.href);
      else {
        state.setValues(initial);
        setReceipt({ message: result?.message || "Done.", created: result?.created ?? {} });
      }
    } catch (err) {
      toast.error(err.detail || "Something went wrong.");
      // A refusal about one field also shows under that field, where the person will fix it.
      const field = err.body?.precondition ? workflow.blame?.[err.body.precondition] : null;
      if (field) state.setErrors({ [field]: err.detail });
    } finally {
      setBusy(false);
    }
  }, [workflow, metas, state, toast, back, initial]);

  const submit = useCallback((event) => {
    event.preventDefault();
    const errors = validate(metas, state.values);
    state.setErrors(errors);
    if (Object.keys(errors).length > 0) {
      toast.error("Please fix the highlighted fields.");
      return;
    }
    if (workflow.confirm) setConfirming(true);
    else send();
  }, [metas, state, toast, workflow, send]);

  const cancel = useCallback(() => setConfirming(false), []);

  return {
    workflow, params, back, busy, confirming, submit, send, cancel, receipt, dismiss: () => setReceipt(null),
    values: state.values, errors: state.errors, set: state.set,
    idPrefix: `wf-${name}`, testPrefix: name,
  };
}

export function WorkflowForm({ form, children }) {
  const { workflow } = form;
  return (
    <div className="page page-narrow">
      <div className="page-header">
        <div>
          <div className="breadcrumb">
            {form.back ? <Link to={form.back.href}>← Back to {form.back.label.toLowerCase()}</Link> : "Actions"}
          </div>
          <h1 className="page-title" id={`form-title-${workflow.name}`}>{workflow.label}</h1>
          {workflow.description && <p className="page-subtitle">{workflow.description}</p>}
        </div>
      </div>
      <form className="card form-card" data-testid={`form-${workflow.name}`} noValidate onSubmit={form.submit}
        aria-labelledby={`form-title-${workflow.name}`}>
        <div className="form-grid">{children}</div>
        <div className="form-actions">
          {form.back && <Link className="btn" to={form.back.href}>Cancel</Link>}
          <button type="submit" className="btn btn-primary" data-testid={`submit-${workflow.name}`} disabled={form.busy}>
            {form.busy ? "Working…" : workflow.label}
          </button>
        </div>
      </form>
      {form.receipt && <Receipt receipt={form.receipt} onDismiss={form.dismiss} />}
      {form.confirming && (
        <ConfirmDialog title={workflow.label} message={workflow.confirm} onConfirm={form.send} onCancel={form.cancel} />
      )}
    </div>
  );
}
