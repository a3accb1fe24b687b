/**
 * Form widgets, one per ParamSpec.widget. Each takes the form (values, errors, set, params)
 * and a parameter name; labels are real <label htmlFor> so get_by_label(label) finds the input,
 * and the required marker sits outside the label so the accessible name is exactly the label.
 */
import { useEffect, useState } from "react";
import { api } from "./api.js";
import { currencySymbol, humanize } from "./format.js";

function ids(form, name) {
  return {
    id: `${form.idPrefix}-${name}`,
    testId: `field-${form.testPrefix}-${name}`,
    errorId: `${form.idPrefix}-${name}-error`,
  };
}

function inputProps(form, name, extra = {}) {
  const meta = form.params[name];
  const { id, testId, errorId } = ids(form, name);
  const error = form.errors[name];
  return {
    id,
    name,
    "data-testid": testId,
    "aria-required": meta.required ? "true" : undefined,
    "aria-invalid": error ? "true" : undefined,
    "aria-describedby": error ? errorId : undefined,
    disabled: form.busy,
    ...extra,
  };
}

function FieldLabel({ form, name }) {
  const meta = form.params[name];
  return (
    <div className="field-head">
      <label htmlFor={ids(form, name).id}>{meta.label}</label>
      {meta.required && <span className="required" aria-hidden="true" title="Required">*</span>}
    </div>
  );
}

function FieldError({ form, name }) {
  const error = form.errors[name];
  return error ? <div className="field-error" id={ids(form, name).errorId}>{error}</div> : null;
}

function Field({ form, name, wide = false, children }) {
  return (
    <div className={wide ? "field field-wide" : "field"}>
      <FieldLabel form={form} name={name} />
      {children}
      <FieldError form={form} name={name} />
    </div>
  );
}

function onText(form, name) {
  return (event) => form.set(name, event.target.value);
}

export function TextField({ form, param }) {
  const meta = form.params[param];
  return (
    <Field form={form} name={param}>
      <input type="text" className="input" value={form.values[param]} onChange={onText(form, param)}
        {...inputProps(form, param, { maxLength: meta.maxLength ?? undefined })} />
    </Field>
  );
}

export function EmailField({ form, param }) {
  return (
    <Field form={form} name={param}>
      <input type="email" className="input" autoComplete="email" value={form.values[param]}
        onChange={onText(form, param)} {...inputProps(form, param)} />
    </Field>
  );
}

export function TextAreaField({ form, param }) {
  const meta = form.params[param];
  return (
    <Field form={form} name={param} wide>
      <textarea className="input textarea" rows={4} value={form.values[param]} onChange={onText(form, param)}
        {...inputProps(form, param, { maxLength: meta.maxLength ?? undefined })} />
    </Field>
  );
}

function clamp(value, meta) {
  let result = value;
  if (meta.min !== null && meta.min !== undefined) result = Math.max(result, meta.min);
  if (meta.max !== null && meta.max !== undefined) result = Math.min(result, meta.max);
  return result;
}

/** A number input with − and + buttons that respect min and max. */
export function NumberField({ form, param }) {
  const meta = form.params[param];
  const raw = form.values[param];
  const step = (direction) => {
    const current = raw === "" || !Number.isFinite(Number(raw)) ? null : Number(raw);
    const base = current ?? (direction > 0 ? (meta.min ?? 0) - 1 : (meta.max ?? 0) + 1);
    form.set(param, String(clamp(base + direction, meta)));
  };
  return (
    <Field form={form} name={param}>
      <div className="stepper">
        {/* Unlabelled by the field name on purpose: get_by_label(label) must find only the input. */}
        <button type="button" className="stepper-btn" aria-label="Decrease" tabIndex={-1}
          disabled={form.busy} onClick={() => step(-1)}>−</button>
        <input type="number" className="input" inputMode="numeric" step={meta.type === "int" ? 1 : "any"}
          min={meta.min ?? undefined} max={meta.max ?? undefined} value={raw} onChange={onText(form, param)}
          {...inputProps(form, param)} />
        <button type="button" className="stepper-btn" aria-label="Increase" tabIndex={-1}
          disabled={form.busy} onClick={() => step(1)}>+</button>
      </div>
    </Field>
  );
}

/** Money in major units with its currency's symbol before it; formCore converts it to integer cents. */
export function MoneyField({ form, param }) {
  const meta = form.params[param];
  // the amount's own currency, or the one picked in the row's currency field on the same form
  const currency = meta.currency || (meta.currencyField ? form.values[meta.currencyField] : null) || "USD";
  return (
    <Field form={form} name={param}>
      <div className="affix">
        <span className="affix-text" aria-hidden="true">{currencySymbol(currency)}</span>
        <input type="number" className="input" inputMode="decimal" step="0.01" placeholder="0.00"
          min={meta.min ?? undefined} max={meta.max ?? undefined} value={form.values[param]}
          onChange={onText(form, param)} {...inputProps(form, param)} />
      </div>
    </Field>
  );
}

export function DateField({ form, param }) {
  return (
    <Field form={form} name={param}>
      <input type="date" className="input" value={form.values[param]} onChange={onText(form, param)}
        {...inputProps(form, param)} />
    </Field>
  );
}

export function DateTimeField({ form, param }) {
  return (
    <Field form={form} name={param}>
      <input type="datetime-local" className="input" step={1} value={form.values[param]}
        onChange={onText(form, param)} {...inputProps(form, param)} />
    </Field>
  );
}

/** Start and end of a date range as one widget; each input carries its own parameter's label. */
export function DateRangeField({ form, param, end }) {
  // A range of datetimes (pick-up and return moments) needs datetime-local inputs, not dates.
  const moments = form.params[param]?.kind === "datetime";
  const type = moments ? "datetime-local" : "date";
  const step = moments ? 1 : undefined;
  return (
    <div className="field field-wide">
      <div className="date-range">
        <div className="date-range-part">
          <FieldLabel form={form} name={param} />
          <input type={type} step={step} className="input" value={form.values[param]}
            onChange={onText(form, param)} max={form.values[end] || undefined} {...inputProps(form, param)} />
        </div>
        <span className="date-range-sep" aria-hidden="true">→</span>
        <div className="date-range-part">
          <FieldLabel form={form} name={end} />
          <input type={type} step={step} className="input" value={form.values[end]}
            onChange={onText(form, end)} min={form.values[param] || undefined} {...inputProps(form, end)} />
        </div>
      </div>
      <FieldError form={form} name={param} />
      <FieldError form={form} name={end} />
    </div>
  );
}

export function SelectField({ form, param }) {
  const meta = form.params[param];
  return (
    <Field form={form} name={param}>
      <select className="input select" value={form.values[param]} onChange={onText(form, param)}
        {...inputProps(form, param)}>
        <option value="">{meta.required ? "Choose…" : "None"}</option>
        {(meta.values ?? []).map((value) => (
          <option key={value} value={value}>{humanize(value)}</option>
        ))}
      </select>
    </Field>
  );
}

/** Options of a reference input: workflow option endpoints answer {items}, so do entity lists. */
function useReferenceOptions(meta, selected) {
  const [state, setState] = useState({ items: null, error: null });
  useEffect(() => {
    let live = true;
    api.get(meta.optionsUrl.includes("?") ? meta.optionsUrl : `${meta.optionsUrl}?page_size=100`)
      .then((data) => live && setState({ items: data.items ?? [], error: null }))
      .catch((err) => live && setState({ items: [], error: err.detail }));
    return () => {
      live = false;
    };
  }, [meta.optionsUrl]);
  // A preselected row the options do not offer (e.g. no longer eligible) still shows by id, so
  // submitting it gets the backend's explanation instead of a silently empty select.
  const items = state.items ?? [];
  if (selected && state.items && !items.some((item) => String(item.id) === String(selected))) {
    return { ...state, items: [...items, { id: selected, label: `#${selected}` }] };
  }
  return state;
}

export function ReferenceField({ form, param }) {
  const meta = form.params[param];
  const value = form.values[param];
  const { items, error } = useReferenceOptions(meta, value);
  return (
    <Field form={form} name={param}>
      <select className="input select" value={value} onChange={onText(form, param)} {...inputProps(form, param)}>
        <option value="">{items === null ? "Loading…" : meta.required ? "Choose…" : meta.picked ? "Picked for you" : "None"}</option>
        {(items ?? []).map((item) => (
          <option key={item.id} value={String(item.id)}>{item.label}</option>
        ))}
      </select>
      {error && <div className="field-error">Could not load options: {error}</div>}
    </Field>
  );
}

export function CheckboxField({ form, param }) {
  const meta = form.params[param];
  const { id } = ids(form, param);
  return (
    <div className="field field-check">
      <input type="checkbox" className="checkbox" checked={Boolean(form.values[param])}
        onChange={(event) => form.set(param, event.target.checked)} {...inputProps(form, param)} />
      <label htmlFor={id}>{meta.label}</label>
      <FieldError form={form} name={param} />
    </div>
  );
}

/** Widget name → component, for forms laid out from data (entity create/edit). */
export const WIDGETS = {
  text: TextField,
  textarea: TextAreaField,
  email: EmailField,
  number: NumberField,
  money: MoneyField,
  date: DateField,
  datetime: DateTimeField,
  select: SelectField,
  checkbox: CheckboxField,
  reference: ReferenceField,
  date_range: DateField,
};
