"""`grade(task, initial_db, final_db, answer)`: run a reward program's checks and score them.

Grading is deterministic (same inputs, same `Grade`, whatever the key order of the program) and
never writes: databases are opened read-only and diffed at most once per call.

Two rules hold whatever the program says:
- the final state must be usable: a final database that cannot be read, or that lacks a table
  the initial database has and the program reads, scores 0 with that reason;
- the schema is state: an index, trigger, view, statistics table, edited table definition or
  header pragma that differs between the two databases scores 0 and is named, even when the
  program has no `diff_within` or `unchanged` check that would have caught it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from verifiers.checks import CHECK_FUNCTIONS, Context, jsonable
from verifiers.errors import (
    DatabaseError,
    DatabaseReadError,
    GradeInputError,
    RewardProgramError,
)
from verifiers.normalize import Answer
from verifiers.program import DiffWithin, RewardProgram, SqlCheck, Unchanged
from verifiers.reward import load_reward
from verifiers.states import checked_path, settled, table_names


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
        return load_reward(task["reward"])  # type: ignore[arg-type]  # a Mapping, as the condition checks
    raise RewardProgramError([("task must be a RewardProgram, a reward program object (with "
                               "'checks'), or a task record with a 'reward' object, not "
                               f"{type(task).__name__}")])


def _checked_answer(answer: object) -> Answer:
    """The answer if grading can read it: text, a number, yes/no, a list of those, or None."""
    scalar = (str, int, float, bool)
    if answer is None or isinstance(answer, scalar):
        return answer
    if isinstance(answer, Sequence) and not isinstance(answer, bytes | bytearray) and all(
            isinstance(item, scalar) for item in answer):
        return answer
    raise GradeInputError("answer", f"must be text, a number, true/false, a list of those or "
                                    f"None, not {type(answer).__name__} {answer!r:.80}")


def grade(task: RewardProgram | Mapping[str, object], initial_db: str | Path,
          final_db: str | Path, answer: Answer = None) -> Grade:
    """Grade one episode: its task's reward program over the initial and final databases and
    the agent's answer. Raises a VerifierError for bad arguments, a bad program, a missing or
    unreadable initial database, or a check that cannot be evaluated (a program bug, never
    scored as an agent failure); an unusable final state scores 0 with the reason."""
    program = program_of(task)
    answer = _checked_answer(answer)
    initial = checked_path(initial_db, "initial_db")
    final = checked_path(final_db, "final_db")
    with ExitStack() as stack:
        ctx = Context(program, stack.enter_context(settled(initial)),
                      stack.enter_context(settled(final)), answer)
        stack.callback(ctx.close)
        unusable = _unusable_final(program, ctx)
        if unusable:
            return _zero(program, "final_state", "state", unusable, {"final_db": str(final)})
        results = []
        try:
            for check in program.checks:
                outcome = CHECK_FUNCTIONS[type(check)](check, ctx)
                results.append(CheckResult(check.id, check.TYPE, outcome.passed, check.weight,
                                           outcome.evidence, outcome.message))
            schema = ctx.schema()
        except DatabaseReadError as exc:  # e.g. a corrupt page in the final file
            return _zero(program, "final_state", "state", f"the final database cannot be read: {exc}",
                         {"final_db": str(final)})
    caught = any(not r.passed and isinstance(c, DiffWithin | Unchanged)
                 for r, c in zip(results, program.checks, strict=True))
    if schema and not caught:
        changes = [c.describe() for c in schema]
        results.append(CheckResult("schema_unchanged", "schema", False, 0.0,
                                   {"changes": [c.to_json() for c in schema]},
                                   f"the schema changed: {'; '.join(changes)}"))
    total = sum(r.weight for r in results)
    earned = sum(r.weight for r in results if r.passed)
    passed = all(r.passed for r in results)
    if program.mode == "checklist" and not schema:
        score = earned / total
    else:
        score = 1.0 if passed else 0.0
    return Grade(score, passed, results, _explain(program, results, score))


def _unusable_final(program: RewardProgram, ctx: Context) -> str:
    """Why the final state cannot be graded at all ('' when it can). An unreadable initial
    database is the task's fault and raises."""
    try:
        conn = ctx.pair()
        final_tables = table_names(conn, "after_db")
    except DatabaseError as exc:
        if exc.path.resolve() == ctx.paths["initial"].resolve():
            raise
        return f"the final database cannot be read: {exc}"
    except sqlite3.DatabaseError as exc:
        return f"the final database cannot be read: {exc}"
    missing = table_names(conn, "before_db") - final_tables
    if not missing:
        return ""
    read = _tables_read(program)
    lost = sorted(missing if read is None else missing & read)
    if not lost:
        return ""
    return (f"the final database lacks table(s) {', '.join(map(repr, lost))} that the initial "
            f"database has (dropped, or not the task's database)")


def _tables_read(program: RewardProgram) -> set[str] | None:
    """The tables a program's checks read (None: any table, e.g. an SQL query)."""
    tables: set[str] = set()
    for check in program.checks:
        if isinstance(check, SqlCheck | DiffWithin):
            return None
        if isinstance(check, Unchanged):
            tables.update(check.tables)
        table = getattr(check, "table", None)
        if isinstance(table, str):
            tables.add(table)
    return tables


def _zero(program: RewardProgram, check_id: str, kind: str, reason: str,
          evidence: dict[str, object]) -> Grade:
    result = CheckResult(check_id, kind, False, 0.0, evidence, reason)
    return Grade(0.0, False, [result], _explain(program, [result], 0.0))


def _explain(program: RewardProgram, results: list[CheckResult], score: float) -> str:
    failed = [r for r in results if not r.passed]
    if not failed:
        return f"Passed: all {len(results)} checks hold ({', '.join(r.id for r in results)})."
    reasons = "; ".join(f"{r.id!r} ({r.type}): {r.message}" for r in failed)
    how = ("checklist, passed weight over total weight" if program.mode == "checklist"
           else "every check must pass")
    return (f"Failed with score {score:.2f} ({how}): {len(failed)} of {len(results)} checks "
            f"failed. {reasons}.")
