"""The lane pool (`factory.runtime.lanes`) on the built mock world: real app servers, real database copies.

Handlers synchronise with events and barriers, never with sleeps: two items that meet at a barrier
are, by construction, running at the same time in two different lanes.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser

from factory.runtime.lanes import LANE_DB, BrowserLane, Lane, run_browser_lanes, run_lanes
from factory.world.layout import World

WAIT = 60  # seconds a handler waits for its partner before the test fails (it never should)


def _rows(db: Path, sql: str, *args: object) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def _login(lane: Lane) -> httpx.Client:
    client = httpx.Client(base_url=lane.server.url, timeout=20)
    response = client.post("/api/auth/login", json={"username": "alice", "password": "alice-pass"})
    assert response.status_code == 200, response.text
    return client


def _marked(client: httpx.Client) -> int:
    return int(client.get("/api/notes", params={"q": "Lane marker"}).json()["total"])


class _Closed:
    """A lane resource that notes when its lane closed it."""

    def __init__(self, index: int, closed: dict[int, threading.Event]) -> None:
        self.index, self.closed = index, closed

    def close(self) -> None:
        self.closed[self.index].set()


def test_results_come_back_in_item_order_across_two_lanes(mock_world: Path, tmp_path: Path) -> None:
    second_done = threading.Event()
    finished: list[int] = []
    seen: list[tuple[str, int]] = []

    def handle(lane: Lane, item: int) -> int:
        seen.append((threading.current_thread().name, lane.index))
        if item == 0:  # the first item finishes only after the second one has been recorded
            assert second_done.wait(WAIT), "the second item never ran beside the first"
        assert httpx.get(f"{lane.server.url}/api/health", timeout=10).status_code == 200
        return item * 10

    def on_result(item: int, result: int) -> None:
        finished.append(item)
        if item == 1:
            second_done.set()

    results = run_lanes(mock_world, list(range(6)), handle, lanes=2, work=tmp_path / "work",
                        start_db=World(mock_world).seed_db, name="order", on_result=on_result)
    assert results == [0, 10, 20, 30, 40, 50]
    assert finished[0] == 1 and sorted(finished) == list(range(6))  # finished out of order, returned in order
    assert {index for _, index in seen} == {0, 1}
    assert all(name == f"order-{index}" for name, index in seen)
    assert sorted(p.name for p in (tmp_path / "work").iterdir()) == ["lane-0", "lane-1"]


def test_each_lane_has_its_own_server_and_database_copy(mock_world: Path, tmp_path: Path) -> None:
    seed = World(mock_world).seed_db
    notebook = _rows(seed, "SELECT id FROM notebook WHERE owner_id = 1 ORDER BY id")[0][0]
    both_started = threading.Barrier(2, timeout=WAIT)  # the two items run at once, so in two lanes
    written = threading.Event()

    def handle(lane: Lane, item: str) -> tuple[int, str, Path, int]:
        assert lane.server.db == lane.db == tmp_path / "work" / f"lane-{lane.index}" / LANE_DB
        both_started.wait()
        client = lane.resource("client", lambda: _login(lane))
        if item == "write":
            response = client.post("/api/workflows/write_note", json={"notebook": notebook, "title": "Lane marker"})
            assert response.status_code == 200, response.text
            written.set()
        else:
            assert written.wait(WAIT), "the writing lane never wrote"
        return lane.index, lane.server.url, lane.db, _marked(client)

    (w_index, w_url, w_db, w_seen), (r_index, r_url, r_db, r_seen) = run_lanes(
        mock_world, ["write", "read"], handle, lanes=2, work=tmp_path / "work", start_db=seed, name="own")
    assert w_index != r_index and w_url != r_url and w_db != r_db
    assert (w_seen, r_seen) == (1, 0)  # the reading lane's server never sees the other lane's write
    assert _rows(w_db, "SELECT count(*) FROM note WHERE title = 'Lane marker'") == [(1,)]
    assert _rows(r_db, "SELECT count(*) FROM note WHERE title = 'Lane marker'") == [(0,)]
    assert _rows(seed, "SELECT count(*) FROM note WHERE title = 'Lane marker'") == [(0,)]


def test_an_error_stops_the_other_lanes_is_raised_and_everything_is_closed(mock_world: Path) -> None:
    both_started = threading.Barrier(2, timeout=WAIT)
    closed = {0: threading.Event(), 1: threading.Event()}
    failing: list[int] = []
    started: list[int] = []
    lanes: list[Lane] = []
    recorded: list[int] = []

    def handle(lane: Lane, item: int) -> int:
        started.append(item)
        lane.resource("probe", lambda: _Closed(lane.index, closed))
        if item in (0, 1):
            lanes.append(lane)
            both_started.wait()
        if item == 1:
            failing.append(lane.index)
            raise ValueError("item 1 failed")
        if item == 0:  # returns once the failing lane has closed: the pool has been told to stop by then
            assert closed[1 - lane.index].wait(WAIT), "the failing lane never closed its resources"
        return item

    with pytest.raises(ValueError, match="item 1 failed"):
        run_lanes(mock_world, list(range(10)), handle, lanes=2, work=None, start_db=World(mock_world).seed_db,
                  name="boom", on_result=lambda item, _: recorded.append(item))
    assert sorted(started) == [0, 1] and recorded == [0]  # no item was taken after the failure
    assert all(event.is_set() for event in closed.values())  # both lanes closed their resources
    for lane in lanes:
        assert lane.server.process is None
        with pytest.raises(httpx.TransportError):
            httpx.get(f"{lane.server.url}/api/health", timeout=2)
        assert not lane.work.exists()  # the temporary work folder is gone


def test_no_items_start_no_lane(mock_world: Path, tmp_path: Path) -> None:
    assert run_lanes(mock_world, [], lambda lane, item: item, lanes=2, work=tmp_path / "work",
                     start_db=World(mock_world).seed_db, name="none") == []
    assert not (tmp_path / "work").exists()


@pytest.mark.ui
def test_a_lane_starts_its_browser_lazily_in_its_own_thread_and_closes_it(mock_world: Path) -> None:
    browsers: list[Browser] = []
    names: list[str] = []

    def handle(lane: Lane, item: str) -> str:
        names.append(threading.current_thread().name)
        browser = lane.browser()
        assert lane.browser() is browser  # one Chromium per lane
        browsers.append(browser)
        foreign: list[BaseException] = []

        def elsewhere() -> None:
            try:
                lane.browser()
            except RuntimeError as exc:
                foreign.append(exc)

        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
        assert len(foreign) == 1  # Playwright's sync API never crosses threads
        page = browser.new_page()
        try:
            response = page.goto(f"{lane.server.url}/login")
            assert response is not None and response.ok
        finally:
            page.close()
        return item

    assert run_lanes(mock_world, ["a", "b"], handle, lanes=1, work=None, start_db=World(mock_world).seed_db,
                     name="ui-test") == ["a", "b"]
    assert names == ["ui-test-0", "ui-test-0"] and len(browsers) == 2 and browsers[0] is browsers[1]
    assert not browsers[0].is_connected()


def test_browser_lanes_run_without_servers_in_order_and_raise_the_first_error() -> None:
    closed: list[int] = []

    class Marker:
        def __init__(self, index: int) -> None:
            self.index = index

        def close(self) -> None:
            closed.append(self.index)

    threads: set[str] = set()

    def handle(lane: BrowserLane, item: int) -> int:
        lane.resource("marker", lambda: Marker(lane.index))
        threads.add(threading.current_thread().name)
        return item * item

    assert run_browser_lanes(list(range(20)), handle, lanes=2, name="plain") == [i * i for i in range(20)]
    assert threads <= {"plain-0", "plain-1"} and sorted(closed) == sorted({int(t[-1]) for t in threads})

    def failing(_lane: BrowserLane, item: int) -> int:
        if item == 3:
            raise ValueError("item 3 is bad")
        return item

    with pytest.raises(ValueError, match="item 3 is bad"):
        run_browser_lanes(list(range(50)), failing, lanes=2, name="failing")
    assert run_browser_lanes([], failing, lanes=2, name="none") == []
