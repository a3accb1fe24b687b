"""Client of a world's generated probe (`python -m backend.probe`): tries calls, commits nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from factory.errors import BuildError


class Probe:
    """Batches workflow tries and option queries against a world's seed database."""

    def __init__(self, world: Path, db: Path | None = None) -> None:
        self.world = world
        self.db = db or world / "data" / "seed.db"
        self.calls = 0
        self._options: dict[tuple[str, str, int], list[int]] = {}

    def ask(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not requests:
            return []
        self.calls += len(requests)
        result = subprocess.run([sys.executable, "-m", "backend.probe", "--db", str(self.db.resolve())],
                                cwd=self.world / "app", input=json.dumps(requests), capture_output=True,
                                text=True, timeout=600, check=False)
        if result.returncode != 0:
            tail = "\n".join(result.stderr.strip().splitlines()[-8:])
            raise BuildError(f"the world's probe failed:\n{tail}")
        answers: list[dict[str, Any]] = json.loads(result.stdout)
        return answers

    def prefetch_options(self, keys: list[tuple[str, str, int]]) -> None:
        """Ask for many (workflow, parameter, user) option lists in one probe run."""
        missing = [k for k in keys if k not in self._options]
        answers = self.ask([{"op": "options", "workflow": w, "param": p, "user": u} for w, p, u in missing])
        for key, answer in zip(missing, answers):
            self._options[key] = answer["ids"]

    def options(self, workflow: str, param: str, user: int) -> list[int]:
        key = (workflow, param, user)
        if key not in self._options:
            self.prefetch_options([key])
        return self._options[key]

    def try_many(self, calls: list[tuple[str, int, dict[str, Any]]]) -> list[dict[str, Any]]:
        """(workflow, user id, params) → answers, in order."""
        return self.ask([{"op": "try", "workflow": w, "user": u, "params": p} for w, u, p in calls])
