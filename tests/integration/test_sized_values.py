"""Amounts and counts a run stores are the size of those the world keeps (issue 30, the suite's
readings): a declared value in the run's own currency near the declared values of shipments in
that currency (never ₹-sized dollars), a repair estimate near other estimates (never £5), payment
terms of a usual length (never 9 days). Worlds are built without a frontend (seconds each)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from factory.tasks.propose.proposer import Proposer
from factory.tasks.propose.values import NEAR_FACTORS
from factory.world.assemble import build_world
from factory.world.layout import World

SUITE = Path(__file__).resolve().parents[2] / "seeds" / "suite"
FILLS = 40


@pytest.fixture(scope="module")
def proposers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Proposer]]:
    root = tmp_path_factory.mktemp("sized")
    out = {}
    for name in ("freight", "car_rental", "gym"):
        world = World(build_world(SUITE / f"{name}.yaml", root, frontend=False).path)
        out[name] = Proposer(world.spec, world.seed_db)
    yield out
    for p in out.values():
        p.close()


def _fills(proposer: Proposer, workflow_name: str) -> list[dict[str, object]]:
    workflow = next(w for w in proposer.spec.workflows if w.name == workflow_name)
    out = [step.params for i in range(FILLS)
           if (step := proposer._fill(workflow, proposer.users[i % len(proposer.users)])) is not None]
    assert len(out) >= FILLS // 2, f"{workflow_name}: only {len(out)} fills of {FILLS}"
    return out


def test_a_declared_value_is_sized_in_its_own_currency(proposers: dict[str, Proposer]) -> None:
    proposer = proposers["freight"]
    kept: dict[str, list[int]] = {}
    for row in proposer.world.rows("shipment"):
        if isinstance(row.get("declared_value"), int) and row["declared_value"] > 0:
            kept.setdefault(str(row["currency"]), []).append(row["declared_value"])
    seen = set()
    for values in _fills(proposer, "book_shipment"):
        currency = str(values.get("currency", "USD"))
        amount = int(values["declared_value"])  # type: ignore[call-overload]
        low, high = min(kept[currency]) * min(NEAR_FACTORS), max(kept[currency]) * max(NEAR_FACTORS)
        # rounded to two figures, so a little outside the factors' bounds
        assert low * 0.9 <= amount <= high * 1.1, f"{amount} {currency} beside {min(kept[currency])}…{max(kept[currency])}"
        seen.add(currency)
    assert len(seen) >= 2  # the run's own currency is kept, not copied from another shipment


def test_an_estimate_and_terms_are_the_usual_size(proposers: dict[str, Proposer]) -> None:
    cars = proposers["car_rental"]
    estimates = [int(r["repair_estimate"]) for r in cars.world.rows("damage_report") if r.get("repair_estimate")]
    for values in _fills(cars, "assess_damage"):
        assert min(estimates) * 0.45 <= int(values["estimate"]) <= max(estimates) * 2.2, values  # type: ignore[call-overload]
    terms = {int(v["terms_days"]) for v in _fills(proposers["freight"], "bill_shipment")  # type: ignore[call-overload]
             if "terms_days" in v}
    assert terms and terms <= {15, 30, 60}, terms


def test_a_nested_parent_the_child_implies_goes_unsaid(proposers: dict[str, Proposer]) -> None:
    """"Count the ports in Germany", never "in the region "europe" with the country "Germany"":
    the region adds nothing once the country is said (the same rows), so it is left out."""
    freight = proposers["freight"]
    port = freight.spec.entity("port")
    both_said = 0
    for _ in range(60):
        user = freight.rng.choice(freight.users)
        row = freight.rng.choice(freight._visible("port", user.id))
        conds, caps = freight._conds(port, row, user, want_range=False)
        if "nested_filters" in caps:
            assert [c.field for c in conds] == ["country"], conds
            both_said += 1
    assert both_said > 0


def test_errands_that_undo_each_other_are_refused(proposers: dict[str, Proposer]) -> None:
    """Two errands never act twice on one row, nor name again a row the first took back (cancel
    my rental, then reserve its car again): that is a redo, said as one or not at all."""
    from factory.runtime.step import Step

    cars = proposers["car_rental"]
    car = cars.spec.entity("rental").field_named("vehicle").column
    rental = next(r for r in cars.world.rows("rental") if r["status"] == "reserved")
    other = next(r for r in cars.world.rows("rental") if r["status"] == "reserved" and r[car] != rental[car])
    cancel = Step("cancel_rental", {"rental": rental["id"]})
    assert cars._redoes([cancel, Step("extend_rental", {"rental": rental["id"], "ends_at": "2026-06-30T10:00:00"})])
    assert cars._redoes([cancel, Step("reserve_car", {"vehicle": rental[car], "starts_at": "2026-06-01T09:00:00",
                                                      "ends_at": "2026-06-03T09:00:00"})])
    assert not cars._redoes([cancel, Step("extend_rental", {"rental": other["id"], "ends_at": "2026-06-30T10:00:00"})])


def test_a_cancel_that_charges_a_fee_still_takes_its_row_back(proposers: dict[str, Proposer]) -> None:
    """A gym's "Cancel booking" also makes a late-cancellation payment: a row of another kind made
    beside it, so it still takes the booking back, and booking its class again is a redo, never an
    errand ("Plans changed, so: cancel my booking for the Spin class …, then book the Spin class …")."""
    from factory.runtime.step import Step

    gym = proposers["gym"]
    column = gym.spec.entity("booking").field_named("class_session").column
    booking = next(r for r in gym.world.rows("booking") if r["status"] == "booked")
    assert gym._taken_back(gym._workflow("cancel_booking")) is not None
    cancel = Step("cancel_booking", {"booking": booking["id"]})
    assert gym._redoes([cancel, Step("book_class", {"class_session": booking[column]})])
    other = next(r for r in gym.world.rows("class_session") if r["id"] != booking[column])
    assert not gym._redoes([cancel, Step("book_class", {"class_session": other["id"]})])
