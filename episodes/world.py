"""A built world as the episode server reads it: the spec's users, the task corpus, the seed
database and the generated app, checked once at start with errors that name the missing file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from episodes.errors import WorldNotServable

SPEC = "spec.json"
SEED_DB = "data/seed.db"
TASKS = "tasks/tasks.jsonl"
APP = "app"


@dataclass(frozen=True)
class Task:
    """What an episode needs of one task: who acts, where they start, the setup patch that makes
    the initial state, and the reward program that grades the final one."""

    id: str
    goal: str
    task_type: str
    user: str
    starting_url: str
    patch: str
    reward: Mapping[str, Any] = field(repr=False)

    def public(self) -> dict[str, str]:
        """What an agent may know: never the reward program or the reference answer."""
        return {"task_id": self.id, "instruction": self.goal, "task_type": self.task_type,
                "user": self.user, "starting_url": self.starting_url}


@dataclass(frozen=True)
class ServedWorld:
    root: Path
    name: str
    title: str
    today: str
    users: dict[str, int]
    tasks: dict[str, Task]

    @property
    def seed_db(self) -> Path:
        return self.root / SEED_DB

    @property
    def app_dir(self) -> Path:
        return self.root / APP

    @classmethod
    def load(cls, root: Path) -> ServedWorld:
        root = Path(root).resolve()
        for part in (SPEC, SEED_DB, APP + "/backend/app.py"):
            if not (root / part).is_file():
                raise WorldNotServable(f"{root}: no {part}; is this a built world (make world SEED=...)?")
        spec = json.loads((root / SPEC).read_text())
        users = {str(u["username"]): int(u["id"]) for u in spec.get("users", [])}
        tasks: dict[str, Task] = {}
        corpus = root / TASKS
        if corpus.is_file():
            for number, line in enumerate(corpus.read_text().splitlines(), start=1):
                if line.strip():
                    task = _task(json.loads(line), f"{corpus}:{number}")
                    tasks[task.id] = task
        for task in tasks.values():
            if task.user not in users:
                raise WorldNotServable(f"{corpus}: task {task.id} acts as {task.user!r}, who is not a user of the spec")
        return cls(root=root, name=str(spec["world"]), title=str(spec.get("title", spec["world"])),
                   today=str(spec.get("today", "")), users=users, tasks=tasks)


def _task(record: Mapping[str, Any], where: str) -> Task:
    try:
        meta = record["metadata"]
        return Task(id=str(record["id"]), goal=str(record["goal"]), task_type=str(record["task_type"]),
                    user=str(meta["acting_user"]), starting_url=str(meta.get("starting_url") or "/"),
                    patch=str(record["setup"].get("patch", "")), reward=record["reward"])
    except (KeyError, TypeError, AttributeError) as exc:
        raise WorldNotServable(f"{where}: not a task record ({type(exc).__name__}: {exc})") from exc
