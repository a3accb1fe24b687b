"""A world served to agents for the length of a `with` block: a copy of it under a scratch folder,
the episode server (`python -m episodes serve`) on two free loopback ports with a fresh token.

Triage re-runs golden trajectories here (on a copy, so the world's own folder gets no episode
files and a repair in progress never changes the app under a running server); tests and the bench
run the reference agents against it.

    with serve_world(world, scratch) as served:
        run_flawed(served.eval_url, served.token, world, None, seed=0)
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from factory.errors import WorldError
from factory.runtime.server import free_port, stop_process

REPO = Path(__file__).resolve().parents[2]  # the checkout holding episodes/
# what a served copy never needs: the world's history, its run folders and its demonstrations
_SKIP = shutil.ignore_patterns(".git", "run", "node_modules", "trajectories", "screenshots")
START_TIMEOUT = 60.0


@dataclass(frozen=True)
class Served:
    """A running episode server: where the evaluator and agents reach it, and its token."""

    world: Path  # the served copy
    eval_url: str
    agent_url: str
    token: str
    log: Path


@contextmanager
def serve_world(world: Path, scratch: Path, rollouts: Path | None = None, copy: bool = True,
                max_episodes: int = 64) -> Iterator[Served]:
    """Serve `world` (a copy under `scratch` unless `copy` is false) until the block ends.

    `rollouts` is the server's `--rollouts FILE`: every episode finished through
    `POST /episodes/{id}/finish` is appended there, its events beside it."""
    scratch.mkdir(parents=True, exist_ok=True)
    root = Path(world).resolve()
    if copy:
        target = scratch / "world" / root.name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(root, target, ignore=_SKIP)
        root = target
    port, eval_port = free_port(), free_port()
    token = secrets.token_urlsafe(24)
    log = scratch / f"episodes-{eval_port}.log"
    command = [sys.executable, "-m", "episodes", "serve", str(root), "--port", str(port), "--eval-port",
               str(eval_port), f"--token={token}", "--work", str(scratch / f"episodes-{eval_port}"),
               "--max-episodes", str(max_episodes)]
    if rollouts is not None:
        command += ["--rollouts", str(Path(rollouts).resolve())]
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    served = Served(root, f"http://127.0.0.1:{eval_port}", f"http://127.0.0.1:{port}", token, log)
    try:
        _wait(process, served)
        yield served
    finally:
        stop_process(process)


def _wait(process: subprocess.Popen[bytes], served: Served) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    headers = {"Authorization": f"Bearer {served.token}"}
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise WorldError(f"the episode server for {served.world} exited with code {process.returncode}: "
                             f"{served.log.read_text()[-2000:]}")
        try:
            if httpx.get(served.eval_url + "/health", headers=headers, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)  # polling a readiness probe
    raise WorldError(f"the episode server for {served.world} did not answer within {START_TIMEOUT:.0f}s: "
                     f"{served.log.read_text()[-2000:]}")


__all__ = ["Served", "serve_world"]
