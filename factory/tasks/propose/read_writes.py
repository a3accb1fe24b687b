"""READ_WRITE find-then-act drafts: find a row by a superlative among the user's rows (the question
picks it), then act on it, in one step. The find-then-act errands (`compound.py`) start the same way
(`_find_act`), then act on a row related to the one found.
"""

from __future__ import annotations

from factory.runtime.step import Step
from factory.spec.model import EntitySpec, FieldSpec, ParamSpec, WorkflowSpec
from factory.spec.naming import identifier
from factory.tasks.draft import Draft
from factory.tasks.language.asks import Ask, AskStep, Question
from factory.tasks.language.phrasing import render
from factory.tasks.language.resolve import AmbiguousError, UnresolvedError, comparable, extreme, select
from factory.tasks.language.spoken import recency_field
from factory.tasks.propose.base import ORDERED, FindAct, ProposerBase


def picks_by(ent: EntitySpec, f: FieldSpec) -> bool:
    """Whether a person picks a row to act on by this field: its age ("decline the most recent
    refund request", "the oldest application in referencing"). An amount or a count ("the
    tenancy with the highest deposit", "the order with the most tickets") is a question one may
    ask, but in blind readings no reason to act on the row it finds: which asset comes back from
    repair does not follow from its price."""
    return f is recency_field(ent)


class ReadWritesMixin(ProposerBase):
    """Part of `Proposer`: find-then-act drafts (READ_WRITE, one step)."""

    def _find_candidates(self) -> list[tuple[WorkflowSpec, ParamSpec, EntitySpec, list[FieldSpec]]]:
        candidates = []
        for workflow in self._workflows():
            subject = next((p for p in workflow.params if p.ref and p.required
                            and p.name == (workflow.subject or p.name)), None)
            if subject is None or subject.ref is None:
                continue
            ent = self.spec.entity(subject.ref)
            # never by an amount or a count the act itself sets: "bill the renter for whichever
            # report has the lowest amount billed" picks by what the billing is about to change
            # (a row's age stays: "archive my oldest note" touches its last-changed day in passing)
            sets = {e.field for e in workflow.effects if e.kind == "set" and e.entity == ent.name} - {
                f.name for f in [recency_field(ent)] if f is not None}
            ordered = [f for f in ent.fields if f.type in ORDERED and f.name not in ent.owner_fields
                       and not identifier(f) and self._nameable(ent, f.name) and picks_by(ent, f)
                       and f.name not in sets]
            if ordered:
                candidates.append((workflow, subject, ent, ordered))
        return candidates

    def _read_writes(self, n: int) -> list[Draft]:
        candidates = self._find_candidates()
        drafts: list[Draft] = []
        if not candidates:
            self.skipped.append("read_write: no workflow acts on a row that can be found by a superlative")
            return drafts
        for attempt in range(n * 10):
            if len(drafts) >= n:
                break
            workflow, subject, ent, ordered = candidates[attempt % len(candidates)]
            draft = self._read_write(workflow, subject, ent, ordered)
            if draft is not None and draft.goal not in {d.goal for d in drafts}:
                drafts.append(draft)
        return drafts

    def _read_write(self, workflow: WorkflowSpec, subject: ParamSpec, ent: EntitySpec,
                    ordered: list[FieldSpec]) -> Draft | None:
        found = self._find_act(workflow, subject, ent, ordered)
        if found is None:
            return None
        user, step, ask_step, caps = found
        ask = Ask("read_write", steps=(ask_step,))
        goal = render(self.spec, ask, 0)
        if not self._reads_back(goal, ask):
            return None
        return Draft(self._key("read-write", workflow.name), "read_write", workflow.name, user.username,
                     user.id, ask, goal, [step], [], capabilities=caps,
                     required=self._required(workflow, step))

    def _find_act(self, workflow: WorkflowSpec, subject: ParamSpec, ent: EntitySpec,
                  ordered: list[FieldSpec]) -> FindAct | None:
        """A run of `workflow` on the row a superlative finds among the user's rows."""
        users = [u for u in self.users if self._candidates(u, workflow, subject)]
        if not users:
            return None
        user = self.rng.choice(users)
        offered = self._candidates(user, workflow, subject)
        rows = [r for r in self._visible(ent.name, user.id) if r["id"] in offered]
        if not rows:
            return None
        anchor = self.rng.choice(rows)
        f = self.rng.choice(ordered)
        conds, caps = self._conds(ent, anchor, user, want_range=False)
        q = Question(self.rng.choice(["max", "min"]), ent.name, f.name, conds=conds[:1])
        if len(select(self.world, q, user.id)) < 2 or not comparable(self.world, q, user.id):
            return None  # among one row finds nothing; rows with no value or two currencies compare nothing
        try:
            target = extreme(self.world, q, user.id)
        except (AmbiguousError, UnresolvedError):
            return None
        if self._currency(ent.name, target) not in (None, "USD") and any(
                p.type == "money" and not p.currency for p in workflow.params):
            return None  # "reassess the duty for it to …": "it" says no currency, so the amount would be in dollars
        step = self._fill(workflow, user)
        if step is None:
            return None
        step.params[subject.name] = target["id"]
        if any(v == target["id"] for k, v in step.params.items() if k != subject.name
               and next(p for p in workflow.params if p.name == k).ref == ent.name):
            return None
        setup = self._feasible(user, step)
        if setup is None or setup:
            return None  # a setup could change which row is the extreme: keep these setup-free
        other = self._ask_step(workflow, Step(workflow.name, {k: v for k, v in step.params.items()
                                                                 if k != subject.name}), user)
        if other is None:
            return None
        return user, step, AskStep(workflow.name, other.args, (subject.name, self._scoped(q, user.id))), caps
