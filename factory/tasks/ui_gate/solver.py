"""The UI-feasibility gate's scripted solver: drive a task's golden trajectory through Chromium.

A trajectory is a list of `UiStep`s at the level a task generator thinks in (run a workflow with
API-level values; find rows on a list page). `solve` performs them the way a user would — the
login page, the side navigation, a row's action button, labelled form fields, the filter panel —
and records every action with the page URL after it (path and query only, so a trajectory does
not depend on the server's port) and, when asked, small JPEG screenshots. An agent-level failure
(an error toast, a missing text, a wrong total, a locator that never appears) comes back as
`Trajectory(ok=False)`, and then the last action is the one that failed, with a screenshot. Only
a malformed trajectory (an unknown workflow, parameter, entity or filter) raises.

A `find` step that answers a READ (`UiStep.read`) takes its answer from the page it reached, the
way an agent reads it, and records it as `Trajectory.answer`: a lookup reads the row's detail
page at the asked field's label; a count reads the total the pagination bar states; a
superlative sorts the list by the field's column header and reads the top row's label (the first
alphabetically among rows tied on the shown value); a sum adds up the amounts shown in the field's
column over every page, formatted as the app formats amounts. Test ids only locate elements: the
answer is always the text the page displays. Nothing here knows the expected answer.

`run_ui_jobs` runs many trajectories in parallel lanes, each one app server (rebound to each
job's own database copy through its control endpoint) and one Chromium in its own thread, and
leaves each job's final state checkpointed into its database file, readable by any grader.
"""

from __future__ import annotations

import datetime as dt
import queue
import re
import secrets
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import (
    Browser,
    Page,
    Response,
    ViewportSize,
    expect,
    sync_playwright,
)
from playwright.sync_api import Error as PlaywrightError

from factory.compiler.frontend import form_href
from factory.errors import FactoryError
from factory.runtime.browser import fill_param, launch
from factory.runtime.dbcopy import copy_db
from factory.runtime.server import AppServer
from factory.spec.model import (
    EntitySpec,
    FieldSpec,
    FilterSpec,
    ParamSpec,
    Spec,
    WorkflowSpec,
)
from factory.tasks.rows import money_text
from factory.verify.ui_session import describe_failure
from verifiers.normalize import normalize_date, normalize_money, normalize_number

VIEWPORT: ViewportSize = {"width": 1100, "height": 800}
JPEG_QUALITY = 50
LOGIN_TARGET = 'label "Username", label "Password", button "Sign in"'
TOAST = re.compile(r"^toast-(success|error)$")
# "Showing 1–5 of 12" or "No results" in the pagination bar: where the list page states its total
# (read from its `list-total` test id's `data-total` when the world has one, see _read_total).
SHOWING = re.compile(r"^(Showing \d+–\d+ of (\d+)|No results)$")  # no named group: it also runs in JS
READS = ("lookup", "count", "sum", "max", "min")
EMPTY = "—"  # what a cell shows for an empty value
# Every row of the table as [test id, label cell text, the text of the cell in column `index`].
_CELLS = """(table, index) => [...table.tBodies[0].rows].map((row) => [
  row.dataset.testid || "", row.cells[0].innerText.trim(),
  index === null ? "" : ((row.cells[index] || {}).innerText || "").trim()])"""
_ROWS_ARE = """([pattern, want]) => {
  const re = new RegExp(pattern);
  const got = [...document.querySelectorAll("[data-testid]")].map((e) => e.dataset.testid).filter((t) => re.test(t));
  return got.length === want.length && got.every((t, i) => t === want[i]);
}"""


class TrajectoryError(FactoryError):
    """A golden trajectory names a workflow, parameter, entity or filter the world does not have."""


class StepFailed(FactoryError):
    """An agent-level failure inside `solve`; it never escapes (it becomes `ok=False`)."""


@dataclass(frozen=True)
class UiStep:
    """One step of a golden trajectory, in API-level values (ids, cents, ISO dates)."""

    kind: str  # "workflow" | "find"
    workflow: str | None = None
    values: dict[str, Any] = field(default_factory=dict)
    entity: str | None = None
    filters: dict[str, Any] = field(default_factory=dict)  # field -> value, or (min, max) for ranges
    search: str | None = None
    open_id: int | None = None
    expect_total: int | None = None
    expect_text: list[str] = field(default_factory=list)
    read: str | None = None  # the READ this page answers (see READS); the answer is what it shows
    field: str | None = None  # the field a lookup, sum or superlative reads

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["filters"] = {k: list(v) if isinstance(v, tuple) else v for k, v in self.filters.items()}
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UiStep:
        filters = {k: tuple(v) if isinstance(v, list) else v for k, v in data.get("filters", {}).items()}
        return cls(**{**data, "filters": filters})


@dataclass
class Trajectory:
    """What the solver did and whether the steps went through."""

    ok: bool
    message: str  # the last toast's text, or why the trajectory failed
    actions: list[dict[str, Any]]  # {n, action, target, value, url, screenshot}
    seconds: float
    answer: str | None = None  # a READ's answer as read off the page (None: no step asked one)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "message": self.message, "answer": self.answer, "actions": self.actions,
                "seconds": self.seconds}


@dataclass(frozen=True)
class UiJob:
    """One trajectory to solve on its own database copy (which holds the final state afterwards)."""

    key: str
    db: Path
    username: str
    password: str
    steps: list[UiStep]
    shots: Path | None


def _relative(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _query(url: str) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlsplit(url).query).items()}


class _Run:
    """One `solve` call: the page, the recorded actions and the screenshots."""

    def __init__(self, page: Page, base_url: str, spec: Spec, shots: Path | None, timeout_ms: int) -> None:
        self.page, self.base_url, self.spec, self.shots, self.timeout_ms = page, base_url, spec, shots, timeout_ms
        self.actions: list[dict[str, Any]] = []
        self.message = ""
        self.answer: str | None = None

    @property
    def path(self) -> str:
        return _relative(self.page.url)

    @contextmanager
    def act(self, action: str, target: str, value: str | None = None) -> Iterator[None]:
        """Record the user action the block performs; a Playwright failure fails the step, naming the target."""
        try:
            yield
        except (PlaywrightError, AssertionError) as exc:
            self.record(action, target, value)
            raise StepFailed(f"{action} {target}: {describe_failure(exc, self.path)}") from exc
        self.record(action, target, value)

    def record(self, action: str, target: str, value: str | None) -> None:
        self.actions.append({"n": len(self.actions) + 1, "action": action, "target": target, "value": value,
                             "url": self.path, "screenshot": None})

    def wait_url(self, ready: Callable[[str], bool]) -> None:
        # The app changes its URL with the History API; Playwright sees that as a navigation.
        self.page.wait_for_url(ready, wait_until="commit", timeout=self.timeout_ms)

    def shoot(self) -> None:
        """A small JPEG of the viewport, attached to the latest action (once)."""
        if self.shots is None or not self.actions or self.actions[-1]["screenshot"]:
            return
        name = f"{self.actions[-1]['n']}.jpg"
        try:
            self.shots.mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(self.shots / name), type="jpeg", quality=JPEG_QUALITY)
        except PlaywrightError:
            return  # a crashed page cannot be photographed; the message still says what failed
        self.actions[-1]["screenshot"] = name

    def check_texts(self, texts: list[str]) -> None:
        for text in texts:
            with self.act("read", f'text "{text}"', text):
                expect(self.page.get_by_text(text).filter(visible=True).first).to_be_visible(timeout=self.timeout_ms)


# ---- workflow steps ------------------------------------------------------------------------------
def _shown(param: ParamSpec, value: Any) -> str:
    """The value as the widget takes it (money in major units, booleans as true/false)."""
    if value is None:
        return ""
    if param.widget == "money":
        return f"{int(value) / 100:.2f}"
    if param.widget == "checkbox":
        return "true" if value else "false"
    return str(value)


def _open_form(run: _Run, workflow: WorkflowSpec, values: dict[str, Any]) -> bool:
    """Reach the workflow's form like a user; True when the subject came preselected from its row."""
    page, form = run.page, run.page.get_by_test_id(f"form-{workflow.name}")
    subject_id = values.get(workflow.subject) if workflow.subject else None
    entity = run.spec.entity(workflow.subject_entity) if workflow.subject_entity else None
    if subject_id is None or entity is None or entity.builtin:  # no row page to start from: the nav's form
        with run.act("click", f'link "{workflow.label}" (nav-action-{workflow.name})'):
            page.get_by_test_id(f"nav-action-{workflow.name}").click()
            expect(form).to_be_visible(timeout=run.timeout_ms)
        return False
    detail = f"/{entity.path}/{subject_id}"
    with run.act("goto", detail):
        page.goto(run.base_url + detail)
        expect(page.get_by_test_id(f"detail-{entity.name}")).to_be_visible(timeout=run.timeout_ms)
    label = next(p.label for p in workflow.params if p.name == workflow.subject)
    with run.act("click", f'button "{workflow.label}" (action-{workflow.name})'):
        page.get_by_test_id(f"action-{workflow.name}").click()
        expect(form).to_be_visible(timeout=run.timeout_ms)
        # The form preselects the row from `?<subject>=<id>`; this also waits for the options to load.
        expect(page.get_by_label(label, exact=True)).to_have_value(str(subject_id), timeout=run.timeout_ms)
    return True


def _workflow_step(run: _Run, step: UiStep) -> None:
    workflow = next((w for w in run.spec.workflows if w.name == step.workflow), None)
    if workflow is None:
        raise TrajectoryError(f"world {run.spec.world} has no workflow {step.workflow!r}")
    unknown = sorted(set(step.values) - {p.name for p in workflow.params})
    if unknown:
        raise TrajectoryError(f"workflow {workflow.name} has no parameter(s) {unknown}")
    if form_href(workflow) is None:
        raise StepFailed(f"workflow {workflow.name} has no form in the UI (a system workflow)")
    page = run.page
    preselected = _open_form(run, workflow, step.values)
    for param in workflow.params:
        if param.name not in step.values or (preselected and param.name == workflow.subject):
            continue
        value = step.values[param.name]
        action = {"checkbox": "check", "select": "select", "reference": "select"}.get(param.widget, "fill")
        with run.act(action, f'label "{param.label}"', _shown(param, value)):
            fill_param(page, param, value)
    toast = page.get_by_test_id(TOAST)
    if toast.count():  # a toast left by an earlier step must not be read as this step's answer
        with run.act("click", 'button "Dismiss notification"'):
            page.get_by_role("button", name="Dismiss notification").click()
            expect(toast).to_have_count(0, timeout=run.timeout_ms)
    # A submitting click's action lasts until its answer shows: the success toast and the return to
    # the subject row happen together, so the URL recorded after it does not depend on timing.
    dialog = page.get_by_role("dialog")
    with run.act("click", f'button "{workflow.label}"'):
        page.get_by_test_id(f"form-{workflow.name}").get_by_role("button", name=workflow.label, exact=True).click()
        # With a confirm step, client-side validation still answers with an error toast instead.
        expect((dialog.or_(toast) if workflow.confirm else toast).first).to_be_visible(timeout=run.timeout_ms)
    if workflow.confirm and dialog.count():
        with run.act("confirm", 'dialog › button "Confirm"'):
            dialog.get_by_role("button", name="Confirm").click()
            expect(toast).to_be_visible(timeout=run.timeout_ms)
    with run.act("read", "toast"):
        run.message = toast.inner_text().strip()
        success = toast.get_attribute("data-testid") == "toast-success"
    run.actions[-1]["value"] = run.message
    if not success:
        raise StepFailed(run.message)
    run.check_texts(step.expect_text)


# ---- find steps ----------------------------------------------------------------------------------
def _filter(entity: EntitySpec, name: str) -> FilterSpec:
    try:
        return entity.filter_on(name)
    except KeyError as exc:
        raise TrajectoryError(exc.args[0]) from exc


def _depth(entity: EntitySpec, flt: FilterSpec) -> int:
    """How deep a filter is nested (a parent cycle cannot loop)."""
    depth, parent, seen = 0, flt.parent, {flt.field}
    while parent and parent not in seen:
        seen.add(parent)
        depth += 1
        parent = next((f.parent for f in entity.filters if f.field == parent), None)
    return depth


class _ListWatch:
    """The list answers the page received, so a total is read only once it matches the page's URL."""

    def __init__(self, run: _Run, entity: EntitySpec) -> None:
        self.run, self.entity, self.api = run, entity, f"/api/{entity.path}"
        self.keys = {"q", "sort", "page"}
        for f in entity.filters:
            self.keys |= {f"{f.param}_min", f"{f.param}_max"} if f.kind in ("range", "date_range") else {f.param}
        self.answers: list[Response] = []
        run.page.on("response", self._seen)

    def _seen(self, response: Response) -> None:
        if response.request.method == "GET" and urlsplit(response.url).path == self.api:
            self.answers.append(response)

    def close(self) -> None:
        self.run.page.remove_listener("response", self._seen)

    def settle(self) -> dict[str, Any]:
        """Wait for the answer to the page's current query and for the table to show its rows."""
        run = self.run
        want = {k: v for k, v in _query(run.page.url).items() if k in self.keys}
        # The list page always sends its page size; the home page's count requests send 1.
        want["page_size"] = str(self.entity.page_size)

        def answered() -> Response | None:
            return next((r for r in reversed(self.answers) if _query(r.url) == want), None)

        deadline = time.monotonic() + run.timeout_ms / 1000
        while (answer := answered()) is None:
            if time.monotonic() > deadline:
                raise StepFailed(f"the {self.entity.plural.lower()} list never answered {want} on {run.path}")
            run.page.wait_for_timeout(20)  # a readiness poll: lets Playwright deliver the events it holds
        if not answer.ok:
            raise StepFailed(f"GET {self.api} answered {answer.status} to the page on {run.path}")
        try:
            body: dict[str, Any] = answer.json()
        except PlaywrightError:  # Chromium may evict a body; the same GET with the same cookies answers alike
            body = run.page.context.request.get(answer.url).json()
        ids = [f"row-{self.entity.name}-{item['id']}" for item in body["items"]]
        try:
            run.page.wait_for_function(_ROWS_ARE, arg=[rf"^row-{re.escape(self.entity.name)}-\d+$", ids],
                                       timeout=run.timeout_ms)
        except PlaywrightError as exc:
            raise StepFailed(f"the {self.entity.plural.lower()} table never showed the rows it was sent "
                             f"on {run.path}") from exc
        return body


def _set_range(run: _Run, entity: EntitySpec, flt: FilterSpec, value: Any) -> None:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TrajectoryError(f"range filter {entity.name}.{flt.field} needs a (min, max) pair, got {value!r}")
    dates = flt.kind == "date_range"
    money = any(f.name == flt.field and f.type == "money" for f in entity.fields)
    panel = run.page.get_by_role("region", name="Filters")
    for word, suffix, bound in zip(("From", "To") if dates else ("Min", "Max"), ("min", "max"), value, strict=True):
        if bound is None:
            continue
        typed = str(bound)[:10] if dates else f"{int(bound) / 100:.2f}" if money else str(bound)
        sent = str(int(bound)) if money else typed  # the page puts cents into the URL
        label = f"{word} {flt.label.lower()}"
        with run.act("filter", f'label "{label}"', typed):
            box = panel.get_by_label(label, exact=True)
            # Typed bounds commit after the box's typing pause. Not Enter: the box's pending pause
            # would commit again later from a stale URL and drop the filters set in between.
            box.fill(typed)
            run.wait_url(_query_is(f"{flt.param}_{suffix}", sent))


def _set_filter(run: _Run, entity: EntitySpec, flt: FilterSpec, value: Any) -> None:
    if flt.kind in ("range", "date_range"):
        _set_range(run, entity, flt, value)
        return
    text = ("true" if value else "false") if flt.kind == "bool" else str(value)
    select = run.page.get_by_test_id(f"filter-{entity.name}-{flt.field}")
    with run.act("filter", f'filter "{flt.label}" (filter-{entity.name}-{flt.field})', text):
        # Options of a reference or nested filter load after the page (or after the parent changed).
        expect(select.locator("option", has_text="Loading…")).to_have_count(0, timeout=run.timeout_ms)
        select.select_option(value=text)
        run.wait_url(lambda url: _query(url).get(flt.param) == text)


def _find_step(run: _Run, step: UiStep) -> None:
    entity = next((e for e in run.spec.entities if e.name == step.entity), None)
    if entity is None:
        raise TrajectoryError(f"world {run.spec.world} has no entity {step.entity!r}")
    read = _read_field(entity, step)
    # Parents first: choosing a parent clears the filters nested under it.
    filters = sorted(((_filter(entity, name), value) for name, value in step.filters.items()),
                     key=lambda pair: _depth(entity, pair[0]))
    page, table = run.page, run.page.get_by_test_id(f"list-{entity.name}")
    watch = _ListWatch(run, entity)
    try:
        if entity.nav and not entity.builtin:
            with run.act("click", f'link "{entity.plural}" (nav-{entity.name})'):
                page.get_by_test_id(f"nav-{entity.name}").click()
                expect(table).to_be_visible(timeout=run.timeout_ms)
        else:
            with run.act("goto", f"/{entity.path}"):
                page.goto(f"{run.base_url}/{entity.path}")
                expect(table).to_be_visible(timeout=run.timeout_ms)
        if step.search:
            name = f"Search {entity.plural.lower()}"
            with run.act("search", f'searchbox "{name}"', step.search):
                box = page.get_by_role("searchbox", name=name)
                box.fill(step.search)  # commits after the typing pause (see _set_range on Enter)
                run.wait_url(lambda url: _query(url).get("q") == step.search)
        for flt, value in filters:
            _set_filter(run, entity, flt, value)
        body = watch.settle()
        if step.expect_total is not None:
            _read_total(run, entity, int(body["total"]), step.expect_total)
        if step.read == "count":
            _answer(run, str(_shown_total(run, entity)[0]))
        elif step.read == "sum":
            assert read is not None
            _answer(run, _sum(run, entity, watch, read))
        elif step.read in ("max", "min"):
            assert read is not None
            _answer(run, _superlative(run, entity, watch, read, step.read == "max"))
        if step.open_id is not None:
            _open_row(run, entity, watch, body, step.open_id)
    finally:
        watch.close()
    run.check_texts(step.expect_text)
    if step.read == "lookup":
        assert read is not None
        _answer(run, _detail_text(run, entity, read))


def _shown_total(run: _Run, entity: EntitySpec) -> tuple[int, str]:
    """The total the pagination bar states, and its text: the `list-total` test id locates the
    text when the world has one (older worlds: the "Showing 1–5 of 12" / "No results" text)."""
    bar = run.page.get_by_role("navigation", name="Pagination")
    tagged = bar.get_by_test_id("list-total")
    with run.act("read", 'navigation "Pagination"'):
        # `settle` saw the table's rows, and the bar renders with them: no wait is needed to tell.
        shown = tagged if tagged.count() else bar.get_by_text(SHOWING)
        expect(shown).to_be_visible(timeout=run.timeout_ms)
        text = shown.inner_text().strip()
    run.actions[-1]["value"] = text
    # The number a reader sees, not the element's `data-total`: a page that states a wrong total
    # must give a wrong answer.
    if text.isdigit():
        return int(text), text
    if match := SHOWING.match(text):
        return (int(match.group(2)) if match.group(2) else 0), text
    raise StepFailed(f"the {entity.plural.lower()} list states no total in {text!r}")


def _read_total(run: _Run, entity: EntitySpec, answered: int, expected: int) -> None:
    """Check the total the pagination bar states against the list's answer and the expected one."""
    total, text = _shown_total(run, entity)
    if total != answered:
        raise StepFailed(f"the {entity.plural.lower()} list says {text!r} but was sent {answered} rows")
    if total != expected:
        raise StepFailed(f"the {entity.plural.lower()} list shows {total} matching rows ({text!r}), expected {expected}")


def _next_page(run: _Run, watch: _ListWatch) -> dict[str, Any] | None:
    """Go to the list's next page like a user (its Next button); None on the last page."""
    next_page = run.page.get_by_test_id("page-next")
    if not next_page.is_enabled():
        return None
    want = str(int(_query(run.page.url).get("page") or 1) + 1)
    with run.act("click", 'button "Next →" (page-next)'):
        next_page.click()
        run.wait_url(lambda url: _query(url).get("page") == want)
    return watch.settle()


def _open_row(run: _Run, entity: EntitySpec, watch: _ListWatch, body: dict[str, Any], row_id: int) -> None:
    page = run.page
    while not any(item["id"] == row_id for item in body["items"]):
        following = _next_page(run, watch)
        if following is None:
            break
        body = following
    label = next((str(item["label"]) for item in body["items"] if item["id"] == row_id), None)
    if label is None:
        run.record("open", f"row-{entity.name}-{row_id}", None)
        raise StepFailed(f"{entity.label} #{row_id} is not in the {entity.plural.lower()} list on {run.path}")
    detail = f"/{entity.path}/{row_id}"
    with run.act("open", f'row-{entity.name}-{row_id} › link "{label}"', label):
        page.get_by_test_id(f"row-{entity.name}-{row_id}").get_by_role("link", name=label, exact=True).click()
        run.wait_url(lambda url: urlsplit(url).path == detail)
        expect(page.get_by_test_id(f"detail-{entity.name}")).to_be_visible(timeout=run.timeout_ms)


# ---- reading a READ's answer off the page --------------------------------------------------------
def _read_field(entity: EntitySpec, step: UiStep) -> FieldSpec | None:
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


def _answer(run: _Run, text: str) -> None:
    """Report the READ's answer, as an agent ends its episode."""
    run.answer = text
    run.record("answer", "the question", text)


def _detail_text(run: _Run, entity: EntitySpec, f: FieldSpec) -> str:
    """The text the open row's detail page shows beside the field's label."""
    detail = run.page.get_by_test_id(f"detail-{entity.name}")
    term = detail.locator("dt").filter(has_text=re.compile(rf"^\s*{re.escape(f.label)}\s*$"))
    with run.act("read", f'{entity.label.lower()} details › "{f.label}"'):
        expect(term).to_have_count(1, timeout=run.timeout_ms)
        text = term.locator("xpath=following-sibling::dd[1]").inner_text().strip()
    run.actions[-1]["value"] = text
    return text


def _column(run: _Run, entity: EntitySpec, f: FieldSpec) -> int | None:
    """The index of the list column headed with the field's label; None when the list has none."""
    header = run.page.get_by_test_id(f"list-{entity.name}").get_by_role("columnheader", name=f.label, exact=True)
    if not header.count():
        return None
    return int(header.first.evaluate("th => th.cellIndex"))


def _cells(run: _Run, entity: EntitySpec, index: int | None, what: str) -> list[tuple[str, str, str]]:
    """The rows the table shows: (test id, label cell text, text of column `index`), one action."""
    table = run.page.get_by_test_id(f"list-{entity.name}")
    with run.act("read", f'table "{entity.plural}" › {what}'):
        rows: list[list[str]] = table.evaluate(_CELLS, index)
    run.actions[-1]["value"] = "; ".join(f"{label}: {value}" if index is not None else label
                                         for _id, label, value in rows)
    return [(test_id, label, value) for test_id, label, value in rows]


def _column_values(run: _Run, entity: EntitySpec, watch: _ListWatch, f: FieldSpec) -> list[tuple[str, str]]:
    """(label, shown value of `f`) of every row the list holds, page after page. A field the list
    does not show is read on each row's detail page, as a user would have to."""
    index = _column(run, entity, f)
    rows: list[tuple[str, str, str]] = []
    while True:
        rows += _cells(run, entity, index, f'column "{f.label}"' if index is not None else "rows")
        if _next_page(run, watch) is None:
            break
    if index is not None:
        return [(label, value) for _id, label, value in rows]
    out: list[tuple[str, str]] = []
    for test_id, label, _value in rows:
        detail = f"/{entity.path}/{test_id.rsplit('-', 1)[-1]}"
        with run.act("goto", detail):
            run.page.goto(run.base_url + detail)
            expect(run.page.get_by_test_id(f"detail-{entity.name}")).to_be_visible(timeout=run.timeout_ms)
        out.append((label, _detail_text(run, entity, f)))
    return out


def _number(f: FieldSpec, text: str) -> float | str:
    """A shown value as a reader compares it: an amount, a number, or an ISO date (or time)."""
    value: float | str | None
    if f.type == "money":
        value = normalize_money(text)
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


def _sort(run: _Run, entity: EntitySpec, watch: _ListWatch, f: FieldSpec, key: str, descending: bool) -> None:
    """Sort the list by the field's column header: one click sorts ascending, another descending."""
    want = f"-{key}" if descending else key
    current = _query(run.page.url).get("sort") or entity.default_sort
    header = (run.page.get_by_test_id(f"list-{entity.name}").get_by_role("columnheader", name=f.label, exact=True)
              .get_by_role("button"))
    for _ in range(2):
        if current == want:
            break
        current = f"-{key}" if current == key else key
        with run.act("sort", f'columnheader "{f.label}"', "descending" if current.startswith("-") else "ascending"):
            header.first.click()
            run.wait_url(_query_is("sort", current))
        watch.settle()


def _query_is(key: str, value: str) -> Callable[[str], bool]:
    """A URL test: the query's `key` reads `value` (bound now, not when the test runs)."""
    return lambda url: _query(url).get(key) == value


def _superlative(run: _Run, entity: EntitySpec, watch: _ListWatch, f: FieldSpec, highest: bool) -> str:
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
        if _next_page(run, watch) is None:
            break
    if not tied:
        raise StepFailed(f"no {entity.label.lower()} in the list shows a {f.label.lower()}")
    return _first_label(tied)


def _sum(run: _Run, entity: EntitySpec, watch: _ListWatch, f: FieldSpec) -> str:
    """The shown values of `f` over every listed row, added up as a person with a calculator
    would, written as the app writes that kind of value."""
    values = [_number(f, text) for _label, text in _column_values(run, entity, watch, f) if text not in ("", EMPTY)]
    if f.type == "money":
        # In cents, so that adding many amounts leaves no binary-fraction residue.
        total = money_text(sum(round(float(v) * 100) for v in values))
    else:
        total = f"{sum(int(float(v)) for v in values):,}"
    run.record("add up", f'{len(values)} values of "{f.label}"', total)
    return total


def _login(run: _Run, username: str, password: str) -> None:
    """`factory.runtime.browser.login`, but a refused sign-in fails at once with the page's own message."""
    page = run.page
    shell, refused = page.get_by_test_id("logout"), page.get_by_test_id("toast-error")
    with run.act("login", LOGIN_TARGET, username):
        page.goto(f"{run.base_url}/login")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Sign in").click()
        expect(shell.or_(refused).first).to_be_visible(timeout=run.timeout_ms)
    if refused.count():
        raise StepFailed(f"login as {username} failed: {refused.inner_text().strip()}")


# ---- entry points --------------------------------------------------------------------------------
def solve(page: Page, base_url: str, spec: Spec, username: str, password: str, steps: list[UiStep],
          shots: Path | None, timeout_ms: int = 5000) -> Trajectory:
    """Log in and perform `steps` through the UI; agent-level failures come back as `ok=False`.

    Sets the page's default timeout to `timeout_ms` so that a failing step fails fast, and clears
    the context's cookies so that the trajectory starts, like an agent's, at the login page.
    """
    started = time.perf_counter()
    base_url = base_url.rstrip("/")
    page.set_default_timeout(timeout_ms)
    page.context.clear_cookies()  # the login page shows only to a visitor without a session
    if shots is not None and shots.is_dir():
        for old in shots.glob("*.jpg"):  # a rerun must not leave an earlier run's pictures behind
            if old.stem.isdigit():
                old.unlink()
    run = _Run(page, base_url, spec, shots, timeout_ms)
    ok = True
    try:
        _login(run, username, password)
        for step in steps:
            if step.kind == "workflow":
                _workflow_step(run, step)
            elif step.kind == "find":
                _find_step(run, step)
            else:
                raise TrajectoryError(f"unknown step kind {step.kind!r} (workflow or find)")
            run.shoot()
    except StepFailed as exc:
        ok, run.message = False, " ".join(str(exc).split())
        run.shoot()
    except PlaywrightError as exc:  # the page or the browser went away between actions
        ok, run.message = False, f"browser failed on {run.path}: {' '.join(str(exc).split())[:300]}"
        run.shoot()
    return Trajectory(ok=ok, message=run.message, actions=run.actions, seconds=round(time.perf_counter() - started, 3),
                      answer=run.answer)


def checkpoint(db: Path) -> None:
    """Fold a leftover write-ahead log into the database file, so that the file alone holds the state."""
    if not Path(f"{db}-wal").exists():
        return
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()  # the last connection to close also removes the -wal and -shm files


def _run_job(server: AppServer, browser: Browser, spec: Spec, park: Path, job: UiJob) -> Trajectory:
    server.use_db(job.db)
    context = browser.new_context(viewport=VIEWPORT)  # fresh cookies and storage for every job
    try:
        return solve(context.new_page(), server.url, spec, job.username, job.password, job.steps, job.shots)
    finally:
        context.close()  # no request of this job can reach the next job's database
        server.use_db(park)  # disposes the job's engine: SQLite checkpoints and lets go of the file
        checkpoint(job.db)


def run_ui_jobs(world: Path, spec: Spec, jobs: list[UiJob], workers: int = 2,
                progress: Callable[[int, int], None] | None = None) -> dict[str, Trajectory]:
    """Solve every job in `workers` lanes (one server and one Chromium each); results in job order."""
    keys = [job.key for job in jobs]
    if len(set(keys)) != len(keys):
        raise TrajectoryError("UI job keys must be unique")
    if not jobs:
        return {}
    todo: queue.Queue[UiJob] = queue.Queue()
    for job in jobs:
        todo.put(job)
    results: dict[str, Trajectory] = {}
    errors: list[BaseException] = []
    lock, stop = threading.Lock(), threading.Event()

    def lane(park: Path) -> None:
        try:
            with AppServer(world, park, control_token=secrets.token_hex(16)) as server, sync_playwright() as pw:
                browser = launch(pw)  # one Playwright per thread: its sync API must not cross threads
                try:
                    while not stop.is_set():
                        try:
                            job = todo.get_nowait()
                        except queue.Empty:
                            return
                        trajectory = _run_job(server, browser, spec, park, job)
                        with lock:
                            results[job.key] = trajectory
                            if progress is not None:
                                progress(len(results), len(jobs))
                finally:
                    browser.close()
        except BaseException as exc:  # noqa: BLE001  (handed to the calling thread, re-raised there)
            stop.set()
            errors.append(exc)

    with tempfile.TemporaryDirectory(prefix="ui-jobs-") as tmp:
        parks = [Path(tmp) / f"lane-{i}" / "park.db" for i in range(max(1, min(workers, len(jobs))))]
        for park in parks:  # between jobs a server idles on a private copy of the first job's database
            copy_db(jobs[0].db, park)
        threads = [threading.Thread(target=lane, args=(park,), name=f"ui-lane-{i}") for i, park in enumerate(parks)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    if errors:
        raise errors[0]
    return {job.key: results[job.key] for job in jobs}
