/** Create and edit forms of an entity (POST / PATCH), laid out from its editable fields. */
import { useMemo, useState } from "react";
import { api } from "./api.js";
import { useToast } from "./Toast.jsx";
import { initialValue, rowValue, toPayload, useFormState, validate } from "./formCore.js";
import { WIDGETS } from "./widgets.jsx";

/**
 * `row` absent: a create form; present: an edit form prefilled from it.
 * `onDone(row)` runs with the backend's answer after a successful save.
 */
export function EntityForm({ entity, row = null, onDone, onCancel }) {
  const mode = row ? "update" : "create";
  const metas = useMemo(
    () => entity.fields.filter((field) => entity.formFields.includes(field.name)),
    [entity],
  );
  const params = useMemo(() => Object.fromEntries(metas.map((meta) => [meta.name, meta])), [metas]);
  const state = useFormState(
    Object.fromEntries(metas.map((meta) => [meta.name, row ? rowValue(meta, row) : initialValue(meta, null)])),
  );
  const [busy, setBusy] = useState(false);
  const toast = useToast();
  const form = {
    params, busy, values: state.values, errors: state.errors, set: state.set,
    idPrefix: `${entity.name}-${mode}`, testPrefix: entity.name,
  };

  const submit = async (event) => {
    event.preventDefault();
    const errors = validate(metas, state.values);
    state.setErrors(errors);
    if (Object.keys(errors).length > 0) {
      toast.error("Please fix the highlighted fields.");
      return;
    }
    setBusy(true);
    try {
      const saved = row
        ? await api.patch(`${entity.api}/${row.id}`, toPayload(metas, state.values, { clearEmpty: true }))
        : await api.post(entity.api, toPayload(metas, state.values));
      toast.success(row ? `${entity.label} saved.` : `${entity.label} created.`);
      onDone(saved);
    } catch (err) {
      toast.error(err.detail || "Something went wrong.");
      setBusy(false);
    }
  };

  const title = row ? `Edit ${entity.label.toLowerCase()}` : `New ${entity.label.toLowerCase()}`;
  return (
    <form className="card form-card" data-testid={`form-${entity.name}-${mode}`} noValidate onSubmit={submit}
      aria-label={title}>
      <h2 className="card-title">{title}</h2>
      <div className="form-grid">
        {metas.map((meta) => {
          const Widget = WIDGETS[meta.widget];
          return <Widget key={meta.name} form={form} param={meta.name} />;
        })}
      </div>
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel} disabled={busy}>Cancel</button>
        <button type="submit" className="btn btn-primary" data-testid={`submit-${entity.name}-${mode}`} disabled={busy}>
          {row ? "Save changes" : `Create ${entity.label.toLowerCase()}`}
        </button>
      </div>
    </form>
  );
}
