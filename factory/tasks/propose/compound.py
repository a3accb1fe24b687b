"""Drafts that combine kinds: READ_WRITE (find a row by a superlative, then act on it) and
two-workflow writes (`First, … Then, …`).

Both use the read and write parts (through `ProposerBase`). A READ_WRITE draft never takes a
setup: one could change which row is the extreme, and the instruction is phrased from the seed.
"""

from __future__ import annotations

from factory.runtime.step import Step
from factory.spec.model import EntitySpec, FieldSpec, ParamSpec, WorkflowSpec
from factory.tasks.draft import Draft
from factory.tasks.language.asks import Ask, AskStep, Question
from factory.tasks.language.phrasing import render
from factory.tasks.language.resolve import AmbiguousError, UnresolvedError, comparable, extreme, select
from factory.tasks.language.spoken import identifier
from factory.tasks.propose.base import ORDERED, ProposerBase


class CompoundMixin(ProposerBase):
    """Part of `Proposer`: read-then-write drafts and two-workflow drafts."""

    def _read_writes(self, n: int) -> list[Draft]:
        candidates = []
        for workflow in self._workflows():
            subject = next((p for p in workflow.params if p.ref and p.required
                            and p.name == (workflow.subject or p.name)), None)
            if subject is None or subject.ref is None:
                continue
            ent = self.spec.entity(subject.ref)
            ordered = [f for f in ent.fields if f.type in ORDERED and f.name not in ent.owner_fields
                       and not identifier(f) and self._nameable(ent, f.name)]
            if ordered:
                candidates.append((workflow, subject, ent, ordered))
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
        ask_step = AskStep(workflow.name, other.args, (subject.name, q))
        ask = Ask("read_write", steps=(ask_step,))
        goal = render(self.spec, ask, 0)
        if not self._reads_back(goal, ask):
            return None
        return Draft(self._key("read-write", workflow.name), "read_write", workflow.name, user.username,
                     user.id, ask, goal, [step], [], capabilities=caps,
                     required=self._required(workflow, step))

    def _multis(self, n: int) -> list[Draft]:
        workflows = self._workflows()
        drafts: list[Draft] = []
        if len(workflows) < 2:
            return drafts
        for _attempt in range(n * 12):
            if len(drafts) >= n:
                break
            first, second = self.rng.sample(workflows, 2)
            users = self.users[:]
            self.rng.shuffle(users)
            user = users[0]
            a, b = self._fill(first, user), self._fill(second, user)
            if a is None or b is None:
                continue
            if not self._passes(user, [a, b]):
                continue
            sa, sb = self._ask_step(first, a, user), self._ask_step(second, b, user)
            if sa is None or sb is None:
                continue
            ask = Ask("write", steps=(sa, sb))
            goal = render(self.spec, ask, 0)
            if goal in {d.goal for d in drafts} or not self._reads_back(goal, ask):
                continue
            drafts.append(Draft(self._key("write", "two-steps"), "write", "multi_step", user.username,
                                user.id, ask, goal, [a, b], [],
                                required=self._required(first, a) + self._required(second, b)))
        return drafts
