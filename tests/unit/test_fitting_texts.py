"""A text a run writes on the row it acts on fits that row (issue 30, point 3, a blind reading of
the help desk): a ticket about bouncing emails is not resolved with "Reseated the monitor cable";
where the world's own fixes were written at random, the one that says what the ticket is about
comes first; and a text the app writes itself ("Reopened: " + a reason) is no one's to type."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

from faker import Faker

from factory.builder.build import build_spec
from factory.predict.rows import UserView
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.tasks.propose.proposer import Proposer
from factory.tasks.propose.stored import times_like_stored

SUITE = Path(__file__).resolve().parents[2] / "seeds" / "suite"
FIXES = ["Reseated the monitor cable and updated the dock firmware", "Cleared the mail queue and the bounced emails went out",
         "Added the user to the correct security group"]


def _view(spec: Spec, rows: dict[str, list[dict[str, Any]]]) -> UserView:
    """A world of `rows` (by field name) in memory, as the proposer reads it."""
    columns = {e: [{(spec.entity(e).field_named(k).column if k != "id" else "id"): v for k, v in r.items()} for r in rs]
               for e, rs in rows.items()}
    return UserView(spec, sqlite3.connect(":memory:"), _rows=columns,
                    _by_id={e: {r["id"]: r for r in rs} for e, rs in columns.items()})


def _desk(rows: dict[str, list[dict[str, Any]]]) -> Proposer:
    spec = build_spec(load_seed(SUITE / "helpdesk.yaml"))
    view = _view(spec, rows)
    proposer = object.__new__(Proposer)
    proposer.spec, proposer.world, proposer.rng = spec, view, random.Random(3)
    proposer._existing_cache, proposer._written_rows = {}, {}
    proposer._acting = None  # no run being filled: texts in every voice
    return proposer


def _world() -> dict[str, list[dict[str, Any]]]:
    issues = [{"id": 1, "name": "Emails bouncing back", "category": "email"},
              {"id": 2, "name": "Monitor or dock not working", "category": "hardware"}]
    # the world's fixes were written at random: the dock fix sits on an email ticket too
    tickets = [{"id": 10 + i, "number": f"INC-{10 + i}", "summary": "x", "issue_type": 1 + i % 2, "category": "email",
                "status": "resolved", "resolution": fix} for i, fix in enumerate(FIXES)]
    tickets.append({"id": 20, "number": "INC-20", "summary": "Emails bouncing back", "issue_type": 1, "category": "email",
                    "status": "in progress"})
    return {"issue_type": issues, "ticket": tickets}


def test_a_fix_that_says_what_the_ticket_is_about_is_chosen() -> None:
    proposer = _desk(_world())
    resolve = next(w for w in proposer.spec.workflows if w.name == "resolve")
    for seed in range(5):
        proposer.rng = random.Random(seed)
        values: dict[str, Any] = {"ticket": 20, "resolution": FIXES[0]}
        proposer._fit_subject(resolve, values)
        assert values["resolution"] == FIXES[1], values


def test_a_text_the_app_writes_itself_is_never_drawn() -> None:
    world = _world()
    world["comment"] = [{"id": 1, "ticket": 10, "body": "Reopened: It worked for a day and now it is back"},
                        {"id": 2, "ticket": 11, "body": "Could you send a screenshot of the error?"}]
    proposer = _desk(world)
    reply = next(w for w in proposer.spec.workflows if w.name == "reply")
    message = next(p for p in reply.params if p.type in ("string", "text"))
    texts = [t for t, _e, _r in proposer._apt_on("reply", message)]
    assert texts and not [t for t in texts if t.startswith("Reopened:")], texts


def test_a_reply_is_drawn_in_the_voice_of_the_role_that_writes_it() -> None:
    """A reply signed by the one who writes it (`author: me`) takes the words of replies written
    by that role: a requester never says a technician's "Can you restart and let me know?";
    with no run being filled, or no reply of that role, every voice stays."""
    world = _world()
    spec = build_spec(load_seed(SUITE / "helpdesk.yaml"))
    tech = next(u for u in spec.users if u.role == "technician")
    staff = next(u for u in spec.users if u.role == "staff")
    world["comment"] = [{"id": 1, "ticket": 10, "author": tech.id, "body": "Can you restart and let me know?"},
                        {"id": 2, "ticket": 11, "author": staff.id, "body": "Restarted, still the same"}]
    proposer = _desk(world)
    reply = next(w for w in proposer.spec.workflows if w.name == "reply")
    message = next(p for p in reply.params if p.type in ("string", "text"))
    everyone = {t for t, _e, _r in proposer._apt_on("reply", message)}
    assert everyone == {"Can you restart and let me know?", "Restarted, still the same"}, everyone
    for user, said in ((staff, "Restarted, still the same"), (tech, "Can you restart and let me know?")):
        proposer._acting = user
        assert {t for t, _e, _r in proposer._apt_on("reply", message)} == {said}, user.role
    proposer._acting = next(u for u in spec.users if u.role == "lead")  # no lead wrote a reply: every voice
    assert {t for t, _e, _r in proposer._apt_on("reply", message)} == everyone


def test_two_moments_set_together_keep_the_gap_the_world_keeps() -> None:
    """Doors an hour before the show, as on every event the world holds; never eighteen days
    before it (a blind reading marked "doors 18 days before the show" as a contradiction)."""
    spec = build_spec(load_seed(SUITE / "ticketing.yaml"))
    events = [{"id": i, "name": f"Show {i}", "doors_at": f"2026-0{i}-10T18:00:00", "starts_at": f"2026-0{i}-10T19:00:00"}
              for i in range(1, 5)]
    view = _view(spec, {"event": events})
    proposer = object.__new__(Proposer)
    proposer.spec, proposer.world, proposer.rng = spec, view, random.Random(3)
    postpone = next(w for w in spec.workflows if w.name == "postpone_event")
    values: dict[str, Any] = {"event": 1, "new_doors": "2026-06-06T10:00:00", "new_start": "2026-06-24T09:00:00"}
    proposer._gaps_like_stored(postpone, values)
    assert values == {"event": 1, "new_doors": "2026-06-24T08:00:00", "new_start": "2026-06-24T09:00:00"}
    proposer.world = _view(spec, {"event": []})
    values = {"event": 1, "new_doors": "2026-06-06T10:00:00", "new_start": "2026-06-24T09:00:00"}
    proposer._gaps_like_stored(postpone, values)  # a world that keeps no such rows says nothing
    assert values["new_doors"] == "2026-06-06T10:00:00"


def test_a_moment_takes_a_time_of_day_the_world_keeps() -> None:
    """A show postponed keeps its own hour (7:30 PM, never the 9:00 AM a draw without the world
    gives), its day kept; a field no row says the time of stays as drawn."""
    spec = build_spec(load_seed(SUITE / "ticketing.yaml"))
    events = [{"id": i, "name": f"Show {i}", "doors_at": f"2026-0{i}-10T18:30:00", "starts_at": f"2026-0{i}-10T19:{i}0:00"}
              for i in range(1, 5)]
    view = _view(spec, {"event": events})
    postpone = next(w for w in spec.workflows if w.name == "postpone_event")
    drawn = {"event": 3, "new_doors": "2026-06-24T10:00:00", "new_start": "2026-06-24T09:00:00"}
    moved = times_like_stored(spec, view, postpone, drawn, random.Random(1))
    assert moved == {"new_doors": "2026-06-24T18:30:00", "new_start": "2026-06-24T19:30:00"}, moved
    empty = _view(spec, {"event": []})
    assert times_like_stored(spec, empty, postpone, {**drawn, "event": 9}, random.Random(1)) == {}


def test_a_new_tickets_summary_says_its_own_issue_and_its_other_texts_stay() -> None:
    """A ticket filed under "Emails bouncing back" is not summarised "Monitor or dock not working"
    (read in a blind reading); only what the row is called is drawn again, so details copied
    together with a priority from one row keep agreeing with it."""
    world = _world()
    for t in world["ticket"]:
        t["summary"] = next(i["name"] for i in world["issue_type"] if i["id"] == t["issue_type"])
    proposer = _desk(world)
    proposer.fake = Faker("en_US")
    raise_ticket = next(w for w in proposer.spec.workflows if w.name == "raise_ticket")
    values: dict[str, Any] = {"issue_type": 1, "summary": "Monitor or dock not working",
                              "description": "Happens every day around lunchtime.", "priority": "low"}
    proposer._fit_subject(raise_ticket, values, names_only=True)
    assert values == {"issue_type": 1, "summary": "Emails bouncing back",
                      "description": "Happens every day around lunchtime.", "priority": "low"}


def test_a_text_box_takes_the_worlds_sentences_not_only_its_one_short_line() -> None:
    """A field without a `max_length` that is a text box (a new ticket's details) takes the
    world's own texts of a few sentences: every draft once got the one text of 60 characters or
    fewer ("Same thing happened to a colleague last week, if that helps")."""
    world = _world()
    details = ["Same thing happened to a colleague last week, if that helps.",
               "It started this morning after the update. I've restarted twice and it's the same.",
               "Happens every day around lunchtime. Colleagues next to me are fine.",
               "This worked last week. Nothing changed on my side as far as I know."]
    for i, t in enumerate(world["ticket"]):
        t["description"] = details[i % len(details)]
    proposer = _desk(world)
    proposer.fake = Faker("en_US")
    raise_ticket = next(w for w in proposer.spec.workflows if w.name == "raise_ticket")
    box = next(p for p in raise_ticket.params if p.name == "description")
    assert box.type == "text" and box.max_length is None
    drawn = {proposer._text(box, "raise_ticket") for _ in range(40)}
    assert len(drawn) >= 3 and any(len(d) > 60 for d in drawn), drawn
    summary = next(p for p in raise_ticket.params if p.name == "summary")
    assert all(len(proposer._text(summary, "raise_ticket")) <= (summary.max_length or 60) for _ in range(20))


def test_a_text_of_several_sentences_ends_on_the_instructions_own_stop() -> None:
    """ 'with the message "Screenshot attached. It says access denied".', never '…denied."."'; an
    ellipsis keeps its dots."""
    from factory.tasks.propose.text_shapes import typed_in
    assert typed_in("Screenshot attached. It says access denied.") == "Screenshot attached. It says access denied"
    assert typed_in("Lost in the post.") == "Lost in the post"
    assert typed_in("Still waiting...") == "Still waiting..."


def test_the_users_words_after_the_apps_own_are_drawn_for_the_text_they_fill() -> None:
    """A reopen writes "Reopened: " + the reason on a reply: the world's reasons are what follows
    the app's words ("It worked for a day and now it is back"), drawn for a new reopen, never a
    pool's reason from another domain; told as 'The reason is "…".' after a seed phrasing."""
    from factory.tasks.language.intent_extras import extras_sentence, read_extras
    world = _world()
    world["comment"] = [{"id": 1, "ticket": 10, "body": "Reopened: It worked for a day and now it is back."},
                        {"id": 2, "ticket": 11, "body": "Reopened: Same error again this morning"},
                        {"id": 3, "ticket": 12, "body": "Reopened: Only half fixed, the second screen still flickers"},
                        {"id": 4, "ticket": 12, "body": "Could you send a screenshot of the error?"}]
    proposer = _desk(world)
    proposer.fake = Faker("en_US")
    reopen = next(w for w in proposer.spec.workflows if w.name == "reopen")
    reason = next(p for p in reopen.params if p.name == "reason")
    drawn = {proposer._text(reason, "reopen") for _ in range(30)}
    assert drawn <= {"It worked for a day and now it is back", "Same error again this morning",
                     "Only half fixed, the second screen still flickers"} and len(drawn) >= 2, drawn
    told = extras_sentence(reopen, {"reason": "Same error again this morning"}, proposer.spec)
    assert told == 'The reason is "Same error again this morning".'
    assert read_extras(proposer.spec, reopen, told[:-1]) == {"reason": "Same error again this morning"}
