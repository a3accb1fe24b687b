"""The episode store on real SQLite files: exact reset, isolation, one-time tickets, the cap, expiry."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

from episodes.errors import BadRequest, EpisodeClosed, ServerFull, UnknownEpisode, UnknownTask
from episodes.store import EpisodeStore
from episodes.world import ServedWorld, Task


def _engine(db: Path) -> Engine:
    return create_engine(f"sqlite:///{db}", poolclass=NullPool)


@pytest.fixture()
def world(tmp_path: Path) -> ServedWorld:
    root = tmp_path / "w"
    (root / "data").mkdir(parents=True)
    conn = sqlite3.connect(root / "data" / "seed.db")
    conn.executescript("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO note VALUES (1, 'seed');")
    conn.close()
    task = Task(id="t1", goal="Add a note.", task_type="write", user="ann", starting_url="/notes",
                patch="INSERT INTO note(id,body) VALUES(2,'setup');\n", reward={})
    return ServedWorld(root=root, name="w", title="W", today="2026-06-15", users={"ann": 1, "bob": 2}, tasks={"t1": task})


def _rows(db: Path) -> list[tuple[int, str]]:
    conn = sqlite3.connect(db)
    try:
        return sorted(conn.execute("SELECT id, body FROM note").fetchall())
    finally:
        conn.close()


def _write(engine: Engine, body: str) -> None:
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO note(body) VALUES (:b)"), {"b": body})


def test_reset_gives_exactly_the_initial_state_after_any_writes(world: ServedWorld, tmp_path: Path) -> None:
    store = EpisodeStore(world, tmp_path / "work", _engine)
    episode = store.create("t1")
    initial = hashlib.sha256(episode.initial.read_bytes()).hexdigest()
    assert _rows(episode.db) == [(1, "seed"), (2, "setup")]
    for body in ("a", "b", "c"):
        _write(episode.engine, body)
    assert len(_rows(episode.db)) == 5
    store.reset(episode.id)
    assert _rows(episode.db) == [(1, "seed"), (2, "setup")]
    assert hashlib.sha256(episode.db.read_bytes()).hexdigest() == initial
    assert hashlib.sha256(episode.initial.read_bytes()).hexdigest() == initial  # the cached initial state is untouched
    assert _rows(world.seed_db) == [(1, "seed")]  # and the world's seed too


def test_two_episodes_never_see_each_others_writes(world: ServedWorld, tmp_path: Path) -> None:
    store = EpisodeStore(world, tmp_path / "work", _engine)
    one, two = store.create("t1"), store.create("t1")
    _write(one.engine, "only in one")
    assert (3, "only in one") in _rows(one.db)
    assert _rows(two.db) == [(1, "seed"), (2, "setup")]
    assert one.db != two.db and one.secret != two.secret


def test_a_launch_ticket_opens_its_episode_once(world: ServedWorld, tmp_path: Path) -> None:
    store = EpisodeStore(world, tmp_path / "work", _engine)
    episode = store.create("t1")
    assert episode.ticket is not None
    ticket = episode.ticket
    assert store.redeem(ticket) is episode
    assert store.redeem(ticket) is None
    assert store.by_secret(episode.secret) is episode
    assert store.by_secret("forged") is None


def test_bad_requests_are_named(world: ServedWorld, tmp_path: Path) -> None:
    store = EpisodeStore(world, tmp_path / "work", _engine, max_episodes=1)
    with pytest.raises(UnknownTask, match="no task 'nope'"):
        store.create("nope")
    with pytest.raises(BadRequest, match="unknown user 'zed'"):
        store.create(None, "zed")
    episode = store.create(None, "bob")
    assert episode.initial == world.seed_db and episode.user_id == 2
    with pytest.raises(ServerFull, match="maximum of 1 episodes"):
        store.create("t1")
    store.close(episode.id)
    with pytest.raises(EpisodeClosed, match="was closed"):
        store.get(episode.id)
    with pytest.raises(UnknownEpisode):
        store.get("ep-0000")
    assert not episode.db.exists()


def test_idle_episodes_expire_and_their_files_go(world: ServedWorld, tmp_path: Path) -> None:
    store = EpisodeStore(world, tmp_path / "work", _engine, ttl_seconds=60)
    idle, busy = store.create("t1"), store.create("t1")
    idle.last_used -= 120
    assert store.expire() == [idle.id]
    assert not idle.db.exists() and busy.db.exists()
    with pytest.raises(EpisodeClosed, match="was expired"):
        store.get(idle.id)
    assert store.by_secret(idle.secret) is None
