"""Faults in the React app (app/frontend/src): what the user sees or sends differs from what the app means.

    form_labels_swapped       two adjacent fields of a workflow form carry each other's label (spec.gen.js)
    filter_param_renamed      a list filter is sent under a query parameter the API does not read (spec.gen.js)
    money_scale               dollars ↔ cents converted by 10 instead of 100 (runtime/format.js)
    select_options_misaligned a select's option labels no longer match the values they submit (runtime)
    column_header_changed     a list column's header shows another column's label (spec.gen.js)
    search_sends_nothing      the list search box's text never reaches the list request (runtime/ListPage.jsx)

`factory.mutate.run.inject` rebuilds the bundle after the edit, so the served app changes.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView, replace_once
from factory.world.layout import FRONTEND

SRC = f"{FRONTEND}/src"
SPEC_JS = f"{SRC}/spec.gen.js"
FORMAT_JS = f"{SRC}/runtime/format.js"
WIDGETS_JSX = f"{SRC}/runtime/widgets.jsx"
FILTERS_JSX = f"{SRC}/runtime/FilterPanel.jsx"
LIST_JSX = f"{SRC}/runtime/ListPage.jsx"
_PREFIX = "export const SPEC = "


# ---------------------------------------------------------------- spec.gen.js


def render_spec(model: dict[str, Any]) -> str:
    """The SPEC literal as the frontend compiler writes it: sorted, indented JSON, `</` escaped."""
    return _PREFIX + json.dumps(model, sort_keys=True, indent=2, ensure_ascii=False).replace("</", "<\\/") + ";\n"


def read_spec(view: WorldView) -> tuple[str, dict[str, Any]]:
    """(text before the literal, the SPEC object) of spec.gen.js; refuses a file it could not write back as is."""
    text = view.read(SPEC_JS)
    at = text.find(_PREFIX)
    if at < 0 or not text.endswith(";\n"):
        raise MutationError(f"{SPEC_JS}: no `{_PREFIX.strip()} {{...}};` literal")
    try:
        model = json.loads(text[at + len(_PREFIX):-2])
    except json.JSONDecodeError as exc:
        raise MutationError(f"{SPEC_JS}: the SPEC literal is not JSON ({exc})") from exc
    if not isinstance(model, dict) or render_spec(model) != text[at:]:
        raise MutationError(f"{SPEC_JS}: rewriting the SPEC literal would change more than the fault")
    return text[:at], model


def spec_or_none(view: WorldView) -> dict[str, Any] | None:
    """The SPEC object, or None for a world built without its frontend (no frontend targets then)."""
    if not (view.root / SPEC_JS).is_file():
        return None
    return read_spec(view)[1]


def _write_spec(view: WorldView, head: str, model: dict[str, Any]) -> None:
    text = head + render_spec(model)
    if text == view.read(SPEC_JS):
        raise MutationError(f"{SPEC_JS}: the edit changes nothing")
    view.write(SPEC_JS, text)


def _edit_runtime(view: WorldView, rel: str, old: str, new: str) -> None:
    view.write(rel, replace_once(view.read(rel), old, new, rel))


# ---------------------------------------------------------------- form_labels_swapped


def _label_targets(view: WorldView) -> list[Target]:
    model = spec_or_none(view)
    if model is None:
        return []
    with_form = {w.name for w in view.spec.workflows if not w.system and w.form_path}
    found = []
    for name, workflow in sorted(model.get("workflows", {}).items()):
        if name not in with_form:
            continue
        params = workflow.get("params", [])
        for a, b in itertools.pairwise(params):
            if a["label"] != b["label"]:
                found.append(Target(f"{name} form: {a['name']} ↔ {b['name']} labels", (name, a["name"], b["name"])))
    return found


def _labels_swapped(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, first, second = target.ref
    head, model = read_spec(view)
    params = {p["name"]: p for p in model["workflows"][workflow]["params"]}
    if first not in params or second not in params:
        raise MutationError(f"{SPEC_JS}: the {workflow} form has no {first} or no {second}")
    a, b = params[first], params[second]
    a["label"], b["label"] = b["label"], a["label"]
    _write_spec(view, head, model)
    return Applied(f"the {workflow} form labels its {first} input {a['label']!r} and its {second} input "
                   f"{b['label']!r} ({SPEC_JS})", (SPEC_JS,))


# ---------------------------------------------------------------- filter_param_renamed


def _filters(model: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, f) for name, entity in sorted(model.get("entities", {}).items())
            for group in entity.get("filterGroups", []) for f in group["filters"]]


def _filter_targets(view: WorldView) -> list[Target]:
    model = spec_or_none(view)
    if model is None:
        return []
    return [Target(f"{entity} filter {f['field']} (?{'/'.join(f['keys'])})", (entity, f["field"]))
            for entity, f in _filters(model)]


def _renamed(keys: list[str], flt: dict[str, Any]) -> dict[str, str]:
    """old key → the key a careless frontend sends instead (ranges `_from`/`_to`, references without `_id`)."""
    if flt["kind"] in ("range", "date_range"):
        return {keys[0]: f"{flt['param']}_from", keys[1]: f"{flt['param']}_to"}
    param = flt["param"]
    return {param: param[:-3] if param.endswith("_id") else f"{param}_eq"}


def _filter_renamed(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    entity, field = target.ref
    head, model = read_spec(view)
    node = model["entities"][entity]
    flt = next((f for group in node["filterGroups"] for f in group["filters"] if f["field"] == field), None)
    if flt is None:
        raise MutationError(f"{SPEC_JS}: {entity} has no filter on {field}")
    renames = _renamed(flt["keys"], flt)
    # the rename is consistent inside the frontend (nested filters' parents and resets follow it), as a
    # generator would write it: only the API, which reads the old names, disagrees
    for group in node["filterGroups"]:
        for other in group["filters"]:
            other["keys"] = [renames.get(k, k) for k in other["keys"]]
            other["resets"] = [renames.get(k, k) for k in other.get("resets", [])]
            if other.get("parentParam") in renames:
                other["parentParam"] = renames[other["parentParam"]]
    if flt["kind"] not in ("range", "date_range"):
        flt["param"] = renames[flt["param"]]
    _write_spec(view, head, model)
    shown = ", ".join(f"?{old}= as ?{new}=" for old, new in renames.items())
    return Applied(f"the {entity} list sends its {field} filter {shown}, which the API ignores ({SPEC_JS})", (SPEC_JS,))


# ---------------------------------------------------------------- money_scale

_MONEY_SITES = {
    "majorToCents": ("Math.round(value * 100)", "Math.round(value * 10)",
                     "money typed in dollars is sent as ten times fewer cents"),
    "centsToMajor": ("return (Number(cents) / 100).toFixed(2);", "return (Number(cents) / 10).toFixed(2);",
                     "money put back into inputs (edit forms, filter bounds) shows ten times the amount"),
    "formatMoney": ("return money.format(Number(cents) / 100);", "return money.format(Number(cents) / 10);",
                    "every amount shown in tables and detail pages is ten times too large"),
}


def _uses_money(view: WorldView) -> bool:
    return any(f.type == "money" for e in view.spec.entities for f in e.fields) or \
        any(p.type == "money" for w in view.spec.workflows for p in w.params)


def _money_targets(view: WorldView) -> list[Target]:
    if not (view.root / FORMAT_JS).is_file() or not _uses_money(view):
        return []
    return [Target(f"{name} in runtime/format.js", name) for name in _MONEY_SITES]


def _money_scale(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    old, new, what = _MONEY_SITES[target.ref]
    _edit_runtime(view, FORMAT_JS, old, new)
    return Applied(f"{target.ref} converts by 10 instead of 100: {what} ({FORMAT_JS})", (FORMAT_JS,))


# ---------------------------------------------------------------- select_options_misaligned

_SELECT_SITES = {
    "form select": (WIDGETS_JSX,
                    "{(meta.values ?? []).map((value) => (\n"
                    "          <option key={value} value={value}>{humanize(value)}</option>",
                    "{(meta.values ?? []).map((value, i, all) => (\n"
                    "          <option key={value} value={all[(i + 1) % all.length]}>{humanize(value)}</option>",
                    "each option of a form's select submits the next option's value"),
    "select filter": (FILTERS_JSX,
                      "options={filter.values.map((v) => [v, humanize(v)])}",
                      "options={filter.values.map((v, i, all) => [all[(i + 1) % all.length], humanize(v)])}",
                      "each option of a list's select filter filters by the next option's value"),
    "yes/no filter": (FILTERS_JSX,
                      'options={[["true", "Yes"], ["false", "No"]]}',
                      'options={[["true", "No"], ["false", "Yes"]]}',
                      "a yes/no filter's Yes selects the rows that say no, and the other way round"),
}


def _select_targets(view: WorldView) -> list[Target]:
    model = spec_or_none(view)
    if model is None:
        return []
    filters = [f for _, f in _filters(model)]
    used = {
        # a select in a workflow form, or in an entity form (create or edit)
        "form select": any(p.get("widget") == "select" for w in model.get("workflows", {}).values()
                           for p in w.get("params", []))
        or any(f.get("widget") == "select" and f.get("editable") and (e.get("canCreate") or e.get("canUpdate"))
               for e in model.get("entities", {}).values() for f in e.get("fields", [])),
        "select filter": any(f["kind"] == "select" and f.get("values") and not f.get("parent") for f in filters),
        "yes/no filter": any(f["kind"] == "bool" for f in filters),
    }
    return [Target(f"{site} ({_SELECT_SITES[site][0].rsplit('/', 1)[-1]})", site) for site, yes in used.items() if yes]


def _select_misaligned(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    rel, old, new, what = _SELECT_SITES[target.ref]
    _edit_runtime(view, rel, old, new)
    return Applied(f"{what} ({rel})", (rel,))


# ---------------------------------------------------------------- column_header_changed


def _header_targets(view: WorldView) -> list[Target]:
    model = spec_or_none(view)
    if model is None:
        return []
    # a table no page renders (the built-in user entity's, in a world without a user list) has headers
    # nobody sees: changing one is no defect, so only listed entities are sites
    listed = {page.entity for page in view.spec.pages if page.kind == "list" and page.entity}
    found = []
    for name, entity in sorted(model.get("entities", {}).items()):
        table = entity.get("table")
        if not table or name not in listed:
            continue
        headers = _headers(entity)
        for i, (column, label) in enumerate(headers):
            replacement = next((h for _, h in headers[i + 1:] + headers[:i] if h != label), None)
            if replacement is not None:
                found.append(Target(f"{name} list {'label column' if column is None else 'column ' + column}: "
                                    f"{label!r} → {replacement!r}", (name, column)))
    return found


def _headers(entity: dict[str, Any]) -> list[tuple[str | None, str]]:
    """(column field or None for the label column, header text) in table order."""
    fields = {f["name"]: f for f in entity.get("fields", [])}
    table = entity["table"]
    return [(None, table["label"]["header"])] + [(c["name"], fields[c["name"]]["label"]) for c in table["columns"]
                                                 if not c.get("more")]  # shown before "All columns"


def _header_changed(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    entity, column = target.ref
    head, model = read_spec(view)
    node = model["entities"][entity]
    headers = _headers(node)
    at = next((i for i, (c, _) in enumerate(headers) if c == column), None)
    if at is None:
        raise MutationError(f"{SPEC_JS}: the {entity} table has no column {column}")
    old = headers[at][1]
    new = next((h for _, h in headers[at + 1:] + headers[:at] if h != old), None)
    if new is None:
        raise MutationError(f"{SPEC_JS}: every column of the {entity} table has the same header")
    if column is None:
        node["table"]["label"]["header"] = new
        what = "its label column"
    else:
        next(f for f in node["fields"] if f["name"] == column)["label"] = new
        what = f"its {column} column (and the field's label on the detail page)"
    _write_spec(view, head, model)
    return Applied(f"the {entity} list heads {what} {new!r} instead of {old!r} ({SPEC_JS})", (SPEC_JS,))


# ---------------------------------------------------------------- search_sends_nothing

_SEARCH_SITES = {
    "search box": ("onSearch={(q) => update({ q })}", "onSearch={() => update({})}",
                   "the search box never writes what is typed into the page's query"),
    "list request": ('const keys = ["q", "sort", "page"];', 'const keys = ["sort", "page"];',
                     "the list request leaves out ?q=, so the search text in the URL filters nothing"),
}


def _search_targets(view: WorldView) -> list[Target]:
    model = spec_or_none(view)
    if model is None or not any(e.get("search") for e in model.get("entities", {}).values()):
        return []
    return [Target(f"{site} (runtime/ListPage.jsx)", site) for site in _SEARCH_SITES]


def _search_nothing(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    old, new, what = _SEARCH_SITES[target.ref]
    _edit_runtime(view, LIST_JSX, old, new)
    return Applied(f"{what} ({LIST_JSX})", (LIST_JSX,))


MUTATIONS = (
    Mutation("form_labels_swapped", "frontend", _label_targets, _labels_swapped,
             "two adjacent fields of a workflow form carry each other's label"),
    Mutation("filter_param_renamed", "frontend", _filter_targets, _filter_renamed,
             "a list filter is sent under a query parameter the API does not read"),
    Mutation("money_scale", "frontend", _money_targets, _money_scale,
             "dollars and cents are converted by 10 instead of 100"),
    Mutation("select_options_misaligned", "frontend", _select_targets, _select_misaligned,
             "a select's option labels no longer match the values they submit"),
    Mutation("column_header_changed", "frontend", _header_targets, _header_changed,
             "a list column's header shows another column's label"),
    Mutation("search_sends_nothing", "frontend", _search_targets, _search_nothing,
             "the list search box's text never reaches the list request"),
)
