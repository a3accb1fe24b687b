"""The HTTP client that acts as a user: one app server, rebound to each episode's database.

Stage two's setups and golden runs, the UI gate, the counterfactual checks and the benchmarks all
drive a built world the same way: log in as a user (a signed session cookie, valid on every copy of
the database) and POST workflow calls, each run on the database it is given.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import httpx

from episodes.client import LIMITS
from episodes.dbfiles import copy_db
from factory.errors import ClientError
from factory.runtime.server import AppServer
from factory.runtime.step import Step
from factory.spec.model import Spec
from factory.world.layout import World


@dataclass
class CallResult:
    """One HTTP workflow call: the step, the status and the answer body."""

    step: Step
    status: int
    body: dict[str, Any] = field(default_factory=dict)


class Backend:
    """One app server for all of stage two, rebound to each episode's database by control token."""

    def __init__(self, world: Path, spec: Spec, work: Path) -> None:
        self.world, self.spec, self.work = world, spec, work
        self.scratch = copy_db(World(world).seed_db, work / "scratch.db")
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
            # idle connections dropped before the app's uvicorn closes them (see episodes.client.LIMITS)
            client = httpx.Client(base_url=self.server.url, timeout=30, verify=False, limits=LIMITS)
            r = client.post("/api/auth/login", json={"username": username, "password": self.passwords[username]})
            if r.status_code != 200:
                client.close()
                raise ClientError(f"login as {username} failed: {r.status_code}", r.status_code, r.text[:200])
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


__all__ = ["Backend", "CallResult"]
