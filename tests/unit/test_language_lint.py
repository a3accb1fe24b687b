"""The rules of the language test set: each defect class is caught, and a goal a person would
write passes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.tasks.language.lint import Change, lint_goal
from factory.tasks.language.spoken import field_noun, money_words, spoken_label, verb_phrase

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


@pytest.fixture(scope="module")
def bank() -> Spec:
    return build_spec(load_seed(SEEDS / "echobank.yaml"))


@pytest.mark.parametrize(("goal", "rule"), [
    ('Cancel scheduled payment: "Jordan Lee on June 18, 2026".', "label_as_verb"),
    ('Find my payee that has the lowest typical bill, and use "Pay a payee" on it.', "label_as_verb"),
    ('Look up the opened on of my account "Main Checking ··3808".', "raw_field_label"),
    ("Which of my cards has the highest last four digits?", "raw_field_label"),
    ('Cancel my scheduled payment "Jordan Lee on 2026-06-18".', "iso_date"),
    ('Transfer $10 from "A" to "B" with memo "Decentralized foreground middleware".', "filler"),
    ('Waive it with reason "Win speak ground board carry situation spend".', "filler"),
    ("What is the total total price of my confirmed bookings?", "repeated_word"),
    ('Could you delete the forever from my message "Invoice #4051"?', "label_as_verb"),
    ('Update my contact details: set the phone to "(415) 555-0182".', "raw_field_label"),
])
def test_each_defect_class_is_caught(bank: Spec, goal: str, rule: str) -> None:
    assert rule in {h.rule for h in lint_goal(bank, goal)}


def test_comparative_and_possessive_follow_the_values_and_the_user(bank: Spec) -> None:
    goal = "Lower the daily late fine to $1."
    assert [h.rule for h in lint_goal(bank, goal, (Change(25, 100),))] == ["comparative"]
    assert lint_goal(bank, goal, (Change(100, 25),)) == []
    assert [h.rule for h in lint_goal(bank, "Waive my fine.", owns=False)] == ["possessive"]
    assert lint_goal(bank, "Waive my fine.", owns=True) == []


def test_a_person_s_goal_passes(bank: Spec) -> None:
    for goal in ['Lock my card "Visa card ··2286", reason "travel".',
                 'What is the opening date of my account "Main Checking ··3808"?',
                 'Cancel my scheduled payment "Jordan Lee on June 18, 2026".',
                 'Add a payee "Bora Bora Dive Club" with category "other".',  # a name may repeat a word
                 'Update my contact details: set the phone number to "(415) 555-0182".']:
        assert lint_goal(bank, goal) == []


def test_spoken_names(bank: Spec) -> None:
    account = bank.entity("account")
    assert field_noun(account.field_named("opened_on")) == "opening date"
    assert field_noun(account.field_named("statement_from")) == "current statement start date"
    assert spoken_label("Harbor Auto Insurance due 2025-12-22") == "Harbor Auto Insurance due December 22, 2025"
    assert money_words(1000) == "$10" and money_words(125050) == "$1,250.50"
    assert all(verb_phrase(w).split()[0] in {"transfer", "pay", "schedule", "cancel", "lock", "unlock", "report",
                                             "add", "remove", "update", "rename", "set"}
               for w in bank.workflows if not w.system)


def test_a_label_ending_in_an_adverb_keeps_it_after_the_row() -> None:
    """"Delete forever" is said "Delete my message … forever" in every register, and reads back."""
    from factory.tasks.language.asks import Ask, AskStep, RefText
    from factory.tasks.language.phrasing import parse, render

    mail = build_spec(load_seed(SEEDS / "echomail.yaml"))
    ask = Ask("write", steps=(AskStep("delete_forever", {"message": RefText("Invoice #4051 (Diego Alvarez), trash")}),))
    for variant in range(6):
        goal = render(mail, ask, variant)
        assert re.search(r'(?i)delete my message "Invoice #4051 \(Diego Alvarez\), trash" forever[.?]$', goal), goal
        assert lint_goal(mail, goal) == []
        assert parse(mail, goal).steps == ask.steps


@pytest.mark.parametrize(("seed", "goal"), [
    ("echomail", 'What is the read of my message "Hi"?'),  # a yes/no state asked about as a thing
    ("echostay", 'What is the guests of the listing "Loft"?'),  # a count said as a quantity
    ("echostay", "Which of the listings has the highest guests?"),
])
def test_fields_asked_about_as_they_are_not_spoken_are_caught(seed: str, goal: str) -> None:
    spec = build_spec(load_seed(SEEDS / f"{seed}.yaml"))
    assert "raw_field_label" in {h.rule for h in lint_goal(spec, goal)}


def test_a_label_inside_a_longer_label_is_not_raw() -> None:
    """"with the agreed loss $340" names the parameter "Agreed loss", not the field "Agreed" said
    raw; "the highest agreed" still is."""
    insurance = build_spec(load_seed(SEEDS / "suite" / "insurance.yaml"))
    fine = 'Could you approve the open claim "Vet bills claim, September 2" with the agreed loss $340?'
    assert not [h for h in lint_goal(insurance, fine) if h.rule == "raw_field_label"]
    raw = 'Find my open claim that has the highest agreed, then close it.'
    assert [h for h in lint_goal(insurance, raw) if h.rule == "raw_field_label"]
