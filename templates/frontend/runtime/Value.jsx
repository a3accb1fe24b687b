/** One formatted field value: badges for enums and booleans, links for references, "—" for empty. */
import { formatValue, badgeTone } from "./format.js";
import { Link, fillPath } from "./router.jsx";

export function Badge({ tone, children }) {
  return <span className={`badge tone-${tone}`}>{children}</span>;
}

export function Value({ field, row, link = true }) {
  const value = row[field.key];
  const text = formatValue(field, row);
  if (field.kind === "bool") {
    return value ? <Badge tone="yes">Yes</Badge> : <Badge tone="no">No</Badge>;
  }
  if (text === "") return <span className="muted">—</span>;
  if (field.kind === "enum") return <Badge tone={badgeTone(value)}>{text}</Badge>;
  if (field.kind === "reference" && link && field.refDetail && value !== null && value !== undefined) {
    return (
      <Link to={fillPath(field.refDetail, { id: value })} onClick={(e) => e.stopPropagation()}>
        {text}
      </Link>
    );
  }
  if (field.kind === "money" || field.kind === "number") return <span className="num">{text}</span>;
  return text;
}
