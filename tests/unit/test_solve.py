"""Rules that hold only together are met one parameter at a time (`factory.predict.solve`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factory.builder.build import build_spec
from factory.predict.solve import descend, ladder, rule_weights
from factory.seed.loader import load_seed
from factory.spec.model import ParamSpec

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
RENT = {1: 150000, 18: 165000}  # a flat's asking rent, in pence
VIEWED = {18}  # flats the user has viewed
AVAILABLE = {1: "2026-06-01", 18: "2026-07-01"}


def _failing(params: dict[str, Any]) -> list[str]:
    """The rules of leases' `apply`, written out."""
    out = []
    if params["unit"] not in VIEWED:
        out.append("viewed")
    if params["move_in"] < AVAILABLE[params["unit"]]:
        out.append("available")
    if params["offered_rent"] * 10 < RENT[params["unit"]] * 9:
        out.append("offer")
    if params["annual_income"] < params["offered_rent"] * 30:
        out.append("income")
    return out


def _param(seed: str, workflow: str, name: str) -> ParamSpec:
    spec = build_spec(load_seed(SEEDS / "suite" / f"{seed}.yaml"))
    return next(p for w in spec.workflows if w.name == workflow for p in w.params if p.name == name)


def test_a_ladder_is_round_and_spans_the_range() -> None:
    money = ladder(_param("leases", "apply", "offered_rent"))  # min £400
    assert money[0] == 40000 and money == sorted(money) and 7500000 in money and 10**8 in money
    ints = ladder(_param("courses", "post_assignment", "points"))  # 1 … 200
    assert ints[0] == 1 and ints[-1] == 200 and {1, 2, 5, 10, 20, 50, 100, 150} <= set(ints)


def test_rules_met_only_together_are_met_in_turn() -> None:
    """A viewed flat whose move-in date is too early is progress (the date can still move), so the
    search leaves the unviewed flat; the offer then meets the rent, and the income the offer."""
    weights = {"viewed": 1.0, "available": 0.5, "offer": 0.5, "income": 0.5}
    domains = {"unit": [1, 18], "offered_rent": ladder(_param("leases", "apply", "offered_rent")),
               "move_in": ["2026-06-20", "2026-07-10"], "annual_income": ladder(_param("leases", "apply", "annual_income"))}
    start = {"unit": 1, "offered_rent": 40000, "move_in": "2026-06-20", "annual_income": 100}
    found = descend(start, domains, lambda p: sum(weights[m] for m in _failing(p)))
    assert found is not None and _failing(found) == [], found
    assert found["unit"] == 18 and found["offered_rent"] == 150000  # the smallest round offer that passes
    counted = descend(start, domains, lambda p: float(len(_failing(p))))  # unweighted: stuck on a plateau
    assert counted is None or _failing(counted) == []


def test_a_rule_no_choice_meets_gives_up() -> None:
    assert descend({"x": 1}, {"x": [2, 3]}, lambda p: 1.0) is None
    assert descend({"x": 1}, {"x": [2, 3]}, lambda p: None) is None


def test_a_rule_weighs_more_the_fewer_searched_parameters_can_mend_it() -> None:
    leases = build_spec(load_seed(SEEDS / "suite" / "leases.yaml"))
    apply = next(w for w in leases.workflows if w.name == "apply")
    weights = rule_weights(apply, {"unit", "offered_rent", "move_in", "annual_income"})
    viewed = next(c.message for c in apply.preconditions if "viewing" in c.source)
    income = next(c.message for c in apply.preconditions if "annual_income" in c.source)
    assert weights[viewed] == 1.0 and weights[income] == 0.5
