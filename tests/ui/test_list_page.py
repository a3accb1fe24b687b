"""The mock world's notes list page in Chromium: debounced inputs, the loading signal and the total."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, Route, expect

from factory.runtime.browser import login
from factory.runtime.server import AppServer
from factory.spec.model import Spec
from factory.tasks.ui_gate.solver import solve
from factory.tasks.ui_gate.trajectory import UiStep

ALICE = 1


def _notes(db: Path, sql: str = "", *args: object) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(f"SELECT id, title, pinned FROM note WHERE owner_id = ? {sql} ORDER BY id",
                            (ALICE, *args)).fetchall()


def _query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def _shown_ids(page: Page) -> list[int]:
    ids = page.get_by_test_id("list-note").locator("[data-testid^='row-note-']").evaluate_all(
        "rows => rows.map((row) => row.dataset.testid)")
    return sorted(int(t.rsplit("-", 1)[1]) for t in ids)


def _open_notes(page: Page, server: AppServer) -> None:
    login(page, server.url, "alice", "alice-pass")
    page.get_by_test_id("nav-note").click()
    expect(page.get_by_test_id("list-note").locator("tbody tr").first).to_be_visible()


def _mixed_word(db: Path) -> str:
    """A search whose matches are both pinned and not, so the pinned filter visibly narrows them."""
    notes = _notes(db)
    words = sorted({w for _, title, _ in notes for w in re.findall(r"[a-z]{2,}", title.lower())})
    for word in [*words, *"aeiou"]:
        pinned = {p for _, title, p in notes if word in title.lower()}
        if pinned == {0, 1}:
            return word
    raise AssertionError(f"no search term splits alice's notes into pinned and unpinned: {notes}")


def test_enter_then_a_filter_survives_the_search_box_typing_pause(page: Page, mock_server: AppServer) -> None:
    """Enter commits the search at once; the box's pending pause must not commit it again later from
    the URL as it was before, which dropped the filter chosen in between."""
    word = _mixed_word(mock_server.db)
    expected = [row[0] for row in _notes(mock_server.db, "AND lower(title) LIKE ? AND pinned = 1", f"%{word}%")]
    _open_notes(page, mock_server)
    box = page.get_by_test_id("search-note")
    box.fill(word)
    box.press("Enter")
    page.get_by_test_id("filter-note-pinned").select_option("true")  # well inside the 300 ms pause
    expect(page).to_have_url(re.compile(r"[?&]pinned=true"))
    page.wait_for_timeout(700)  # past the pause: a stale commit would have rewritten the URL by now
    assert _query(page) == {"q": [word], "pinned": ["true"]}
    expect(box).to_have_value(word)
    expect(page.get_by_test_id("filter-note-pinned")).to_have_value("true")
    table = page.get_by_test_id("list-note")
    expect(table).to_have_attribute("aria-busy", "false")
    expect(table.locator("tbody tr")).to_have_count(len(expected))
    assert _shown_ids(page) == expected
    expect(page.get_by_test_id("list-total")).to_have_attribute("data-total", str(len(expected)))


def test_typing_then_a_filter_keeps_both(page: Page, mock_server: AppServer) -> None:
    """A pause that ends after another filter changed commits onto the URL as it is then."""
    word = _mixed_word(mock_server.db)
    expected = [row[0] for row in _notes(mock_server.db, "AND lower(title) LIKE ? AND pinned = 1", f"%{word}%")]
    _open_notes(page, mock_server)
    page.get_by_test_id("search-note").fill(word)  # no Enter: commits after the pause
    page.get_by_test_id("filter-note-pinned").select_option("true")
    expect(page).to_have_url(re.compile(r"[?&]q="))
    page.wait_for_timeout(700)
    assert _query(page) == {"q": [word], "pinned": ["true"]}
    expect(page.get_by_test_id("list-note").locator("tbody tr")).to_have_count(len(expected))
    assert _shown_ids(page) == expected


def test_the_list_is_busy_while_it_refetches(page: Page, mock_server: AppServer) -> None:
    _open_notes(page, mock_server)
    table = page.get_by_test_id("list-note")
    before = _shown_ids(page)
    held: list[Route] = []

    def is_list(url: str) -> bool:  # the list's own requests, not its filters' options
        return urlsplit(url).path == "/api/notes"

    page.route(is_list, lambda route: held.append(route))  # answered only once the test lets them
    page.get_by_test_id("filter-note-pinned").select_option("true")
    expect(table).to_have_attribute("aria-busy", "true")
    assert _shown_ids(page) == before  # the old rows stay while the new page loads
    for route in held:
        route.continue_()
    page.unroute(is_list)
    expect(table).to_have_attribute("aria-busy", "false")
    pinned = [row[0] for row in _notes(mock_server.db, "AND pinned = 1")]
    expect(table.locator("tbody tr")).to_have_count(len(pinned))
    assert _shown_ids(page) == pinned


def test_list_total_states_the_count_as_an_integer(page: Page, mock_server: AppServer) -> None:
    _open_notes(page, mock_server)
    total = page.get_by_test_id("list-total")
    everything = len(_notes(mock_server.db))
    expect(total).to_have_attribute("data-total", str(everything))
    expect(total).to_have_text(re.compile(rf"^Showing 1–\d+ of {everything}$"))
    page.get_by_test_id("filter-note-pinned").select_option("true")
    expect(total).to_have_attribute("data-total", str(len(_notes(mock_server.db, "AND pinned = 1"))))
    page.get_by_test_id("search-note").fill("no note is called this")
    expect(total).to_have_attribute("data-total", "0")
    expect(total).to_have_text("No results")


# Page tampering for the solver's total reader, run before the app's scripts on every page.
_WATCH = """new MutationObserver(() => {
  for (const el of document.querySelectorAll('.pagination [data-testid="list-total"], .pagination [data-total]')) {%s}
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});"""
# The summary text lies; only `data-total` still holds the list's real total. The solver reads
# what a person reads, so a lying page must fail the step.
MISLEADING_TEXT = _WATCH % 'if (el.textContent !== "Showing 1–1 of 999") el.textContent = "Showing 1–1 of 999";'
# A world built before `list-total`: the summary has neither the test id nor `data-total`.
OLDER_WORLD = _WATCH % 'el.removeAttribute("data-testid"); el.removeAttribute("data-total");'


@pytest.mark.parametrize("tamper", [MISLEADING_TEXT, OLDER_WORLD], ids=["text-wins", "text-fallback"])
def test_the_solver_reads_the_total_a_person_reads(page: Page, mock_server: AppServer,
                                                   mock_world: Path, tamper: str) -> None:
    page.add_init_script(tamper)
    spec = Spec.model_validate_json((mock_world / "spec.json").read_text())
    pinned = len(_notes(mock_server.db, "AND pinned = 1"))
    step = UiStep(kind="find", entity="note", filters={"pinned": True}, expect_total=pinned)
    trajectory = solve(page, mock_server.url, spec, "alice", "alice-pass", [step], None)
    read = next(a for a in trajectory.actions if a["action"] == "read")
    if tamper == MISLEADING_TEXT:
        # `data-total` still says the truth, but the page states 999: the step fails on it.
        assert not trajectory.ok and "Showing 1–1 of 999" in trajectory.message
        assert read["value"] == "Showing 1–1 of 999"
        return
    assert trajectory.ok, trajectory.message
    assert (read["target"], read["value"]) == ('navigation "Pagination"', f"Showing 1–{pinned} of {pinned}")
    expect(page.get_by_test_id("list-total")).to_have_count(0)
