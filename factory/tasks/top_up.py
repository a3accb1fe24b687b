"""The proposer's drafts made distinct and topped up, before stage two gates them.

A pass of the plan gives near-duplicates (dropped, each replaced by a fresh draft of its kind where
the proposer finds one) and falls short where shares have few rows or the language rules turn drafts
away; the shortfall is proposed again: first errands, until two-action drafts make their share of the
writes, then the plan's count, in its own mix.
"""

from __future__ import annotations

import math

from factory.spec.model import Spec
from factory.tasks.diversity import NearKey, near_key, split_near_duplicates
from factory.tasks.language.day_order import said_in_order
from factory.tasks.propose.proposer import Draft, Plan, Proposer


def distinct(spec: Spec, proposer: Proposer, drafts: list[Draft]) -> tuple[list[Draft], list[str]]:
    """The drafts without near-duplicates (`diversity.near_key`), each dropped one replaced by a
    fresh draft of its kind when the proposer finds one; and the goals dropped."""
    seen: set[NearKey] = set()
    for draft in drafts:  # every goal with its days in the world's order, before anything reads it
        draft.goal = said_in_order(spec, draft.goal)
    kept, dropped = split_near_duplicates(spec, drafts, seen)
    for draft in dropped:
        for _ in range(3):
            fresh = proposer.regenerate(draft)
            if fresh is None:
                break
            fresh.goal = said_in_order(spec, fresh.goal)
            key = near_key(spec, fresh)
            if key not in seen and fresh.goal not in {d.goal for d in kept}:
                seen.add(key)
                kept.append(fresh)
                break
    return kept, [d.goal for d in dropped]


# A pass of the plan falls short where shares have few rows or the language rules turn drafts away;
# the shortfall is asked for again, at most this many times, and only when it is worth a pass.
TOP_UP_PASSES = 2
TOP_UP_MIN = 10


def top_up(spec: Spec, proposer: Proposer, drafts: list[Draft], near: list[str], total: int
            ) -> tuple[list[Draft], list[str]]:
    """The drafts, with what the plan fell short of proposed again. Depth first: where errands fell
    short (their rows are rarer than single acts'), more are asked for until two or more distinct
    actions make `MULTI_TARGET` of the writes; then count: the plan's shortfall, in its own mix (a
    world with many workflows gets as many drafts as one with few). Each pass keeps only drafts that
    are no near-duplicate of one already made."""
    for _ in range(ERRAND_PASSES):
        need = _errands_needed(drafts)
        if need < 3:
            break
        base = Plan.for_total(190)
        scale = need / max(1, sum(base.compounds().values()))
        more_plan = Plan(read=0, write=0, read_write=0, act_report=0, undo=round(base.undo * scale),
                         find_errand=round(base.find_errand * scale), errand=round(base.errand * scale) + 1,
                         pair=round(base.pair * scale), redo=round(base.redo * scale), multi=round(base.multi * scale),
                         swap=round(base.swap * scale))
        drafts, near, added = _more(spec, proposer, drafts, near, more_plan)
        if not added:
            break
    for _ in range(TOP_UP_PASSES):
        short = total - len(drafts)
        if short < TOP_UP_MIN:
            break
        drafts, near, added = _more(spec, proposer, drafts, near, Plan.for_total(short), limit=short)
        if not added:
            break
    return drafts, near


def _more(spec: Spec, proposer: Proposer, drafts: list[Draft], near: list[str], plan: Plan,
          limit: int | None = None) -> tuple[list[Draft], list[str], int]:
    """The drafts with those of one more pass of `plan` that are new (at most `limit`)."""
    more, dropped = distinct(spec, proposer, drafts + proposer.propose(plan))
    added = [d for d in more if d not in drafts][:limit]
    return drafts + added, near + dropped, len(added)


ERRAND_PASSES = 4
MULTI_TARGET = 0.38  # above the corpus's 30 % floor: the gates discard more errands than single acts


def _errands_needed(drafts: list[Draft]) -> int:
    """How many more two-action drafts would lift their share of the writes to `MULTI_TARGET`."""
    writes = [d for d in drafts if d.task_type != "read"]
    multi = sum(1 for d in writes if len({(s.workflow, repr(sorted(s.params.items()))) for s in d.steps}) >= 2)
    if not writes or multi / len(writes) >= MULTI_TARGET:
        return 0
    return min(60, math.ceil((MULTI_TARGET * len(writes) - multi) / (1 - MULTI_TARGET)))
