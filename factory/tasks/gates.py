"""The executed gates of a task: every one is run, none is taken on trust.

- `initial`: the reward on the untouched initial state (and no answer) scores 0;
- `golden`: the reward on the golden final state (with the reference answer) scores 1;
- `counterfactual:*`: hard negatives, each made for real and each must score 0 —
  the right action on the wrong row, the right row with a wrong value, a partial completion,
  the golden state plus an unrelated extra change; for a READ, a wrong answer and an empty one.
  A partial completion is, from the coarsest part down: the first of several steps; all but one
  of several row changes; all but one of the changed columns of the task's one updated row; or
  the task's one new row with one optional value it gives left blank;
- `determinism`: the initial state rebuilt from its patch and the golden steps run again on a fresh
  copy give the same rows and the same grade;
- `ui` (run in a batch by the stage): a scripted solver completes the task in the real UI in
  Chromium and the database it leaves grades 1.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import Any

from episodes.dbfiles import copy_db
from factory.errors import PredictionError
from factory.predict.effects import predict
from factory.predict.rows import UserView, date_text
from factory.runtime.client import Backend
from factory.runtime.patch import apply_patch, make_patch
from factory.runtime.step import Step
from factory.spec.labels import money_label
from factory.spec.model import ParamSpec, Spec, WorkflowSpec
from factory.tasks.draft import Draft
from factory.tasks.hard_negatives import (
    key_text,
    nudge,
    other_value,
    skippable,
    uses_task_value,
    wrong_answer,
    wrong_currency,
)
from factory.tasks.language.answer import Answer, phone_text
from factory.tasks.setupgen import run_golden
from verifiers.changes import DbDiff, RowChange, TableDiff
from verifiers.dbdiff import diff_databases
from verifiers.errors import VerifierError
from verifiers.grade import grade
from verifiers.sqlrender import render_sqldiff

# Rows tried per reference parameter for the wrong target (each refusal costs one HTTP call on
# a database copy): those predicted to be accepted come first, so a few are enough.
WRONG_TARGET_TRIES = 6
# Candidate rows per parameter whose acceptance may be predicted (a few milliseconds each).
WRONG_TARGET_PREDICTED = 50


@dataclass
class GateResult:
    """One executed gate: did it hold, the score it saw, and what it was run on."""

    name: str
    passed: bool
    detail: str
    score: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "score": self.score, "detail": self.detail}


@dataclass(frozen=True)
class Counterfactual:
    """A hard negative as built: the final state to grade (None when it cannot be built), the
    answer graded with it (READ), and a note saying what was changed, or why it does not apply."""

    name: str
    final: Path | None
    answer: str | None = None
    note: str = ""


def answer_text(found: Answer | None) -> str | None:
    """The reference answer as a person would type it (so normalisation is exercised too):
    money "$1,234.50" (or "€1,234.50" in its currency), dates "June 5, 2026", yes/no, phone numbers "(520) 790-7206 ext. 229",
    a row by its label as the app shows it, an email address and free text as stored."""
    if found is None:
        return None
    if found.kind == "money":  # in the amount's own currency: "€12.50"
        return money_label(round(found.value * 100), found.currency)
    if found.kind == "date":
        return date_text(found.value)
    if found.kind == "bool":
        return "yes" if found.value else "no"
    if found.kind == "phone":
        return phone_text(str(found.value))
    return str(found.value)


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
        self.world = UserView.open(spec, seed_db)

    def close(self) -> None:
        self.world.close()

    def run(self, draft: Draft, reward: dict[str, Any], initial: Path, golden: Path,
            patch: str) -> list[GateResult]:
        """Every non-UI gate of one draft, in a fixed order: initial, golden, the counterfactuals
        (an inapplicable one passes with its reason and no score), determinism."""
        gates: list[GateResult] = []
        score, why = _score(reward, initial, initial, None)
        gates.append(GateResult("initial", score == 0.0, why, score))
        ref = answer_text(draft.answer)
        score, why = _score(reward, initial, golden, ref)
        gates.append(GateResult("golden", score == 1.0, why, score))
        for cf in self._counterfactuals(draft, initial, golden):
            name = f"counterfactual:{cf.name}"
            if cf.final is None:
                gates.append(GateResult(name, True, f"not applicable: {cf.note}"))
                continue
            score, why = _score(reward, initial, cf.final, cf.answer)
            # What was built comes first, so a failing gate says which negative got through.
            gates.append(GateResult(name, score == 0.0, f"{cf.note}: {why}" if cf.note else why, score))
        gates.append(self._determinism(draft, reward, patch, golden, ref))
        return gates

    # ------------------------------------------------------------------ counterfactuals -------
    def _counterfactuals(self, draft: Draft, initial: Path, golden: Path) -> list[Counterfactual]:
        """The hard negatives of a draft, built in a fixed order."""
        if draft.task_type == "read":
            assert draft.answer is not None and draft.ask.question is not None
            wrong = wrong_answer(draft.answer, self.world, draft.user_id, draft.ask.question.entity)
            # No note: the grade's explanation already quotes the answer it read.
            return [Counterfactual("wrong_answer", initial, wrong), Counterfactual("empty_answer", initial, ""),
                    *self._wrong_currency(draft, initial)]
        golden_diff = diff_databases(initial, golden)  # what the task changes: several need it
        negatives = [
            self._wrong_target(draft, initial),
            self._wrong_value(draft, initial, golden),
            self._partial(draft, initial, golden, golden_diff),
            self._extra_change(draft, golden, golden_diff),
        ]
        if draft.answer is None:
            return negatives
        # Act, then report: each wrong state is graded with the right answer (so the state alone
        # must fail it), and the right state with a wrong answer and with none.
        assert draft.ask.question is not None
        ref = answer_text(draft.answer)
        wrong = wrong_answer(draft.answer, self.world, draft.user_id, draft.ask.question.entity)
        return [replace(cf, answer=ref) for cf in negatives] + [
            Counterfactual("wrong_answer", golden, wrong), Counterfactual("empty_answer", golden, ""),
            *self._wrong_currency(draft, golden)]

    @staticmethod
    def _wrong_currency(draft: Draft, state: Path) -> list[Counterfactual]:
        """The right amount written in dollars where it is in another currency."""
        text = wrong_currency(draft.answer) if draft.answer is not None else None
        return [Counterfactual("wrong_currency", state, text)] if text else []

    def _workflow(self, name: str) -> WorkflowSpec:
        """The spec's workflow of that name."""
        return next(w for w in self.spec.workflows if w.name == name)

    def _path(self, draft: Draft, name: str) -> Path:
        """Where a draft's counterfactual database of that name is written."""
        return self.work / "cf" / f"{draft.key}.{name}.db"

    def _try(self, draft: Draft, initial: Path, name: str, steps: list[Step]) -> Path | None:
        """The database the app leaves after `steps` on a copy of `initial`; None if it refuses one."""
        target = copy_db(initial, self._path(draft, name))
        results = self.backend.run(target, draft.user, steps)
        if all(r.status == 200 for r in results) and len(results) == len(steps):
            return target
        return None

    def _wrong_target(self, draft: Draft, initial: Path) -> Counterfactual:
        """The same steps with one named row swapped for another the user can see (the subject's first).

        The other rows are tried most likely accepted first: those the spec predicts the app
        accepts (`_accepted_first`), and among them the rows the form offers the acting user
        (`_other_rows`). The app still decides, over HTTP as the user: a row it refuses is
        passed over.
        """
        step = draft.steps[0]
        workflow = self._workflow(step.workflow)
        refs = [p for p in workflow.params if p.ref and step.params.get(p.name) is not None]
        if not refs:
            return Counterfactual("wrong_target", None, note="the action names no row (it takes no reference)")
        refs.sort(key=lambda p: p.name != (workflow.subject or ""))  # the subject first
        tried = offered_tried = 0
        # The initial state, not the seed: a row the setup made or changed is seen as it is.
        own_world = Path(initial).resolve() != Path(self.seed_db).resolve()
        world = UserView.open(self.spec, initial) if own_world else self.world
        try:
            for p in refs:
                ranked, offered = self._other_rows(draft, initial, world, p)
                for other in islice(self._accepted_first(draft, initial, p, ranked), WRONG_TARGET_TRIES):
                    tried += 1
                    offered_tried += int(other in offered)
                    swapped = Step(step.workflow, {**step.params, p.name: other})
                    final = self._try(draft, initial, "wrong_target", [swapped] + draft.steps[1:])
                    if final is not None:
                        note = f"{p.name} #{other} instead of #{step.params[p.name]}"
                        return Counterfactual("wrong_target", final, note=note)
        finally:
            if own_world:
                world.close()
        kinds = " or ".join(dict.fromkeys(str(p.ref) for p in refs))
        if not tried:
            return Counterfactual("wrong_target", None, note=f"the user sees no {kinds} row besides those the task names")
        rows = f"the other {kinds} row" if tried == 1 else f"all {tried} other {kinds} rows"
        why = (f"the form offers no other {kinds} row and the app refuses the action on {rows} tried"
               if not offered_tried else
               f"the app refuses the action on {rows} tried ({offered_tried} offered by the form)")
        return Counterfactual("wrong_target", None, note=why)

    def _other_rows(self, draft: Draft, initial: Path, world: UserView, p: ParamSpec) -> tuple[list[int], set[int]]:
        """The rows of `p`'s entity the first step does not name that the acting user could act on
        instead, most likely accepted first; and which of them the form offers for `p`.

        The order, each key breaking the ties of the one before, then by id (so it is stable):
        the rows the form offers for `p` on the initial state (its own filter: a payment still
        scheduled, a bill not yet paid), then the others the user sees; those the user stands to
        as to the task's row (the guest of a booking rather than its host, someone else's listing
        to book); the user's own. `_accepted_first` then puts the rows predicted to pass first.
        """
        assert p.ref is not None
        entity, step = p.ref, draft.steps[0]
        named = self._named_rows(draft, entity)
        # Options are GET requests, but the app opens the file it is bound to: it reads a copy
        # (the one the first try is made on anyway), never the initial state itself.
        probe = copy_db(initial, self._path(draft, "wrong_target"))
        offered = self.backend.options(probe, draft.user, step.workflow, p.name)
        users = [f.column for f in self.spec.entity(entity).fields if f.type == "reference" and f.ref == "user"]

        def relation(row_id: int) -> tuple[bool, ...]:
            """Which of the row's user fields (owner, guest, host) name the acting user."""
            row = world.row(entity, row_id) or {}
            return tuple(row.get(c) == draft.user_id for c in users)

        task = relation(step.params[p.name])
        seen = dict.fromkeys([*offered, *(r["id"] for r in world.visible(entity, draft.user_id))])
        ranked = sorted((i for i in seen if i not in named),
                        key=lambda i: (i not in offered, relation(i) != task, not any(relation(i)), i))
        return ranked, set(offered)

    def _accepted_first(self, draft: Draft, initial: Path, p: ParamSpec, ranked: list[int]) -> Iterator[int]:
        """`ranked` with the rows the spec's preconditions predict the app accepts moved ahead of
        the rest, each group in its order. Predicted lazily, as the rows are asked for: the first
        row tried is mostly accepted, so most rows never need a prediction; only the leading
        `WRONG_TARGET_PREDICTED` rows get one (the others follow in their order)."""
        refused: list[int] = []
        for row_id in ranked[:WRONG_TARGET_PREDICTED]:
            if self._predicted(draft, initial, p, row_id):
                yield row_id
            else:
                refused.append(row_id)
        yield from refused + ranked[WRONG_TARGET_PREDICTED:]

    def _predicted(self, draft: Draft, initial: Path, p: ParamSpec, row_id: int) -> bool:
        """Whether the spec predicts the app accepts the task's steps with `p` set to `row_id`."""
        step = draft.steps[0]
        swapped = [Step(step.workflow, {**step.params, p.name: row_id})] + draft.steps[1:]
        try:
            return not predict(self.spec, initial, draft.user_id, swapped).failed
        except PredictionError:  # a row the app would reject before its preconditions
            return False

    def _named_rows(self, draft: Draft, entity: str) -> set[int]:
        """Ids of `entity` rows the swapped (first) step names: a wrong target is none of them.

        Only reference parameters count: a value that happens to equal an id (a priority of 3,
        an amount) names no row. A row a later step names stays a candidate: renaming the account
        a later transfer pays into, instead of the one asked for, is still the wrong target.
        """
        step = draft.steps[0]
        return {step.params[q.name] for q in self._workflow(step.workflow).params
                if q.ref == entity and step.params.get(q.name) is not None}

    def _wrong_value(self, draft: Draft, initial: Path, golden: Path) -> Counterfactual:
        """The same steps with one value (not a row) changed, where the change reaches the rows."""
        step = draft.steps[0]
        workflow = self._workflow(step.workflow)
        values = [p for p in workflow.params if not p.ref and p.name in step.params]
        varied: list[str] = []
        for p in values:
            value = other_value(p.type, step.params[p.name], p.values)
            if value is None:
                continue
            varied.append(p.name)
            changed = Step(step.workflow, {**step.params, p.name: value})
            final = self._try(draft, initial, "wrong_value", [changed] + draft.steps[1:])
            # A value no effect stores leaves the golden rows: it was not wrong, try another.
            if final is not None and not diff_databases(golden, final).is_empty:
                note = f"{p.name} {value!r} instead of {step.params[p.name]!r}"
                return Counterfactual("wrong_value", final, note=note)
        if not values:
            why = "the action takes no value besides the rows it acts on"
        elif not varied:
            why = f"no other value can be made for {', '.join(p.name for p in values)}"
        else:
            why = f"each other value of {', '.join(varied)} is refused by the app or stores the golden rows"
        return Counterfactual("wrong_value", None, note=why)

    def _partial(self, draft: Draft, initial: Path, golden: Path, diff: DbDiff) -> Counterfactual:
        """A partial completion, from the coarsest part the task has down to a single value."""
        if len(draft.steps) > 1:
            final = self._try(draft, initial, "partial", draft.steps[:1])
            if final is None:
                return Counterfactual("partial", None,
                                      note=f"the app refuses the first of the {len(draft.steps)} steps run alone")
            return Counterfactual("partial", final, note=f"only the first of {len(draft.steps)} steps")
        changed = [t for t in diff.tables if t.inserted or t.deleted or t.updated]
        rows = sum(len(t.inserted) + len(t.deleted) + len(t.updated) for t in changed)
        if rows == 0:
            return Counterfactual("partial", None, note="the task's golden run changes no row")
        if rows == 1:
            table = changed[0]
            if table.updated:
                return self._partial_columns(draft, initial, diff, table, table.updated[0])
            if table.inserted:
                return self._partial_insert(draft, initial, golden, table)
            return Counterfactual("partial", None, note=f"the task deletes one {table.table} row, "
                                  "and a deletion has no part to leave undone")
        # Leave out the last row change of the last table that has one: all but one row done.
        tables = list(diff.tables)
        index = max(i for i, t in enumerate(tables) if t.inserted or t.deleted or t.updated)
        t = tables[index]
        if t.updated:
            tables[index] = replace(t, updated=t.updated[:-1])
            undone = f"{t.table} #{key_text(t.updated[-1].key)} left as it was"
        elif t.inserted:
            tables[index] = replace(t, inserted=t.inserted[:-1])
            undone = f"a new {t.table} row not added"
        else:
            tables[index] = replace(t, deleted=t.deleted[:-1])
            undone = f"{t.table} #{key_text(tuple(t.deleted[-1][c] for c in t.key_columns))} not deleted"
        patch = render_sqldiff(DbDiff(tuple(tables)))
        final = apply_patch(initial, patch, self._path(draft, "partial"))
        return Counterfactual("partial", final, note=f"{rows - 1} of {rows} row changes ({undone})")

    def _partial_columns(self, draft: Draft, initial: Path, diff: DbDiff, table: TableDiff,
                         change: RowChange) -> Counterfactual:
        """The task's one updated row with all its changed columns set but one, which keeps its
        initial value: the state an agent leaves that fills in all but one field of a form."""
        row = f"{table.table} #{key_text(change.key)}"
        if len(change.changed) < 2:
            return Counterfactual("partial", None,
                                  note=f"the task changes one value of one row ({row}: {change.changed[0]})")
        # Prefer a column set from a value the task gives: the app derives the others (a
        # timestamp, a fixed status) in the same request, so an agent cannot leave those undone.
        # `changed` is in column order, so the choice is stable.
        given = self._task_set_columns(self._workflow(draft.steps[0].workflow), table.table)
        left = ([c for c in change.changed if c in given] or list(change.changed))[-1]
        kept = replace(change, after={**change.after, left: change.before[left]},
                       changed=tuple(c for c in change.changed if c != left))
        tables = tuple(replace(t, updated=[kept]) if t is table else t for t in diff.tables)
        final = apply_patch(initial, render_sqldiff(DbDiff(tables)), self._path(draft, "partial"))
        note = (f"{row} with {len(kept.changed)} of its {len(change.changed)} changed columns set, "
                f"{left} left at {'NULL' if change.before[left] is None else repr(change.before[left])}")
        return Counterfactual("partial", final, note=note)

    def _partial_insert(self, draft: Draft, initial: Path, golden: Path, table: TableDiff) -> Counterfactual:
        """The task's one new row with one value the task gives left blank (the form's default).

        This is a partial completion, not a wrong value: every other field the task names is
        filled in and this one is skipped, as an agent that stops short of the whole request
        leaves it (a different value typed in is `wrong_value`'s case). Only a field the form lets
        the user skip qualifies (optional, or prefilled with a default); the app itself stores the
        row, so its defaults, its NOT NULL columns and its rules are the app's own, never guessed.
        """
        step = draft.steps[0]
        workflow = self._workflow(step.workflow)
        given = [p for p in workflow.params if step.params.get(p.name) is not None]
        new_row = f"one new {table.table} row"
        if len(given) < 2:
            return Counterfactual("partial", None, note=f"the task gives {'one value' if given else 'no value'} "
                                  f"for its {new_row}")
        blanks = [p for p in given if skippable(p)]
        if not blanks:
            return Counterfactual("partial", None, note=f"the task adds {new_row} and the form requires "
                                  f"every value it gives ({', '.join(p.name for p in given)})")
        refused: list[str] = []
        same: list[str] = []
        for p in reversed(blanks):  # the last optional field first, as the form lists them
            rest = {k: v for k, v in step.params.items() if k != p.name}
            final = self._try(draft, initial, "partial", [Step(step.workflow, rest)])
            if final is None:
                refused.append(p.name)
            elif diff_databases(golden, final).is_empty:
                same.append(p.name)  # the value given is the default: blank stores the same row
            else:
                return Counterfactual("partial", final, note=f"the {new_row} with {p.name} left blank")
        why = [f"the app refuses it with {', '.join(refused)} left blank"] if refused else []
        why += [f"{', '.join(same)} left blank stores the same row"] if same else []
        return Counterfactual("partial", None, note=f"the task adds {new_row}: {'; '.join(why)}")

    def _task_set_columns(self, workflow: WorkflowSpec, table: str) -> set[str]:
        """Columns of `table` the workflow sets from a value the task gives."""
        columns: set[str] = set()
        for effect in workflow.effects:
            if effect.kind != "set" or effect.field is None or effect.to is None:
                continue
            entity = self.spec.entity(effect.entity)
            if entity.table == table and uses_task_value(effect.to, workflow.params):
                columns.add(entity.field_named(effect.field).column)
        return columns

    def _extra_change(self, draft: Draft, golden: Path, diff: DbDiff) -> Counterfactual:
        """The golden state plus one nudged value in a row the task does not touch (a column the
        task changes elsewhere first, so the reward has to pin rows, not just columns)."""
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
                        new = nudge(value)
                        if new is None:
                            continue
                        conn.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE id = ?', (new, row_id))
                        conn.commit()
                        note = f"{table} #{row_id}: {column} {value!r} -> {new!r}"
                        return Counterfactual("extra_change", final, note=note)
        finally:
            conn.close()
        return Counterfactual("extra_change", None, note="no row outside the task's changes has a number "
                              "or a text (other than a key, a reference or a date) to change")

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
