"""Task triage: tag each failed draft with the layer at fault, and refuse repairs that weaken.

Layers: `task` (the instruction: unparsable, a name that resolves to no row or to two), `setup`
(the backend refused a setup or golden step), `reward` (the reward passes on the initial state,
lets a counterfactual through, or reward-gen broke its sandbox), `world` (the app disagrees with
its own spec: the golden state is not what the declared effects predict, the app is not
deterministic, or the UI cannot complete what the API can). World defects are reported for the
stage-one repairer; the other layers are repaired here.

A READ whose answer, as the UI gate's solver read it off the page, does not grade 1 is the task's
(`ui:answer`): its answer check may only be widened with true renderings of the value it expects
(`with_aliases`, checked by `false_aliases`), never with whatever the page showed.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

LAYER_OF = {
    "parse": "task", "unresolved": "task", "ambiguous": "task", "task": "task",
    "setup": "setup",
    "infeasible": "world",
    "isolation": "reward", "error": "reward", "weakening": "reward",
    "gate:initial": "reward", "gate:golden": "world", "gate:determinism": "world", "gate:ui": "world",
    "ui:answer": "task",
}


@dataclass(frozen=True)
class Failure:
    """Why a draft failed: the layer at fault, the failure kind and the evidence."""

    layer: str
    kind: str
    message: str


def triage(kind: str, message: str) -> Failure:
    """The layer a failure belongs to (counterfactual gates are the reward's)."""
    layer = LAYER_OF.get(kind, "reward")  # counterfactual gates and unknown kinds: the reward's
    return Failure(layer, kind, message)


def weakens(old: dict[str, Any], new: dict[str, Any], renderings: Iterable[str] = ()) -> bool:
    """Whether `new` asks for less than `old`: fewer checks, a check type dropped, a looser
    tolerance, checklist scoring where all checks had to pass, or an answer check that accepts
    another expected value, or an alias that is not one of `renderings` (the true renderings of
    the expected value; none are by default, so a regenerated reward may add no alias at all)."""
    if false_aliases(old, new, renderings) or _other_expected(old, new):
        return True
    old_checks, new_checks = old.get("checks", []), new.get("checks", [])
    if len(new_checks) < len(old_checks):
        return True
    if {c["type"] for c in old_checks} - {c["type"] for c in new_checks}:
        return True
    if old.get("mode", "all") == "all" and new.get("mode", "all") != "all":
        return True
    tolerance = {c["id"]: c.get("tolerance", 0) for c in old_checks}
    return any(c.get("tolerance", 0) > tolerance.get(c["id"], c.get("tolerance", 0)) for c in new_checks)


def _other_expected(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether an answer check of `new` accepts an expected value its namesake in `old` did not."""
    def accepted(check: dict[str, Any]) -> set[str]:
        values = check["one_of"] if "one_of" in check else [check.get("expected")]
        return {json.dumps(v, sort_keys=True) for v in values}

    before = {c["id"]: accepted(c) for c in old.get("checks", []) if c["type"] == "answer"}
    return any(accepted(c) - before[c["id"]] for c in new.get("checks", [])
               if c["type"] == "answer" and c["id"] in before)


def _aliases(reward: dict[str, Any]) -> dict[str, list[str]]:
    """The aliases of each answer check, by check id."""
    return {c["id"]: list(c.get("aliases", [])) for c in reward.get("checks", []) if c["type"] == "answer"}


def with_aliases(reward: dict[str, Any], texts: Iterable[str]) -> dict[str, Any]:
    """A copy of `reward` whose answer checks also accept `texts` (those they lack, in order)."""
    amended = copy.deepcopy(reward)
    wanted = list(texts)
    for check in amended.get("checks", []):
        if check["type"] == "answer":
            have = list(check.get("aliases", []))
            check["aliases"] = have + [t for t in dict.fromkeys(wanted) if t not in have]
    return amended


def added_aliases(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The answer aliases `new` has that `old` did not (by check id)."""
    before = _aliases(old)
    return [t for cid, texts in _aliases(new).items() for t in texts if t not in before.get(cid, [])]


def false_aliases(old: dict[str, Any], new: dict[str, Any], true_texts: Iterable[str]) -> list[str]:
    """The aliases `new` adds to `old` that are not among `true_texts` (the expected value's true
    renderings): an alias that is anything else would let a wrong answer through."""
    allowed = set(true_texts)
    return [t for t in added_aliases(old, new) if t not in allowed]
