"""Values that make a call's preconditions hold, found one parameter at a time.

A workflow such as "apply for a flat" holds only for a flat the user has viewed, an offer within
10% of the asking rent and an income 30 times the offer: three rules over three parameters, which
independent random draws meet almost never. `descend` changes one parameter at a time, keeping a
change only when the failing rules weigh less (the oracle lists them: `factory.predict.effects`
evaluates every precondition), so each rule is met in turn and later rules see the earlier values.
A rule weighs more the fewer searched parameters can mend it (`rule_weights`): a flat the user
viewed whose move-in date is too early is progress, since the date can still move. Numbers
come from `ladder`, round values over the whole range in ascending order, so the first value that
meets "at least …" is the smallest round one that does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from factory.expr.syntax import names_in, parse
from factory.spec.model import ParamSpec, WorkflowSpec

_STEPS = (1, 1.5, 2, 2.5, 3, 4, 5, 7.5)  # round numbers within one decade


def ladder(param: ParamSpec) -> list[int]:
    """Round values of a money (in cents) or whole-number parameter across its range, ascending."""
    if param.type == "money":
        lo = round(param.min * 100) if param.min is not None else 100
        hi = round(param.max * 100) if param.max is not None else 10**9
        decades = range(2, 10)  # $1 … $7.5m
    else:
        lo = int(param.min) if param.min is not None else 0
        hi = int(param.max) if param.max is not None else 10**6
        decades = range(7)
    values = {round(s * 10**d) for d in decades for s in _STEPS} | set(range(11))
    return sorted(v for v in values | {lo, hi} if lo <= v <= hi)


def rule_weights(workflow: WorkflowSpec, searched: set[str]) -> dict[str, float]:
    """Each precondition's message → its weight: 1 / the number of searched parameters it names."""
    return {c.message: 1 / max(1, len(names_in(parse(c.source)) & searched)) for c in workflow.preconditions}


def descend(start: dict[str, Any], domains: dict[str, list[Any]], failures: Callable[[dict[str, Any]], float | None],
            passes: int = 3) -> dict[str, Any] | None:
    """Arguments from `start` under which no rule fails (`failures` weighs the failing ones, 0 when
    none fail, None when the call cannot run), changing one parameter of `domains` at a time and
    keeping the first value that lowers the weight; None when `passes` rounds over every parameter
    leave some rule failing."""
    best = dict(start)
    found = failures(best)
    left = found if found is not None else float("inf")
    if left == 0:
        return best
    for _ in range(passes):
        improved = False
        for name, values in domains.items():
            for value in values:
                if value == best.get(name):
                    continue
                trial = {**best, name: value}
                count = failures(trial)
                if count is not None and count < left:
                    best, left, improved = trial, count, True
                    break
            if left == 0:
                return best
        if not improved:
            return None
    return None


__all__ = ["descend", "ladder", "rule_weights"]
