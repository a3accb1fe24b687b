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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from episodes.dbfiles import copy_db
from factory.errors import SetupError
from factory.runtime.client import Backend
from factory.runtime.patch import apply_patch, make_patch
from factory.runtime.step import Step
from verifiers.dbdiff import diff_databases


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
