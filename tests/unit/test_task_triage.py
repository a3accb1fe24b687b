"""Task triage: failures go to the layer at fault; a regenerated reward may not ask for less."""

from __future__ import annotations

from typing import Any

import pytest

from factory.tasks.triage import triage, weakens

REWARD: dict[str, Any] = {"schema_version": 1, "mode": "all", "checks": [
    {"id": "account_7_updated", "type": "row_matches", "table": "account", "key": {"id": 7},
     "expect": {"balance": 1000}},
    {"id": "total", "type": "answer", "kind": "money", "expected": 12.5, "tolerance": 0.005},
    {"id": "no_other_changes", "type": "diff_within", "allowed": {"account": {"update": ["balance"], "rows": [7]}}},
]}


@pytest.mark.parametrize(("kind", "layer"), [
    ("parse", "task"), ("ambiguous", "task"), ("unresolved", "task"), ("setup", "setup"),
    ("isolation", "reward"), ("gate:initial", "reward"), ("gate:counterfactual:extra_change", "reward"),
    ("gate:golden", "world"), ("gate:determinism", "world"), ("gate:ui", "world"), ("infeasible", "world"),
])
def test_failures_are_tagged_with_the_layer_at_fault(kind: str, layer: str) -> None:
    assert triage(kind, "evidence").layer == layer


def test_the_same_reward_does_not_weaken() -> None:
    assert weakens(REWARD, REWARD) is False


@pytest.mark.parametrize("change", ["drop_check", "drop_diff_within", "looser_tolerance", "checklist"])
def test_a_reward_that_asks_for_less_is_refused(change: str) -> None:
    new = {**REWARD, "checks": [dict(c) for c in REWARD["checks"]]}
    if change == "drop_check":
        new["checks"] = new["checks"][1:]
    elif change == "drop_diff_within":
        new["checks"] = new["checks"][:2] + [{"id": "extra", "type": "row_matches", "table": "account",
                                               "key": {"id": 7}, "expect": {"balance": 1000}}]
    elif change == "looser_tolerance":
        new["checks"][1]["tolerance"] = 1.0
    else:
        new["mode"] = "checklist"
    assert weakens(REWARD, new) is True
