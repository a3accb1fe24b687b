/** Value formatting shared by tables, detail pages and forms: money in cents, ISO dates, enums. */

const moneyFormats = {};
function moneyFormat(currency) {
  if (!moneyFormats[currency]) moneyFormats[currency] = new Intl.NumberFormat("en-US", { style: "currency", currency });
  return moneyFormats[currency];
}
const dateFormat = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
const dateTimeFormat = new Intl.DateTimeFormat("en-US", {
  year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZone: "UTC",
});

/** 123456 → "$1,234.56"; with currency "EUR", "€1,234.56". */
export function formatMoney(cents, currency = "USD") {
  if (cents === null || cents === undefined || cents === "") return "";
  return moneyFormat(currency || "USD").format(Number(cents) / 100);
}

/** The symbol written before an amount in a currency: "$", "€", "CA$" (as formatMoney writes it). */
export function currencySymbol(currency) {
  const part = moneyFormat(currency || "USD").formatToParts(0).find((p) => p.type === "currency");
  return part ? part.value : "$";
}

/** The currency of a money field in one row: its own, the row's currency field, else USD. */
export function currencyOf(field, row) {
  return field.currency || (field.currencyField && row ? row[field.currencyField] : null) || "USD";
}

/** Integer cents → the major-unit string a money input edits ("1234.5" → "1234.50"). */
export function centsToMajor(cents) {
  if (cents === null || cents === undefined || cents === "") return "";
  return (Number(cents) / 100).toFixed(2);
}

/** "12.345" → 1235; empty or unparsable → null. */
export function majorToCents(text) {
  if (text === null || text === undefined || String(text).trim() === "") return null;
  const value = Number(String(text).replace(/[$,\s]/g, ""));
  return Number.isFinite(value) ? Math.round(value * 100) : null;
}

// ISO dates are calendar days, not instants: format them in UTC so no timezone shifts the day.
function parseIsoDate(text) {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(String(text));
  if (!match) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0"] = match;
  return new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
}

/** "2026-06-15" → "Jun 15, 2026". */
export function formatDate(text) {
  const date = text ? parseIsoDate(text) : null;
  return date ? dateFormat.format(date) : text ?? "";
}

export function formatDateTime(text) {
  const date = text ? parseIsoDate(text) : null;
  return date ? dateTimeFormat.format(date) : text ?? "";
}

/** "in_progress" → "In progress". */
export function humanize(value) {
  const text = String(value ?? "").replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A stable colour slot (0–5) for an enum value, so the same status always gets the same badge. */
export function badgeTone(value) {
  let hash = 0;
  for (const char of String(value)) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % 6;
}

/** Plain-text rendering of one field of a row (used where markup is not wanted). */
export function formatValue(field, row) {
  const value = row[field.key];
  if (field.kind === "reference") return row[`${field.name}_label`] ?? "";
  if (value === null || value === undefined || value === "") return "";
  switch (field.kind) {
    case "money": return formatMoney(value, currencyOf(field, row));
    case "date": return formatDate(value);
    case "datetime": return formatDateTime(value);
    case "bool": return value ? "Yes" : "No";
    case "enum": return humanize(value);
    case "number": return field.code ? String(value) : Number(value).toLocaleString("en-US"); // a code: "4863"
    default: return String(value);
  }
}
