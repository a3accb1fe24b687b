"""Shared fixtures: worlds built once per session, real servers on free ports, a Chromium browser."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from factory.runtime.browser import launch
from factory.runtime.server import AppServer, fresh_db
from factory.world.assemble import build_world

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "seeds"


class WorldCache:
    """Builds each seed at most once per test session (frontends included)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.built: dict[str, Path] = {}

    def get(self, seed: str) -> Path:
        if seed not in self.built:
            self.built[seed] = build_world(SEEDS / seed, self.root).path
        return self.built[seed]


@pytest.fixture(scope="session")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> WorldCache:
    return WorldCache(tmp_path_factory.mktemp("worlds"))


@pytest.fixture(scope="session")
def mock_world(worlds: WorldCache) -> Path:
    return worlds.get("mock.yaml")


@pytest.fixture(scope="session")
def mock_tasks_world(mock_world: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the mock world with a small task corpus (no browser gate), shared by the tests of
    the episode server and its clients, which only read a world's files."""
    from factory.tasks.graph import run_stage_two

    world = tmp_path_factory.mktemp("tasked") / "mock"
    shutil.copytree(mock_world, world)
    run_stage_two(world, total=12, ui=False, workers=2)
    return world


@pytest.fixture()
def mock_server(mock_world: Path, tmp_path: Path) -> Iterator[AppServer]:
    """The mock world on its own fresh database copy."""
    with AppServer(mock_world, fresh_db(mock_world, tmp_path / "app.db")) as server:
        yield server


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One Chromium for the whole session (tests get a fresh context each)."""
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    context.close()
