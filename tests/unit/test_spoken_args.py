"""Arguments, rows and questions said as a person types them, and read back by the same rules: a
measure "of" its noun with its thousands grouped, a person by name and part, a setting with its
unit, a row everyone knows in the possessive, a field named by a participle "on" its row, and two
unrelated actions with no stock sentence in front."""

from __future__ import annotations

from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.tasks.language.asks import Ask, AskStep, Cond, Question, RefText
from factory.tasks.language.phrasing import parse, render
from factory.tasks.language.values import parse_scalar

SUITE = Path(__file__).resolve().parents[2] / "seeds" / "suite"


@pytest.fixture(scope="module")
def freight() -> Spec:
    return build_spec(load_seed(SUITE / "freight.yaml"))


def _book(weight: int) -> AskStep:
    return AskStep("book_shipment", {
        "your_ref": "PO-94905", "origin": RefText("Singapore"), "destination": RefText("Busan"),
        "goods": "Auto brake pads", "weight_kg": weight, "declared_value": 4000000,
        "pickup_from": "2026-07-19T10:00:00", "pickup_by": "2026-07-23T09:00:00",
        "dispatcher": RefText("Dmitri Volkov"), "broker": RefText("Helen Park")})


def test_a_measure_and_a_person_in_a_list_are_said_as_people_say_them(freight: Spec) -> None:
    step = _book(18570)
    text = render(freight, Ask("write", steps=(step,)), 0)
    # never "the weight 18570 kg", "the customs broker Helen Park"
    assert "a weight of 18,570 kg" in text and "the weight" not in text, text
    # a person plays a part ("customs broker"); a desk is no part a person plays
    assert "the desk Dmitri Volkov and Helen Park as the customs broker" in text, text
    back = parse(freight, text).steps[0]
    assert parse_scalar("int", back.args["weight_kg"]) == 18570, text
    assert back.args["dispatcher"] == RefText("Dmitri Volkov") and back.args["broker"] == RefText("Helen Park"), text
    small = render(freight, Ask("write", steps=(_book(1947),)), 0)
    assert "a weight of 1947 kg" in small, small  # four digits stay bare, as a year does


def test_a_plural_measure_takes_no_article(freight: Spec) -> None:
    bill = AskStep("bill_shipment", {"shipment": RefText("PO-65086 · Newark to Singapore", mine=True),
                                     "terms_days": 15})
    texts = [render(freight, Ask("write", steps=(bill,)), v) for v in range(3)]
    assert any("payment terms of 15 days" in t for t in texts), texts
    assert not any("the payment terms 15" in t or "a payment terms" in t for t in texts), texts
    for text in texts:
        assert parse_scalar("int", parse(freight, text).steps[0].args["terms_days"]) == 15, text


def test_a_setting_is_said_with_its_unit() -> None:
    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    adjust = next(w for w in hr.workflows if w.name == "adjust_allowance")
    who = next(p for p in adjust.params if p.ref)
    step = AskStep("adjust_allowance", {who.name: RefText("Lisa Stephenson"), "annual_allowance": 33})
    text = render(hr, Ask("write", steps=(step,)), 0)
    assert "33 days" in text, text
    assert parse_scalar("int", parse(hr, text).steps[0].args["annual_allowance"]) == 33, text


def test_a_known_row_is_asked_about_in_the_possessive_and_a_participle_on_its_row() -> None:
    courses = build_spec(load_seed(SUITE / "courses.yaml"))
    office = Question("lookup", "department", "office", RefText("History", mine=False))
    for variant in (0, 1):
        text = render(courses, Ask("read", question=office), variant)
        # a department is shown by its name: one word goes before the noun too
        assert text == "What is the History department's office?", text
        assert parse(courses, text).question == office, text
    owed = Question("lookup", "enrollment", "fee_charged", RefText("BIOL1020-A-F25", mine=True))
    for variant in (0, 1):
        text = render(courses, Ask("read", question=owed), variant)
        assert "fees owed on my enrollment" in text and "owed of" not in text, text
        assert parse(courses, text).question == owed, text


def test_a_phrasings_own_words_say_what_its_free_text_is_about() -> None:
    """"…; the duty looks wrong. Set the reason to …" shares "duty" with a reason about the duty,
    nothing with one about the container size; words any sentence of the act says do not count."""
    from factory.tasks.propose.text_shapes import content_words as _content_words

    said = _content_words("Dispute the invoice for ; the duty looks wrong. Set the reason to")
    assert said == {"duty"}, said
    assert said & _content_words("The duty line is higher than the broker quoted us")
    assert not said & _content_words("We were billed for a 40ft container but shipped a 20ft")
    assert _content_words("Customs duties were paid") >= {"duty"}


def test_a_value_that_repeats_its_noun_is_no_condition() -> None:
    """"my enrollments whose status is "enrolled"", "customs holds that are held": a value that is
    its noun's own word or verb cannot be said before the noun or after it."""
    from factory.tasks.language.modifiers import repeats_noun, stands_before

    assert repeats_noun("enrolled", ["enrollments"]) and repeats_noun("held", ["customs", "holds"])
    assert not repeats_noun("released", ["customs", "holds"]) and not repeats_noun("pending", ["enrollments"])
    assert not stands_before("enrolled", ["enrollments"]) and stands_before("pending", ["requests"])


def test_a_short_word_the_seed_writes_as_a_word_is_no_abbreviation() -> None:
    """The lexicon lacks "lab"; the courses seed writes "waive lab fees", so it is a word ("a lab
    report assignment", never "an LAB report"), while "suv", which the car seed never writes as a
    word, is said "SUV"."""
    courses = build_spec(load_seed(SUITE / "courses.yaml"))
    post = AskStep("post_assignment", {"section": RefText("BIOL1020-A-W26", mine=True), "title": "Microscopy 2",
                                       "kind": "lab_report", "points": 20, "due_at": "2026-03-27T09:00:00"})
    text = render(courses, Ask("write", steps=(post,)), 0)
    assert text.startswith("Post a lab report assignment"), text
    assert parse(courses, text).steps[0].args["kind"] == "lab_report", text
    cars = build_spec(load_seed(SUITE / "car_rental.yaml"))
    suv = Question("count", "car_model", conds=(Cond("category", '"suv"'),))
    assert "SUV models" in render(cars, Ask("read", question=suv), 0)


def test_a_list_after_a_row_named_by_its_day_and_a_range_say_what_they_belong_to(freight: Spec) -> None:
    """"… logged on May 2 at 9:00 AM, saying …" (a comma: never a reason that reads as the
    logging's); "for pickup between … and …" says what the two days are."""
    cars = build_spec(load_seed(SUITE / "car_rental.yaml"))
    waive = AskStep("waive_fee", {"damage_report": RefText("Ford Transit Custom SF70 XCT: Rear bumper, May 2 at 9:00 AM",
                                                           mine=False), "reason": "Handover photos back up the renter"})
    text = render(cars, Ask("write", steps=(waive,)), 0)
    assert 'logged on May 2 at 9:00 AM, saying "Handover' in text, text
    assert parse(cars, text).steps == (waive,), text
    book = render(freight, Ask("write", steps=(_book(2000),)), 0)
    assert "from Singapore to Busan for pickup between July 19" in book, book
    assert parse(freight, book).steps[0].args["pickup_by"].startswith("July 23"), book


def test_a_day_of_an_act_is_asked_with_its_verb_and_a_name_value_is_written_as_one(freight: Spec) -> None:
    """"Serviced on" → "When was the car … serviced?"; a region the seed writes only capitalised
    ("Europe") is written so, and read back as the stored value."""
    cars = build_spec(load_seed(SUITE / "car_rental.yaml"))
    serviced = Question("lookup", "vehicle", "last_serviced", RefText("Ford Fiesta WA73 BGC", mine=False))
    text = render(cars, Ask("read", question=serviced), 0)
    assert text == 'When was the car "Ford Fiesta WA73 BGC" serviced?', text
    assert parse(cars, text).question == serviced
    region = Question("count", "port", conds=(Cond("region", '"north america"'),))
    text = render(freight, Ask("read", question=region), 0)
    assert text == "How many ports are in North America?", text  # a place of a closed list is said bare
    assert parse(freight, text).question == region, text


def test_a_rate_set_says_what_it_is_paid_by() -> None:
    """"Reprice the model "Kia Sportage" to £79 a day": a rate's label ("New day rate") says its unit."""
    cars = build_spec(load_seed(SUITE / "car_rental.yaml"))
    step = AskStep("reprice_model", {"car_model": RefText("Kia Sportage", mine=False), "new_rate": 7900})
    for variant in (0, 1, 2):
        text = render(cars, Ask("write", steps=(step,)), variant)
        assert "to £79 a day" in text, text
        assert parse_scalar("money", parse(cars, text).steps[0].args["new_rate"]) == 7900, text


def test_a_plural_measure_is_ranked_by_most_and_fewest() -> None:
    """"the fewest paid hours", never "the lowest paid hours"; an amount stays "the highest duties"."""
    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    q = Question("min", "shift_pattern", "paid_hours")
    text = render(hr, Ask("read", question=q), 0)
    assert "has the fewest paid hours" in text and parse(hr, text).question == q, text


def test_a_day_labelled_by_its_act_is_asked_when() -> None:
    """"Decided" is the day a request was decided: "When was my leave request "…" decided?",
    never "What is the decision date of …"."""
    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    q = Question("lookup", "leave_request", "decided_on", RefText("Annual from February 23", mine=True))
    text = render(hr, Ask("read", question=q), 0)
    assert text == "When was my annual leave request from February 23 decided?", text
    assert parse(hr, text).question == q


def test_a_grouped_number_reads_only_as_written() -> None:
    """"45,058" is 45058; "1,2,3" or "4,5" is no number a goal writes, and never reads as 123."""
    from factory.tasks.language.asks import ParseError

    assert parse_scalar("int", "45,058") == 45058 and parse_scalar("int", "1947") == 1947
    for bad in ("1,2,3", "4,5", "45,05", ",100"):
        with pytest.raises(ParseError):
            parse_scalar("int", bad)


def test_a_job_title_is_no_reason_to_open_a_goal_with() -> None:
    from factory.tasks.language.registers import persona_context, reason_context

    assert persona_context("Customs house agent at Nhava Sheva and Chennai.") is not None
    assert reason_context("Customs house agent at Nhava Sheva and Chennai.") is None
    assert reason_context("Travels for work, locks her card when abroad.") == "I travel for work"


def test_a_participle_clause_label_reads_as_english() -> None:
    """"Billed to renter" is "the amount billed to the renter for the damage report …" (a role
    takes "the"; a clause inside the noun is followed by "for", not "of"); "Serviced by" leads its
    own condition ("my policies serviced by …", never "for the … serviced by"); a plural head is
    asked with "are" after an action ("what are its fees owed?")."""
    from factory.tasks.language.errands import render_report

    cars = build_spec(load_seed(SUITE / "car_rental.yaml"))
    q = Question("lookup", "damage_report", "charged_amount", RefText("Ford Galaxy LN74 DMV: Windscreen, February 27"))
    text = render(cars, Ask("read", question=q), 0)
    assert "the amount billed to the renter for my damage report" in text, text
    assert parse(cars, text).question == q, text
    cover = build_spec(load_seed(SUITE / "insurance.yaml"))
    office = next(f for f in cover.entity("policy").fields if f.label == "Serviced by")
    q = Question("count", "policy", conds=(Cond(office.name, '"Harbourline Dublin"'),), mine=True)
    text = render(cover, Ask("read", question=q), 0)
    assert 'serviced by "Harbourline Dublin"' in text and "for the" not in text, text
    assert parse(cover, text).question == q, text
    courses = build_spec(load_seed(SUITE / "courses.yaml"))
    enrollment = next(e for e in courses.entities if any(f.label == "Fees owed" for f in e.fields))
    owed = next(f for f in enrollment.fields if f.label == "Fees owed")
    admit = next(w for w in courses.workflows if w.label.lower().startswith("admit"))
    subject = next(p for p in admit.params if p.name == admit.subject)
    row = RefText("Joseph Wallace, BIOL2300-A-S26", mine=False)
    ask = Ask("read_write", steps=(AskStep(admit.name, {subject.name: row}),),
              question=Question("lookup", enrollment.name, owed.name, row))
    assert "what are its fees owed?" in render_report(courses, ask, "", 0)


def test_a_kind_is_asked_after_its_noun_and_a_repeated_label_part_is_said_once() -> None:
    """"What kind of assignment is "Midterm (…)"?", never "the kind of the assignment"; a one-leg
    shipment's leg "PO-1 · Busan to Hamburg: Busan to Hamburg" is named "PO-1 · Busan to Hamburg"
    (the resolver reads both forms)."""
    from factory.tasks.language.spoken import said_once

    courses = build_spec(load_seed(SUITE / "courses.yaml"))
    q = Question("lookup", "assignment", "kind", RefText("Midterm (BIOL1020-A-W26)", mine=False))
    text = render(courses, Ask("read", question=q), 0)
    assert text == 'What kind of assignment is "Midterm (BIOL1020-A-W26)"?', text
    assert parse(courses, text).question == q, text
    freight = build_spec(load_seed(SUITE / "freight.yaml"))
    q = Question("lookup", "port", "kind", RefText("Los Angeles"))
    text = render(freight, Ask("read", question=q), 0)
    assert text == "What kind of port is Los Angeles?", text
    assert parse(freight, text).question == q, text
    assert said_once("PO-1 · Busan to Hamburg: Busan to Hamburg") == "PO-1 · Busan to Hamburg"
    assert said_once("PO-1 · Busan to Hamburg: Singapore to Hamburg") == "PO-1 · Busan to Hamburg: Singapore to Hamburg"


def test_a_row_found_is_its_owners_in_a_thing_for_it() -> None:
    """"…, then raise its cap to 6", never "raise the cap for it to 6"; it reads back to the
    same find-then-act."""
    courses = build_spec(load_seed(SUITE / "courses.yaml"))
    step = AskStep("raise_cap", {"new_capacity": "6"}, ("section", Question("max", "section", "lab_fee")))
    text = render(courses, Ask("read_write", steps=(step,)), 0)
    assert "then raise its cap to 6" in text and "for it" not in text, text
    assert parse(courses, text).steps == (step,), text


def test_a_field_is_not_named_after_its_own_row_again() -> None:
    """The shift pattern's "Pattern starts" is asked as "the start date of the shift pattern …",
    never "the pattern start date of the shift pattern …"; it reads back."""
    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    q = Question("lookup", "shift_pattern", "anchor_on", RefText("Early (06:00-14:00)", mine=False))
    text = render(hr, Ask("read", question=q), 1)
    assert text == 'Can you tell me the start date of the shift pattern "Early (06:00-14:00)"?', text
    assert parse(hr, text).question == q, text
