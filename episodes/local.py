"""A served world in a child process, for clients that hold a world or an unpacked bundle and no
server: `python -m episodes serve ROOT` on two free ports with a fresh token and a scratch work
folder, shared by every user of the same folder in this process and stopped with the last one
(or at exit). The Gymnasium environment uses it for `register_bundle(path)`.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import episodes
from episodes.client import ClientError, EvaluatorClient
from episodes.errors import WorldNotServable

BUNDLE_JSON = "bundle.json"
SPEC = "spec.json"
START_TIMEOUT = 120.0


def world_name(root: Path) -> str:
    """The world a folder serves: `bundle.json`'s name (an unpacked bundle), else `spec.json`'s world."""
    for name, key in ((BUNDLE_JSON, "name"), (SPEC, "world")):
        path = Path(root) / name
        if path.is_file():
            try:
                return str(json.loads(path.read_text())[key])
            except (ValueError, KeyError, TypeError) as exc:
                raise WorldNotServable(f"{path}: no {key!r} ({type(exc).__name__}: {exc})") from exc
    raise WorldNotServable(f"{root}: neither {BUNDLE_JSON} nor {SPEC}; unpack a bundle (tar xzf X.tar.gz) and name its "
                           "folder, or a built world")


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class LocalServer:
    """`python -m episodes serve ROOT` as a child process; `eval_url`, `agent_url` and `token` once started."""

    def __init__(self, root: Path, host: str = "127.0.0.1", python: str = sys.executable) -> None:
        self.root = Path(root).resolve()
        self.name = world_name(self.root)
        self.host = host
        self.python = python
        self.token = secrets.token_hex(24)
        self.port, self.eval_port = _free_port(host), _free_port(host)
        self.agent_url = f"http://{host}:{self.port}"
        self.eval_url = f"http://{host}:{self.eval_port}"
        self._scratch = Path(tempfile.mkdtemp(prefix=f"episodes-{self.name}-"))
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = START_TIMEOUT) -> LocalServer:
        # the same episodes package as this process's, whether the folder ships one (a bundle) or not
        package_parent = str(Path(episodes.__file__).resolve().parents[1])
        # the token goes by the environment, not the command line, which every local user can read
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p),
               "WORLD_EVAL_TOKEN": self.token}
        argv = [self.python, "-m", "episodes", "serve", str(self.root), "--host", self.host, "--port", str(self.port),
                "--eval-port", str(self.eval_port), "--work", str(self._scratch / "work")]
        with open(self._scratch / "server.log", "wb") as log:  # the child keeps writing it after the parent closes
            self._process = subprocess.Popen(argv, cwd=self.root, env=env, stdout=log, stderr=subprocess.STDOUT,
                                             start_new_session=True)
        deadline = time.monotonic() + timeout
        with EvaluatorClient(self.eval_url, self.token, timeout=2.0) as client:
            while time.monotonic() < deadline:
                if self._process.poll() is not None:
                    break
                with contextlib.suppress(ClientError):
                    client.health()
                    return self
                time.sleep(0.2)
        tail = (self._scratch / "server.log").read_text(errors="replace")[-2000:]
        self.stop()
        raise WorldNotServable(f"the episode server for {self.root} did not start within {timeout:.0f} s:\n{tail}")

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self._scratch, ignore_errors=True)


_lock = threading.Lock()
_servers: dict[Path, tuple[LocalServer, int]] = {}


def acquire(root: str | Path) -> LocalServer:
    """The running server of `root` (started on first use); pair every call with `release`."""
    key = Path(root).resolve()
    with _lock:
        server, users = _servers.get(key, (None, 0))
        if server is None:
            server = LocalServer(key).start()
        _servers[key] = (server, users + 1)
        return server


def release(root: str | Path) -> None:
    """One user less; the last one stops the server."""
    key = Path(root).resolve()
    with _lock:
        server, users = _servers.get(key, (None, 0))
        if server is None:
            return
        if users > 1:
            _servers[key] = (server, users - 1)
            return
        del _servers[key]
    server.stop()


@atexit.register
def _stop_all() -> None:
    with _lock:
        servers = [server for server, _users in _servers.values()]
        _servers.clear()
    for server in servers:
        server.stop()


__all__ = ["LocalServer", "acquire", "release", "world_name"]
