"""Rows whose label counts something, or names the person it goes to, are said as people say
them (issue 30, the ticketing world's readings): "my order of 4 General admission tickets for
Fennel & Rye placed on March 30", never `my order "General admission · Fennel & Rye ×4" placed on
March 30`; "my transfer for the order of … to Rachel Randolph", never "Rachel Randolph's
transfer" said by its sender; "the transfer … to me" said by the one it went to; "the refund
request for the order of …" of a label "Refund for {order}". Each reads back to the label."""

from __future__ import annotations

from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.tasks.language.asks import ParseError
from factory.tasks.language.phrasing import RefText
from factory.tasks.language.row_labels import object_person
from factory.tasks.language.row_names import name_of, read_name

SUITE = Path(__file__).resolve().parents[2] / "seeds" / "suite"
ORDER = "General admission · Fennel & Rye ×4, March 30"


@pytest.fixture(scope="module")
def tickets() -> Spec:
    return build_spec(load_seed(SUITE / "ticketing.yaml"))


@pytest.mark.parametrize(("entity", "label", "mine", "said"), [
    ("order", ORDER, True, "my order of 4 General admission tickets for Fennel & Rye placed on March 30"),
    ("order", "Balcony · Dublin Comedy Gala ×1, May 4", False,
     "the order of 1 Balcony ticket for Dublin Comedy Gala placed on May 4"),
    ("transfer", f"{ORDER} to Mary Romero", True,
     "my transfer to Mary Romero for the order of 4 General admission tickets for Fennel & Rye placed on March 30"),
    ("transfer", f"{ORDER} to Mary Romero", False,
     "the transfer to Mary Romero for the order of 4 General admission tickets for Fennel & Rye placed on March 30"),
    ("refund", f"Refund for {ORDER}", True,
     "my refund request for the order of 4 General admission tickets for Fennel & Rye placed on March 30"),
])
def test_a_counted_label_is_said_in_words(tickets: Spec, entity: str, label: str, mine: bool, said: str) -> None:
    text = name_of(tickets, entity, RefText(label, mine=mine), "subject")
    assert text == said
    back = read_name(tickets, entity, text)
    assert back.text == label and back.mine is mine


def test_the_one_a_transfer_went_to_says_me(tickets: Spec) -> None:
    """Said by its recipient, whose own name the label ends with: the label without it, "to me"."""
    text = name_of(tickets, "transfer", RefText(ORDER, mine=True), "subject")
    assert text == "the transfer to me for the order of 4 General admission tickets for Fennel & Rye placed on March 30"
    assert read_name(tickets, "transfer", text) == RefText(ORDER, mine=True)


def test_only_a_count_of_a_plural_noun_is_said_as_one() -> None:
    """"{qty} × {menu_item}" counts "Qty": "2 Margherita" is no English, so the label stays quoted."""
    restaurant = build_spec(load_seed(SUITE / "restaurant.yaml"))
    text = name_of(restaurant, "order_line", RefText("2 × Margherita", mine=False), "subject")
    assert text == 'the order line "2 × Margherita"'
    assert read_name(restaurant, "order_line", text).text == "2 × Margherita"


def test_a_person_a_label_is_for_or_by_is_its_holder(tickets: Spec) -> None:
    """Only a preposition of where a row goes names no holder: "to" does, "for" and "by" do not."""
    assert object_person(tickets, tickets.entity("transfer")) == "to"
    courses = build_spec(load_seed(SUITE / "courses.yaml"))
    assert object_person(courses, courses.entity("submission")) is None  # "{assignment} by {student}"


@pytest.mark.parametrize("text", [
    "my order of 4 General admission tickets for Fennel & Rye placed on March 31 to me",  # an order goes to no one
    "my order of four General admission tickets for Fennel & Rye placed on March 30",  # a count is in digits
])
def test_a_name_that_is_no_such_form_is_refused(tickets: Spec, text: str) -> None:
    with pytest.raises(ParseError, match="does not name an order"):
        read_name(tickets, "order", text)


def test_a_form_of_rows_that_do_not_exist_reads_to_their_label(tickets: Spec) -> None:
    """Reading a name is grammar, not a look-up: which row it names is the resolver's question."""
    text = "the transfer to Mary Romero for the order of 4 VIP tickets for Nowhere placed on March 30"
    assert read_name(tickets, "transfer", text) == RefText("VIP · Nowhere ×4, March 30 to Mary Romero", mine=False)
    text = "the transfer for the order of 4 VIP tickets for Nowhere placed on March 30 to Mary Romero"  # the older order
    assert read_name(tickets, "transfer", text) == RefText("VIP · Nowhere ×4, March 30 to Mary Romero", mine=False)


def test_a_value_of_degree_is_said_with_what_it_grades() -> None:
    """"the low-priority tickets", never "the low tickets"; a value of a kind stays a modifier of its
    own ("interior damage reports"): a scale is a field with a value the lexicon grades ("low")."""
    from factory.tasks.language.phrasing import Ask, Cond, Question, parse, render

    desk = build_spec(load_seed(SUITE / "helpdesk.yaml"))
    cars = build_spec(load_seed(SUITE / "car_rental.yaml"))
    for spec, entity, field, value, said in [
            (desk, "ticket", "priority", "low", "How many low-priority tickets are there?"),
            (desk, "ticket", "priority", "critical", "How many critical-priority tickets are there?"),
            (cars, "damage_report", "area", "interior", "How many interior damage reports do I have?")]:
        q = Question("count", entity, conds=(Cond(field, f'"{value}"'),))
        assert render(spec, Ask("read", question=q), 0) == said
        assert parse(spec, said).question == q


def test_a_verb_is_not_said_again_in_its_object(tickets: Spec) -> None:
    """"Refund the order of …" (a request the verb grants, said by what it is for), never "refund
    the refund request …" nor "refund the request for the order …"; it reads back, and so does the
    older "Refund the request for …"."""
    from factory.tasks.language.phrasing import Ask, AskStep, parse, render

    step = AskStep("approve_refund", {"refund": RefText(f"Refund for {ORDER}", mine=False)})
    text = render(tickets, Ask("write", steps=(step,)), 0)
    assert text == "Refund the order of 4 General admission tickets for Fennel & Rye placed on March 30."
    assert parse(tickets, text).steps == (step,)
    older = "Refund the request for the order of 4 General admission tickets for Fennel & Rye placed on March 30."
    assert parse(tickets, older).steps == (step,)
