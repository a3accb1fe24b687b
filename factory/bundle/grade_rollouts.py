"""Grade a rollouts file against a benchmark bundle's tasks, offline (no server, no factory).

Shipped at the root of every bundle as `grade_rollouts.py`:

    python grade_rollouts.py ROLLOUTS.jsonl [--bundle DIR] [--out graded.jsonl]

A rollout record (`episodes.rollouts.Rollout`, one JSON line per finished episode) carries the
row-level diff of its final state against the task's initial state (`final_diff`: the full rows
inserted and deleted, and every updated row before and after). Each record's final state is rebuilt
from the bundle, never trusted from the record's `reward`: the task's setup patch replayed on
`data/seed.db` (its initial state), then the record's diff applied to a copy of it; the task's reward
program grades that with the record's answer (`verifiers.grade`). A record with no `final_diff`
changed nothing (as rollout triage reads it); one whose diff changes a table's schema scores 0, as
the grader scores any schema change.

It prints one line per record (the recorded reward beside the one graded here) and a summary, and
exits 1 when a line could not be graded (malformed, another world, an unknown task) or a recorded
reward differs from the grade, else 0.
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from episodes.dbfiles import apply_patch, copy_db
from episodes.rollouts import Rollout, read_rollouts
from verifiers import grade

TOLERANCE = 1e-9  # a recorded reward this close to the grade agrees with it


@dataclass(frozen=True)
class Graded:
    """One rollout record as graded here."""

    line: int
    task_id: str
    episode_id: str
    agent: str
    recorded: float | None
    reward: float | None
    passed: bool
    explanation: str

    @property
    def agrees(self) -> bool:
        """Graded, and the same as the recorded reward (a record with none recorded agrees)."""
        return self.reward is not None and (self.recorded is None or abs(self.reward - self.recorded) <= TOLERANCE)

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "task_id": self.task_id, "episode_id": self.episode_id, "agent": self.agent,
                "recorded_reward": self.recorded, "reward": self.reward, "passed": self.passed,
                "agrees": self.agrees, "explanation": self.explanation}


class NotRebuildable(Exception):
    """A final diff that cannot be replayed (a schema change, an unknown table or column)."""


def _value(value: Any) -> Any:
    """A value as `verifiers` writes it in JSON, back as SQLite takes it (blobs and infinities)."""
    if isinstance(value, Mapping):
        if "blob_hex" in value:
            return bytes.fromhex(str(value["blob_hex"]))
        if "real" in value:
            return math.inf if value["real"] == "Inf" else -math.inf
    return value


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _where(columns: Sequence[str], values: Sequence[Any]) -> tuple[str, list[Any]]:
    clauses = [f"{_quote(c)} IS ?" for c in columns]
    return " AND ".join(clauses) or "1", [_value(v) for v in values]


def apply_final_diff(db: Path, diff: Mapping[str, Any] | None) -> None:
    """Replay a rollout's `final_diff` on `db` (a copy of the task's initial state), in one transaction."""
    if not diff:
        return
    if diff.get("schema"):
        changed = ", ".join(sorted({f"{c.get('kind', '?')} {c.get('name', '?')}" for c in diff["schema"]}))
        raise NotRebuildable(f"the rollout changed the schema ({changed}); a schema change scores 0")
    conn = sqlite3.connect(db)
    try:
        conn.execute("BEGIN")
        for name, table in sorted(dict(diff.get("tables") or {}).items()):
            if table.get("schema", "same") != "same":
                raise NotRebuildable(f"the rollout changed table {name}'s schema ({table['schema']}); "
                                     "a schema change scores 0")
            keys = list(table.get("key_columns") or [])
            for row in table.get("deleted") or []:
                where, params = _where(keys or list(row), [row[k] for k in (keys or list(row))])
                conn.execute(f"DELETE FROM {_quote(name)} WHERE {where}", params)
            for change in table.get("updated") or []:
                after = change["after"]
                sets = ", ".join(f"{_quote(c)} = ?" for c in change["changed"])
                where, params = _where(keys, change["key"])
                conn.execute(f"UPDATE {_quote(name)} SET {sets} WHERE {where}",
                             [_value(after[c]) for c in change["changed"]] + params)
            for row in table.get("inserted") or []:
                columns = ", ".join(_quote(c) for c in row)
                marks = ", ".join("?" for _ in row)
                conn.execute(f"INSERT INTO {_quote(name)} ({columns}) VALUES ({marks})", [_value(v) for v in row.values()])
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        raise NotRebuildable(f"the final diff does not apply to the task's initial state: {exc}") from exc
    finally:
        conn.close()


class Bundle:
    """A bundle's tasks and seed database, with each task's initial state made once in `work`."""

    def __init__(self, root: Path, work: Path) -> None:
        self.root = root
        self.work = work
        spec = json.loads((root / "spec.json").read_text())
        self.world = str(spec["world"])
        self.tasks: dict[str, dict[str, Any]] = {}
        for text in (root / "tasks" / "tasks.jsonl").read_text().splitlines():
            if text.strip():
                record = json.loads(text)
                self.tasks[str(record["id"])] = record
        self._initial: dict[str, Path] = {}

    def initial(self, task_id: str) -> Path:
        if task_id not in self._initial:
            target = self.work / "initial" / f"{len(self._initial)}.db"
            target.parent.mkdir(parents=True, exist_ok=True)
            apply_patch(self.root / "data" / "seed.db", str(self.tasks[task_id]["setup"].get("patch", "")), target)
            self._initial[task_id] = target
        return self._initial[task_id]

    def grade(self, number: int, record: Rollout) -> Graded:
        def result(reward: float | None, passed: bool, why: str) -> Graded:
            return Graded(number, record.task_id, record.episode_id, record.agent, record.reward, reward, passed, why)

        if record.world != self.world:
            return result(None, False, f"a rollout of world {record.world!r}; this bundle is {self.world!r}")
        task = self.tasks.get(record.task_id)
        if task is None:
            return result(None, False, f"no task {record.task_id!r} in this bundle")
        initial = self.initial(record.task_id)
        final = copy_db(initial, self.work / "final.db")
        try:
            apply_final_diff(final, record.final_diff)
        except NotRebuildable as exc:
            return result(0.0, False, str(exc))
        outcome = grade(task["reward"], initial, final, record.answer)
        return result(outcome.score, outcome.passed, outcome.explanation)


def grade_file(rollouts: Path, root: Path) -> tuple[list[Graded], list[str]]:
    """Every record of `rollouts` graded against the bundle at `root`, and one message per line
    that is not a rollout record."""
    records, errors = read_rollouts(rollouts)
    numbers = _record_lines(rollouts, {e.number for e in errors})
    with tempfile.TemporaryDirectory(prefix="grade-rollouts-") as tmp:
        bundle = Bundle(root, Path(tmp))
        graded = [bundle.grade(number, record) for number, record in zip(numbers, records, strict=True)]
    return graded, [str(e) for e in errors]


def _record_lines(path: Path, malformed: set[int]) -> list[int]:
    """The line numbers of the records `read_rollouts` returned (non-blank, well-formed lines)."""
    return [n for n, text in enumerate(path.read_text().splitlines(), start=1) if text.strip() and n not in malformed]


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python grade_rollouts.py",
                                     description="Grade a rollouts file (JSONL) against this bundle's tasks, offline")
    parser.add_argument("rollouts", type=Path, help="a rollouts file, e.g. the episode server's --rollouts FILE")
    parser.add_argument("--bundle", type=Path, default=Path(__file__).resolve().parent,
                        help="the unpacked bundle (default: this script's folder)")
    parser.add_argument("--out", type=Path, default=None, help="write one JSON line per graded record here")
    args = parser.parse_args(argv)
    if not args.rollouts.is_file():
        sys.stderr.write(f"error: {args.rollouts}: no such rollouts file\n")
        return 2
    if not (args.bundle / "tasks" / "tasks.jsonl").is_file():
        sys.stderr.write(f"error: {args.bundle}: not an unpacked bundle (no tasks/tasks.jsonl)\n")
        return 2
    graded, malformed = grade_file(args.rollouts, args.bundle)
    for message in malformed:
        print(f"malformed, skipped: {message}")
    for g in graded:
        mark = "ok" if g.agrees else ("NOT GRADED" if g.reward is None else "DIFFERS")
        print(f"line {g.line} {g.task_id} {g.agent}: recorded {_fmt(g.recorded)}, graded {_fmt(g.reward)} [{mark}]"
              + ("" if g.agrees else f" — {g.explanation[:300]}"))
    if args.out is not None:
        args.out.write_text("".join(json.dumps(g.to_json(), sort_keys=True) + "\n" for g in graded))
    scored = [g for g in graded if g.reward is not None]
    mean = sum(g.reward or 0.0 for g in scored) / len(scored) if scored else 0.0
    not_graded = len(malformed) + len(graded) - len(scored)
    differs = sum(1 for g in scored if not g.agrees)
    print(f"{len(scored)} rollouts graded: mean reward {mean:.3f}, {sum(g.passed for g in scored)} passed; "
          f"{differs} differ from their recorded reward; {not_graded} lines not graded")
    return 1 if not_graded or differs else 0


if __name__ == "__main__":
    sys.exit(main())
