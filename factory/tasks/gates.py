"""The executed gates of a task: every one is run, none is taken on trust.

- `initial`: the reward on the untouched initial state (and no answer) scores 0;
- `golden`: the reward on the golden final state (with the reference answer) scores 1;
- `counterfactual:*`: hard negatives, each made for real and each must score 0 —
  the right action on the wrong row, the right row with a wrong value, a partial completion,
  the golden state plus an unrelated extra change; for a READ, a wrong answer and an empty one;
- `determinism`: the initial state rebuilt from its patch and the golden steps run again on a fresh
  copy give the same rows and the same grade;
- `ui` (run in a batch by the stage): a scripted solver completes the task in the real UI in
  Chromium and the database it leaves grades 1.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from factory.spec.model import Spec
from factory.tasks.effects import Step
from factory.tasks.proposer import Draft
from factory.tasks.resolve import Answer
from factory.tasks.rows import World, date_text, money_text
from factory.tasks.setupgen import Backend, apply_patch, copy_db, make_patch, run_golden
from verifiers.dbdiff import DbDiff, diff_databases
from verifiers.errors import VerifierError
from verifiers.grade import grade
from verifiers.sqlrender import render_sqldiff


@dataclass
class GateResult:
    """One executed gate: did it hold, the score it saw, and what it was run on."""

    name: str
    passed: bool
    detail: str
    score: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "score": self.score, "detail": self.detail}


def answer_text(found: Answer | None) -> str | None:
    """The reference answer as a person would type it (so normalisation is exercised too)."""
    if found is None:
        return None
    if found.kind == "money":
        return money_text(round(found.value * 100))
    if found.kind == "date":
        return date_text(found.value)
    if found.kind == "bool":
        return "yes" if found.value else "no"
    return str(found.value)


def wrong_answer(found: Answer, world: World, user_id: int, entity: str) -> str:
    """A plausible but wrong answer of the same kind."""
    if found.kind == "money":
        return money_text(round(found.value * 100) + 137)
    if found.kind == "number":
        return str(found.value + 1)
    if found.kind == "date":
        return date_text((dt.date.fromisoformat(found.value) + dt.timedelta(days=1)).isoformat())
    if found.kind == "bool":
        return "no" if found.value else "yes"
    others = [world.label(entity, r) for r in world.visible(entity, user_id)]
    other = next((o for o in others if o.casefold() != str(found.value).casefold()), None)
    return other or f"{found.value} (other)"


def _score(reward: dict[str, Any], initial: Path, final: Path, answer: str | None) -> tuple[float, str]:
    try:
        g = grade(reward, initial, final, answer)
    except VerifierError as exc:
        return -1.0, f"grading error: {exc}"
    return g.score, g.explanation


class GateRunner:
    """Runs the non-UI gates of drafts against one backend."""

    def __init__(self, spec: Spec, backend: Backend, seed_db: Path, work: Path) -> None:
        self.spec, self.backend, self.seed_db, self.work = spec, backend, seed_db, work
        self.world = World.open(spec, seed_db)

    def close(self) -> None:
        self.world.close()

    def run(self, draft: Draft, reward: dict[str, Any], initial: Path, golden: Path,
            patch: str) -> list[GateResult]:
        gates: list[GateResult] = []
        score, why = _score(reward, initial, initial, None)
        gates.append(GateResult("initial", score == 0.0, why, score))
        ref = answer_text(draft.answer)
        score, why = _score(reward, initial, golden, ref)
        gates.append(GateResult("golden", score == 1.0, why, score))
        for name, final, answer in self._counterfactuals(draft, initial, golden):
            if final is None:
                gates.append(GateResult(f"counterfactual:{name}", True, f"not applicable: {answer}"))
                continue
            score, why = _score(reward, initial, final, answer)
            gates.append(GateResult(f"counterfactual:{name}", score == 0.0, why, score))
        gates.append(self._determinism(draft, reward, patch, golden, ref))
        return gates

    # ------------------------------------------------------------------ counterfactuals -------
    def _counterfactuals(self, draft: Draft, initial: Path, golden: Path) -> list[tuple[str, Path | None, Any]]:
        if draft.task_type == "read":
            assert draft.answer is not None and draft.ask.question is not None
            wrong = wrong_answer(draft.answer, self.world, draft.user_id, draft.ask.question.entity)
            return [("wrong_answer", initial, wrong), ("empty_answer", initial, "")]
        out: list[tuple[str, Path | None, Any]] = []
        out.append(self._wrong_target(draft, initial))
        out.append(self._wrong_value(draft, initial, golden))
        golden_diff = diff_databases(initial, golden)  # what the task changes: both need it
        out.append(self._partial(draft, initial, golden_diff))
        out.append(self._extra_change(draft, golden, golden_diff))
        return out

    def _path(self, draft: Draft, name: str) -> Path:
        return self.work / "cf" / f"{draft.key}.{name}.db"

    def _try(self, draft: Draft, initial: Path, name: str, steps: list[Step]) -> Path | None:
        target = copy_db(initial, self._path(draft, name))
        results = self.backend.run(target, draft.user, steps)
        if all(r.status == 200 for r in results) and len(results) == len(steps):
            return target
        return None

    def _wrong_target(self, draft: Draft, initial: Path) -> tuple[str, Path | None, Any]:
        step = draft.steps[0]
        workflow = next(w for w in self.spec.workflows if w.name == step.workflow)
        refs = [p for p in workflow.params if p.ref and step.params.get(p.name) is not None]
        refs.sort(key=lambda p: p.name != (workflow.subject or ""))  # the subject first
        for p in refs:
            assert p.ref is not None
            rows = self.world.visible(p.ref, draft.user_id)
            ent = self.spec.entity(p.ref)
            users = [f.column for f in ent.fields if f.type == "reference" and f.ref == "user"]
            # The user's own rows first (their listing, their booking): those the action accepts.
            rows = sorted(rows, key=lambda r: not any(r.get(c) == draft.user_id for c in users))
            used = set(step.params.values())
            for other in [r["id"] for r in rows if r["id"] not in used][:6]:
                swapped = Step(step.workflow, {**step.params, p.name: other})
                final = self._try(draft, initial, "wrong_target", [swapped] + draft.steps[1:])
                if final is not None:
                    return "wrong_target", final, None
        return "wrong_target", None, "no other row is accepted by the action"

    def _wrong_value(self, draft: Draft, initial: Path, golden: Path) -> tuple[str, Path | None, Any]:
        step = draft.steps[0]
        workflow = next(w for w in self.spec.workflows if w.name == step.workflow)
        for p in workflow.params:
            if p.ref or p.name not in step.params:
                continue
            value = _other_value(p.type, step.params[p.name], p.values)
            if value is None:
                continue
            changed = Step(step.workflow, {**step.params, p.name: value})
            final = self._try(draft, initial, "wrong_value", [changed] + draft.steps[1:])
            # A value no effect stores leaves the golden rows: it was not wrong, try another.
            if final is not None and not diff_databases(golden, final).is_empty:
                return "wrong_value", final, None
        return "wrong_value", None, "the action takes no value that can be varied"

    def _partial(self, draft: Draft, initial: Path, diff: DbDiff) -> tuple[str, Path | None, Any]:
        if len(draft.steps) > 1:
            final = self._try(draft, initial, "partial", draft.steps[:1])
            return "partial", final, None if final else "the first step alone is refused"
        changes = sum(len(t.inserted) + len(t.deleted) + len(t.updated) for t in diff.tables)
        if changes < 2:
            return "partial", None, "the task changes a single row"
        # Leave out the last row change of the last table that has one: all but one row done.
        tables = list(diff.tables)
        index = max(i for i, t in enumerate(tables) if not t.is_empty)
        t = tables[index]
        if t.updated:
            tables[index] = replace(t, updated=t.updated[:-1])
        elif t.inserted:
            tables[index] = replace(t, inserted=t.inserted[:-1])
        else:
            tables[index] = replace(t, deleted=t.deleted[:-1])
        patch = render_sqldiff(DbDiff(tuple(tables)))
        return "partial", apply_patch(initial, patch, self._path(draft, "partial")), None

    def _extra_change(self, draft: Draft, golden: Path, diff: DbDiff) -> tuple[str, Path | None, Any]:
        touched = {(t.table, tuple(r.key)) for t in diff.tables for r in t.updated}
        touched |= {(t.table, tuple(row[c] for c in t.key_columns)) for t in diff.tables
                    for row in t.inserted + t.deleted}
        tables = [t.table for t in diff.tables if not t.is_empty] + [e.table for e in self.spec.entities]
        final = copy_db(golden, self._path(draft, "extra_change"))
        conn = sqlite3.connect(final)
        try:
            for table in dict.fromkeys(tables):
                columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')
                           if r[1] != "id" and not r[1].endswith("_id")]
                changed = [c for t in diff.tables if t.table == table for c in t.changed_columns()]
                for row_id, in conn.execute(f'SELECT id FROM "{table}" ORDER BY id'):
                    if (table, (row_id,)) in touched:
                        continue
                    for column in changed + columns:
                        value = conn.execute(f'SELECT "{column}" FROM "{table}" WHERE id = ?', (row_id,)).fetchone()[0]
                        new = _nudge(value)
                        if new is None:
                            continue
                        conn.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE id = ?', (new, row_id))
                        conn.commit()
                        return "extra_change", final, None
        finally:
            conn.close()
        return "extra_change", None, "no other row to change"

    # ------------------------------------------------------------------ determinism -----------
    def _determinism(self, draft: Draft, reward: dict[str, Any], patch: str, golden: Path,
                     ref: str | None) -> GateResult:
        again = apply_patch(self.seed_db, patch, self._path(draft, "again-initial"))
        if draft.steps:
            golden2 = run_golden(self.backend, again, draft.user, draft.steps, self._path(draft, "again-golden"))
        else:
            golden2 = copy_db(again, self._path(draft, "again-golden"))
        first = make_patch(self.seed_db, golden)
        second = make_patch(self.seed_db, golden2)
        s1, _ = _score(reward, again, golden2, ref)
        s2, _ = _score(reward, again, golden2, ref)
        same_rows = first == second
        passed = same_rows and s1 == s2 == 1.0
        detail = ("same rows and grade on a fresh run" if passed else
                  f"rows {'same' if same_rows else 'differ'}; grades {s1} and {s2}")
        return GateResult("determinism", passed, detail, s1)


def _other_value(kind: str, value: Any, values: list[str] | None) -> Any:
    if kind == "money":
        return int(value) + 100
    if kind == "int":
        return int(value) + 1
    if kind == "date":
        return (dt.date.fromisoformat(str(value)) + dt.timedelta(days=1)).isoformat()
    if kind == "datetime":
        return str(value)[:11] + ("11" if str(value)[11:13] != "11" else "12") + str(value)[13:]
    if kind == "enum":
        return next((v for v in values or [] if v != value), None)
    if kind == "bool":
        return not value
    if isinstance(value, str) and value:
        return value[:-1] + ("x" if value[-1] != "x" else "y")
    return None


def _nudge(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.0
    if isinstance(value, str) and value and not value[:4].isdigit():
        return value + " (edited)"
    return None
