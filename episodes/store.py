"""Episodes and their store: each episode owns a private copy of its task's initial database,
bound to the agent's browser by a secret cookie; reset is a fresh copy; expiry and a cap bound
what one server holds.

Files live under the server's work folder (never in the world's own files): `initial/` caches each
task's initial state (its setup patch replayed once on the seed), `live/` holds one file per episode
generation (a reset writes a new file and a new engine, so a request still in flight on the old
state can never write into the new one).
"""

from __future__ import annotations

import enum
import secrets
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import Engine

from episodes.dbfiles import apply_patch, copy_db, snapshot
from episodes.errors import BadRequest, EpisodeClosed, ServerFull, UnknownEpisode, UnknownTask
from episodes.events import EventLog
from episodes.world import ServedWorld, Task

EngineMaker = Callable[[Path], Engine]
REMEMBER_CLOSED = 10_000  # closed ids kept to answer "closed" (410) rather than "unknown" (404)


@dataclass
class Episode:
    id: str
    secret: str  # the agent's browser holds it in an HttpOnly cookie; nobody else ever sees it
    task: Task | None
    user: str
    user_id: int
    initial: Path
    db: Path
    engine: Engine
    ticket: str | None
    generation: int = 0
    noise_seed: int | None = None  # noisy mode: seeded, recoverable perturbations (None: clean)
    noise_requests: int = 0  # API requests of this generation so far (noisy mode delays some by their count)
    created: float = field(default_factory=time.monotonic)
    last_used: float = field(default_factory=time.monotonic)
    events: EventLog = field(default_factory=EventLog)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def describe(self) -> dict[str, object]:
        info: dict[str, object] = {"episode_id": self.id, "user": self.user, "generation": self.generation,
                                   "task_id": None, "instruction": None, "starting_url": "/",
                                   "noise_seed": self.noise_seed}
        if self.task is not None:
            info.update(self.task.public())
        return info


class _Keep(enum.Enum):
    KEEP = "keep"


KEEP = _Keep.KEEP  # `reset` leaves the episode's noise seed as it is


class EpisodeStore:
    """Every live episode of one served world, thread-safe."""

    def __init__(self, world: ServedWorld, work: Path, make_engine: EngineMaker, max_episodes: int = 256,
                 ttl_seconds: float = 1800.0) -> None:
        if max_episodes < 1:
            raise BadRequest(f"max_episodes must be at least 1, got {max_episodes}")
        self.world, self.work, self.make_engine = world, Path(work), make_engine
        self.max_episodes, self.ttl = max_episodes, ttl_seconds
        self._episodes: dict[str, Episode] = {}
        self._by_secret: dict[str, Episode] = {}
        self._tickets: dict[str, Episode] = {}
        self._closed: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        self._initial_lock = threading.Lock()
        (self.work / "initial").mkdir(parents=True, exist_ok=True)
        (self.work / "live").mkdir(parents=True, exist_ok=True)

    # ---- lifecycle -----------------------------------------------------------------------------
    def create(self, task_id: str | None = None, user: str | None = None, noise_seed: int | None = None) -> Episode:
        """A new episode on the task's initial state (or, with no task, the seed state as `user`);
        noisy when given a `noise_seed` (see `episodes.noise`)."""
        task = self._task(task_id) if task_id is not None else None
        acting = task.user if task is not None else (user or next(iter(self.world.users), ""))
        if acting not in self.world.users:
            raise BadRequest(f"unknown user {acting!r}; the world's users are listed in its README")
        initial = self.initial_db(task)
        with self._lock:
            if len(self._episodes) >= self.max_episodes:
                raise ServerFull(f"the server holds its maximum of {self.max_episodes} episodes; close one "
                                 "(DELETE /episodes/<id>) or start the server with a larger --max-episodes")
            episode_id = "ep-" + secrets.token_hex(8)
            db = self.work / "live" / f"{episode_id}-0.db"
            copy_db(initial, db)
            episode = Episode(id=episode_id, secret=secrets.token_urlsafe(24), task=task, user=acting,
                              user_id=self.world.users[acting], initial=initial, db=db,
                              engine=self.make_engine(db), ticket=secrets.token_urlsafe(24), noise_seed=noise_seed)
            self._episodes[episode.id] = episode
            self._by_secret[episode.secret] = episode
            assert episode.ticket is not None
            self._tickets[episode.ticket] = episode
        noisy = {} if noise_seed is None else {"noise_seed": noise_seed}
        episode.events.add("created", task_id=task_id, user=acting, **noisy)
        return episode

    def reset(self, episode_id: str, noise_seed: int | _Keep | None = KEEP) -> Episode:
        """The episode's state back to exactly its initial state; a new launch ticket; the noise
        seed changed when one (or None: clean) is given."""
        episode = self.get(episode_id)
        with episode.lock:
            if noise_seed is not KEEP:
                episode.noise_seed = noise_seed
            episode.noise_requests = 0
            old_db, old_engine = episode.db, episode.engine
            episode.generation += 1
            episode.db = self.work / "live" / f"{episode.id}-{episode.generation}.db"
            copy_db(episode.initial, episode.db)
            episode.engine = self.make_engine(episode.db)
            old_engine.dispose()
            _remove_db(old_db)
        with self._lock:
            if episode.ticket is not None:
                self._tickets.pop(episode.ticket, None)
            episode.ticket = secrets.token_urlsafe(24)
            self._tickets[episode.ticket] = episode
        episode.last_used = time.monotonic()
        noisy = {} if episode.noise_seed is None else {"noise_seed": episode.noise_seed}
        episode.events.add("reset", generation=episode.generation, **noisy)
        return episode

    def close(self, episode_id: str, reason: str = "closed") -> None:
        with self._lock:
            episode = self._episodes.pop(episode_id, None)
            if episode is None:
                self._raise_missing(episode_id)
                return
            self._by_secret.pop(episode.secret, None)
            if episode.ticket is not None:
                self._tickets.pop(episode.ticket, None)
            self._closed[episode_id] = reason
            while len(self._closed) > REMEMBER_CLOSED:
                self._closed.popitem(last=False)
        with episode.lock:
            episode.engine.dispose()
            _remove_db(episode.db)

    def close_all(self) -> None:
        for episode_id in list(self._episodes):
            self.close(episode_id)

    def expire(self, now: float | None = None) -> list[str]:
        """Close every episode idle for longer than the time to live; their ids."""
        now = time.monotonic() if now is None else now
        with self._lock:
            stale = [e.id for e in self._episodes.values() if now - e.last_used > self.ttl]
        for episode_id in stale:
            self.close(episode_id, reason="expired")
        return stale

    # ---- lookups ---------------------------------------------------------------------------------
    def get(self, episode_id: str) -> Episode:
        with self._lock:
            episode = self._episodes.get(episode_id)
            if episode is None:
                self._raise_missing(episode_id)
            assert episode is not None
            return episode

    def by_secret(self, secret: str | None) -> Episode | None:
        if not secret:
            return None
        with self._lock:
            episode = self._by_secret.get(secret)
        if episode is not None:
            episode.last_used = time.monotonic()
        return episode

    def redeem(self, ticket: str) -> Episode | None:
        """The episode a launch ticket opens, once: a second use finds nothing."""
        with self._lock:
            episode = self._tickets.pop(ticket, None)
            if episode is not None:
                episode.ticket = None
        return episode

    def live(self) -> list[Episode]:
        with self._lock:
            return list(self._episodes.values())

    def _raise_missing(self, episode_id: str) -> None:
        if episode_id in self._closed:
            raise EpisodeClosed(f"episode {episode_id} was {self._closed[episode_id]}; its state is gone")
        raise UnknownEpisode(f"no episode {episode_id} on this server")

    def _task(self, task_id: str) -> Task:
        task = self.world.tasks.get(task_id)
        if task is None:
            raise UnknownTask(f"no task {task_id!r} in {self.world.name} ({len(self.world.tasks)} tasks; "
                              "GET /tasks lists them)")
        return task

    # ---- databases ---------------------------------------------------------------------------------
    def initial_db(self, task: Task | None) -> Path:
        """The task's initial state, made once per server from the seed and the task's setup patch."""
        if task is None:
            return self.world.seed_db
        target = self.work / "initial" / f"{task.id}.db"
        with self._initial_lock:
            if not target.exists():
                partial = target.with_name(target.name + ".partial")
                apply_patch(self.world.seed_db, task.patch, partial)
                partial.replace(target)  # a half-made state is never taken for a whole one
        return target

    def capture(self, episode: Episode, name: str) -> Path:
        """A consistent copy of the episode's current state (WAL included), for diff and grade."""
        with episode.lock:
            return snapshot(episode.db, self.work / "snapshots" / f"{episode.id}-{name}.db")

    def cleanup(self) -> None:
        """Remove every file this store made (at server exit)."""
        self.close_all()
        shutil.rmtree(self.work, ignore_errors=True)


def _remove_db(db: Path) -> None:
    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        path.unlink(missing_ok=True)
