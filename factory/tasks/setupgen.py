"""setup-gen: a task's initial state (a replayable patch) and its golden state (the real backend).

Nothing here writes application rows directly. A setup (the unpaid bill, the locked card a task
needs) is made by running workflows through the backend's HTTP API as the acting user on a copy
of the seed database; what that changed is saved as a sqldiff-format SQL patch, and the initial
state is always rebuilt by replaying that patch on the seed database (and checked to be the same
rows). The golden final state is made the same way: the task's own steps, over HTTP, on a copy of
the initial state.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self
from urllib.parse import quote

import httpx

from factory.errors import TaskError
from factory.runner import AppServer
from factory.spec.model import Spec
from factory.tasks.effects import Step
from verifiers.dbdiff import diff_databases
from verifiers.sqlrender import render_sqldiff


class SetupError(TaskError):
    """The backend refused a setup or golden step; `status` and `detail` say how."""

    def __init__(self, message: str, status: int = 0, detail: str = "") -> None:
        self.status, self.detail = status, detail
        super().__init__(message)


@dataclass
class CallResult:
    """One HTTP workflow call: the step, the status and the answer body."""

    step: Step
    status: int
    body: dict[str, Any] = field(default_factory=dict)


def copy_db(source: Path, target: Path) -> Path:
    """A standalone copy of a database file (no stale -wal/-shm left next to the target)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    for leftover in target.parent.glob(target.name + "-*"):
        leftover.unlink()
    # A new file, never an overwrite: a connection the app has not closed yet (FastAPI closes a
    # request's session after the response is sent) keeps reading the old inode, untouched.
    target.unlink(missing_ok=True)
    # The backup API copies the committed state, a write-ahead log included (a file copy would not).
    src = sqlite3.connect(f"file:{quote(str(Path(source).resolve()))}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    return target


class Backend:
    """One app server for all of stage two, rebound to each episode's database by control token."""

    def __init__(self, world: Path, spec: Spec, work: Path) -> None:
        self.world, self.spec, self.work = world, spec, work
        self.scratch = copy_db(world / "data" / "seed.db", work / "scratch.db")
        self.server = AppServer(world, self.scratch, control_token=secrets.token_hex(16))
        self.passwords = {u.username: u.password for u in spec.users}
        self._clients: dict[str, httpx.Client] = {}

    def __enter__(self) -> Self:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for client in self._clients.values():
            client.close()
        self._clients.clear()
        self.server.stop()

    def _client(self, db: Path, username: str) -> httpx.Client:
        """A logged-in client for `username`, with the server bound to `db`. One client per user
        for the whole run: sessions are signed cookies, valid on every copy of the database."""
        self.server.use_db(db)
        if username not in self._clients:
            # Plain HTTP on loopback: no TLS, so no certificate store to build (20 ms a client).
            client = httpx.Client(base_url=self.server.url, timeout=30, verify=False)
            r = client.post("/api/auth/login", json={"username": username, "password": self.passwords[username]})
            if r.status_code != 200:
                client.close()
                raise SetupError(f"login as {username} failed: {r.status_code}", r.status_code, r.text[:200])
            self._clients[username] = client
        return self._clients[username]

    def release(self) -> None:
        """Rebind to the scratch database: the engine on the last one is disposed, so its WAL is
        checkpointed into the file and other processes see every committed change."""
        self.server.use_db(self.scratch)

    def run(self, db: Path, username: str, steps: list[Step], stop_on_error: bool = True) -> list[CallResult]:
        """POST each step to `/api/workflows/<name>` as `username`, on `db`."""
        results: list[CallResult] = []
        client = self._client(db, username)
        try:
            for step in steps:
                r = client.post(f"/api/workflows/{step.workflow}", json=step.params)
                body = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
                results.append(CallResult(step, r.status_code, body))
                if r.status_code != 200 and stop_on_error:
                    break
        finally:
            self.release()
        return results

    def options(self, db: Path, username: str, workflow: str, param: str) -> list[int]:
        """Row ids the UI offers for a reference parameter (the `where` of the seed applied)."""
        client = self._client(db, username)
        try:
            r = client.get(f"/api/workflows/{workflow}/options/{param}")
            return [int(i["id"]) for i in r.json().get("items", [])] if r.status_code == 200 else []
        finally:
            self.release()


def make_patch(seed_db: Path, changed_db: Path) -> str:
    """The rows that differ, as sqldiff-format SQL that turns the seed into `changed_db`."""
    return render_sqldiff(diff_databases(seed_db, changed_db))


def apply_patch(seed_db: Path, patch: str, target: Path) -> Path:
    """Replay a setup patch on a fresh copy of the seed database."""
    copy_db(seed_db, target)
    if patch.strip():
        conn = sqlite3.connect(target)
        try:
            conn.executescript("BEGIN;\n" + patch + "\nCOMMIT;")
        finally:
            conn.close()
    return target


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Setup:
    """How a task's initial state is made: the workflow calls, and the patch they produced."""

    steps: list[Step]
    patch: str

    def to_json(self) -> dict[str, Any]:
        return {"steps": [{"workflow": s.workflow, "params": s.params} for s in self.steps],
                "patch": self.patch, "patch_sha256": sha256_text(self.patch),
                "how": ("replay `patch` (sqldiff SQL) on data/seed.db" if self.patch else
                        "none: the task starts from data/seed.db")}


def build_setup(backend: Backend, seed_db: Path, username: str, steps: list[Step], work: Path) -> Setup:
    """Run setup steps through the backend on a seed copy; keep the patch; prove it replays."""
    if not steps:
        return Setup([], "")
    scratch = copy_db(seed_db, work / "setup-run.db")
    results = backend.run(scratch, username, steps)
    bad = next((r for r in results if r.status != 200), None)
    if bad is not None or len(results) != len(steps):
        assert bad is not None
        raise SetupError(f"setup step {bad.step.workflow} answered {bad.status}: "
                         f"{bad.body.get('detail', '')}", bad.status, str(bad.body.get("detail", "")))
    patch = make_patch(seed_db, scratch)
    replayed = apply_patch(seed_db, patch, work / "setup-replay.db")
    if not diff_databases(scratch, replayed).is_empty:
        raise SetupError("the setup patch does not replay to the same rows")
    return Setup(list(steps), patch)


def run_golden(backend: Backend, initial_db: Path, username: str, steps: list[Step], target: Path) -> Path:
    """The golden final state: the task's steps over HTTP on a copy of the initial state."""
    copy_db(initial_db, target)
    results = backend.run(target, username, steps)
    bad = next((r for r in results if r.status != 200), None)
    if bad is not None:
        raise SetupError(f"golden step {bad.step.workflow} answered {bad.status}: "
                         f"{bad.body.get('detail', '')}", bad.status, str(bad.body.get("detail", "")))
    return target
