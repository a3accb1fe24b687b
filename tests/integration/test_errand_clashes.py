"""An errand's acts keep each other's results (`propose/clashes.py`): none takes back, rewrites or
repeats what another did, a row named by its words is still that row when its act comes, and a
booking moved to another session of the same class is one errand said "instead". On the suite's
gym world, built without a frontend; every case is taken from its own rows."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from factory.runtime.step import Step
from factory.tasks.language.asks import AskStep, RefText
from factory.tasks.language.phrasing import parse
from factory.tasks.propose.proposer import Proposer
from factory.tasks.reward.gen import deterministic_policy
from factory.world.assemble import build_world
from factory.world.layout import World

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gym(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(build_world(ROOT / "seeds" / "suite" / "gym.yaml", tmp_path_factory.mktemp("gym"), frontend=False).path)


@pytest.fixture(scope="module")
def proposer(gym: World) -> Iterator[Proposer]:
    p = Proposer(gym.spec, gym.seed_db)
    yield p
    p.close()


def _member(proposer: Proposer, username: str) -> Any:
    return next(u for u in proposer.users if u.username == username)


def _booked(proposer: Proposer) -> tuple[Any, Step, Step]:
    """A member, a class they can book, and a freeze of their membership past it."""
    today = dt.date.fromisoformat(proposer.spec.today)
    for m in proposer.world.rows("membership"):
        if m["status"] != "active":
            continue
        user = next((u for u in proposer.users if u.id == m["member_id"]), None)
        for c in proposer.world.rows("class_session"):
            book = Step("book_class", {"class_session": c["id"], "membership": m["id"]})
            freeze = Step("freeze", {"membership": m["id"], "until": (today + dt.timedelta(days=30)).isoformat()})
            if user is not None and proposer._passes(user, [book, freeze]):
                return user, book, freeze
    raise AssertionError("no member of the gym world can book a class and then freeze")


def test_an_act_the_next_one_undoes_or_repeats_is_no_errand(proposer: Proposer) -> None:
    """Booking a class, then freezing the membership (which cancels the booking) overrides the
    first act; cancelling a booking in time, then freezing (which would cancel it anyway) repeats
    it. An act alone overrides nothing."""
    user, book, freeze = _booked(proposer)
    assert proposer._overrides(user, [book, freeze])
    assert not proposer._overrides(user, [book])
    # a booking cancelled in time (no late fee) is what the freeze would cancel anyway
    today = dt.date.fromisoformat(proposer.spec.today)
    repeated = []
    for b in (b for b in proposer.world.rows("booking") if b["status"] == "booked"):
        member = next((u for u in proposer.users if u.id == b["member_id"]), None)
        membership = next((m for m in proposer.world.rows("membership")
                           if m["member_id"] == b["member_id"] and m["status"] == "active"), None)
        if member is None or membership is None or str(b["starts_at"])[:10] <= (today + dt.timedelta(days=1)).isoformat():
            continue
        cancel = Step("cancel_booking", {"booking": b["id"]})
        frozen = Step("freeze", {"membership": membership["id"], "until": (today + dt.timedelta(days=30)).isoformat()})
        if proposer._passes(member, [cancel, frozen]):
            repeated.append((member, cancel, frozen))
    assert repeated, "no booked member of the gym world can cancel in time and then freeze"
    assert all(proposer._overrides(member, [cancel, frozen]) for member, cancel, frozen in repeated)


def test_a_row_taken_back_is_not_named_again(proposer: Proposer) -> None:
    """Leaving a class's waitlist deletes the place in the queue: the workflow takes a row back
    whatever its label says, so booking that class after it undoes the errand's first act."""
    leave = next(w for w in proposer.spec.workflows if w.name == "leave_waitlist")
    assert proposer._taken_back(leave) is not None
    entry = proposer.world.rows("waitlist_entry")[0]
    membership = next(m for m in proposer.world.rows("membership") if m["member_id"] == entry["member_id"])
    steps = [Step("leave_waitlist", {"entry": entry["id"]}),
             Step("book_class", {"class_session": entry["class_session_id"], "membership": membership["id"]})]
    assert proposer._redoes(steps)
    assert not proposer._redoes(steps[:1])


def test_a_name_is_read_on_the_database_the_acts_before_it_leave(proposer: Proposer) -> None:
    """A place in the queue the first act deletes cannot be named by the second: the name reads
    as no row once the first act ran, however well it read on the seed."""
    entries = proposer.world.rows("waitlist_entry")
    first, other = entries[0], next(e for e in entries[1:] if e["id"] != entries[0]["id"])
    desk = next(u for u in proposer.users if u.role == "front_desk")
    label = proposer._label("waitlist_entry", first)
    steps = [Step("leave_waitlist", {"entry": first["id"]}), Step("move_up", {"entry": first["id"]})]
    asks = [AskStep("leave_waitlist", {"entry": RefText(label)}), AskStep("move_up", {"entry": RefText(label)})]
    assert not proposer._names_hold(desk, steps, asks)
    named = proposer._label("waitlist_entry", other)
    steps[1] = Step("move_up", {"entry": other["id"]})
    asks[1] = AskStep("move_up", {"entry": RefText(named)})
    assert proposer._names_hold(desk, steps, asks)


def test_a_booking_moved_to_another_session_of_its_class_is_said_instead(gym: World, proposer: Proposer) -> None:
    """"Cancel my booking for the Spin class on …, and book the Spin class on … instead": the new
    session is the same class at the same club on another day; the text reads back as both acts
    and reward-gen gets checks for them from the text alone."""
    drafts = []
    for _ in range(400):  # without the app's option lists, most drawn classes cannot be booked
        draft = proposer._swap()
        drafts += [draft] if draft is not None else []
        if len(drafts) == 3:
            break
    assert drafts and {d.category for d in drafts} == {"swap"}, proposer.skipped[-5:]
    for d in drafts:
        assert re.search(r", and \w+ .+ instead[.?]$", d.goal) and " then " not in d.goal, d.goal
        back = parse(gym.spec, d.goal)
        assert [s.workflow for s in back.steps] == [s.workflow for s in d.steps], d.goal
        old = proposer.world.row("booking", d.steps[0].params["booking"])
        new_class = next(v for k, v in d.steps[1].params.items() if k == "class_session")
        was, now = proposer.world.row("class_session", old["class_session_id"]), proposer.world.row("class_session", new_class)
        assert was["class_type"] == now["class_type"] and was["club"] == now["club"], d.goal
        assert was["starts_at"] != now["starts_at"], d.goal
        reward = deterministic_policy({"goal": d.goal, "user": d.user}, gym.spec, gym.seed_db)
        assert any(c["type"] in ("row_matches", "rows_added") for c in reward["checks"]), d.goal
