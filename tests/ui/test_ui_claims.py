"""The verifier's browser scripts on real built worlds: each passes where the app works and fails where it does not.

Failures the built worlds do not have (a console error, a miscounting list answer) are simulated
by a test-only browser wrapper that tampers with each new context before the script runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect
from playwright.sync_api import Error as PlaywrightError

from factory.claims.model import UiGetter
from factory.runtime.browser import describe_failure
from factory.runtime.server import AppServer, fresh_db
from factory.spec.model import Spec
from factory.verify.ui import UiOutcome, run_ui_claim


class Served:
    """A world's app on its own database copy, and the spec to drive it with."""

    def __init__(self, server: AppServer, spec: Spec, shots: Path) -> None:
        self.server, self.spec, self.shots = server, spec, shots

    def run(self, browser: Browser, user: str, script: str, args: dict[str, Any], claim_id: str,
            timeout_ms: int = 4000) -> UiOutcome:
        passwords = {u.username: u.password for u in self.spec.users}
        getter = UiGetter(script=script, user=user, args=args)  # type: ignore[arg-type]
        outcome = run_ui_claim(browser, self.server.url, self.spec, getter, passwords.__getitem__, self.shots,
                               claim_id, timeout_ms=timeout_ms)
        assert "\n" not in outcome.message
        if not outcome.ok:  # every failure leaves a screenshot behind
            assert outcome.screenshot is not None and Path(outcome.screenshot).is_file()
        return outcome


def _serve(worlds: Any, seed: str, tmp: Path) -> Iterator[Served]:
    world = worlds.get(seed)
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    with AppServer(world, fresh_db(world, tmp / "app.db")) as server:
        yield Served(server, spec, tmp / "shots")


@pytest.fixture(scope="module")
def mock(worlds: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from _serve(worlds, "mock.yaml", tmp_path_factory.mktemp("mock"))


@pytest.fixture(scope="module")
def datepickers(worlds: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from _serve(worlds, "capabilities/datepickers.yaml", tmp_path_factory.mktemp("datepickers"))


@pytest.fixture(scope="module")
def nested(worlds: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from _serve(worlds, "capabilities/nested_filters.yaml", tmp_path_factory.mktemp("nested"))


class TamperedBrowser:
    """A browser whose every new context is prepared by `tamper` (test-only fault injection)."""

    def __init__(self, browser: Browser, tamper: Callable[[BrowserContext], None]) -> None:
        self.browser, self.tamper = browser, tamper

    def new_context(self, **kwargs: Any) -> BrowserContext:
        context = self.browser.new_context(**kwargs)
        self.tamper(context)
        return context


def _tampered(browser: Browser, tamper: Callable[[BrowserContext], None]) -> Browser:
    return cast(Browser, TamperedBrowser(browser, tamper))


# ---- page --------------------------------------------------------------------------------------
def test_page_passes_on_a_list_page(browser: Browser, mock: Served) -> None:
    outcome = mock.run(browser, "alice", "page", {"path": "/notes"}, "page-notes")
    assert outcome.ok, outcome.message
    assert outcome.console_errors == [] and outcome.screenshot is None
    assert outcome.page_url.endswith("/notes")
    assert browser.contexts == []  # the fresh context was closed


def test_a_row_page_offers_only_the_actions_that_take_the_row(browser: Browser, datepickers: Served) -> None:
    """"Return equipment" takes only loans not yet returned (`where: it.returned_on == null`): a
    returned loan's page does not offer it, an open loan's does; the page claim says both, and a
    page claim that wrongly forbids the button fails, naming it."""
    import sqlite3

    conn = sqlite3.connect(datepickers.server.db)
    try:
        rows = conn.execute("SELECT l.id, l.returned_on, u.username FROM loan l JOIN user u ON u.id = l.owner_id "
                            "ORDER BY l.id").fetchall()
    finally:
        conn.close()
    users = {r[2] for r in rows if r[1] is None} & {r[2] for r in rows if r[1] is not None}
    user = min(users)  # someone with a returned loan and an open one
    returned = next(r for r in rows if r[1] is not None and r[2] == user)
    open_loan = next(r for r in rows if r[1] is None and r[2] == user)
    closed = datepickers.run(browser, user, "page", {"path": f"/loans/{returned[0]}", "hidden": ["action-return_equipment"]},
                             "page-returned-loan")
    assert closed.ok, closed.message
    still = datepickers.run(browser, user, "page", {"path": f"/loans/{open_loan[0]}", "buttons": ["action-return_equipment"]},
                            "page-open-loan")
    assert still.ok, still.message
    wrong = datepickers.run(browser, user, "page", {"path": f"/loans/{open_loan[0]}", "hidden": ["action-return_equipment"]},
                            "page-open-loan-hidden")
    assert not wrong.ok
    assert "offers action-return_equipment, whose form does not take this row" in wrong.message


def test_page_fails_on_an_unknown_path(browser: Browser, mock: Served) -> None:
    outcome = mock.run(browser, "alice", "page", {"path": "/no-such-page"}, "page-missing")
    assert not outcome.ok
    assert outcome.message == "page /no-such-page shows the not-found page ('Page not found')"
    assert browser.contexts == []


def test_page_fails_on_a_console_error(browser: Browser, mock: Served) -> None:
    noisy = _tampered(browser, lambda context: context.add_init_script("console.error('injected failure')"))
    outcome = mock.run(noisy, "alice", "page", {"path": "/notes"}, "page-noisy")
    assert not outcome.ok
    assert "console error(s)" in outcome.message and "injected failure" in outcome.message
    assert any("injected failure" in error for error in outcome.console_errors)


# ---- workflow ----------------------------------------------------------------------------------
def test_workflow_passes_with_the_success_toast(browser: Browser, mock: Served) -> None:
    values = {"notebook": 1, "title": "Claims from the browser", "body": "checked by the verifier", "priority": 2}
    outcome = mock.run(browser, "alice", "workflow", {"workflow": "write_note", "values": values}, "wf-write")
    assert outcome.ok, outcome.message
    assert outcome.message == "Note saved."


def test_workflow_fails_with_the_backend_message(browser: Browser, mock: Served) -> None:
    values = {"note": 1, "remind_on": "2026-05-01"}
    outcome = mock.run(browser, "alice", "workflow", {"workflow": "set_reminder", "values": values}, "wf-past")
    assert not outcome.ok
    assert outcome.message == "A reminder must be in the future."  # the toast, verbatim


def test_workflow_fails_naming_the_option_the_form_lacks(browser: Browser, mock: Served) -> None:
    outcome = mock.run(browser, "alice", "workflow", {"workflow": "archive_note", "values": {"note": 99999}},
                       "wf-unknown-row", timeout_ms=1500)
    assert not outcome.ok
    # the field is looked for inside its form, which the message names first
    assert outcome.message == 'form "Archive note" › label "Note" does not offer the requested option on /actions/archive-note'


# ---- pagination --------------------------------------------------------------------------------
def test_pagination_walks_to_the_last_page(browser: Browser, mock: Served) -> None:
    outcome = mock.run(browser, "alice", "pagination", {"entity": "note"}, "pages-note")
    assert outcome.ok, outcome.message
    assert outcome.message.startswith("2 page(s) of 5")


def test_pagination_fails_when_the_list_miscounts(browser: Browser, mock: Served) -> None:
    def inflate(route: Route) -> None:  # the page is told of 10 more notes than exist
        answer = route.fetch()
        body = answer.json()
        body["total"] += 10
        route.fulfill(response=answer, body=json.dumps(body))

    liar = _tampered(browser, lambda context: context.route("**/api/notes?*", inflate))
    outcome = mock.run(liar, "alice", "pagination", {"entity": "note"}, "pages-liar")
    assert not outcome.ok
    assert outcome.message.startswith("Next is still enabled on page 2 although")


# ---- date range filter -------------------------------------------------------------------------
def test_date_range_filter_narrows_the_list(browser: Browser, datepickers: Served) -> None:
    args = {"entity": "holiday", "field": "day", "min": "2026-05-01", "max": "2026-09-30"}
    outcome = datepickers.run(browser, "ada", "date_range_filter", args, "range-holiday")
    assert outcome.ok, outcome.message
    assert outcome.message == "Day 2026-05-01..2026-09-30: 4 of 10 rows"


def test_date_range_filter_on_a_datetime_field(browser: Browser, datepickers: Served) -> None:
    args = {"entity": "leave_request", "field": "submitted_at", "min": "2026-03-01", "max": "2026-04-30"}
    outcome = datepickers.run(browser, "ada", "date_range_filter", args, "range-submitted")
    assert outcome.ok, outcome.message


def test_date_range_filter_fails_when_nothing_is_excluded(browser: Browser, datepickers: Served) -> None:
    args = {"entity": "holiday", "field": "day", "min": "2026-01-01", "max": "2026-12-31"}
    outcome = datepickers.run(browser, "ada", "date_range_filter", args, "range-everything")
    assert not outcome.ok
    assert outcome.message == "the date range 2026-01-01..2026-12-31 on 'Day' did not narrow the list (10 of 10 rows)"


# ---- nested filter -----------------------------------------------------------------------------
def test_nested_filter_narrows_options_and_rows(browser: Browser, nested: Served) -> None:
    args = {"entity": "product", "parent": "category", "child": "subcategory", "parent_value": "Books"}
    outcome = nested.run(browser, "sam", "nested_filter", args, "nested-books")
    assert outcome.ok, outcome.message
    assert outcome.message == "Category='Books': Subcategory narrows to 3 of 16"


def test_nested_filter_fails_for_an_unknown_parent_value(browser: Browser, nested: Served) -> None:
    args = {"entity": "product", "parent": "category", "child": "subcategory", "parent_value": "Gardening"}
    outcome = nested.run(browser, "sam", "nested_filter", args, "nested-gardening")
    assert not outcome.ok
    assert outcome.message.startswith("parent filter 'Category' does not offer 'Gardening' on /products")


# ---- failure messages --------------------------------------------------------------------------
def test_failures_name_the_missing_locator(page: Page) -> None:
    page.set_content("<main><h1>Transfer funds</h1><label for=a>Amount due</label><input id=a></main>")
    with pytest.raises(PlaywrightError) as missing:
        page.get_by_label("Amount", exact=True).fill("12.00", timeout=300)
    assert describe_failure(missing.value, "/actions/transfer-funds") == 'label "Amount" not found on /actions/transfer-funds'
    with pytest.raises(AssertionError) as invisible:
        expect(page.get_by_role("main").get_by_test_id("toast-success")).to_be_visible(timeout=300)
    assert describe_failure(invisible.value, "/x") == 'a main › test id "toast-success" not found on /x'
