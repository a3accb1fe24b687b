"""Every workflow of the mock world, completed through the real UI in Chromium, checked in the database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect

from factory.runtime.browser import login, run_workflow
from factory.runtime.server import AppServer
from factory.spec.model import Spec


def _spec(world: Path) -> Spec:
    return Spec.model_validate_json((world / "spec.json").read_text())


def _row(db: Path, sql: str, *args: object) -> tuple:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql, args).fetchone()


def _bob_sees(server: AppServer, path: str) -> int:
    client = httpx.Client(base_url=server.url)
    client.post("/api/auth/login", json={"username": "bob", "password": "bob-pass"})
    return client.get(path).status_code


def test_login_page_rejects_a_wrong_password(page: Page, mock_server: AppServer) -> None:
    page.goto(mock_server.url + "/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("nope")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text("Invalid username or password")).to_be_visible()


def test_every_mock_workflow_through_the_ui(page: Page, mock_server: AppServer, mock_world: Path) -> None:
    spec, db = _spec(mock_world), mock_server.db
    login(page, mock_server.url, "alice", "alice-pass")
    notebook = _row(db, "SELECT id FROM notebook WHERE owner_id = 1 ORDER BY id")[0]

    done = run_workflow(page, mock_server.url, spec, "write_note",
                        {"notebook": notebook, "title": "Buy oat milk", "body": "and bread", "priority": 4})
    assert done.ok, done.message
    assert done.message == "Note saved."
    new_id, owner, priority, status = _row(db, "SELECT id, owner_id, priority, status FROM note WHERE title = 'Buy oat milk'")
    assert (owner, priority, status) == (1, 4, "active")
    assert _bob_sees(mock_server, f"/api/notes/{new_id}") == 404

    archived = run_workflow(page, mock_server.url, spec, "archive_note", {"note": new_id})
    assert archived.ok and archived.message == "Note archived."
    assert _row(db, "SELECT status FROM note WHERE id = ?", new_id) == ("archived",)
    again = run_workflow(page, mock_server.url, spec, "archive_note", {"note": new_id})
    assert not again.ok and again.message == "Only active notes can be archived."

    other = _row(db, "SELECT id FROM notebook WHERE owner_id = 1 AND id != ? ORDER BY id", notebook)[0]
    moved = run_workflow(page, mock_server.url, spec, "move_note", {"note": new_id, "target": other})
    assert moved.ok, moved.message
    assert _row(db, "SELECT notebook_id FROM note WHERE id = ?", new_id) == (other,)

    past = run_workflow(page, mock_server.url, spec, "set_reminder", {"note": new_id, "remind_on": "2026-06-01"})
    assert not past.ok and past.message == "A reminder must be in the future."
    reminded = run_workflow(page, mock_server.url, spec, "set_reminder", {"note": new_id, "remind_on": "2026-07-01"})
    assert reminded.ok, reminded.message
    assert _row(db, "SELECT updated_on FROM note WHERE id = ?", new_id) == ("2026-07-01",)


def test_list_page_search_sort_and_pagination(page: Page, mock_server: AppServer) -> None:
    login(page, mock_server.url, "alice", "alice-pass")
    page.get_by_test_id("nav-note").click()
    table = page.get_by_test_id("list-note")
    expect(table).to_be_visible()
    expect(page.get_by_test_id("page-info")).to_contain_text("Page 1 of 2")
    page.get_by_test_id("page-next").click()
    expect(page.get_by_test_id("page-info")).to_contain_text("Page 2 of 2")
    title = _row(mock_server.db, "SELECT title FROM note WHERE owner_id = 1 ORDER BY id")[0]
    page.get_by_test_id("search-note").fill(title)
    expect(table.get_by_role("row")).to_have_count(2)  # header + the one match
    expect(table).to_contain_text(title)


def test_pages_render_without_console_errors(page: Page, mock_server: AppServer, mock_world: Path) -> None:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(mock_server.url + "/")
    expect(page.get_by_label("Username")).to_be_visible()
    login(page, mock_server.url, "alice", "alice-pass")
    spec = _spec(mock_world)
    for p in spec.pages:
        if p.kind == "login":
            continue
        page.goto(mock_server.url + p.path.replace(":id", "1"))
        expect(page.get_by_role("heading").first).to_be_visible()
    assert errors == []


def test_a_notebook_page_lists_its_notes_and_links_to_all_of_them(page: Page, mock_server: AppServer) -> None:
    """Child rows on their parent's page: a notebook shows its first notes, each a link, and
    "View all N" opens the notes list filtered to that notebook, showing the same N."""
    db = mock_server.db
    notebook, count = _row(db, "SELECT notebook_id, count(*) FROM note WHERE owner_id = 1 GROUP BY notebook_id "
                               "ORDER BY count(*) DESC, notebook_id LIMIT 1")
    labels = {r[0] for r in sqlite3.connect(db).execute("SELECT title FROM note WHERE notebook_id = ?", (notebook,))}
    login(page, mock_server.url, "alice", "alice-pass")
    page.goto(f"{mock_server.url}/notebooks/{notebook}")
    notes = page.get_by_test_id("children-note")
    expect(notes.get_by_role("link", name=f"View all {count}")).to_be_visible()
    shown = notes.locator("li").all_inner_texts()
    assert 0 < len(shown) <= min(count, 5) and set(shown) <= labels, shown
    notes.get_by_role("link", name=f"View all {count}").click()
    expect(page.get_by_test_id("list-total")).to_have_attribute("data-total", str(count))
    assert "notebook" in page.url


def test_a_form_left_open_keeps_a_receipt_of_what_it_made(page: Page, mock_server: AppServer, mock_world: Path) -> None:
    spec, db = _spec(mock_world), mock_server.db
    login(page, mock_server.url, "alice", "alice-pass")
    notebook = _row(db, "SELECT id FROM notebook WHERE owner_id = 1 ORDER BY id")[0]
    done = run_workflow(page, mock_server.url, spec, "write_note",
                        {"notebook": notebook, "title": "Receipt check", "body": "kept", "priority": 2})
    assert done.ok, done.message
    new_id = _row(db, "SELECT id FROM note WHERE title = 'Receipt check'")[0]
    receipt = page.get_by_test_id("receipt")
    expect(receipt).to_contain_text("Note saved.")
    link = receipt.get_by_role("link")
    expect(link).to_have_count(1)  # the one row the workflow made
    expect(link).to_have_attribute("href", f"/{spec.entity('note').path.strip('/')}/{new_id}")
    link.click()
    expect(page.get_by_test_id("detail-note")).to_be_visible()
    expect(page.get_by_test_id("receipt")).to_have_count(0)  # it belongs to the form page
