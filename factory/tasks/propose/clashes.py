"""Whether the acts of an errand keep each other's results: the rules a compound draft passes
before it is phrased (`compound.py`).

An errand is acts a person asks for together, so none may undo, redo or override another unless
the errand says so (an undo or a redo is its own category), and each row it names must still be
the one row so named when its act comes. The rules read the workflows' effects and the effect
interpreter's predictions, never labels, except the verb of taking back (`UNDO_VERBS`) where a
workflow keeps the row it cancels:

- `_redoes`: a row taken back and then named again (leaving a waitlist, then booking its
  class), or a row made like one just acted on (asking for a refund on tickets, then buying
  the same tickets);
- `_overrides`: a later act rewrites what an earlier one set or made (releasing a tier, then
  cancelling its event, which closes every tier), or would do it anyway (cancelling a booking,
  then freezing the membership, which cancels every booking);
- `_names_hold`: a row named by its words is that row still, once the acts before it ran
  ("buy 4 tickets, then transfer my tickets for …": two orders now fit).
"""

from __future__ import annotations

from typing import Any

from factory.errors import FactoryError
from factory.predict.after import view_after
from factory.predict.overlay import Prediction
from factory.runtime.step import Step
from factory.spec.model import ParamSpec, WorkflowSpec
from factory.tasks.language.asks import MADE, AskStep, RefText
from factory.tasks.language.frames import IT
from factory.tasks.language.resolve import AmbiguousError, UnresolvedError, resolve_ref
from factory.tasks.language.spoken import verb_phrase
from factory.tasks.language.things import person
from factory.tasks.propose.base import ProposerBase

# What a workflow that takes a row back starts with (its verb phrase): the undo of undo and redo.
UNDO_VERBS = frozenset({"cancel", "remove", "delete", "withdraw", "void", "unblock", "unsave", "decline", "drop", "retract",
                        "revoke", "unenroll", "unassign"})


class ClashesMixin(ProposerBase):
    """Part of `Proposer`: whether an errand's acts keep each other's results."""

    def _workflow(self, name: str) -> WorkflowSpec:
        return next(w for w in self.spec.workflows if w.name == name)

    def _named(self, workflow: WorkflowSpec, step: Step) -> set[tuple[str, int]]:
        return {(p.ref, step.params[p.name]) for p in workflow.params if p.ref and step.params.get(p.name)}

    def _taken_back(self, workflow: WorkflowSpec) -> ParamSpec | None:
        """The row parameter of a workflow that takes a row back: one that deletes the row it acts
        on, whatever its label says ("Leave waitlist"), or one whose verb takes back (cancel,
        remove, unblock …: a cancelled booking is kept with its status)."""
        subject = next((p for p in workflow.params if p.ref and p.name == workflow.subject), None)
        if subject is None:
            return None
        deletes = any(e.kind == "delete" and e.target == subject.name and not e.when and not e.for_each
                      for e in workflow.effects)
        if not deletes and verb_phrase(workflow).split()[0] not in UNDO_VERBS:
            return None
        # a row made beside it (a late-cancellation fee) does not make a cancel a make; one of its own kind does
        return None if any(e.kind == "create" and e.entity == subject.ref for e in workflow.effects) else subject

    def _redoes(self, steps: list[Step]) -> bool:
        """Whether one step takes a row back and a later one names it or the row it was for
        (dropping an enrollment, then enrolling in its section), or makes a row like one an
        earlier step acted on (`_remade`): errands that undo each other. Two acts on one row are
        an errand ("reply to ticket INC-34 …, then escalate it") unless the second sets again
        what the first set (`_overrides`)."""
        taken: set[tuple[str, int]] = set()
        removed: list[tuple[str, dict[str, Any], bool]] = []  # rows steps act on (`_remade`)
        for step in steps:
            workflow = self._workflow(step.workflow)
            if self._named(workflow, step) & taken:
                return True
            if self._remade(workflow, step, removed):
                return True  # "leave the waitlist for the 7 AM Spin, then join it again"
            subject = next((p for p in workflow.params if p.name == workflow.subject and p.ref), None)
            if subject is None or step.params.get(subject.name) is None:
                continue
            row = (subject.ref or "", int(step.params[subject.name]))
            if self._taken_back(workflow) is not None:
                found = self.world.row(row[0], row[1]) or self._made.get(row) or {}  # a row the setup made too
                taken |= {row, *((f.ref, found[f.column]) for f in self.spec.entity(row[0]).fields
                                 if f.type == "reference" and f.ref and f.ref != "user" and found.get(f.column))}
        return False

    def _overrides(self, user: Any, steps: list[Step]) -> bool:
        """Whether a later step changes what an earlier one did: deletes or rewrites a row an
        earlier step made, or sets again a value an earlier step set on the row it acted on
        ("release the Balcony tier, then cancel the event", which closes every tier; "book the
        class, then freeze my membership", which cancels the booking). A person does not ask for
        an act and then for another that undoes it; an errand's acts each keep their result.
        A value the acts share as a running total (the balance two payments draw on) is on
        another row than the one either acts on, so it is not counted."""
        after = self._prediction(user, steps)
        if after is None:
            return True
        for k in range(1, len(steps)):
            before = self._prediction(user, steps[:k])
            if before is None:
                return True
            if after.inserts[:len(before.inserts)] != before.inserts:
                return True  # a row made is changed or gone again
            acted = {(self.spec.entity(p.ref).table, int(s.params[p.name])) for s in steps[:k]
                     for w in [self._workflow(s.workflow)] for p in w.params
                     if p.name == w.subject and p.ref and s.params.get(p.name) is not None}
            for key, columns in before.updates.items():
                if key not in acted:
                    continue
                now = after.updates.get(key, {})
                if key in after.deletes or any(now.get(c) != v for c, v in columns.items()):
                    return True
            if any(key not in after.deletes for key in before.deletes):
                return True  # a row deleted, then made again under its id (SQLite reuses the largest)
            if self._subsumed(user, steps[k:], before, acted):
                return True
        return False

    def _subsumed(self, user: Any, later: list[Step], before: Prediction, acted: set[tuple[str, int]]) -> bool:
        """Whether the later acts, run alone, would do all the earlier ones did to the rows they
        acted on ("cancel my booking for the Boxfit class, and also freeze my membership", which
        cancels every upcoming booking; "leave the waitlist, then freeze", which clears it): the
        earlier act is no errand of its own."""
        done = [(key, c, v) for key, columns in before.updates.items() if key in acted for c, v in columns.items()]
        if not done and not before.deletes:
            return False
        alone = self._prediction(user, later)
        if alone is None or alone.failed:
            return False  # the later acts need the earlier ones: they do not do it alone
        return (all(alone.updates.get(key, {}).get(c, object()) == v for key, c, v in done)
                and all(key in alone.deletes for key in before.deletes))

    def _remade(self, workflow: WorkflowSpec, step: Step, before: list[tuple[str, dict[str, Any], bool]]) -> bool:
        """Whether the step makes a row like one an earlier step deleted (one of the rows it points
        at the same, a person aside) or acted on (all of them the same: "ask for a refund for my
        Stalls tickets for A, then buy 4 Stalls tickets for A" is a redo, said as one or not at
        all), and notes the rows this step acts on for the steps after it: (entity, its
        references, deleted)."""
        params = {p.name: p for p in workflow.params}
        for effect in workflow.effects:
            if effect.kind == "create" and effect.values:
                ent = self.spec.entity(effect.entity)
                made = {fname: step.params.get(src) for fname, src in effect.values.items()
                        if src in params and params[src].ref and not person(self.spec, params[src].ref or "")
                        and step.params.get(src) is not None}
                for entity, refs, gone in before:
                    same = [refs.get(k) == v for k, v in made.items() if k in refs]
                    if entity == ent.name and same and (any(same) if gone else all(same)):
                        return True
        deleted = {e.target for e in workflow.effects if e.kind == "delete"}
        for target in [p for p in workflow.params if p.name == workflow.subject or p.name in deleted]:
            if target.ref and step.params.get(target.name):
                row = self.world.row(target.ref, step.params[target.name]) or {}
                ent = self.spec.entity(target.ref)
                before.append((ent.name, {f.name: row.get(f.column) for f in ent.fields
                                          if f.type == "reference" and f.ref and not person(self.spec, f.ref)},
                               target.name in deleted))
        return False

    def _names_hold(self, user: Any, steps: list[Step], asks: list[AskStep]) -> bool:
        """Whether every row a later act names by its words is the row meant, on the database the
        acts before it leave (the person acts one after the other: after "buy 4 General admission
        tickets", "my General admission tickets for …" fits the new order too)."""
        for k in range(1, len(steps)):
            refs = {name: arg for name, arg in asks[k].args.items()
                    if isinstance(arg, RefText) and arg.by != MADE and arg.text != IT}
            if not refs:
                continue
            prediction = self._prediction(user, steps[:k])
            if prediction is None:
                return False
            try:
                after = view_after(self.spec, self.seed_db, prediction)
            except FactoryError:
                return False
            try:
                params = {p.name: p for p in self._workflow(steps[k].workflow).params}
                for name, arg in refs.items():
                    ref = params[name].ref
                    if ref is None or resolve_ref(after, ref, user.id, arg)["id"] != steps[k].params.get(name):
                        return False
            except (AmbiguousError, UnresolvedError):
                return False
            finally:
                after.close()
        return True
