/**
 * The list page's filter panel, one section per filter group. Filters write their query
 * parameters into the page URL; a nested filter loads its options narrowed by its parent's
 * value and is cleared (with its own children) whenever the parent changes.
 */
import { useEffect, useId, useRef, useState } from "react";
import { api, withQuery } from "./api.js";
import { centsToMajor, humanize, majorToCents } from "./format.js";

/**
 * Text-like inputs commit after a pause so typing "150" does not fetch three times. Returns
 * `[text, setText, flush]`: `flush(value)` commits at once (Enter) and drops the pending pause,
 * which would otherwise commit the same text again later. A pause that does run out calls the
 * latest `commit`, never the one of the render that started it.
 */
export function useDebounced(external, commit, delay = 350) {
  const [text, setText] = useState(external);
  const timer = useRef(null);
  const latest = useRef(commit);
  useEffect(() => {
    latest.current = commit;
  });
  const cancel = () => {
    clearTimeout(timer.current);
    timer.current = null;
  };
  useEffect(() => setText(external), [external]);
  useEffect(() => {
    if (text === external) return undefined;
    timer.current = setTimeout(() => {
      timer.current = null;
      latest.current(text);
    }, delay);
    return cancel;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text]);
  const flush = (value = text) => {
    cancel();
    latest.current(value);
  };
  return [text, setText, flush];
}

function testId(entity, filter, suffix = "") {
  return `filter-${entity.name}-${filter.field}${suffix}`;
}

function FilterLabel({ htmlFor, children }) {
  return <label className="filter-label" htmlFor={htmlFor}>{children}</label>;
}

function StaticSelect({ entity, filter, query, change, id, options }) {
  return (
    <select id={id} className="input select" data-testid={testId(entity, filter)}
      value={query.get(filter.param) ?? ""} onChange={(e) => change({ [filter.param]: e.target.value })}>
      <option value="">Any</option>
      {options.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
    </select>
  );
}

/** Options from `/api/<path>/options/<field>`, narrowed by the parent filter's value. */
function OptionsSelect({ entity, filter, query, change, id }) {
  const parentValue = filter.parentParam ? query.get(filter.parentParam) ?? "" : "";
  const [options, setOptions] = useState(null);
  useEffect(() => {
    let live = true;
    const url = filter.parentParam ? withQuery(filter.optionsUrl, { [filter.parentParam]: parentValue }) : filter.optionsUrl;
    api.get(url)
      .then((data) => live && setOptions(data.values ?? []))
      .catch(() => live && setOptions([]));
    return () => {
      live = false;
    };
  }, [filter.optionsUrl, filter.parentParam, parentValue]);
  const value = query.get(filter.param) ?? "";
  const known = (options ?? []).some((option) => String(option.value) === value);
  return (
    <select id={id} className="input select" data-testid={testId(entity, filter)} value={value}
      onChange={(e) => change({ [filter.param]: e.target.value })}>
      <option value="">{options === null ? "Loading…" : "Any"}</option>
      {value && options !== null && !known && <option value={value}>{value}</option>}
      {(options ?? []).map((option) => (
        <option key={String(option.value)} value={String(option.value)}>
          {filter.kind === "select" && option.label === option.value ? humanize(option.label) : option.label}
          {typeof option.count === "number" ? ` (${option.count})` : ""}
        </option>
      ))}
    </select>
  );
}

function BoundInput({ type, value, onCommit, label, testid, money }) {
  const shown = money ? centsToMajor(value) : value;
  const commit = (text) => onCommit(money ? majorToCents(text) ?? "" : text);
  const [text, setText, flush] = useDebounced(shown, commit);
  return (
    <input type={type} className="input" aria-label={label} data-testid={testid}
      placeholder={type === "number" ? label.split(" ")[0] : undefined}
      step={money ? "0.01" : type === "number" ? "any" : undefined} value={text}
      onChange={(e) => {
        setText(e.target.value);
        // A date input only fires with a complete date, so it can commit at once.
        if (type === "date") flush(e.target.value);
      }}
      onKeyDown={(e) => e.key === "Enter" && type !== "date" && flush()} />
  );
}

/** Two bounds in a group named by the filter's visible label (`labelId`), so what is read is what is shown. */
function RangeFilter({ entity, filter, query, change, dates, labelId }) {
  const [low, high] = filter.keys;
  const words = dates ? ["From", "To"] : ["Min", "Max"];
  return (
    <div className="range" role="group" aria-labelledby={labelId} data-testid={testId(entity, filter)}>
      <BoundInput type={dates ? "date" : "number"} money={filter.money} value={query.get(low) ?? ""}
        label={`${words[0]} ${filter.label.toLowerCase()}`} testid={testId(entity, filter, "-min")}
        onCommit={(v) => change({ [low]: v })} />
      <span className="range-sep" aria-hidden="true">–</span>
      <BoundInput type={dates ? "date" : "number"} money={filter.money} value={query.get(high) ?? ""}
        label={`${words[1]} ${filter.label.toLowerCase()}`} testid={testId(entity, filter, "-max")}
        onCommit={(v) => change({ [high]: v })} />
    </div>
  );
}

function FilterControl({ entity, filter, query, onChange }) {
  const id = useId();
  // Changing a filter clears every filter nested under it: their options no longer apply.
  const change = (changes) => {
    const resets = Object.fromEntries(filter.resets.map((key) => [key, ""]));
    onChange({ ...resets, ...changes });
  };
  const props = { entity, filter, query, change, id };
  let control;
  if (filter.kind === "range" || filter.kind === "date_range") {
    return (
      <div className="filter">
        <span className="filter-label" id={id}>{filter.label}</span>
        <RangeFilter {...props} labelId={id} dates={filter.kind === "date_range"} />
      </div>
    );
  }
  if (filter.kind === "bool") {
    control = <StaticSelect {...props} options={[["true", "Yes"], ["false", "No"]]} />;
  } else if (filter.kind === "select" && filter.values && !filter.parent) {
    control = <StaticSelect {...props} options={filter.values.map((v) => [v, humanize(v)])} />;
  } else {
    control = <OptionsSelect {...props} />;
  }
  return (
    <div className="filter">
      <FilterLabel htmlFor={id}>{filter.label}</FilterLabel>
      {control}
    </div>
  );
}

export function FilterPanel({ entity, query, onChange, onClear }) {
  const active = entity.filterGroups.some((group) =>
    group.filters.some((filter) => filter.keys.some((key) => query.get(key))));
  return (
    <section className="filter-panel" aria-label="Filters">
      {entity.filterGroups.map((group) => (
        <div className="filter-group" key={group.group}>
          <h3 className="filter-group-title">{group.group}</h3>
          <div className="filter-row">
            {group.filters.map((filter) => (
              <FilterControl key={filter.field} entity={entity} filter={filter} query={query} onChange={onChange} />
            ))}
          </div>
        </div>
      ))}
      {active && (
        <button type="button" className="btn btn-link" onClick={onClear}>Clear filters</button>
      )}
    </section>
  );
}
