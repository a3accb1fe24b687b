"""Shared fixtures: worlds built once per session, real servers on free ports, a Chromium browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from factory.runner import AppServer, fresh_db
from factory.world import build_world

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


@pytest.fixture()
def mock_server(mock_world: Path, tmp_path: Path) -> Iterator[AppServer]:
    """The mock world on its own fresh database copy."""
    with AppServer(mock_world, fresh_db(mock_world, tmp_path / "app.db")) as server:
        yield server
