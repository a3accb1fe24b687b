"""The verifier's browser side: run a claim's `UiGetter` script in a fresh Chromium context.

Every call opens its own browser context (no cookies or storage carried over), signs in through
the login page, runs one script and judges it. A claim that does not hold is an `UiOutcome` with
`ok=False` and a one-line message naming the locator or expectation that failed; only
programming errors (an unknown entity, malformed script arguments) raise.

Scripts, by `UiGetter.script`:
  page               the page renders a heading in its main area and is not the not-found page;
  workflow           the workflow's form, filled and submitted, shows the success toast;
  date_range_filter  both dates of a date-range filter reach the list request and narrow the rows;
  nested_filter      a parent filter's value narrows the child filter's options and the rows;
  pagination         Next walks to "Page N of N" and the last page holds the remaining rows.
Console errors (`console` of type error and uncaught page errors) fail every script.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field as dataclass_field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Locator, Page, Response, ViewportSize, expect
from playwright.sync_api import Error as PlaywrightError
from pydantic import BaseModel, ConfigDict, Field

from factory.browser import login, run_workflow
from factory.claims.model import UiGetter
from factory.spec.model import EntitySpec, FilterSpec, Spec

VIEWPORT: ViewportSize = {"width": 1280, "height": 800}


@dataclass
class UiOutcome:
    """What one browser script found."""

    ok: bool
    message: str  # why it failed (or a short success note); one line, actionable
    console_errors: list[str]
    screenshot: str | None  # a PNG taken at the end: always on failure, on success if asked
    page_url: str


class UiCheckFailed(Exception):
    """A script's check did not hold; the message is the claim's failure message."""


class ErrorToast(UiCheckFailed):
    """The app answered a workflow with its error toast; the message is the toast text, verbatim."""


# ---- script arguments: the claims compiler writes them, so a mismatch is a programming error --
class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PageArgs(_Args):
    path: str
    buttons: list[str] = Field(default_factory=list)  # test ids of actions the page must offer


class WorkflowArgs(_Args):
    workflow: str
    values: dict[str, Any] = Field(default_factory=dict)


class DateRangeArgs(_Args):
    entity: str
    field: str
    min: str
    max: str


class NestedFilterArgs(_Args):
    entity: str
    parent: str
    child: str
    parent_value: str | int


class PaginationArgs(_Args):
    entity: str


@dataclass
class _Session:
    """One signed-in browser context and what the script needs to drive it."""

    context: BrowserContext
    page: Page
    base_url: str
    spec: Spec
    timeout_ms: int
    console_errors: list[str] = dataclass_field(default_factory=list)

    @property
    def path(self) -> str:
        return urlsplit(self.page.url).path or "/"

    def api_json(self, path: str, params: dict[str, str | int] | None = None) -> Any:
        """GET an API path with the page's cookies (the same user the page acts as)."""
        response = self.context.request.get(f"{self.base_url}{path}", params=params)
        if not response.ok:
            raise UiCheckFailed(f"GET {path} {params or ''} answered {response.status}: {response.text()[:200]}")
        return response.json()


# ---- error descriptions ----------------------------------------------------------------------
_LOCATOR_FORMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r'^get_by_label\("(?P<name>[^"]*)"'), 'label "{name}"'),
    (re.compile(r'^get_by_test_id\("(?P<name>[^"]*)"\)$'), 'test id "{name}"'),
    (re.compile(r'^get_by_role\("(?P<role>\w+)", name="(?P<name>[^"]*)"'), '{role} "{name}"'),
    (re.compile(r'^get_by_role\("(?P<role>\w+)"\)$'), "a {role}"),
    (re.compile(r'^get_by_text\("(?P<name>[^"]*)"'), 'text "{name}"'),
]
_LOCATOR_PART = re.compile(r'(?:get_by_\w+|locator)\((?:[^()"]|"[^"]*")*\)')


def _friendly(locator: str) -> str:
    """`get_by_label("Amount", exact=True)` → `label "Amount"`; chains read outer › inner."""
    return " › ".join(_friendly_part(part) for part in _LOCATOR_PART.findall(locator) or [locator])


def _friendly_part(part: str) -> str:
    for pattern, template in _LOCATOR_FORMS:
        match = pattern.match(part)
        if match:
            return template.format(**match.groupdict())
    return part


def describe_failure(exc: PlaywrightError | AssertionError, path: str) -> str:
    """One line out of a Playwright timeout or a failed `expect`, naming the locator and the page."""
    text = str(exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # The call log's first "waiting for <locator>" names the element; later ones describe states.
    waiting = re.findall(r"waiting for ((?:get_by_|locator\(|frame_locator\().+)$", text, flags=re.MULTILINE)
    target = _friendly(waiting[0].strip()) if waiting else None
    if isinstance(exc, AssertionError):
        if target and "element(s) not found" in text:
            return f"{target} not found on {path}"
        actual = next((line.removeprefix("Actual value:").strip() for line in lines if line.startswith("Actual value:")), "")
        expectation = lines[0].removeprefix("Locator ") if lines else "expectation failed"
        where = f"{target}: " if target else ""
        return f"{where}{expectation}, got {actual or 'nothing'} on {path}"
    if target and "did not find some options" in text:
        return f"{target} does not offer the requested option on {path}"
    if target and "locator resolved to" not in text:
        return f"{target} not found on {path}"
    head = lines[0] if lines else type(exc).__name__
    return f"{head} ({target}) on {path}" if target else f"{head} on {path}"


def _checked(what: str, session: _Session, check: Callable[[], None]) -> None:
    """Run one `expect`, turning its failure into a message that starts with what was expected."""
    try:
        check()
    except AssertionError as exc:
        raise UiCheckFailed(f"{what}: {describe_failure(exc, session.path)}") from exc


# ---- shared list-page steps --------------------------------------------------------------------
def _is_list_response(entity: EntitySpec) -> Callable[[Response], bool]:
    api_path = f"/api/{entity.path}"
    return lambda response: response.request.method == "GET" and urlsplit(response.url).path == api_path


def _query(response: Response) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlsplit(response.url).query).items()}


def _open_list(session: _Session, entity: EntitySpec) -> dict[str, Any]:
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


def _response_json(session: _Session, response: Response) -> dict[str, Any]:
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


def _rows(session: _Session, entity: EntitySpec) -> Locator:
    table = session.page.get_by_test_id(f"list-{entity.name}")
    return table.get_by_test_id(re.compile(rf"^row-{re.escape(entity.name)}-\d+$"))


def _expect_rows(session: _Session, entity: EntitySpec, items: list[dict[str, Any]]) -> None:
    """The table shows exactly the rows of the page's latest list answer."""
    rows = _rows(session, entity)
    for item in items:  # each expected row appears (the table re-renders after the answer)...
        _checked(f"row {item['id']} of the list answer is not in the table", session,
                 lambda item=item: expect(session.page.get_by_test_id(f"row-{entity.name}-{item['id']}"))
                 .to_be_visible(timeout=session.timeout_ms))
    # ...and nothing else does.
    _checked(f"the table does not show exactly the {len(items)} rows of the list answer", session,
             lambda: expect(rows).to_have_count(len(items), timeout=session.timeout_ms))


def _filter(entity: EntitySpec, field_name: str) -> FilterSpec:
    try:
        return entity.filter_on(field_name)
    except KeyError as exc:
        raise ValueError(exc.args[0]) from exc


def _column(entity: EntitySpec, field_name: str) -> str:
    return next(f.column for f in entity.fields if f.name == field_name)


def _panel(session: _Session) -> Locator:
    return session.page.get_by_role("region", name="Filters")


# ---- scripts -----------------------------------------------------------------------------------
def _settle(session: _Session) -> None:
    """Let the page finish its requests so late console errors are caught (a readiness wait)."""
    try:
        session.page.wait_for_load_state("networkidle", timeout=session.timeout_ms)
    except PlaywrightError:
        pass  # a page that keeps polling never idles; the checks already ran, errors so far count


def script_page(session: _Session, raw: dict[str, Any]) -> str:
    args = PageArgs.model_validate(raw)
    session.page.goto(f"{session.base_url}{args.path}")
    main = session.page.get_by_role("main")
    heading = main.get_by_role("heading")
    not_found = main.get_by_text(re.compile(r"\bnot found$", re.IGNORECASE))
    _checked(f"page {args.path} shows no heading", session,
             lambda: expect(heading.or_(not_found).first).to_be_visible(timeout=session.timeout_ms))
    if not_found.count() and not_found.first.is_visible():
        raise UiCheckFailed(f"page {args.path} shows the not-found page ({not_found.first.inner_text().strip()!r})")
    for test_id in args.buttons:
        _checked(f"page {args.path} lacks its {test_id} button", session,
                 lambda test_id=test_id: expect(session.page.get_by_test_id(test_id)).to_be_visible(timeout=session.timeout_ms))
    _settle(session)
    return f"page {args.path} shows heading {heading.first.inner_text().strip()!r}"


def script_workflow(session: _Session, raw: dict[str, Any]) -> str:
    args = WorkflowArgs.model_validate(raw)
    workflow = next(w for w in session.spec.workflows if w.name == args.workflow)
    unknown = set(args.values) - {param.name for param in workflow.params}
    if unknown:  # run_workflow would skip them silently and the claim would test something else
        raise ValueError(f"workflow {workflow.name} has no parameter(s) {sorted(unknown)}")
    outcome = run_workflow(session.page, session.base_url, session.spec, args.workflow, args.values)
    if not outcome.ok:
        raise ErrorToast(outcome.message)  # verbatim: the verifier compares it with the backend's message
    _settle(session)
    return outcome.message


def _within(value: Any, low: str, high: str) -> bool:
    """Dates compare as ISO text; a datetime row is judged by its day, as the date inputs set days."""
    return isinstance(value, str) and low <= value[:len(low)] and value[:len(high)] <= high


def script_date_range_filter(session: _Session, raw: dict[str, Any]) -> str:
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
    _settle(session)
    return f"{flt.label} {args.min}..{args.max}: {filtered['total']} of {unfiltered['total']} rows"


def _option_values(select: Locator) -> list[str]:
    values: list[str] = select.locator("option").evaluate_all("options => options.map((o) => o.value)")
    return [value for value in values if value != ""]


_OPTIONS_ARE = """([select, want]) => {
  const got = [...select.options].map((o) => o.value).filter((v) => v !== "").sort();
  return got.length === want.length && got.every((v, i) => v === want[i]);
}"""


def script_nested_filter(session: _Session, raw: dict[str, Any]) -> str:
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
    _checked(f"parent filter {parent.label!r} is not on the list page", session,
             lambda: expect(parent_select).to_be_visible(timeout=session.timeout_ms))
    # The select first says "Loading…" while its options are fetched.
    _checked(f"parent filter {parent.label!r} never finished loading its options", session,
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
    _settle(session)
    return f"{parent.label}={value!r}: {child.label} narrows to {len(narrowed)} of {len(everything)}"


def script_pagination(session: _Session, raw: dict[str, Any]) -> str:
    args = PaginationArgs.model_validate(raw)
    entity = session.spec.entity(args.entity)
    size = entity.page_size
    total = int(session.api_json(f"/api/{entity.path}", {"page_size": size})["total"])
    pages = max(1, math.ceil(total / size))
    _open_list(session, entity)
    info = session.page.get_by_test_id("page-info")
    next_button = session.page.get_by_test_id("page-next")
    _checked("the list page shows no page indicator at page 1", session,
             lambda: expect(info).to_contain_text(re.compile(r"Page 1 of \d+"), timeout=session.timeout_ms))
    current = 1
    while next_button.is_enabled():
        if current >= pages:
            raise UiCheckFailed(f"Next is still enabled on page {current} although {total} rows make "
                                f"{pages} page(s) of {size}")
        next_button.click()
        current += 1
        _checked(f"Next did not move to page {current}", session,
                 lambda current=current: expect(info).to_contain_text(f"Page {current} of", timeout=session.timeout_ms))
    _checked(f"the page indicator does not end at 'Page {pages} of {pages}' ({total} rows, {size} per page)", session,
             lambda: expect(info).to_have_text(f"Page {pages} of {pages}", timeout=session.timeout_ms))
    last = total - (pages - 1) * size
    _checked(f"the last page does not show {last} row(s)", session,
             lambda: expect(_rows(session, entity)).to_have_count(last, timeout=session.timeout_ms))
    _settle(session)
    return f"{pages} page(s) of {size}, {last} row(s) on the last"


SCRIPTS: dict[str, Callable[[_Session, dict[str, Any]], str]] = {
    "page": script_page,
    "workflow": script_workflow,
    "date_range_filter": script_date_range_filter,
    "nested_filter": script_nested_filter,
    "pagination": script_pagination,
}


# ---- entry point -------------------------------------------------------------------------------
def _console_text(message: ConsoleMessage) -> str:
    where = message.location.get("url", "") if message.location else ""
    return f"{message.text} ({urlsplit(where).path})" if where else message.text


def _screenshot(page: Page, shots_dir: Path, claim_id: str) -> str | None:
    target = shots_dir / (re.sub(r"[^A-Za-z0-9._-]+", "_", claim_id) + ".png")
    try:
        shots_dir.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(target), full_page=True)
    except PlaywrightError:
        return None  # a crashed page cannot be photographed; the message still says what failed
    return str(target)


def run_ui_claim(browser: Browser, base_url: str, spec: Spec, getter: UiGetter, password_of: Callable[[str], str],
                 shots_dir: Path, claim_id: str, keep_screenshots: bool = False, timeout_ms: int = 8000,
                 sessions: dict[str, Any] | None = None) -> UiOutcome:
    """Sign in as `getter.user` in a fresh context, run `getter.script` and judge it.

    With `sessions` (username → storage state), a user signs in through the login page once; later
    claims start their fresh context with that session cookie, which saves a login per claim.
    """
    script = SCRIPTS[getter.script]
    base_url = base_url.rstrip("/")
    known = sessions.get(getter.user) if sessions is not None else None
    context = browser.new_context(viewport=VIEWPORT, storage_state=known) if known else browser.new_context(viewport=VIEWPORT)
    try:
        context.set_default_timeout(timeout_ms)
        page = context.new_page()
        session = _Session(context, page, base_url, spec, timeout_ms)
        page.on("console", lambda message: session.console_errors.append(_console_text(message))
                if message.type == "error" else None)
        page.on("pageerror", lambda error: session.console_errors.append(f"uncaught: {error}"))
        ok, message, verbatim = False, "", False
        try:
            if known is None:
                try:
                    login(page, base_url, getter.user, password_of(getter.user))
                except (PlaywrightError, AssertionError) as exc:
                    raise UiCheckFailed(f"login as {getter.user} failed: {describe_failure(exc, session.path)}") from exc
                if sessions is not None:
                    sessions[getter.user] = context.storage_state()
            message = script(session, getter.args)
            ok = True
        except UiCheckFailed as exc:
            message, verbatim = str(exc), isinstance(exc, ErrorToast)
        except (PlaywrightError, AssertionError) as exc:
            message = describe_failure(exc, session.path)
        # An error toast's own rejected request logs a console error; the toast already says why.
        if session.console_errors and not verbatim:
            note = f"{len(session.console_errors)} console error(s) on {session.path}: {session.console_errors[0]}"
            message = note if ok else f"{message}; {note}"
            ok = False
        message = " ".join(message.split())  # one line, whatever the browser's text held
        shot = _screenshot(page, shots_dir, claim_id) if (not ok or keep_screenshots) else None
        return UiOutcome(ok=ok, message=message, console_errors=list(session.console_errors), screenshot=shot,
                         page_url=page.url)
    finally:
        context.close()
