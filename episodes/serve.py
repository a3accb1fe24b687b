"""One process, two ports: the agent's (the world's app, per-episode databases) and the
evaluator's (episodes, state, diff, grade, events, behind a token).

    python -m episodes serve worlds/echobank --port 8000 --eval-port 8001

The token comes from `--token`, the `WORLD_EVAL_TOKEN` environment variable, or is made up and
written to `<work>/token` (readable by the owner only). Everything the server writes lives in its
work folder (default `<world>/run/episodes/<pid>`), removed at exit; the world's own files are
only read.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from episodes.agent import AgentGate
from episodes.app import load_app
from episodes.evaluator import create_evaluator
from episodes.rollouts import RolloutWriter
from episodes.store import EpisodeStore
from episodes.world import ServedWorld

log = logging.getLogger(__name__)
# longer than any client keeps an idle connection (episodes.client.LIMITS: 2 s), so the server never
# closes a connection a client is about to reuse
KEEP_ALIVE_SECONDS = 30


@dataclass
class ServerConfig:
    world: Path
    host: str = "127.0.0.1"
    port: int = 8000
    eval_port: int = 8001
    token: str | None = None
    max_episodes: int = 256
    ttl_seconds: float = 1800.0
    work: Path | None = None
    rollouts: Path | None = None  # finished episodes are appended here (POST /episodes/{id}/finish)


class EpisodeServer:
    """Both ports of one world; `run()` blocks until stopped, `stop()` may come from any thread."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.world = ServedWorld.load(config.world)
        runs = self.world.root / "run" / "episodes"
        _remove_dead_runs(runs)
        self.work = config.work or runs / str(os.getpid())
        self.work.mkdir(parents=True, exist_ok=True)
        # hex: a made-up token never starts with "-", so `--token "$T"` always parses
        self.token = config.token or os.environ.get("WORLD_EVAL_TOKEN") or secrets.token_hex(24)
        token_file = self.work / "token"
        token_file.write_text(self.token + "\n")
        token_file.chmod(0o600)
        self.agent_url = f"http://{config.host}:{config.port}"
        self.eval_url = f"http://{config.host}:{config.eval_port}"
        loaded = load_app(self.world, self.work / "park.db")
        self.store = EpisodeStore(self.world, self.work / "episodes", loaded.make_engine,
                                  max_episodes=config.max_episodes, ttl_seconds=config.ttl_seconds)
        gate = AgentGate(loaded.asgi, self.store, loaded.sign, loaded.session_cookie)
        writer = RolloutWriter(config.rollouts) if config.rollouts is not None else None
        evaluator = create_evaluator(self.store, self.token, self.agent_url, writer)
        self._servers = [
            uvicorn.Server(uvicorn.Config(gate, host=config.host, port=config.port, log_level="warning",
                                          timeout_keep_alive=KEEP_ALIVE_SECONDS)),
            uvicorn.Server(uvicorn.Config(evaluator, host=config.host, port=config.eval_port, log_level="warning",
                                          timeout_keep_alive=KEEP_ALIVE_SECONDS)),
        ]
        self._stopped = threading.Event()

    def run(self) -> None:
        reaper = threading.Thread(target=self._reap, name="episode-reaper", daemon=True)
        reaper.start()
        try:
            asyncio.run(self._serve())
        finally:
            self._stopped.set()
            self.store.cleanup()
            shutil.rmtree(self.work, ignore_errors=True)

    async def _serve(self) -> None:
        watcher = asyncio.create_task(self._stop_together())
        try:
            await asyncio.gather(*(server.serve() for server in self._servers))
        finally:
            watcher.cancel()

    async def _stop_together(self) -> None:
        """Each uvicorn server installs its own signal handlers, and a signal may reach only one of
        them: when either port is told to stop, both stop."""
        while not any(server.should_exit for server in self._servers):
            await asyncio.sleep(0.1)
        self.stop()

    def stop(self) -> None:
        for server in self._servers:
            server.should_exit = True

    @property
    def started(self) -> bool:
        return all(server.started for server in self._servers)

    def _reap(self) -> None:
        interval = max(0.5, min(30.0, self.config.ttl_seconds / 4))
        while not self._stopped.wait(interval):
            for episode_id in self.store.expire():
                log.info("episode %s expired", episode_id)


def _remove_dead_runs(runs: Path) -> None:
    """Work folders of servers that were killed (their process is gone) are removed at start."""
    if not runs.is_dir():
        return
    for folder in runs.iterdir():
        if folder.name.isdigit() and not _alive(int(folder.name)):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
