"""A refused workflow says why where the person will fix it: under the field its rule is about,
as well as in the toast (issue 16, product-grade pages)."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from factory.compiler.frontend import blamed_fields
from factory.runtime.server import AppServer, fresh_db
from factory.spec.model import Spec
from factory.tasks.ui_gate.solver import solve
from factory.tasks.ui_gate.trajectory import UiStep


def test_each_rule_blames_the_one_field_it_is_about(worlds: Any) -> None:
    spec = Spec.model_validate_json((worlds.get("capabilities/datepickers.yaml") / "spec.json").read_text())
    returning = next(w for w in spec.workflows if w.name == "return_equipment")
    blame = blamed_fields(returning)
    by_source = {c.source: blame.get(c.id) for c in returning.preconditions}
    assert by_source == {"loan.returned_on == null": None,  # about the loan acted on: no field to fix
                         "returned_on <= today()": "returned_on",
                         "returned_on >= today() - days(7)": "returned_on"}
    borrowing = next(w for w in spec.workflows if w.name == "borrow_equipment")
    two = next(c for c in borrowing.preconditions if c.source == "return_by > checkout_at")
    assert two.id not in blamed_fields(borrowing)  # names two fields: neither alone is at fault


def test_a_refusal_shows_under_the_field_at_fault(worlds: Any, page: Page, tmp_path: Path) -> None:
    world = worlds.get("capabilities/datepickers.yaml")
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    db = fresh_db(world, tmp_path / "app.db")
    conn = sqlite3.connect(db)
    loan, username = conn.execute("SELECT l.id, u.username FROM loan l JOIN user u ON u.id = l.owner_id "
                                  "WHERE l.returned_on IS NULL ORDER BY l.id LIMIT 1").fetchone()
    conn.close()
    password = next(u.password for u in spec.users if u.username == username)
    tomorrow = (dt.date.fromisoformat(spec.today) + dt.timedelta(days=1)).isoformat()
    with AppServer(world, db) as server:
        result = solve(page, server.url, spec, username, password,
                       [UiStep(kind="workflow", workflow="return_equipment",
                               values={"loan": loan, "returned_on": tomorrow})], None)
        assert not result.ok and result.message == "The return date cannot be in the future."  # the toast
        field = page.get_by_label("Returned on", exact=True)
        assert field.get_attribute("aria-invalid") == "true"
        error = page.locator(f"#{field.get_attribute('aria-describedby')}")
        assert error.inner_text() == "The return date cannot be in the future."
