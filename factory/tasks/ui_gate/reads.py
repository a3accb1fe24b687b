"""A READ's answer, read off the page the way an agent reads it: a lookup from the open row's
detail page, a superlative from the top of the list sorted by the field's column (the first label
alphabetically among ties), a sum from the field's column over every page, formatted as the app
formats amounts. Test ids only locate elements: the answer is always the text the page displays.
"""

from __future__ import annotations

import datetime as dt
import re

from playwright.sync_api import expect

from factory.spec.labels import currency_in, money_label
from factory.spec.model import EntitySpec, FieldSpec
from factory.tasks.ui_gate.list_page import ListWatch, next_page
from factory.tasks.ui_gate.recorder import Run, query_is, url_query
from factory.tasks.ui_gate.trajectory import StepFailed, TrajectoryError, UiStep
from verifiers.normalize import normalize_date, normalize_money, normalize_number

READS = ("lookup", "count", "sum", "max", "min")
EMPTY = "—"  # what a cell shows for an empty value
# Every row of the table as [test id, label cell text, the text of the cell in column `index`].
_CELLS = """(table, index) => [...table.tBodies[0].rows].map((row) => [
  row.dataset.testid || "", row.cells[0].innerText.trim(),
  index === null ? "" : ((row.cells[index] || {}).innerText || "").trim()])"""


def read_field(entity: EntitySpec, step: UiStep) -> FieldSpec | None:
    """The field a READ step reads (None for a count); a malformed step raises."""
    if step.read is None:
        return None
    if step.read not in READS:
        raise TrajectoryError(f"unknown read {step.read!r} (one of {', '.join(READS)})")
    if step.read == "count":
        return None
    if step.field is None:
        raise TrajectoryError(f"a {step.read} read needs a field of {entity.name}")
    try:
        return entity.field_named(step.field)
    except KeyError as exc:
        raise TrajectoryError(exc.args[0]) from exc


def answer(run: Run, text: str) -> None:
    """Report the READ's answer, as an agent ends its episode."""
    run.answer = text
    run.record("answer", "the question", text)


def detail_text(run: Run, entity: EntitySpec, f: FieldSpec) -> str:
    """The text the open row's detail page shows beside the field's label."""
    detail = run.page.get_by_test_id(f"detail-{entity.name}")
    term = detail.locator("dt").filter(has_text=re.compile(rf"^\s*{re.escape(f.label)}\s*$"))
    with run.act("read", f'{entity.label.lower()} details › "{f.label}"'):
        expect(term).to_have_count(1, timeout=run.timeout_ms)
        text = term.locator("xpath=following-sibling::dd[1]").inner_text().strip()
    run.actions[-1]["value"] = text
    return text


def _column(run: Run, entity: EntitySpec, f: FieldSpec) -> int | None:
    """The index of the list column headed with the field's label, after pressing "All columns"
    when the list shows only its first ones; None when the list has no such column."""
    header = run.page.get_by_test_id(f"list-{entity.name}").get_by_role("columnheader", name=f.label, exact=True)
    toggle = run.page.get_by_test_id("columns-toggle")
    if not header.count() and toggle.count() and toggle.first.get_attribute("aria-pressed") != "true":
        with run.act("click", "All columns"):
            toggle.first.click()
            expect(toggle.first).to_have_attribute("aria-pressed", "true", timeout=run.timeout_ms)
    if not header.count():
        return None
    return int(header.first.evaluate("th => th.cellIndex"))


def _cells(run: Run, entity: EntitySpec, index: int | None, what: str) -> list[tuple[str, str, str]]:
    """The rows the table shows: (test id, label cell text, text of column `index`), one action."""
    table = run.page.get_by_test_id(f"list-{entity.name}")
    with run.act("read", f'table "{entity.plural}" › {what}'):
        rows: list[list[str]] = table.evaluate(_CELLS, index)
    run.actions[-1]["value"] = "; ".join(f"{label}: {value}" if index is not None else label
                                         for _id, label, value in rows)
    return [(test_id, label, value) for test_id, label, value in rows]


def _column_values(run: Run, entity: EntitySpec, watch: ListWatch, f: FieldSpec) -> list[tuple[str, str]]:
    """(label, shown value of `f`) of every row the list holds, page after page. A field the list
    does not show is read on each row's detail page, as a user would have to."""
    index = _column(run, entity, f)
    rows: list[tuple[str, str, str]] = []
    while True:
        rows += _cells(run, entity, index, f'column "{f.label}"' if index is not None else "rows")
        if next_page(run, watch) is None:
            break
    if index is not None:
        return [(label, value) for _id, label, value in rows]
    out: list[tuple[str, str]] = []
    for test_id, label, _value in rows:
        detail = f"/{entity.path}/{test_id.rsplit('-', 1)[-1]}"
        with run.act("goto", detail):
            run.page.goto(run.base_url + detail)
            expect(run.page.get_by_test_id(f"detail-{entity.name}")).to_be_visible(timeout=run.timeout_ms)
        out.append((label, detail_text(run, entity, f)))
    return out


def _number(f: FieldSpec, text: str) -> float | str:
    """A shown value as a reader compares it: an amount, a number, or an ISO date (or time)."""
    value: float | str | None
    if f.type == "money":  # in the currency the app wrote it in ("€12.50")
        value = normalize_money(text, currency_in(text))
    elif f.type == "date":
        value = normalize_date(text)
    elif f.type == "datetime":
        # "Jun 15, 2026, 3:00 PM"; Chromium may put a narrow no-break space before the AM/PM
        # marker, which `split` takes for a space like any other.
        try:
            value = dt.datetime.strptime(" ".join(text.split()), "%b %d, %Y, %I:%M %p").isoformat()
        except ValueError:
            value = None
    else:
        value = normalize_number(text)
    if value is None:
        raise StepFailed(f"{f.label} {text!r} cannot be read as a {f.type} value")
    return value


def _first_label(labels: list[str]) -> str:
    """The label that comes first alphabetically (the instructions' tie rule), as shown."""
    return min(labels, key=lambda label: " ".join(label.split()).casefold())


def _sort(run: Run, entity: EntitySpec, watch: ListWatch, f: FieldSpec, key: str, descending: bool) -> None:
    """Sort the list by the field's column header: one click sorts ascending, another descending."""
    want = f"-{key}" if descending else key
    current = url_query(run.page.url).get("sort") or entity.default_sort
    header = (run.page.get_by_test_id(f"list-{entity.name}").get_by_role("columnheader", name=f.label, exact=True)
              .get_by_role("button"))
    for _ in range(2):
        if current == want:
            break
        current = f"-{key}" if current == key else key
        with run.act("sort", f'columnheader "{f.label}"', "descending" if current.startswith("-") else "ascending"):
            header.first.click()
            run.wait_url(query_is("sort", current))
        watch.settle()



def superlative(run: Run, entity: EntitySpec, watch: ListWatch, f: FieldSpec, highest: bool) -> str:
    """The label of the row with the highest (lowest) shown value of `f`: the top row once the
    list is sorted by that column, or, when the list cannot sort by it, the best of every row's
    value read one by one. Rows tied on the shown value go to the first label alphabetically."""
    index = _column(run, entity, f)
    key = next((k for k in (f.column, f.name) if k in entity.sort_fields), None)
    if index is None or key is None:
        values = [(label, _number(f, text)) for label, text in _column_values(run, entity, watch, f)
                  if text not in ("", EMPTY)]
        if not values:
            raise StepFailed(f"no {entity.label.lower()} in the list shows a {f.label.lower()}")
        best = (max if highest else min)(value for _label, value in values)
        return _first_label([label for label, value in values if value == best])
    _sort(run, entity, watch, f, key, highest)
    top: str | None = None
    tied: list[str] = []
    while True:
        for _id, label, text in _cells(run, entity, index, f'column "{f.label}"'):
            if text in ("", EMPTY):  # SQLite sorts empty values first when ascending: not an answer
                continue
            if top is not None and text != top:
                return _first_label(tied)
            top = text
            tied.append(label)
        if next_page(run, watch) is None:
            break
    if not tied:
        raise StepFailed(f"no {entity.label.lower()} in the list shows a {f.label.lower()}")
    return _first_label(tied)


def shown_sum(run: Run, entity: EntitySpec, watch: ListWatch, f: FieldSpec) -> str:
    """The shown values of `f` over every listed row, added up as a person with a calculator
    would, written as the app writes that kind of value."""
    texts = [text for _label, text in _column_values(run, entity, watch, f) if text not in ("", EMPTY)]
    values = [_number(f, text) for text in texts]
    if f.type == "money":
        codes = {currency_in(text) for text in texts}
        if len(codes) > 1:
            raise StepFailed(f'the "{f.label}" amounts are in several currencies: they do not add up')
        # In cents, so that adding many amounts leaves no binary-fraction residue.
        total = money_label(sum(round(float(v) * 100) for v in values), codes.pop() if codes else None)
    else:
        total = f"{sum(int(float(v)) for v in values):,}"
    run.record("add up", f'{len(values)} values of "{f.label}"', total)
    return total
