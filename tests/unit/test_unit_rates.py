"""Amounts a seed multiplies by a count are the price of one: no total of them is asked."""

from __future__ import annotations

from pathlib import Path

from factory.builder.build import build_spec
from factory.expr.syntax import parse
from factory.seed.loader import load_seed
from factory.tasks.propose.unit_rates import _scaled, unit_rates

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def test_a_field_multiplied_by_a_count_is_a_rate() -> None:
    assert _scaled(parse("tier.price * quantity")) == {"price"}
    assert _scaled(parse("reservation.venue.deposit_per_head * reservation.party_size")) == {
        "deposit_per_head", "party_size"}
    # a share, arithmetic on ids, a draw: none of them makes a rate
    assert _scaled(parse("min(account.balance, max(account.balance / 20, 25))")) == set()
    assert _scaled(parse("rand_int(1, 3) + (o.venue.id - 1) * 12")) == set()


def test_the_seeds_rates_come_from_their_arithmetic() -> None:
    assert unit_rates(build_spec(load_seed(SEEDS / "suite" / "ticketing.yaml"))) == {"price"}
    assert unit_rates(build_spec(load_seed(SEEDS / "echobank.yaml"))) == frozenset()
