"""The lane pool: many work items checked in parallel against real app servers and Chromium.

`run_lanes` runs `handle(lane, item)` for every item over `min(lanes, len(items))` threads. Each
thread owns one `Lane`: a real app server (`server.AppServer`, started with a control token so a
handler can rebind it to another database with `use_db`) on the lane's own copy of a start
database, in the lane's own work folder, and, only if a handler asks for it, one headless Chromium
started in that same thread (Playwright's sync API must never cross threads). Lanes share one
queue of items, taken in list order, so slow items listed first finish together with the rest.

As each item finishes, `on_result(item, result)` runs under one lock (a progress hook). The first
exception in any lane stops the others after their current item and is re-raised in the caller.
Whatever happens, every lane closes its resources, its browser, its Playwright and its server.
Results come back in item order, whatever lane produced them and whenever.

The verifier's HTTP and UI claims and the UI-feasibility gate's trajectories run on it;
`run_browser_lanes` is the same pool without servers, for agents playing a served world's episodes
(the oracle).
"""

from __future__ import annotations

import queue
import secrets
import tempfile
import threading
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar, cast

from episodes.dbfiles import copy_db
from factory.runtime.server import AppServer

if TYPE_CHECKING:  # Playwright is imported only when a lane first starts a browser
    from playwright.sync_api import Browser, Playwright

__all__ = ["LANE_DB", "BrowserLane", "Closeable", "Lane", "run_browser_lanes", "run_lanes"]

LANE_DB = "base.db"  # the lane's own copy of the start database, in its work folder

T = TypeVar("T")
R = TypeVar("R")


class Closeable(Protocol):
    """A per-lane resource: closed when its lane ends."""

    def close(self) -> None: ...


C = TypeVar("C", bound=Closeable)


class BrowserLane:
    """One lane: its index, a Chromium started on first use, and named resources closed when the
    lane ends (all in the lane's thread)."""

    def __init__(self, index: int) -> None:
        self.index = index
        self._thread = threading.get_ident()
        self._resources: dict[str, Closeable] = {}
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    def browser(self) -> Browser:
        """The lane's Chromium, started on the first call (in the lane's own thread)."""
        if threading.get_ident() != self._thread:
            raise RuntimeError(f"lane {self.index}'s browser was asked for from another thread")
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            from factory.runtime.browser import launch

            self._playwright = sync_playwright().start()
            self._browser = launch(self._playwright)
        return self._browser

    def resource(self, key: str, make: Callable[[], C]) -> C:
        """The lane's resource under `key`, made by `make()` on the first call; closed when the lane ends."""
        if key not in self._resources:
            self._resources[key] = make()
        return cast(C, self._resources[key])

    def close(self) -> None:
        """Close the resources (the last made first), then the browser and Playwright; every one of
        them is closed even if an earlier one fails (the first failure is raised afterwards)."""
        resources, self._resources = list(self._resources.values()), {}
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        with ExitStack() as stack:  # callbacks run last-pushed first
            if playwright is not None:
                stack.callback(playwright.stop)
            if browser is not None:
                stack.callback(browser.close)
            for resource in resources:
                stack.callback(resource.close)


class Lane(BrowserLane):
    """A lane with its own app server, private work folder and database copy."""

    def __init__(self, index: int, server: AppServer, work: Path, db: Path) -> None:
        super().__init__(index)
        self.server, self.work, self.db = server, work, db


class _Pool(Generic[T, R]):
    """The shared state of one `run_lanes` call: the queue, the results, the first errors."""

    def __init__(self, items: Sequence[T], on_result: Callable[[T, R], None] | None) -> None:
        self.todo: queue.SimpleQueue[tuple[int, T]] = queue.SimpleQueue()
        for position, item in enumerate(items):
            self.todo.put((position, item))
        self.results: dict[int, R] = {}
        self.errors: list[BaseException] = []
        self.lock, self.stop = threading.Lock(), threading.Event()
        self.on_result = on_result

    def take(self) -> tuple[int, T] | None:
        if self.stop.is_set():
            return None
        try:
            return self.todo.get_nowait()
        except queue.Empty:
            return None

    def record(self, position: int, item: T, result: R) -> None:
        with self.lock:
            self.results[position] = result
            if self.on_result is not None:
                self.on_result(item, result)

    def fail(self, exc: BaseException) -> None:
        """Stop every lane after its current item and keep `exc` (once, in the order failures happen)."""
        self.stop.set()
        with self.lock:
            if not any(exc is seen for seen in self.errors):
                self.errors.append(exc)


L = TypeVar("L", bound=BrowserLane)


def _work_through(lane: L, handle: Callable[[L, T], R], pool: _Pool[T, R]) -> None:
    try:
        while (taken := pool.take()) is not None:
            position, item = taken
            try:
                pool.record(position, item, handle(lane, item))
            except BaseException as exc:  # the other lanes stop now, not after this one has closed
                pool.fail(exc)
                raise
    finally:
        lane.close()


def _lane(world: Path, index: int, folder: Path, db: Path, handle: Callable[[Lane, T], R], pool: _Pool[T, R]) -> None:
    try:
        with AppServer(world, db, control_token=secrets.token_hex(16)) as server:
            _work_through(Lane(index, server, folder, db), handle, pool)
    except BaseException as exc:  # noqa: BLE001  (any failure, even an interrupt, is re-raised in the caller)
        pool.fail(exc)


def _browser_lane(index: int, handle: Callable[[BrowserLane, T], R], pool: _Pool[T, R]) -> None:
    try:
        _work_through(BrowserLane(index), handle, pool)
    except BaseException as exc:  # noqa: BLE001  (any failure, even an interrupt, is re-raised in the caller)
        pool.fail(exc)


def _join(threads: list[threading.Thread], pool: _Pool[T, R]) -> None:
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    except BaseException:  # an interrupt in the caller: the lanes stop after their current item
        pool.stop.set()
        for thread in threads:
            thread.join()
        raise
    if pool.errors:
        raise pool.errors[0]


def run_lanes(world: Path, items: Sequence[T], handle: Callable[[Lane, T], R], *, lanes: int, work: Path | None,
              start_db: Path, name: str, on_result: Callable[[T, R], None] | None = None) -> list[R]:
    """`handle(lane, item)` for every item, over `min(lanes, len(items))` lanes (threads `{name}-{i}`);
    the results in item order.

    Lane i works in `work / f"lane-{i}"` (a temporary directory replaces `work` when it is None) and
    its server starts on its own copy of `start_db` there (`lane.db`). All copies are made before any
    lane starts, so a handler writing to `start_db` itself cannot reach another lane's copy.
    """
    if not items:
        return []
    pool: _Pool[T, R] = _Pool(items, on_result)
    with ExitStack() as stack:
        root = work if work is not None else Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"{name}-")))
        folders = [root / f"lane-{i}" for i in range(max(1, min(lanes, len(items))))]
        dbs = [copy_db(start_db, folder / LANE_DB) for folder in folders]
        threads = [threading.Thread(target=_lane, args=(world, i, folder, db, handle, pool), name=f"{name}-{i}")
                   for i, (folder, db) in enumerate(zip(folders, dbs, strict=True))]
        _join(threads, pool)
    return [pool.results[position] for position in range(len(items))]


def run_browser_lanes(items: Sequence[T], handle: Callable[[BrowserLane, T], R], *, lanes: int, name: str,
                      on_result: Callable[[T, R], None] | None = None) -> list[R]:
    """`run_lanes` without app servers: for work that reaches a server running elsewhere (an
    agent playing episodes of an episode server), each lane with its own Chromium and resources."""
    if not items:
        return []
    pool: _Pool[T, R] = _Pool(items, on_result)
    threads = [threading.Thread(target=_browser_lane, args=(i, handle, pool), name=f"{name}-{i}")
               for i in range(max(1, min(lanes, len(items))))]
    _join(threads, pool)
    return [pool.results[position] for position in range(len(items))]
