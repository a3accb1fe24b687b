"""The verifier's browser side: run a claim's `UiGetter` script in a fresh Chromium context.

Every call opens its own browser context (no cookies or storage carried over), signs in through
the login page, runs one script and judges it. A claim that does not hold is an `UiOutcome` with
`ok=False` and a one-line message naming the locator or expectation that failed; only
programming errors (an unknown entity, malformed script arguments) raise.

Scripts, by `UiGetter.script`:
  page               the page renders a heading in its main area and is not the not-found page;
                     with `labels`, its form shows exactly those field labels in order, and with
                     `columns`, its table heads exactly those columns in order;
  labels             the same label and column checks, on their own;
  workflow           the workflow's form, filled by its visible labels, sends the values meant and
                     shows the success toast (`ui_forms`);
  filter             one filter or the search box, set through its visible control, makes the list
                     show exactly the expected rows (`ui_lists`, with the older list scripts
                     date_range_filter, nested_filter and pagination).
Console errors (`console` of type error and uncaught page errors) fail every script.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Browser, ConsoleMessage, Page, ViewportSize, expect
from playwright.sync_api import Error as PlaywrightError
from pydantic import Field

from factory.claims.model import UiGetter
from factory.runtime.browser import describe_failure, login
from factory.spec.model import Spec
from factory.verify.ui_forms import check_form_labels, script_workflow
from factory.verify.ui_lists import (
    check_columns,
    script_date_range_filter,
    script_filter,
    script_nested_filter,
    script_pagination,
)
from factory.verify.ui_session import (
    ErrorToast,
    ScriptArgs,
    Session,
    UiCheckFailed,
    checked,
    settle,
    visible,
)

VIEWPORT: ViewportSize = {"width": 1280, "height": 800}


@dataclass
class UiOutcome:
    """What one browser script found."""

    ok: bool
    message: str  # why it failed (or a short success note); one line, actionable
    console_errors: list[str]
    screenshot: str | None  # a PNG taken at the end: always on failure, on success if asked
    page_url: str


class PageArgs(ScriptArgs):
    path: str
    buttons: list[str] = Field(default_factory=list)  # test ids of actions the page must offer
    hidden: list[str] = Field(default_factory=list)  # test ids of actions it must not (the row is not one they take)
    forbidden: bool = False  # the page is for other roles: it must say so, and show nothing of its own
    labels: list[str] | None = None  # a form page's field labels, in order
    columns: list[str] | None = None  # a list page's column headers, in order


class LabelsArgs(ScriptArgs):
    path: str
    labels: list[str] | None = None
    columns: list[str] | None = None


def _check_words(session: Session, labels: list[str] | None, columns: list[str] | None) -> None:
    if labels is not None:
        check_form_labels(session, labels)
    if columns is not None:
        check_columns(session, columns)


def script_page(session: Session, raw: dict[str, Any]) -> str:
    args = PageArgs.model_validate(raw)
    session.page.goto(f"{session.base_url}{args.path}")
    main = session.page.get_by_role("main")
    heading = main.get_by_role("heading")
    not_found = main.get_by_text(re.compile(r"\bnot found$", re.IGNORECASE))
    checked(f"page {args.path} shows no heading", session,
            lambda: expect(heading.or_(not_found).first).to_be_visible(timeout=session.timeout_ms))
    if not_found.count() and not_found.first.is_visible():
        raise UiCheckFailed(f"page {args.path} shows the not-found page ({not_found.first.inner_text().strip()!r})")
    refusal = main.get_by_test_id("forbidden")
    if args.forbidden:
        checked(f"page {args.path}, opened by a role it is not for, does not say so", session,
                visible(refusal, session.timeout_ms))
    elif refusal.count() and refusal.first.is_visible():
        raise UiCheckFailed(f"page {args.path} says it is for other roles ({refusal.first.inner_text().strip()!r})")
    for test_id in args.buttons:
        checked(f"page {args.path} lacks its {test_id} button", session,
                visible(session.page.get_by_test_id(test_id), session.timeout_ms))
    _check_words(session, args.labels, args.columns)
    settle(session)
    for test_id in args.hidden:  # settled: every option list the page asked for has answered
        if session.page.get_by_test_id(test_id).count():
            raise UiCheckFailed(f"page {args.path} offers {test_id}, whose form does not take this row")
    return f"page {args.path} shows heading {heading.first.inner_text().strip()!r}"


def script_labels(session: Session, raw: dict[str, Any]) -> str:
    args = LabelsArgs.model_validate(raw)
    session.page.goto(f"{session.base_url}{args.path}")
    _check_words(session, args.labels, args.columns)
    settle(session)
    return f"page {args.path} names its fields and columns as the spec does"


SCRIPTS: dict[str, Callable[[Session, dict[str, Any]], str]] = {
    "page": script_page,
    "labels": script_labels,
    "workflow": script_workflow,
    "filter": script_filter,
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
        session = Session(context, page, base_url, spec, timeout_ms)
        session.watch_network()
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
