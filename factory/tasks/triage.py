"""Task triage: tag each failed draft with the layer at fault, and refuse repairs that weaken.

Layers: `task` (the instruction: unparsable, a name that resolves to no row or to two), `setup`
(the backend refused a setup or golden step), `reward` (the reward passes on the initial state,
lets a counterfactual through, or reward-gen broke its sandbox), `world` (the app disagrees with
its own spec: the golden state is not what the declared effects predict, the app is not
deterministic, or the UI cannot complete what the API can). World defects are reported for the
stage-one repairer; the other layers are repaired here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LAYER_OF = {
    "parse": "task", "unresolved": "task", "ambiguous": "task", "task": "task",
    "setup": "setup",
    "infeasible": "world",
    "isolation": "reward", "error": "reward", "weakening": "reward",
    "gate:initial": "reward", "gate:golden": "world", "gate:determinism": "world", "gate:ui": "world",
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


def weakens(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether `new` asks for less than `old`: fewer checks, a check type dropped, a looser
    tolerance, or checklist scoring where all checks had to pass."""
    old_checks, new_checks = old.get("checks", []), new.get("checks", [])
    if len(new_checks) < len(old_checks):
        return True
    if {c["type"] for c in old_checks} - {c["type"] for c in new_checks}:
        return True
    if old.get("mode", "all") == "all" and new.get("mode", "all") != "all":
        return True
    tolerance = {c["id"]: c.get("tolerance", 0) for c in old_checks}
    return any(c.get("tolerance", 0) > tolerance.get(c["id"], c.get("tolerance", 0)) for c in new_checks)
