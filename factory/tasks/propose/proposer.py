"""The proposer: task drafts grounded in the live seed database.

Every draft names an acting user and rows that exist and that user can see, phrased the way a
user would (labels, field values; never ids). Kinds:

- READ: lookups, counts (filters, date ranges, nested filters), totals, and superlatives whose
  top row is unique (a tie makes the question unanswerable, so such candidates are skipped);
- WRITE: every workflow, with concrete rows and values (the seed's own phrasings where they can
  carry all the parameters, the generic phrasings otherwise);
- READ_WRITE: find a row by a superlative, then act on it;
- errands (`compound.py`), WRITE or READ_WRITE with two or more actions, phrased purpose first:
  two workflows on related rows, one workflow on two related rows, undo then redo, find then act
  then act, and two unrelated workflows.

Feasibility is screened with the independent effect interpreter before a draft is emitted: a
draft whose preconditions would fail gets a setup (another workflow run first that makes them
hold), or another candidate. All choices come from one seeded generator, so the same world gives
the same drafts.

The proposer is made of parts, one module each over a shared base (see `base.py`): `values`
(with `kind_prices` and `stored`), `texts`, `setups`, `reads`, `writes`, `read_writes`, `compound`
(over `act_report` and `clashes`, the rules an errand's acts keep) and `readback`. This module keeps the plan and the
`Proposer` itself: what it proposes, and the repairs stage two asks of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from factory import progress
from factory.tasks.draft import Draft
from factory.tasks.language.day_order import said_in_order
from factory.tasks.language.intents import unusable_phrasings
from factory.tasks.language.phrasing import Ask, render
from factory.tasks.propose.base import Options
from factory.tasks.propose.compound import COMPOUND_CATEGORIES, CompoundMixin
from factory.tasks.propose.read_writes import ReadWritesMixin
from factory.tasks.propose.readback import ReadBackMixin
from factory.tasks.propose.reads import ReadsMixin
from factory.tasks.propose.setups import SetupsMixin
from factory.tasks.propose.texts import TextsMixin
from factory.tasks.propose.values import ValuesMixin
from factory.tasks.propose.writes import WritesMixin

__all__ = ["Draft", "Options", "Plan", "Proposer"]

log = logging.getLogger(__name__)


@dataclass
class Plan:
    """How many drafts of each kind to make. Errands (two or more actions) are a third of the
    drafts so that, once the gates have run, at least 30% of the writes and read-writes need two
    or more distinct actions (issue 15)."""

    read: int = 60
    write: int = 54
    read_write: int = 23
    find_errand: int = 10
    errand: int = 21
    pair: int = 10
    redo: int = 8
    multi: int = 6
    act_report: int = 0
    undo: int = 0
    swap: int = 0

    @classmethod
    def for_total(cls, total: int) -> Plan:
        read = round(total * 0.31)
        read_write, act_report = round(total * 0.08), round(total * 0.04)
        find_errand, errand = round(total * 0.05), round(total * 0.11)
        # making a row and taking it straight back is no errand a user types ("book the class, then
        # cancel it", read as a test of the app in a blind reading): drawn only when asked for
        pair, redo, undo, swap = round(total * 0.04), round(total * 0.03), 0, round(total * 0.03)
        multi = max(1, round(total * 0.02))
        write = total - read - read_write - find_errand - errand - pair - redo - multi - act_report - undo - swap
        return cls(read, write, read_write, find_errand, errand, pair, redo, multi, act_report, undo, swap)

    def compounds(self) -> dict[str, int]:
        """The errands' shares by category (`compound.COMPOUND_CATEGORIES`)."""
        return {"find_errand": self.find_errand, "errand": self.errand, "pair": self.pair,
                "redo": self.redo, "swap": self.swap, "multi_step": self.multi, "act_report": self.act_report,
                "undo": self.undo}


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
class Proposer(CompoundMixin, ReadWritesMixin, ReadsMixin, WritesMixin, SetupsMixin, ValuesMixin, TextsMixin,
               ReadBackMixin):
    """Deterministic proposer over one world (spec + seed database)."""

    # While `propose` runs: counts each draft made towards the current kind's share (display only).
    _share: _Share | None = None

    def propose(self, plan: Plan) -> list[Draft]:
        drafts: list[Draft] = []
        errands = plan.compounds()
        kinds: tuple[tuple[Callable[[int], list[Draft]], int], ...] = (
            (self._reads, plan.read), (self._writes, plan.write), (self._read_writes, plan.read_write),
            (lambda _n: self._compounds(errands), sum(errands.values())))
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
        if draft.form in ("generic", "errand") or draft.task_type != "write" or len(draft.steps) != 1:
            return False
        workflow = next(w for w in self.spec.workflows if w.name == draft.steps[0].workflow)
        user = next(u for u in self.users if u.username == draft.user)
        step = self._ask_step(workflow, draft.steps[0], user)
        if step is None:
            return False
        draft.ask = Ask("write", steps=(step,))
        draft.goal = said_in_order(self.spec, render(self.spec, draft.ask, draft.variant))
        draft.form = "generic"
        return True

    def regenerate(self, draft: Draft) -> Draft | None:
        """A new draft of the same kind and category (other rows, other values), or None."""
        for _ in range(8):
            if draft.task_type == "read":
                fresh = self._reads(1)
            elif draft.category in COMPOUND_CATEGORIES:
                fresh = self._compounds({draft.category: 1})
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
