"""The home page shows what the seed's `home` asks for, read from the live database: echobank's
"Bills due" lists the user's due bills by due date with their total, and "View all" opens the same
rows on the bills list; a form left open keeps a receipt of the rows it made."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from factory.runtime.browser import login
from factory.runtime.server import AppServer, fresh_db
from factory.spec.model import Spec


def _money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def test_bills_due_panel_matches_the_database(page: Page, worlds: Any, tmp_path: Path) -> None:
    world = worlds.get("echobank.yaml")
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    db = fresh_db(world, tmp_path / "app.db")
    user = spec.users[0]
    with sqlite3.connect(db) as conn:
        due = conn.execute("SELECT amount FROM bill WHERE owner_id = ? AND status = 'due' ORDER BY due_on, id",
                           (user.id,)).fetchall()
    assert due, "the first user should have a bill due"
    with AppServer(world, db) as server:
        login(page, server.url, user.username, user.password)
        panel = page.get_by_test_id("home-bill")
        expect(panel.get_by_role("heading")).to_have_text("Bills due")
        rows = panel.locator(".home-row")
        expect(rows).to_have_count(min(len(due), 5))
        assert [v.strip() for v in panel.locator(".home-value").all_inner_texts()] == [_money(a) for (a,) in due[:5]]
        expect(panel.locator(".home-total")).to_contain_text(_money(sum(a for (a,) in due)))
        panel.get_by_role("link", name=f"View all {len(due)}").click()
        expect(page.get_by_test_id("list-bill")).to_be_visible()
        assert "status=due" in page.url and "sort=due_on" in page.url
        expect(page.get_by_test_id("list-bill").locator("tbody tr")).to_have_count(len(due))
        # Each panel row opens its own row's page.
        page.goto(server.url + "/")
        first = page.get_by_test_id("home-transaction").locator(".home-row a").first
        label = first.inner_text()
        first.click()
        expect(page.get_by_test_id("detail-transaction")).to_be_visible()
        expect(page.get_by_role("main").get_by_role("heading").first).to_have_text(label.rstrip("…"))
