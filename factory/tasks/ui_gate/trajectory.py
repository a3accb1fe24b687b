"""What a golden trajectory is made of, and what solving one gives: `UiStep`s in, a `Trajectory`
out, a `UiJob` per trajectory to solve on its own database copy.

Plain data (no Playwright), so that steps can be written and read without a browser. The solver
that performs them is `factory.tasks.ui_gate.solver`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from factory.errors import FactoryError


class TrajectoryError(FactoryError):
    """A golden trajectory names a workflow, parameter, entity or filter the world does not have."""


class StepFailed(FactoryError):
    """An agent-level failure inside `solve`; it never escapes (it becomes `ok=False`)."""


@dataclass(frozen=True)
class UiStep:
    """One step of a golden trajectory, in API-level values (ids, cents, ISO dates)."""

    kind: str  # "workflow" | "find"
    workflow: str | None = None
    values: dict[str, Any] = field(default_factory=dict)
    entity: str | None = None
    filters: dict[str, Any] = field(default_factory=dict)  # field -> value, or (min, max) for ranges
    search: str | None = None
    open_id: int | None = None
    expect_total: int | None = None
    expect_text: list[str] = field(default_factory=list)
    read: str | None = None  # the READ this page answers (see READS); the answer is what it shows
    field: str | None = None  # the field a lookup, sum or superlative reads

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["filters"] = {k: list(v) if isinstance(v, tuple) else v for k, v in self.filters.items()}
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UiStep:
        filters = {k: tuple(v) if isinstance(v, list) else v for k, v in data.get("filters", {}).items()}
        return cls(**{**data, "filters": filters})


@dataclass
class Trajectory:
    """What the solver did and whether the steps went through."""

    ok: bool
    message: str  # the last toast's text, or why the trajectory failed
    actions: list[dict[str, Any]]  # {n, action, target, value, url, screenshot}
    seconds: float
    answer: str | None = None  # a READ's answer as read off the page (None: no step asked one)

    def to_json(self) -> dict[str, Any]:
        """The record's form. `seconds` stays out: wall-clock time would make the same seed give a
        different tasks.jsonl on every build."""
        return {"ok": self.ok, "message": self.message, "answer": self.answer, "actions": self.actions}


@dataclass(frozen=True)
class UiJob:
    """One trajectory to solve on its own database copy (which holds the final state afterwards)."""

    key: str
    db: Path
    username: str
    password: str
    steps: list[UiStep]
    shots: Path | None
