"""Run a built world's app as a real uvicorn server on a free loopback port (for tests and the verifier)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx

from episodes.dbfiles import copy_db
from factory.errors import WorldError
from factory.world.layout import World


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop_process(process: subprocess.Popen[bytes], grace: float = 30) -> None:
    """Stop a server process: SIGTERM, `grace` seconds to finish its requests, then SIGKILL."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def fresh_db(world: Path, target: Path) -> Path:
    """Copy the world's seed database to `target` (servers never touch the seed database itself)."""
    return copy_db(World(world).seed_db, target)


class AppServer:
    """`with AppServer(world, db) as server:` — the app is up (health answered) inside the block."""

    def __init__(self, world: Path, db: Path, user: str | None = None, host: str = "127.0.0.1",
                 port: int | None = None, timeout: float = 30.0, control_token: str | None = None) -> None:
        self.world, self.db, self.user, self.host = Path(world), Path(db), user, host
        self.control_token = control_token
        self.port = port or free_port()
        self.timeout = timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = self.db.with_suffix(".server.log")

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> AppServer:
        command = [sys.executable, "-m", "backend.app", "--host", self.host, "--port", str(self.port),
                   "--db", str(self.db.resolve())]
        if self.user:
            command += ["--user", self.user]
        if self.control_token:
            command += ["--control-token", self.control_token]
        log = self.log_path.open("wb")
        self.process = subprocess.Popen(command, cwd=World(self.world).app_dir, stdout=log, stderr=subprocess.STDOUT)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise WorldError(f"app exited with code {self.process.returncode}: {self.log_path.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)  # polling a readiness probe, not waiting a fixed time
        self.stop()
        raise WorldError(f"app did not answer /api/health within {self.timeout}s")

    def use_db(self, db: Path) -> None:
        """Rebind the running app to another database file (needs a control token)."""
        if not self.control_token:
            raise WorldError("this server was started without a control token")
        response = httpx.post(f"{self.url}/__control/database", json={"path": str(Path(db).resolve())},
                              headers={"x-control-token": self.control_token}, timeout=10)
        if response.status_code != 200:
            raise WorldError(f"could not switch the app's database: {response.status_code} {response.text[:200]}")
        self.db = Path(db)

    def log_tail(self, offset: int) -> tuple[list[str], int]:
        """Server log lines written since byte `offset`, and the new offset."""
        if not self.log_path.exists():
            return [], offset
        data = self.log_path.read_bytes()
        return data[offset:].decode(errors="replace").splitlines(), len(data)

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process, grace=10)
        self.process = None

    def __enter__(self) -> AppServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
