"""Every layout family, in Chromium at 1280×800: each page of a world (home, every list, a row of
each, every form) renders without sideways scrolling and without console errors; an inbox reads
a message beside its list and files it by folder; a calendar opens on the world's month and pages
through months; and in every family a role's navigation links exactly what that role may open.

Each family is the same built world with its frontend drawn again in that family (the backend and
database do not depend on the look), so the pages are comparable."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from factory.builder.look import LAYOUTS, THEMES
from factory.compiler.frontend import build_frontend, form_href, render_frontend
from factory.runtime.browser import login
from factory.runtime.server import AppServer, fresh_db
from factory.spec.model import LookSpec, Spec
from factory.spec.roles import may_run, sees

# The look each family is drawn in: a theme each, so all six themes render too.
LOOKS = {
    "sidebar": LookSpec(layout="sidebar", theme=THEMES[1]),
    "topnav": LookSpec(layout="topnav", theme=THEMES[2]),
    "inbox": LookSpec(layout="inbox", theme=THEMES[3], focus="message"),
    "calendar": LookSpec(layout="calendar", theme=THEMES[4], focus="message", start="sent_on"),
}


def redraw(world: Path, target: Path, look: LookSpec) -> Path:
    """A copy of `world` whose frontend is drawn in `look`."""
    shutil.copytree(world, target, ignore=shutil.ignore_patterns(".git", "node_modules"))
    spec = Spec.model_validate_json((target / "spec.json").read_text())
    spec = spec.model_copy(update={"look": look})
    (target / "spec.json").write_text(spec.model_dump_json(indent=2))
    render_frontend(spec, target / "app", "test")
    build_frontend(target / "app")
    return target


class Console:
    """Errors the page logs or throws."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))


def _fits(page: Page, where: str) -> None:
    expect(page.get_by_role("main").get_by_role("heading").first).to_be_visible()
    page.wait_for_load_state("networkidle")
    scroll, width = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert scroll <= width, f"{where}: the page is {scroll}px wide in a {width}px window"
    for box in page.locator(".table-wrap, .calendar-grid, .pane").all():
        inner, outer = box.evaluate("b => [b.scrollWidth, b.clientWidth]")
        assert inner <= outer, f"{where}: a {box.get_attribute('class')} is {inner}px wide in {outer}px"


def _pages(spec: Spec) -> list[str]:
    paths = ["/"]
    for e in spec.entities:
        if e.nav and not e.builtin and "list" in e.operations:
            paths.append(f"/{e.path.strip('/')}")
    paths += [href for w in spec.workflows if (href := form_href(w)) is not None]
    return paths


@pytest.fixture(scope="module")
def mail(worlds: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = worlds.get("echomail.yaml")
    root = tmp_path_factory.mktemp("looks")
    return {family: redraw(base, root / family, look) for family, look in LOOKS.items()}


@pytest.fixture(params=list(LAYOUTS))
def served(request: pytest.FixtureRequest, mail: dict[str, Path], tmp_path: Path) -> Iterator[tuple[str, AppServer, Spec]]:
    world = mail[request.param]
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    with AppServer(world, fresh_db(world, tmp_path / "app.db")) as server:
        yield request.param, server, spec


def test_every_page_fits_1280_without_console_errors(page: Page, served: tuple[str, AppServer, Spec]) -> None:
    family, server, spec = served
    page.set_viewport_size({"width": 1280, "height": 800})
    console = Console(page)
    user = spec.users[0]
    login(page, server.url, user.username, user.password)
    assert page.evaluate("[document.documentElement.dataset.layout, document.documentElement.dataset.theme]") == [
        family, LOOKS[family].theme]
    visited = 0
    for path in _pages(spec):
        page.goto(server.url + path)
        _fits(page, f"{family} {path}")
        visited += 1
        rows = page.locator("[data-testid^='row-']")
        if path.count("/") == 1 and path != "/" and rows.count():  # a list: open its first row too
            rows.first.get_by_role("link").first.click()
            expect(page.get_by_test_id(re.compile(r"^detail-"))).to_be_visible()
            _fits(page, f"{family} {page.url}")
            visited += 1
    assert visited > len(spec.workflows)
    assert console.errors == [], f"{family}: {console.errors}"


def test_inbox_reads_a_message_beside_its_folder(page: Page, mail: dict[str, Path], tmp_path: Path) -> None:
    world = mail["inbox"]
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    folders = json.loads((world / "app" / "frontend" / "src" / "spec.gen.js").read_text().split("=", 1)[1].rstrip(";\n"))
    assert [f["value"] for f in folders["look"]["folders"]][:2] == ["inbox", "sent"]
    with AppServer(world, fresh_db(world, tmp_path / "app.db")) as server:
        user = spec.users[0]
        login(page, server.url, user.username, user.password)
        page.get_by_test_id("folder-sent").click()
        table = page.get_by_test_id("list-message")
        expect(table).to_be_visible()
        page.wait_for_load_state("networkidle")
        badges = table.locator("tbody tr td:nth-child(2)").all_inner_texts()
        assert badges and set(badges) == {"Sent"}, badges
        row = table.locator("tbody tr").first
        label = row.locator("td").first.inner_text().strip()
        row.get_by_role("link").first.click()
        expect(page.get_by_test_id("detail-message")).to_be_visible()
        current = page.locator(".pane [aria-current='page']")
        expect(current).to_have_count(1)
        expect(current).to_contain_text(label)
        # The pane lists the folder the list showed: every item is one of the user's sent messages.
        assert page.locator(".pane .pane-item").count() >= 1
        other = page.locator(".pane .pane-item:not([aria-current])").first
        other_label = other.locator(".pane-item-label").inner_text()
        other.click()
        expect(page.get_by_role("main").get_by_role("heading").first).to_have_text(other_label)
        lead = page.get_by_test_id("rail-lead")
        expect(lead).to_have_text("Compose")
        lead.click()
        expect(page.get_by_test_id(f"form-{folders['look']['lead']}")).to_be_visible()


def test_calendar_opens_on_the_worlds_month(page: Page, mail: dict[str, Path], tmp_path: Path) -> None:
    world = mail["calendar"]
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    with AppServer(world, fresh_db(world, tmp_path / "app.db")) as server:
        user = spec.users[0]
        login(page, server.url, user.username, user.password)
        calendar = page.get_by_test_id("calendar-message")
        expect(calendar).to_be_visible()
        expect(page.get_by_test_id("calendar-month")).to_have_text("June 2026")  # echomail's today: 2026-06-15
        expect(calendar.locator(".calendar-day.today .calendar-date")).to_have_text("15")
        entries = calendar.locator(".calendar-entry")
        expect(entries.first).to_be_visible()
        page.get_by_role("button", name="Previous month").click()
        expect(page.get_by_test_id("calendar-month")).to_have_text("May 2026")
        expect(entries.first).to_be_visible()  # mail history runs from March
        entries.first.click()
        expect(page.get_by_test_id("detail-message")).to_be_visible()


@pytest.mark.parametrize("family", list(LAYOUTS))
def test_role_navigation_in_every_family(page: Page, family: str, worlds: Any, tmp_path: Path) -> None:
    world = _approvals(worlds, tmp_path, family)
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    navigable = [e for e in spec.entities if e.nav and not e.builtin]
    actions = [w for w in spec.workflows if form_href(w) is not None]
    seen_roles = set()
    with AppServer(world, fresh_db(world, tmp_path / "app.db")) as server:
        for user in spec.users:
            if user.role in seen_roles:
                continue
            seen_roles.add(user.role)
            login(page, server.url, user.username, user.password)
            expect(page.get_by_test_id("nav-home")).to_be_visible()
            page.wait_for_load_state("networkidle")
            for e in navigable:
                link = page.get_by_test_id(f"nav-{e.name}")
                if sees(spec, e, user.id):
                    expect(link).to_be_visible()
                else:
                    expect(link).to_have_count(0)
            for w in actions:
                link = page.get_by_test_id(f"nav-action-{w.name}")
                if may_run(spec, w, user.id):
                    expect(link).to_be_visible()
                else:
                    expect(link).to_have_count(0)
            page.get_by_test_id("logout").click()
            expect(page.get_by_label("Username")).to_be_visible()
    assert len(seen_roles) >= 3


def _approvals(worlds: Any, tmp_path: Path, family: str) -> Path:
    """The approval chain's world (three roles) drawn in `family`."""
    base = worlds.get("../tests/fixtures/approvals.yaml")
    look = {"inbox": LookSpec(layout="inbox", focus="report"),
            "calendar": LookSpec(layout="calendar", focus="report", start="period_start", end="period_end")}.get(
        family, LookSpec(layout=family))  # type: ignore[arg-type]
    return redraw(base, tmp_path / family, look)
