"""Errands (issue 15, point 5) read back as exactly their steps; near-duplicates, difficulty and the
manifest's spread (point 6)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.runtime.step import Step
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.tasks.diversity import evenness, split_near_duplicates
from factory.tasks.draft import Draft
from factory.tasks.language.errands import ALL_PURPOSES, CONNECTORS, OPENERS, purposes_for, render_errand
from factory.tasks.language.errands import render_report as render_errand_report
from factory.tasks.language.phrasing import Ask, AskStep, Cond, Question, RefText, parse
from factory.tasks.record import difficulty_of
from factory.world.manifest import MANIFEST_VERSION, Manifest, TasksSpread, TasksSummary

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


@pytest.fixture(scope="module")
def bank() -> Spec:
    return build_spec(load_seed(SEEDS / "echobank.yaml"))


LOCK = AskStep("lock_card", {"card": RefText("Visa card ··2286"), "reason": "travel"})
MOVE = AskStep("transfer_funds", {"from_account": RefText("Main Checking ··3808"),
                                  "to_account": RefText("Emergency Fund ··5290"), "amount": 20000})


def test_an_errand_reads_back_as_its_steps_in_every_opener_and_connector(bank: Spec) -> None:
    ask = Ask("write", steps=(LOCK, MOVE))
    purposes = purposes_for(bank, ask)
    assert purposes[0] == "I'm going away soon:"  # the purpose follows what the errand does first
    for variant in range(len(OPENERS) * len(CONNECTORS)):
        text = render_errand(bank, ask, purposes[variant % len(purposes)], variant)
        back = parse(bank, text)
        assert back.kind == "write" and [s.workflow for s in back.steps] == ["lock_card", "transfer_funds"], text
        assert back.steps[0].args["card"] == RefText("Visa card ··2286"), text
        assert back.steps[1].args["amount"] == "$200", text


def test_find_act_then_act_is_a_read_write_of_two_steps(bank: Spec) -> None:
    pick = AskStep("lock_card", {"reason": "travel"},
                   ("card", Question("max", "card", "expires_on", conds=(Cond("status", '"active"'),))))
    ask = Ask("read_write", steps=(pick, MOVE))
    for variant in range(9):
        text = render_errand(bank, ask, "", variant)
        back = parse(bank, text)
        assert back.kind == "read_write" and back.steps[0].pick == pick.pick, text
        assert back.steps[1].workflow == "transfer_funds", text


def test_purposes_come_from_a_closed_pool(bank: Spec) -> None:
    with pytest.raises(ValueError):
        render_errand(bank, Ask("write", steps=(LOCK, MOVE)), "I'm buying a boat:", 0)
    assert all(not any(c.isdigit() or c == '"' for c in p) for p in ALL_PURPOSES)
    # A text with no purpose is not an errand: the single-step forms parse as before.
    assert parse(bank, 'Lock my card "Visa card ··2286", reason "travel".').steps[0].workflow == "lock_card"


def test_a_purpose_names_only_what_its_world_speaks_of(bank: Spec) -> None:
    """Archiving a note is not clearing an inbox; locking a bank card may follow a lost wallet."""
    notes = build_spec(load_seed(SEEDS / "mock.yaml"))
    archive = purposes_for(notes, Ask("write", steps=(AskStep("archive_note", {"note": RefText("Trip")}),)))
    assert archive and not any("inbox" in p for p in archive), archive
    mail = build_spec(load_seed(SEEDS / "echomail.yaml"))
    archived = [w.name for w in mail.workflows if w.name.startswith("archive")]
    assert archived and any("inbox" in p for w in archived
                            for p in purposes_for(mail, Ask("write", steps=(AskStep(w, {}),))))
    lock = purposes_for(bank, Ask("write", steps=(LOCK,)))
    assert "I can't find my wallet, so to be safe:" in lock
    redo = purposes_for(notes, Ask("write", steps=(AskStep("archive_note", {}),)), redo=True)
    assert redo and not any("dates" in p for p in redo), redo


def test_two_unrelated_actions_are_said_without_a_stock_purpose() -> None:
    """A stranger's world has no purpose that fits its acts: its errands are the actions alone
    ("Please waive …, then retire …"), never "Before the weekend:", and they read back as two."""
    rental = build_spec(load_seed(SEEDS / "suite" / "car_rental.yaml"))
    retire = AskStep("retire_vehicle", {"vehicle": RefText("Tesla Model 3 SF70 HBT")})
    reprice = AskStep("reprice_model", {"car_model": RefText("Ford Fiesta"), "new_rate": 2700})
    ask = Ask("write", steps=(retire, reprice))
    assert purposes_for(rental, ask) == ("",)
    # a row made and taken straight back says why, or it reads as a mistake in the task
    assert all(p for p in purposes_for(rental, ask, undo=True))
    for variant in range(len(OPENERS) * len(CONNECTORS)):
        text = render_errand(rental, ask, "", variant)
        assert not text.startswith(tuple(ALL_PURPOSES)) and text[0].isupper(), text
        back = parse(rental, text)
        assert [s.workflow for s in back.steps] == ["retire_vehicle", "reprice_model"], text


def test_a_purpose_about_a_kind_of_row_fits_only_actions_on_such_rows(bank: Spec) -> None:
    """Setting a note's reminder is not tidying one's settings; removing a message's star is not
    cleaning up a list; a low-balance alert and a payee are."""
    notes = build_spec(load_seed(SEEDS / "mock.yaml"))
    remind = purposes_for(notes, Ask("write", steps=(AskStep("set_reminder", {}),)))
    assert remind and "I'm tidying up my settings:" not in remind, remind
    mail = build_spec(load_seed(SEEDS / "echomail.yaml"))
    unstar = next(w.name for w in mail.workflows if w.label == "Remove star")
    assert "I'm cleaning up my lists:" not in purposes_for(mail, Ask("write", steps=(AskStep(unstar, {}),)))
    alert = purposes_for(bank, Ask("write", steps=(AskStep("set_low_balance_alert", {}),)))
    assert "I'm tidying up my settings:" in alert, alert
    assert "I'm cleaning up my lists:" in purposes_for(bank, Ask("write", steps=(AskStep("remove_payee", {}),)))
    stay = build_spec(load_seed(SEEDS / "echostay.yaml"))
    unsave = purposes_for(stay, Ask("write", steps=(AskStep("remove_from_wishlist", {}),)), redo=True)
    assert unsave and not any("dates" in p for p in unsave), unsave  # a saved listing has no dates to move
    assert any("dates" in p for p in purposes_for(stay, Ask("write", steps=(AskStep("cancel_booking", {}),)), redo=True))


def _draft(key: str, reason: str, card: int = 3) -> Draft:
    ask = Ask("write", steps=(AskStep("lock_card", {"card": RefText("c"), "reason": reason}),))
    return Draft(key, "write", "lock_card", "u", 1, ask, f"Lock {reason}", [Step("lock_card", {"card": card, "reason": reason})])


def test_near_duplicates_differ_only_in_free_text(bank: Spec) -> None:
    kept, dropped = split_near_duplicates(bank, [_draft("a", "travel"), _draft("b", "misplaced"), _draft("c", "travel", 4)])
    reason = next(p for w in bank.workflows if w.name == "lock_card" for p in w.params if p.name == "reason")
    # An enum reason is a value the task sets, not free text: only free text is left out of the key.
    assert [d.key for d in kept] == (["a", "b", "c"] if reason.values else ["a", "c"]), dropped


def test_a_question_two_users_ask_of_rows_everyone_sees_is_one_task() -> None:
    """"How many ports are there?" asked by two users, in any words, is one question; "How many
    ports do I have?" speaks of the asker, so it is two (their answers may differ)."""
    freight = build_spec(load_seed(SEEDS / "suite" / "freight.yaml"))

    def read(key: str, user: int, goal: str) -> Draft:
        q = Question("count", "port", conds=() if "there" in goal else (Cond("kind", '"seaport"'),))
        return Draft(key, "read", None, "u", user, Ask("read", question=q), goal, [])
    kept, _ = split_near_duplicates(freight, [read("a", 1, "How many ports are there?"),
                                              read("b", 2, "Count the ports there are."),
                                              read("c", 1, "How many seaports do I have?"),
                                              read("d", 2, "How many seaports do I have?")])
    assert [d.key for d in kept] == ["a", "c", "d"]


def test_a_question_of_rows_not_everyone_sees_is_each_askers_own(bank: Spec) -> None:
    """"Count the accounts with …" asks of rows only their owners see: two users asking it get two
    answers, so both are kept; a question of rows everyone sees is one."""
    private = next(e.name for e in bank.entities if e.visibility != "public" and not e.builtin)
    q = Question("count", private)
    kept, _ = split_near_duplicates(bank, [Draft(k, "read", None, "u", u, Ask("read", question=q),
                                                 "Count the things.", []) for k, u in (("a", 1), ("b", 2))])
    assert [d.key for d in kept] == ["a", "b"]


def test_difficulty_is_measured_by_steps_and_actions() -> None:
    assert difficulty_of(5, 1) == "easy"
    assert difficulty_of(9, 1) == "medium"
    assert difficulty_of(5, 2) == "medium"
    assert difficulty_of(5, 3) == "hard"
    assert difficulty_of(14, 1) == "hard"


def test_the_manifest_keeps_the_spread_strictly() -> None:
    spread = TasksSpread(workflows={"lock_card": 2}, entities={"card": 2}, difficulty={"easy": 2}, steps={"1": 2},
                         registers={"terse": 2}, evenness={"workflows": 0.0}, writes=2, multi_action=0,
                         mixed_workflows=0, multi_action_share=0.0, uncovered_workflows=[], near_duplicates_removed=1)
    manifest = Manifest(world="w", title="t", factory_version="0", seed_sha256="", spec_sha256="", seed_db_sha256="",
                        stages=[], counts={}, users=1, entities=1, workflows=1, pages=1, routes=1, storyline={},
                        tasks=TasksSummary(spread=spread))
    assert manifest.schema_version == MANIFEST_VERSION == 2
    again = Manifest.model_validate_json(manifest.model_dump_json())
    assert again.tasks.spread == spread
    with pytest.raises(ValueError):
        TasksSpread.model_validate({**spread.model_dump(), "surprise": 1})
    assert evenness(Counter({"a": 1, "b": 1})) == 1.0 and evenness(Counter({"a": 3})) == 0.0


def test_act_then_report_reads_back_as_its_step_and_question(bank: Spec) -> None:
    q = Question("lookup", "account", "balance", RefText("Emergency Fund ··5290"))
    ask = Ask("read_write", steps=(MOVE,), question=q)
    for variant in range(9):
        text = render_errand_report(bank, ask, "Before rent is due:", variant)
        assert " Afterwards, what is the " in text, text
        back = parse(bank, text)
        assert back.kind == "read_write" and back.question == q, text
        assert [s.workflow for s in back.steps] == ["transfer_funds"], text


def test_a_report_on_the_row_just_acted_on_says_its(bank: Spec) -> None:
    """"… Afterwards, what is its balance?", never the row's full name again (which may be
    said with another date format); it reads back to the same question."""
    from factory.tasks.language.frame_params import set_fields
    from factory.tasks.language.spoken import field_noun

    alert = next(w for w in bank.workflows if w.name == "set_low_balance_alert")
    param, field = next(iter(set_fields(alert).items()))
    step = AskStep(alert.name, {"account": RefText("Main Checking ··3808"), param: 2500})  # "$25" when read
    q = Question("lookup", "account", field, RefText("Main Checking ··3808"))
    ask = Ask("read_write", steps=(step,), question=q)
    said = field_noun(bank.entity("account").field_named(field))
    for variant in range(9):
        text = render_errand_report(bank, ask, "Before rent is due:", variant)
        assert text.endswith(f" Afterwards, what is its {said}?"), text
        back = parse(bank, text)
        assert back.question == q and [s.workflow for s in back.steps] == [alert.name], text
    # two accounts named: "its" could be either, so the row keeps its name
    two = render_errand_report(bank, Ask("read_write", steps=(MOVE,), question=Question(
        "lookup", "account", "balance", MOVE.args["to_account"])), "Before rent is due:", 0)
    assert "what is its" not in two, two


def test_the_same_action_on_a_second_row_is_said_once(bank: Spec) -> None:
    """Two runs of one workflow that differ only in their row: "lock my card A …, and then do the
    same for my card B"; it reads back to both steps. Runs that differ in more repeat the verb."""
    other = AskStep("lock_card", {"card": RefText("Mastercard ··9591"), "reason": "travel"})
    ask = Ask("write", steps=(LOCK, other))
    for variant in range(len(OPENERS) * len(CONNECTORS)):
        text = render_errand(bank, ask, "I'm going away soon:", variant)
        assert "do the same for" in text and text.count("ock my") == 1, text
        assert parse(bank, text).steps == ask.steps, text
    differs = AskStep("lock_card", {"card": RefText("Mastercard ··9591"), "reason": "lost"})
    text = render_errand(bank, Ask("write", steps=(LOCK, differs)), "I'm going away soon:", 0)
    assert "do the same" not in text and parse(bank, text).steps == (LOCK, differs), text


def test_an_errand_is_said_in_its_world_as_a_single_action_is() -> None:
    """An errand is written inside the seed's own words and year, as `phrasing.render` writes one
    action: "a lab report assignment" (the seed writes "lab" as a word, so no "an LAB report"),
    "due April 2 at 10:00 AM" (this year's day without its year); it reads back."""
    courses = build_spec(load_seed(SEEDS / "suite" / "courses.yaml"))
    post = AskStep("post_assignment", {"section": RefText("BIOL1020-A-W26", mine=True), "title": "Lab report 2",
                                       "kind": "lab_report", "points": 20, "due_at": "2026-04-02T10:00:00"})
    other = AskStep("post_assignment", {**post.args, "title": "Lab report 3", "due_at": "2026-04-09T10:00:00"})
    ask = Ask("write", steps=(post, other))
    text = render_errand(courses, ask, "", 0)
    assert "post a lab report assignment" in text.lower() and "LAB" not in text, text
    assert "due April 2 at 10:00 AM" in text and "2026" not in text, text
    back = parse(courses, text)
    assert [s.args["due_at"] for s in back.steps] == ["April 2, 2026 at 10:00 AM", "April 9, 2026 at 10:00 AM"], text


def test_a_row_the_step_before_named_is_referred_back_to() -> None:
    """"Take Paula Mitchell off the waitlist for the Reformer Pilates class on June 16 at 7:00 AM,
    then cancel that class", never the class named in full twice; read back to the same class."""
    from factory.tasks.language.errands import NO_PURPOSE

    gym = build_spec(load_seed(Path(__file__).resolve().parents[2] / "seeds" / "suite" / "gym.yaml"))
    ask = Ask("write", steps=(
        AskStep("leave_waitlist", {"entry": RefText("Paula Mitchell: Reformer Pilates at June 16 at 7:00 AM", mine=False)}),
        AskStep("cancel_class", {"class_session": RefText("Reformer Pilates at June 16 at 7:00 AM", mine=False)})))
    text = render_errand(gym, ask, NO_PURPOSE, 0)
    assert text.endswith("then cancel that class.") and text.count("Reformer Pilates") == 1, text
    assert parse(gym, text).steps == ask.steps


def test_two_things_to_do_are_said_apart_and_a_swap_says_instead() -> None:
    """Two acts that do not follow from each other are joined "Also," / "and also", never "then";
    a booking cancelled for another is "…, and book … instead". Both read back as their steps in
    every opener, and the connectors of one never parse as another's."""
    from factory.tasks.language.errands import APART, NO_PURPOSE, SWAPPED

    gym = build_spec(load_seed(SEEDS / "suite" / "gym.yaml"))
    cancel = AskStep("cancel_booking", {"booking": RefText("HIIT at June 22 at 6:30 AM", mine=True)})
    book = AskStep("book_class", {"class_session": RefText("HIIT at June 18 at 6:30 PM", mine=False)})
    ask = Ask("write", steps=(cancel, book))
    for variant in range(len(OPENERS) * len(CONNECTORS)):
        apart = render_errand(gym, ask, NO_PURPOSE, variant, APART)
        assert re.search(r"(\. Also, |, and also )", apart) and "then" not in apart, apart
        assert parse(gym, apart).steps == ask.steps, apart
        swapped = render_errand(gym, ask, NO_PURPOSE, variant, SWAPPED)
        assert re.search(r"\w, and book .* instead[.?]$", swapped) and "then" not in swapped, swapped
        assert parse(gym, swapped).steps == ask.steps, swapped


def test_a_second_act_on_the_row_just_acted_on_says_it() -> None:
    """"Take ticket INC-34, then put it on hold with …": the row the step before acted on is "it"
    (never named twice), and reads back to that row; after an act that makes a row of that kind,
    "it" would be the new one, so the row keeps its name."""
    from factory.tasks.language.errands import NO_PURPOSE

    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    ticket = RefText("INC-34", mine=False)
    take = AskStep("take_ticket", {"ticket": ticket})
    hold = AskStep("put_on_hold", {"ticket": ticket, "question": "Does this happen on other devices too?"})
    ask = Ask("write", steps=(take, hold))
    for variant in range(len(OPENERS) * len(CONNECTORS)):
        text = render_errand(desk, ask, NO_PURPOSE, variant)
        assert text.count("INC-34") == 1 and re.search(r"put it on hold", text), text
        assert parse(desk, text).steps == ask.steps, text


def test_two_runs_of_one_workflow_say_the_verb_once() -> None:
    """"Rate my ticket INC-128 3 out of 5, and my ticket INC-23 2 out of 5": the second run of
    the same workflow drops the verb both open on, and reads back as two runs; runs of two
    workflows, or one the reader would take as the other's row, keep their verbs."""
    from factory.tasks.language.errands import NO_PURPOSE

    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    first = AskStep("rate", {"ticket": RefText("INC-128", mine=True), "rating": 3})
    second = AskStep("rate", {"ticket": RefText("INC-23", mine=True), "rating": 2})
    for variant in range(len(OPENERS) * len(CONNECTORS)):
        text = render_errand(desk, Ask("write", steps=(first, second)), NO_PURPOSE, variant)
        assert text.lower().count("rate") == 1 and ", and my ticket INC-23 2 out of 5" in text, text
        back = parse(desk, text).steps
        assert [(s.workflow, s.args["ticket"], s.args["rating"]) for s in back] == [
            ("rate", first.args["ticket"], "3"), ("rate", second.args["ticket"], "2")], text
    reply = AskStep("reply", {"ticket": RefText("INC-23", mine=True), "body": "Restarted, still the same"})
    mixed = render_errand(desk, Ask("write", steps=(first, reply)), NO_PURPOSE, 0)
    assert "reply to" in mixed and "Rate" in mixed, mixed
