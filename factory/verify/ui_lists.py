"""Browser scripts on list pages: filters, search, pagination and the table's column headers.

  filter             one filter (or the search box), set through its visible control, makes the
                     list show exactly the rows the claims compiler computed from the seed
                     database (ids in order, and the total the page states);
  date_range_filter  both dates of a date-range filter reach the list request and narrow the rows;
  nested_filter      a parent filter's value narrows the child filter's options and the rows;
  pagination         Next walks to "Page N of N" and the last page holds the remaining rows.
Controls are found as a person finds them: a select by its label, a range by the group its label
names, the search box by its role; an option by its words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import partial
from typing import Any
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Response, expect
from pydantic import model_validator

from factory.spec.model import EntitySpec, FilterSpec
from factory.verify.ui_session import (
    ScriptArgs,
    Session,
    UiCheckFailed,
    checked,
    choose_option,
    settle,
    spoken_text,
    visible,
)


class DateRangeArgs(ScriptArgs):
    entity: str
    field: str
    min: str
    max: str


class NestedFilterArgs(ScriptArgs):
    entity: str
    parent: str
    child: str
    parent_value: str | int


class PaginationArgs(ScriptArgs):
    entity: str


# ---- shared list-page steps --------------------------------------------------------------------
def _is_list_response(entity: EntitySpec) -> Callable[[Response], bool]:
    api_path = f"/api/{entity.path}"
    return lambda response: response.request.method == "GET" and urlsplit(response.url).path == api_path


def _query(response: Response) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlsplit(response.url).query).items()}


def _open_list(session: Session, entity: EntitySpec) -> dict[str, Any]:
    """Open the entity's list page and return the list answer the page itself received."""
    # The home page asks every list for its count; leaving it first means its answers, aborted
    # by the navigation, cannot be mistaken for the list page's own request.
    session.page.goto("about:blank")
    try:
        with session.page.expect_response(_is_list_response(entity), timeout=session.timeout_ms) as first:
            session.page.goto(f"{session.base_url}/{entity.path}")
    except PlaywrightError as exc:
        raise UiCheckFailed(f"list page /{entity.path} never requested /api/{entity.path}: "
                            f"{str(exc).splitlines()[0]}") from exc
    return _response_json(session, first.value)


def _response_json(session: Session, response: Response) -> dict[str, Any]:
    """The body of a list answer the page received (asked again if the browser dropped it)."""
    if not response.ok:
        raise UiCheckFailed(f"{response.request.method} {urlsplit(response.url).path} answered {response.status} "
                            f"to the page")
    try:
        body: dict[str, Any] = response.json()
    except PlaywrightError:
        # Chromium may evict a body before it is read; the same GET with the same cookies answers alike.
        url = urlsplit(response.url)
        body = session.api_json(url.path, dict(_query(response)))
    return body


def _rows(session: Session, entity: EntitySpec) -> Locator:
    table = session.page.get_by_test_id(f"list-{entity.name}")
    return table.get_by_test_id(re.compile(rf"^row-{re.escape(entity.name)}-\d+$"))


def _expect_rows(session: Session, entity: EntitySpec, items: list[dict[str, Any]]) -> None:
    """The table shows exactly the rows of the page's latest list answer."""
    rows = _rows(session, entity)
    for item in items:  # each expected row appears (the table re-renders after the answer)...
        row = session.page.get_by_test_id(f"row-{entity.name}-{item['id']}")
        checked(f"row {item['id']} of the list answer is not in the table", session, visible(row, session.timeout_ms))
    # ...and nothing else does.
    checked(f"the table does not show exactly the {len(items)} rows of the list answer", session,
            lambda: expect(rows).to_have_count(len(items), timeout=session.timeout_ms))


def _filter(entity: EntitySpec, field_name: str) -> FilterSpec:
    try:
        return entity.filter_on(field_name)
    except KeyError as exc:
        raise ValueError(exc.args[0]) from exc


def _column(entity: EntitySpec, field_name: str) -> str:
    return next(f.column for f in entity.fields if f.name == field_name)


def _panel(session: Session) -> Locator:
    return session.page.get_by_role("region", name="Filters")

def _within(value: Any, low: str, high: str) -> bool:
    """Dates compare as ISO text; a datetime row is judged by its day, as the date inputs set days."""
    return isinstance(value, str) and low <= value[:len(low)] and value[:len(high)] <= high


def script_date_range_filter(session: Session, raw: dict[str, Any]) -> str:
    args = DateRangeArgs.model_validate(raw)
    entity = session.spec.entity(args.entity)
    flt = _filter(entity, args.field)
    if flt.kind != "date_range":
        raise ValueError(f"filter {entity.name}.{flt.field} is a {flt.kind} filter, not a date range")
    column = _column(entity, flt.field)
    low_key, high_key = f"{flt.param}_min", f"{flt.param}_max"
    unfiltered = _open_list(session, entity)

    seen: list[str] = []
    session.page.on("request", lambda request: seen.append(urlsplit(request.url).query)
                    if urlsplit(request.url).path == f"/api/{entity.path}" else None)
    group = _panel(session).get_by_role("group", name=flt.label)
    low = group.get_by_test_id(f"filter-{entity.name}-{flt.field}-min")
    high = group.get_by_test_id(f"filter-{entity.name}-{flt.field}-max")
    low.fill(args.min[:10])

    def carries_both(response: Response) -> bool:
        return _is_list_response(entity)(response) and bool(_query(response).get(low_key)) \
            and bool(_query(response).get(high_key))

    try:
        with session.page.expect_response(carries_both, timeout=session.timeout_ms) as answer:
            high.fill(args.max[:10])
    except PlaywrightError as exc:
        raise UiCheckFailed(f"no list request carried both {low_key} and {high_key} after setting "
                            f"{flt.label!r} to {args.min}..{args.max} (requests: {seen[-3:]})") from exc
    sent = _query(answer.value)
    if (sent[low_key], sent[high_key]) != (args.min[:10], args.max[:10]):
        raise UiCheckFailed(f"the list request sent {low_key}={sent[low_key]} {high_key}={sent[high_key]}, "
                            f"expected {args.min[:10]} and {args.max[:10]}")
    filtered = _response_json(session, answer.value)
    outside = [item for item in filtered["items"] if not _within(item.get(column), args.min[:10], args.max[:10])]
    if outside:
        raise UiCheckFailed(f"{len(outside)} row(s) outside {args.min}..{args.max} on {column}, "
                            f"e.g. row {outside[0]['id']} with {outside[0].get(column)!r}")
    if filtered["total"] >= unfiltered["total"]:
        raise UiCheckFailed(f"the date range {args.min}..{args.max} on {flt.label!r} did not narrow the list "
                            f"({filtered['total']} of {unfiltered['total']} rows)")
    _expect_rows(session, entity, filtered["items"])
    settle(session)
    return f"{flt.label} {args.min}..{args.max}: {filtered['total']} of {unfiltered['total']} rows"


def _option_values(select: Locator) -> list[str]:
    values: list[str] = select.locator("option").evaluate_all("options => options.map((o) => o.value)")
    return [value for value in values if value != ""]


_OPTIONS_ARE = """([select, want]) => {
  const got = [...select.options].map((o) => o.value).filter((v) => v !== "").sort();
  return got.length === want.length && got.every((v, i) => v === want[i]);
}"""


def script_nested_filter(session: Session, raw: dict[str, Any]) -> str:
    args = NestedFilterArgs.model_validate(raw)
    entity = session.spec.entity(args.entity)
    parent, child = _filter(entity, args.parent), _filter(entity, args.child)
    if child.parent != parent.field:
        raise ValueError(f"filter {entity.name}.{child.field} is not nested under {parent.field}")
    value = str(args.parent_value)
    _open_list(session, entity)
    panel = _panel(session)
    parent_select = panel.get_by_label(parent.label, exact=True)
    child_select = panel.get_by_label(child.label, exact=True)
    checked(f"parent filter {parent.label!r} is not on the list page", session,
            lambda: expect(parent_select).to_be_visible(timeout=session.timeout_ms))
    # The select first says "Loading…" while its options are fetched.
    checked(f"parent filter {parent.label!r} never finished loading its options", session,
            lambda: expect(parent_select.locator("option", has_text="Loading…")).to_have_count(0, timeout=session.timeout_ms))
    offered = _option_values(parent_select)
    if value not in offered:
        raise UiCheckFailed(f"parent filter {parent.label!r} does not offer {value!r} on {session.path} "
                            f"(offers {offered[:8]})")

    options_path = f"/api/{entity.path}/options/{child.field}"
    everything = {str(v["value"]) for v in session.api_json(options_path)["values"]}
    narrowed = sorted(str(v["value"]) for v in session.api_json(options_path, {parent.param: value})["values"])

    def listed_with_parent(response: Response) -> bool:
        return _is_list_response(entity)(response) and _query(response).get(parent.param) == value

    try:
        with session.page.expect_response(listed_with_parent, timeout=session.timeout_ms) as answer:
            parent_select.select_option(value=value)
    except PlaywrightError as exc:
        raise UiCheckFailed(f"choosing {value!r} in {parent.label!r} sent no list request with "
                            f"{parent.param}={value}") from exc
    try:
        session.page.wait_for_function(_OPTIONS_ARE, arg=[child_select.element_handle(), narrowed],
                                       timeout=session.timeout_ms)
    except PlaywrightError as exc:
        raise UiCheckFailed(f"child filter {child.label!r} offers {sorted(_option_values(child_select))[:8]} after "
                            f"{parent.label}={value!r}; {options_path}?{parent.param}={value} returns {narrowed[:8]}") from exc
    if not set(narrowed) < everything:
        raise UiCheckFailed(f"{parent.label}={value!r} does not narrow {child.label!r}: {len(narrowed)} of "
                            f"{len(everything)} options remain")

    listed = _response_json(session, answer.value)
    parent_column = _column(entity, parent.field)
    wrong = [item for item in listed["items"] if str(item.get(parent_column)) != value]
    if wrong:
        raise UiCheckFailed(f"{len(wrong)} row(s) shown after {parent.label}={value!r} have another {parent_column}, "
                            f"e.g. row {wrong[0]['id']} with {wrong[0].get(parent_column)!r}")
    if not listed["items"]:
        raise UiCheckFailed(f"no rows shown after {parent.label}={value!r} although the filter offers it")
    _expect_rows(session, entity, listed["items"])
    settle(session)
    return f"{parent.label}={value!r}: {child.label} narrows to {len(narrowed)} of {len(everything)}"


def script_pagination(session: Session, raw: dict[str, Any]) -> str:
    args = PaginationArgs.model_validate(raw)
    entity = session.spec.entity(args.entity)
    size = entity.page_size
    total = int(session.api_json(f"/api/{entity.path}", {"page_size": size})["total"])
    pages = max(1, math.ceil(total / size))
    _open_list(session, entity)
    info = session.page.get_by_test_id("page-info")
    next_button = session.page.get_by_test_id("page-next")
    checked("the list page shows no page indicator at page 1", session,
            lambda: expect(info).to_contain_text(re.compile(r"Page 1 of \d+"), timeout=session.timeout_ms))
    current = 1
    while next_button.is_enabled():
        if current >= pages:
            raise UiCheckFailed(f"Next is still enabled on page {current} although {total} rows make "
                                f"{pages} page(s) of {size}")
        next_button.click()
        current += 1
        checked(f"Next did not move to page {current}", session,
                partial(expect(info).to_contain_text, f"Page {current} of", timeout=session.timeout_ms))
    checked(f"the page indicator does not end at 'Page {pages} of {pages}' ({total} rows, {size} per page)", session,
            lambda: expect(info).to_have_text(f"Page {pages} of {pages}", timeout=session.timeout_ms))
    last = total - (pages - 1) * size
    checked(f"the last page does not show {last} row(s)", session,
            lambda: expect(_rows(session, entity)).to_have_count(last, timeout=session.timeout_ms))
    settle(session)
    return f"{pages} page(s) of {size}, {last} row(s) on the last"


# ---- filter: one filter set as a person sets it, the rows the seed database says -----------------
class FilterStep(ScriptArgs):
    """One thing a person does on the list page: choose an option, type a range, or search."""

    field: str | None = None  # the filter's field; None for the list's search box
    option: str | None = None  # the words of the option to choose (select, reference, bool)
    min: str | None = None  # what is typed into the range's first input (dollars for money)
    max: str | None = None
    text: str | None = None  # what is typed into the search box

    @model_validator(mode="after")
    def _one_action(self) -> FilterStep:
        ranged = self.min is not None or self.max is not None
        if self.field is None and (self.text is None or self.option is not None or ranged):
            raise ValueError("a search step types `text` and nothing else")
        if self.field is not None and (self.text is not None or (self.option is None) == (not ranged)):
            raise ValueError(f"the step on {self.field} chooses an `option` or types `min`/`max`, exactly one of them")
        return self


class FilterArgs(ScriptArgs):
    entity: str
    steps: list[FilterStep]
    ids: list[int]  # the rows the first page must show, in order
    total: int  # the number of matching rows
    where: str = ""  # what the rows are, in words (for the failure message)


def _step_text(entity: EntitySpec, step: FilterStep) -> str:
    if step.field is None:
        return f"searching for {step.text!r}"
    label = _filter(entity, step.field).label
    if step.option is not None:
        return f"choosing {step.option!r} in {label!r}"
    return f"setting {label!r} to {step.min or '…'}..{step.max or '…'}"


Typed = list[tuple[str, Locator, str]]  # (what it is, the input, the text typed into it)


def _apply(session: Session, entity: EntitySpec, step: FilterStep) -> Typed:
    """Do one step through the page's visible controls; returns the inputs typed into."""
    main = session.page.get_by_role("main")
    if step.field is None:
        box = main.get_by_role("searchbox")
        checked(f"the list page {session.path} has no search box", session,
                lambda: expect(box.first).to_be_visible(timeout=session.timeout_ms))
        if box.count() != 1:
            raise UiCheckFailed(f"the list page {session.path} has {box.count()} search boxes")
        box.fill(step.text or "")
        box.press("Enter")  # commits at once instead of after the typing pause
        return [("the search box", box, step.text or "")]
    flt = _filter(entity, step.field)
    panel = _panel(session)
    if step.option is not None:
        if flt.kind in ("range", "date_range"):
            raise ValueError(f"filter {entity.name}.{flt.field} is a {flt.kind}: it takes min/max, not an option")
        control = panel.get_by_label(flt.label, exact=True)
        checked(f"the filter panel has no control labelled {flt.label!r}", session,
                lambda: expect(control.first).to_be_visible(timeout=session.timeout_ms))
        if control.count() != 1:
            raise UiCheckFailed(f"{control.count()} filter controls are labelled {flt.label!r} on {session.path}")
        tag = str(control.evaluate("(element) => element.tagName")).lower()
        if tag != "select":
            raise UiCheckFailed(f"the label {flt.label!r} leads to a <{tag}>, not to the filter's list of options")
        choose_option(session, control, step.option, f"the filter {flt.label!r}")
        return []
    if flt.kind not in ("range", "date_range"):
        raise ValueError(f"filter {entity.name}.{flt.field} is a {flt.kind} filter: it takes an option, not min/max")
    group = panel.get_by_role("group", name=flt.label, exact=True)
    checked(f"the filter panel has no range named {flt.label!r}", session,
            lambda: expect(group.first).to_be_visible(timeout=session.timeout_ms))
    inputs = group.first.locator("input")
    if inputs.count() != 2:
        raise UiCheckFailed(f"the range {flt.label!r} has {inputs.count()} inputs, not a lower and an upper one")
    typed: Typed = []
    for index, value, end in ((0, step.min, "lower"), (1, step.max, "upper")):
        if value is None:
            continue
        inputs.nth(index).fill(value)
        if flt.kind == "range":
            inputs.nth(index).press("Enter")  # number inputs commit after a pause otherwise
        typed.append((f"the {end} bound of {flt.label!r}", inputs.nth(index), value))
    return typed


def _still_shows(session: Session, typed: Typed) -> None:
    """Once the list has answered, every input still reads what was typed: the page writes the
    value back from its URL (dollars from cents), and a person would see any difference."""
    for what, box, text in typed:
        shown = box.input_value()
        if shown != text:
            raise UiCheckFailed(f"{what} reads {shown!r} once the list has loaded, but {text!r} was typed")


# Reads the table as shown once its answer is in: the row ids in order and the stated total.
_SHOWN = """([tableId, prefix]) => {
  const table = document.querySelector(`[data-testid="${tableId}"]`);
  const rows = table ? [...table.querySelectorAll(`[data-testid^="${prefix}"]`)] : [];
  const ids = rows.map((row) => row.getAttribute("data-testid").slice(prefix.length))
    .filter((rest) => /^\\d+$/.test(rest)).map(Number);
  const total = document.querySelector('[data-testid="list-total"]');
  return {table: Boolean(table), busy: table ? table.getAttribute("aria-busy") === "true" : true, ids,
          total: total ? Number(total.getAttribute("data-total")) : null};
}"""

_SHOWS = """([tableId, prefix, ids, total]) => {
  const shown = (""" + _SHOWN + """)([tableId, prefix]);
  return !shown.busy && (shown.total === null || shown.total === total)
    && shown.ids.length === ids.length && shown.ids.every((id, i) => id === ids[i]);
}"""


def _expect_list(session: Session, entity: EntitySpec, ids: list[int], total: int, what: str) -> None:
    """Wait until the table shows exactly `ids` (in order) and the page states `total`."""
    key = [f"list-{entity.name}", f"row-{entity.name}-"]
    try:
        session.page.wait_for_function(_SHOWS, arg=[*key, ids, total], timeout=session.timeout_ms)
    except PlaywrightError as exc:
        shown: dict[str, Any] = session.page.evaluate(_SHOWN, key)
        if not shown["table"]:
            raise UiCheckFailed(f"after {what} the list page {session.path} shows no table") from exc
        stated = "no total" if shown["total"] is None else f"a total of {shown['total']}"
        busy = " (still loading)" if shown["busy"] else ""
        raise UiCheckFailed(f"after {what} the list shows {len(shown['ids'])} row(s) {shown['ids'][:8]} and {stated}"
                            f"{busy}; expected {total} row(s), first {ids[:8]}") from exc


def script_filter(session: Session, raw: dict[str, Any]) -> str:
    args = FilterArgs.model_validate(raw)
    entity = session.spec.entity(args.entity)
    _open_list(session, entity)
    typed: Typed = []
    for step in args.steps:
        typed += _apply(session, entity, step)
    what = " then ".join(_step_text(entity, step) for step in args.steps)
    where = f" ({args.where})" if args.where else ""
    _expect_list(session, entity, args.ids, args.total, what + where)
    _still_shows(session, typed)
    settle(session)
    return f"{what}: {args.total} row(s), as in the seed database"


# ---- the table's column headers ----------------------------------------------------------------
def check_columns(session: Session, expected: list[str]) -> None:
    """The list page's table heads its columns with exactly the `expected` words, in order."""
    table = session.page.get_by_role("main").get_by_role("table")
    checked(f"no table on {session.path}", session, lambda: expect(table.first).to_be_visible(timeout=session.timeout_ms))
    headers = [spoken_text(header) for header in table.first.get_by_role("columnheader").all()]
    if headers != expected:
        raise UiCheckFailed(f"the table on {session.path} heads its columns {headers}, the spec names them {expected}")
