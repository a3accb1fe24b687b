"""An amount paid for a kind the row paid for prices is that price (`propose/kind_prices.py`):
on the suite's gym world, a monthly fee payment for a membership is its monthly fee and a joining
fee its plan's joining fee, never an amount drawn at random; a kind the rows do not price keeps
the amount drawn."""

from __future__ import annotations

from pathlib import Path

import pytest

from factory.predict.rows import UserView
from factory.tasks.propose.kind_prices import kind_prices
from factory.world.assemble import build_world
from factory.world.layout import World

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gym(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(build_world(ROOT / "seeds" / "suite" / "gym.yaml", tmp_path_factory.mktemp("gym"), frontend=False).path)


def test_a_payment_for_a_priced_kind_is_that_price(gym: World) -> None:
    take = next(w for w in gym.spec.workflows if w.name == "take_payment")
    view = UserView.open(gym.spec, gym.seed_db)
    try:
        memberships = view.rows("membership")
        plans = {p["id"]: p for p in view.rows("plan")}
        checked = 0
        for m in memberships[:10]:
            monthly = kind_prices(gym.spec, view, take, {"membership": m["id"], "kind": "monthly fee", "amount": 200})
            assert monthly == {"amount": m["monthly_fee"]}, m
            # unsaid, the kind is the form's default (a monthly fee)
            assert kind_prices(gym.spec, view, take, {"membership": m["id"], "amount": 200}) == monthly
            joining = plans[m["plan_id"]]["joining_fee"]
            got = kind_prices(gym.spec, view, take, {"membership": m["id"], "kind": "joining fee", "amount": 200})
            assert got == ({"amount": joining} if joining else {}), (m, joining)  # no fee of 0 is taken
            # a day pass is priced by no field: the amount drawn stands
            assert kind_prices(gym.spec, view, take, {"membership": m["id"], "kind": "day pass", "amount": 200}) == {}
            checked += 1
        assert checked == 10
    finally:
        view.close()
