"""The witness search's candidate values reach every kind of rule: periods that have ended as well as
future ones, and money across a parameter's whole range (not only small amounts near its minimum).

Found on an approval-chain seed (tests/fixtures/approvals.yaml): an expense report for a period that
must have ended and a budget limit that must not fall below what is already spent got no witness, so
neither claims nor tasks."""

from __future__ import annotations

import datetime as dt

from factory.claims.witness import range_candidates, scalar_candidates
from factory.spec.model import ParamSpec

TODAY = dt.date(2026, 6, 15)


def _money(lo: float | None, hi: float | None) -> ParamSpec:
    return ParamSpec(name="limit", var="limit", label="Limit", type="money", py_type="int", required=True, min=lo,
                     max=hi, widget="money")


def test_range_candidates_hold_future_past_and_ending_today_periods() -> None:
    pairs = [(dt.date.fromisoformat(a), dt.date.fromisoformat(b)) for a, b in range_candidates(TODAY)]
    assert all(start <= end for start, end in pairs)
    assert any(start > TODAY for start, _ in pairs)  # a stay to book
    assert any(end == TODAY for _, end in pairs)  # a period that ends today
    assert any(end < TODAY - dt.timedelta(days=20) for _, end in pairs)  # last month's report
    assert len(set(pairs)) == len(pairs)
    assert range_candidates(TODAY)[:40] == [p for p in range_candidates(TODAY) if dt.date.fromisoformat(p[0]) > TODAY][:40]


def test_money_candidates_span_the_whole_range_up_to_the_bound() -> None:
    values = scalar_candidates(_money(0, 100000), TODAY)
    assert max(values) == 10_000_000 and min(values) == 0  # in cents: the bound itself is tried
    assert any(1_000_000 <= v < 10_000_000 for v in values)  # and a large amount between
    assert all(0 <= v <= 10_000_000 for v in values)
    assert values[0] == 2500  # the likeliest first, as before
    small = scalar_candidates(_money(0.01, 50), TODAY)
    assert max(small) == 5000 and all(1 <= v <= 5000 for v in small)


def test_a_range_of_datetimes_gets_a_time_of_day() -> None:
    """A stranger's car-rental seed picked its pick-up and return as a datetime range: the witness
    was two bare dates, which the API took but a datetime input in the form refused, so the browser
    claim could not submit the form and no repair could help (a factory defect)."""
    pairs = range_candidates(TODAY, "datetime")
    assert pairs and all(len(a) == 19 and a[10] == "T" and len(b) == 19 for a, b in pairs)
    assert [(a[:10], b[:10]) for a, b in pairs] == range_candidates(TODAY)
    assert all(dt.datetime.fromisoformat(a) < dt.datetime.fromisoformat(b) for a, b in pairs)
