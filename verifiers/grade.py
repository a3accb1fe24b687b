"""`grade(task, initial_db, final_db, answer)`: run a reward program's checks and score them.

Grading is deterministic (same inputs, same `Grade`, whatever the key order of the program) and
never writes: databases are opened read-only and diffed at most once per call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from verifiers.checks import CHECK_FUNCTIONS, Context, jsonable
from verifiers.errors import (
    DatabaseNotFoundError,
    NotADatabaseError,
    RewardProgramError,
)
from verifiers.normalize import Answer
from verifiers.reward import RewardProgram, load_reward


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: `message` is one line, `evidence` holds the values compared."""

    id: str
    type: str
    passed: bool
    weight: float
    evidence: dict[str, object]
    message: str

    def to_json(self) -> dict[str, object]:
        """JSON-serialisable form."""
        return {"id": self.id, "type": self.type, "passed": self.passed, "weight": self.weight,
                "message": self.message, "evidence": jsonable(self.evidence)}


@dataclass(frozen=True)
class Grade:
    """Score in [0, 1], whether the task passed, every check's result, and one readable paragraph."""

    score: float
    passed: bool
    checks: list[CheckResult]
    explanation: str

    def to_json(self) -> dict[str, object]:
        """JSON-serialisable form."""
        return {"score": self.score, "passed": self.passed, "explanation": self.explanation,
                "checks": [c.to_json() for c in self.checks]}


def program_of(task: RewardProgram | Mapping[str, object]) -> RewardProgram:
    """The reward program of `task`: a program, its JSON form, or a task record's `reward`."""
    if isinstance(task, RewardProgram):
        return task
    if isinstance(task, Mapping) and "checks" in task:
        return load_reward(task)
    if isinstance(task, Mapping) and isinstance(task.get("reward"), Mapping):
        return load_reward(task["reward"])  # type: ignore[arg-type]
    raise RewardProgramError([("task must be a RewardProgram, a reward program object (with "
                               "'checks'), or a task record with a 'reward' object")])


def _existing(path: str | Path) -> Path:
    p = Path(path)
    if not p.exists():
        raise DatabaseNotFoundError(p)
    if not p.is_file():
        raise NotADatabaseError(p, "not a regular file")
    return p.resolve()


def grade(task: RewardProgram | Mapping[str, object], initial_db: str | Path,
          final_db: str | Path, answer: Answer = None) -> Grade:
    """Grade one episode: its task's reward program over the initial and final databases and
    the agent's answer. Raises VerifierError for a bad program, a missing database, or a check
    that cannot be evaluated (a program bug, never scored as an agent failure)."""
    program = program_of(task)
    ctx = Context(program, _existing(initial_db), _existing(final_db), answer)
    try:
        results = []
        for check in program.checks:
            outcome = CHECK_FUNCTIONS[type(check)](check, ctx)
            results.append(CheckResult(check.id, check.TYPE, outcome.passed, check.weight,
                                       outcome.evidence, outcome.message))
    finally:
        ctx.close()
    total = sum(r.weight for r in results)
    earned = sum(r.weight for r in results if r.passed)
    passed = all(r.passed for r in results)
    if program.mode == "checklist":
        score = earned / total
    else:
        score = 1.0 if passed else 0.0
    return Grade(score, passed, results, _explain(program, results, score))


def _explain(program: RewardProgram, results: list[CheckResult], score: float) -> str:
    failed = [r for r in results if not r.passed]
    if not failed:
        return f"Passed: all {len(results)} checks hold ({', '.join(r.id for r in results)})."
    reasons = "; ".join(f"{r.id!r} ({r.type}): {r.message}" for r in failed)
    how = ("checklist, passed weight over total weight" if program.mode == "checklist"
           else "every check must pass")
    return (f"Failed with score {score:.2f} ({how}): {len(failed)} of {len(results)} checks "
            f"failed. {reasons}.")
