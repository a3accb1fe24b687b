/** Form state shared by workflow and entity forms: initial values, validation, API payloads. */
import { useCallback, useState } from "react";
import { centsToMajor, majorToCents } from "./format.js";

// Widgets edit strings (checkboxes edit booleans); conversion to API values happens on submit.

function isEmpty(value) {
  return value === undefined || value === null || String(value).trim() === "";
}

/** The initial value of one input: from the URL query, else the seed's default. */
export function initialValue(meta, query) {
  const fromQuery = query ? query.get(meta.name) : null;
  if (meta.widget === "checkbox") {
    return fromQuery !== null ? fromQuery === "true" || fromQuery === "1" : Boolean(meta.default);
  }
  if (fromQuery !== null) return fromQuery;
  if (meta.default === null || meta.default === undefined) return "";
  // Seed defaults are written in major units, like min and max.
  if (meta.widget === "money") return Number(meta.default).toFixed(2);
  return String(meta.default);
}

/** The editable value of one input taken from an API row (for edit forms). */
export function rowValue(meta, row) {
  const value = row[meta.key];
  if (meta.widget === "checkbox") return Boolean(value);
  if (value === null || value === undefined) return "";
  if (meta.widget === "money") return centsToMajor(value);
  if (meta.widget === "datetime" || meta.kind === "datetime") return String(value).slice(0, 19);
  return String(value);
}

/** One input's API value, or undefined when it is empty. */
function apiValue(meta, raw) {
  if (meta.widget === "checkbox") return Boolean(raw);
  if (isEmpty(raw)) return undefined;
  switch (meta.widget) {
    case "number": return Number(raw);
    case "money": return majorToCents(raw);
    case "reference": return Number(raw);
    case "datetime": return String(raw).length === 16 ? `${raw}:00` : String(raw);
    case "date_range":
      return meta.kind === "datetime" && String(raw).length === 16 ? `${raw}:00` : raw;
    default: return raw;
  }
}

/** The JSON body: empty optional inputs are left out, or sent as null when `clearEmpty` (PATCH). */
export function toPayload(metas, values, { clearEmpty = false } = {}) {
  const body = {};
  for (const meta of metas) {
    const value = apiValue(meta, values[meta.name]);
    if (value !== undefined) body[meta.key] = value;
    else if (clearEmpty) body[meta.key] = null;
  }
  return body;
}

function checkOne(meta, raw) {
  if (meta.widget === "checkbox") return null;
  if (isEmpty(raw)) return meta.required ? `${meta.label} is required.` : null;
  if (meta.widget === "number" || meta.widget === "money") {
    const value = meta.widget === "money" ? majorToCents(raw) / 100 : Number(raw);
    if (!Number.isFinite(value)) return `${meta.label} must be a number.`;
    if (meta.widget === "number" && meta.type === "int" && !Number.isInteger(value)) {
      return `${meta.label} must be a whole number.`;
    }
    if (meta.min !== null && meta.min !== undefined && value < meta.min) return `${meta.label} must be at least ${meta.min}.`;
    if (meta.max !== null && meta.max !== undefined && value > meta.max) return `${meta.label} must be at most ${meta.max}.`;
  }
  if (meta.maxLength && String(raw).length > meta.maxLength) {
    return `${meta.label} must be at most ${meta.maxLength} characters.`;
  }
  return null;
}

/** Every problem at once, keyed by input name. */
export function validate(metas, values) {
  const errors = {};
  const byName = Object.fromEntries(metas.map((meta) => [meta.name, meta]));
  for (const meta of metas) {
    const problem = checkOne(meta, values[meta.name]);
    if (problem) errors[meta.name] = problem;
    const end = meta.rangeEnd && byName[meta.rangeEnd];
    if (end && !isEmpty(values[meta.name]) && !isEmpty(values[end.name]) && values[end.name] < values[meta.name]) {
      errors[end.name] = `${end.label} must be on or after ${meta.label}.`;
    }
  }
  return errors;
}

/** Values and errors of one form; `set` clears the edited input's error. */
export function useFormState(initial) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState({});
  const set = useCallback((name, value) => {
    setValues((previous) => ({ ...previous, [name]: value }));
    setErrors((previous) => {
      if (!previous[name]) return previous;
      const next = { ...previous };
      delete next[name];
      return next;
    });
  }, []);
  return { values, setValues, errors, setErrors, set };
}
