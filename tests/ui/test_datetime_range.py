"""A workflow whose range is two datetimes (pick-up and return moments) works through its form.

The stage-two UI gate found this: the range widget rendered date inputs for datetime parameters,
so no user could ever submit the form."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from factory.runtime.server import AppServer, fresh_db
from factory.spec.model import Spec
from factory.tasks.ui_gate.solver import solve
from factory.tasks.ui_gate.trajectory import UiStep


def test_a_datetime_range_is_entered_with_datetime_inputs(worlds: Any, page: Page, tmp_path: Path) -> None:
    world = worlds.get("capabilities/datepickers.yaml")
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    user = spec.users[0]
    db = fresh_db(world, tmp_path / "app.db")
    conn = sqlite3.connect(db)
    before = conn.execute("SELECT count(*) FROM loan").fetchone()[0]
    conn.close()
    values = {"item": "projector", "checkout_at": "2026-07-15T09:00:00", "return_by": "2026-07-17T10:30:00"}
    with AppServer(world, db) as server:
        page.goto(f"{server.url}/login")
        result = solve(page, server.url, spec, user.username, user.password,
                       [UiStep(kind="workflow", workflow="borrow_equipment", values=values)], None)
        kinds = page.eval_on_selector_all("input[type=datetime-local]", "els => els.length")
    assert result.ok, result.message
    assert kinds >= 2
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT item, checkout_at, return_by FROM loan ORDER BY id DESC LIMIT 1").fetchall()
    total = conn.execute("SELECT count(*) FROM loan").fetchone()[0]
    conn.close()
    assert total == before + 1
    assert rows[0][0] == "projector" and rows[0][1].startswith("2026-07-15 09:00") and rows[0][2].startswith("2026-07-17 10:30")
