/** A month calendar of the focus rows (stays, leaves, loans): each row sits on the days from its
 * start to its end, as a link to its page. Opens on the world's today; the arrows page months. */
import { useEffect, useState } from "react";
import { api, withQuery } from "./api.js";
import { Link, fillPath } from "./router.jsx";
import { SPEC } from "../spec.gen.js";

const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const SHOWN_PER_DAY = 3;
const monthTitle = new Intl.DateTimeFormat("en-US", { month: "long", year: "numeric", timeZone: "UTC" });

/** "2026-06-15" (or a datetime) → a UTC day number; null when it is not a date. */
function dayNumber(text) {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(text ?? ""));
  return match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / 86400000 : null;
}

// A day said in a label ("HIIT at Jun 1, 2026, 6:30 AM"): the calendar's cell already says it.
const SAID_DAY = /\s*(?:\b(?:at|on|from)\s+)?\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}(?:, \d{4})?(?:,? (?:at )?\d{1,2}:\d{2}(?: ?[AP]M)?)?,?/g;

/** What a cell shows of a row: the time it starts (when it has one) and its label without the day
 * the cell is ("06:30 HIIT", not "HIIT at Jun 1, 2026, 6:…"); the whole label stays its tooltip. */
function entryText(row, look) {
  const start = String(row[look.start] ?? "");
  const time = /T(\d{2}:\d{2})/.exec(start);
  const rest = String(row.label ?? "").replace(SAID_DAY, "").replace(/^[\s,·:–-]+|[\s,·:–-]+$/g, "");
  return `${time ? `${time[1]} ` : ""}${rest || row.label}`;
}

function isoDay(day) {
  return new Date(day * 86400000).toISOString().slice(0, 10);
}

/** The days a row covers: from its start up to the day before its end (a stay's nights), at
 * least its start, at most six weeks so a long span cannot flood the month. */
function coveredDays(row, look) {
  const start = dayNumber(row[look.start]);
  if (start === null) return [];
  const end = look.end ? dayNumber(row[look.end]) : null;
  const last = end !== null && end > start ? Math.min(end - 1, start + 41) : start;
  const days = [];
  for (let day = start; day <= last; day += 1) days.push(day);
  return days;
}

export function CalendarView({ entity }) {
  const look = SPEC.look;
  const today = dayNumber(SPEC.today);
  const [month, setMonth] = useState(() => {
    const d = new Date(today * 86400000);
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() };
  });
  const [data, setData] = useState(null);
  const first = Date.UTC(month.year, month.month, 1) / 86400000;
  const last = Date.UTC(month.year, month.month + 1, 0) / 86400000;
  // A month's rows by the start filter when the list has one, else the newest rows by start.
  const query = look.monthKeys
    ? { [look.monthKeys[0]]: isoDay(first - 41), [look.monthKeys[1]]: isoDay(last), page_size: 100 }
    : { sort: look.sort ?? "", page_size: 100 };
  const url = withQuery(entity.api, query);
  useEffect(() => {
    let live = true;
    api.get(url)
      .then((result) => live && setData(result))
      .catch(() => live && setData({ items: [] }));
    return () => {
      live = false;
    };
  }, [url]);

  const byDay = new Map();
  for (const row of data?.items ?? []) {
    for (const day of coveredDays(row, look)) {
      if (day < first || day > last) continue;
      if (!byDay.has(day)) byDay.set(day, []);
      byDay.get(day).push(row);
    }
  }
  const lead = (new Date(first * 86400000).getUTCDay() + 6) % 7; // Monday first
  const cells = [];
  for (let i = 0; i < lead; i += 1) cells.push(null);
  for (let day = first; day <= last; day += 1) cells.push(day);
  const step = (delta) => setMonth(({ year, month: m }) => {
    const d = new Date(Date.UTC(year, m + delta, 1));
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() };
  });
  const title = monthTitle.format(new Date(first * 86400000));
  return (
    <section className="card calendar" aria-label={`${entity.plural} calendar`} data-testid={`calendar-${entity.name}`}>
      <div className="card-head calendar-head">
        <h2 className="card-title" data-testid="calendar-month">{title}</h2>
        <div className="actions">
          <button type="button" className="btn btn-sm" aria-label="Previous month" onClick={() => step(-1)}>‹</button>
          <button type="button" className="btn btn-sm" aria-label="Next month" onClick={() => step(1)}>›</button>
        </div>
      </div>
      <div className="calendar-grid" aria-busy={!data}>
        {WEEKDAYS.map((name) => <div key={name} className="calendar-weekday" aria-hidden="true">{name}</div>)}
        {cells.map((day, i) => {
          if (day === null) return <div key={`pad-${i}`} className="calendar-day calendar-pad" />;
          const rows = byDay.get(day) ?? [];
          return (
            <div key={day} className={day === today ? "calendar-day today" : "calendar-day"}>
              <span className="calendar-date">{new Date(day * 86400000).getUTCDate()}</span>
              {rows.slice(0, SHOWN_PER_DAY).map((row) => (
                <Link key={row.id} className="calendar-entry" to={fillPath(entity.detailHref, { id: row.id })}
                  title={row.label}>{entryText(row, look)}</Link>
              ))}
              {rows.length > SHOWN_PER_DAY && <span className="calendar-more muted">+{rows.length - SHOWN_PER_DAY} more</span>}
            </div>
          );
        })}
      </div>
    </section>
  );
}
