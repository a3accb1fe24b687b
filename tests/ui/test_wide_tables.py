"""Wide lists fit the screen: at 1280×800 no list page of a domain world scrolls sideways; a table
with more columns than fit shows its first ones (those people sort, filter and compare by) and
the rest on "All columns", which the UI solver presses when it needs one of them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from factory.compiler.lists import FIRST_COLUMNS, first_columns, list_columns
from factory.runtime.browser import login
from factory.runtime.server import AppServer, fresh_db
from factory.spec.model import Spec


@pytest.fixture(params=["echostay.yaml", "echobank.yaml"])
def served(request: pytest.FixtureRequest, worlds: Any, tmp_path: Path) -> Iterator[tuple[AppServer, Spec]]:
    world = worlds.get(request.param)
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    with AppServer(world, fresh_db(world, tmp_path / "app.db")) as server:
        yield server, spec


def _headers(page: Page, entity: str) -> list[str]:
    table = page.get_by_test_id(f"list-{entity}")
    return [" ".join(h.inner_text().replace("↕", "").replace("▲", "").replace("▼", "").split()).lower()
            for h in table.get_by_role("columnheader").all()]


def test_no_list_scrolls_sideways_and_all_columns_shows_the_rest(page: Page, served: tuple[AppServer, Spec]) -> None:
    server, spec = served
    user = spec.users[0]
    login(page, server.url, user.username, user.password)
    wide = 0
    for e in spec.entities:
        if not e.nav or e.builtin or "list" not in e.operations:
            continue
        page.goto(f"{server.url}/{e.path.strip('/')}")
        table = page.get_by_test_id(f"list-{e.name}")
        expect(table).to_be_visible()
        wrap = page.locator(".table-wrap").first
        scroll, width = wrap.evaluate("w => [w.scrollWidth, w.clientWidth]")
        assert scroll <= width, f"{e.plural}: the table is {scroll}px wide in a {width}px card"
        lead, shown = list_columns(e)
        first = first_columns(e)
        assert len(_headers(page, e.name)) == 1 + len(first) <= 1 + FIRST_COLUMNS, e.name
        toggle = page.get_by_test_id("columns-toggle")
        if len(shown) == len(first):
            assert toggle.count() == 0, e.name
            continue
        wide += 1
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "true")
        headers = _headers(page, e.name)
        assert headers == [h.lower() for h in [lead.label if lead else e.label] + [f.label for f in shown]], e.name
        assert len(set(headers)) == len(headers), f"{e.plural}: two columns share a header: {headers}"
    if spec.world == "echostay":
        assert wide >= 2  # listings and bookings have more columns than fit
