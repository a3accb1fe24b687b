"""The proposer: task drafts grounded in the live seed database.

Every draft names an acting user and rows that exist and that user can see, phrased the way a
user would (labels, field values; never ids). Kinds:

- READ: lookups, counts (filters, date ranges, nested filters), totals, and superlatives whose
  top row is unique (a tie makes the question unanswerable, so such candidates are skipped);
- WRITE: every workflow, with concrete rows and values (the seed's own phrasings where they can
  carry all the parameters, the generic phrasings otherwise), plus two-workflow tasks;
- READ_WRITE: find a row by a superlative, then act on it.

Feasibility is screened with the independent effect interpreter before a draft is emitted: a
draft whose preconditions would fail gets a setup (another workflow run first that makes them
hold), or another candidate. All choices come from one seeded generator, so the same world gives
the same drafts.

The proposer is made of parts, one module each over a shared base (see `base.py`): `values`,
`setups`, `reads`, `writes`, `compound` and `readback`. This module keeps the plan and the
`Proposer` itself: what it proposes, and the repairs stage two asks of it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from factory import progress
from factory.tasks.draft import Draft
from factory.tasks.language.intents import unusable_phrasings
from factory.tasks.language.phrasing import Ask, render
from factory.tasks.propose.base import Options
from factory.tasks.propose.compound import CompoundMixin
from factory.tasks.propose.readback import ReadBackMixin
from factory.tasks.propose.reads import ReadsMixin
from factory.tasks.propose.setups import SetupsMixin
from factory.tasks.propose.values import ValuesMixin
from factory.tasks.propose.writes import WritesMixin

__all__ = ["Draft", "Options", "Plan", "Proposer"]

log = logging.getLogger(__name__)


@dataclass
class Plan:
    """How many drafts of each kind to make."""

    read: int = 60
    write: int = 88
    read_write: int = 36
    multi: int = 10

    @classmethod
    def for_total(cls, total: int) -> Plan:
        read = round(total * 0.31)
        read_write = round(total * 0.19)
        multi = max(1, round(total * 0.05))
        return cls(read, total - read - read_write - multi, read_write, multi)


class _Share:
    """One kind's share of the plan on the progress display: each draft made counts, up to the
    share (spares and duplicates made on the way are not counted); a share left unfilled is
    finished all the same when its kind is done, so the bar counts the plan."""

    def __init__(self, advance: progress.Advance, n: int) -> None:
        self.advance, self.n, self.shown = advance, n, 0

    def tick(self) -> None:
        if self.shown < self.n:
            self.shown += 1
            self.advance(1)

    def finish(self) -> None:
        self.advance(self.n - self.shown)
        self.shown = self.n


# The parts in the order the layers used to stack (compound, reads, writes, setups, values), then
# the read-back check: the same method resolution order as before, every part before the base.
class Proposer(CompoundMixin, ReadsMixin, WritesMixin, SetupsMixin, ValuesMixin, ReadBackMixin):
    """Deterministic proposer over one world (spec + seed database)."""

    # While `propose` runs: counts each draft made towards the current kind's share (display only).
    _share: _Share | None = None

    def propose(self, plan: Plan) -> list[Draft]:
        drafts: list[Draft] = []
        kinds = ((self._reads, plan.read), (self._writes, plan.write), (self._read_writes, plan.read_write),
                 (self._multis, plan.multi))
        with progress.task("propose drafts", total=sum(n for _, n in kinds)) as advance:
            for make, n in kinds:
                share = self._share = _Share(advance, n)
                try:
                    drafts += make(n)
                finally:
                    share.finish()
                    self._share = None
        return drafts

    def _key(self, kind: str, category: str) -> str:
        # Every draft is named here as it is made: the one place that sees each of them.
        if self._share is not None:
            self._share.tick()
        return super()._key(kind, category)

    def rephrase(self, draft: Draft) -> bool:
        """Repair of the task text: a seed phrasing named a row by a field value two rows share;
        say it with the generic phrasing, which names rows by their full labels. False when the
        draft has nothing to rephrase."""
        if draft.form == "generic" or draft.task_type != "write":
            return False
        workflow = next(w for w in self.spec.workflows if w.name == draft.steps[0].workflow)
        user = next(u for u in self.users if u.username == draft.user)
        step = self._ask_step(workflow, draft.steps[0], user)
        if step is None:
            return False
        draft.ask = Ask("write", steps=(step,))
        draft.goal = render(self.spec, draft.ask, draft.variant)
        draft.form = "generic"
        return True

    def regenerate(self, draft: Draft) -> Draft | None:
        """A new draft of the same kind and category (other rows, other values), or None."""
        for _ in range(8):
            if draft.task_type == "read":
                fresh = self._reads(1)
            elif draft.category == "multi_step":
                fresh = self._multis(1)
            elif draft.task_type == "read_write":
                fresh = [x for x in self._read_writes(4) if x.category == draft.category][:1]
            else:
                workflow = next(w for w in self.spec.workflows if w.name == draft.category)
                one = self._write(workflow, 1)
                fresh = [one] if one is not None else []
            if fresh and fresh[0].goal != draft.goal:
                return fresh[0]
        return None

    def unusable_intents(self) -> list[str]:
        """Seed phrasings the proposer cannot ground, each with the reason (reported, never
        silently dropped)."""
        return [f"{name}: {phrasing!r} ({why})" for name, phrasing, why in unusable_phrasings(self.spec)]
