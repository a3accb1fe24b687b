"""Sentences the suite's readers marked stiff or wrong, said as people say them (issue 30): the
kind of a thing made before its noun even where the run acts on another row ("Post a homework
assignment "Quiz 2" for my section …, out of 50 and due April 3"), a maker's name before its noun ("the Ford models"), a
thing and its state ("with the tank not full", never "the tank full set to no"), and "with"
followed by a noun, never by a preposition ("with out of 50"). Each is read back."""

from __future__ import annotations

from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.tasks.language.phrasing import Ask, AskStep, Cond, Question, RefText, parse, render
from factory.tasks.language.values import parse_scalar

SUITE = Path(__file__).resolve().parents[2] / "seeds" / "suite"


@pytest.fixture(scope="module")
def cars() -> Spec:
    return build_spec(load_seed(SUITE / "car_rental.yaml"))


def _round_trip(spec: Spec, step: AskStep) -> list[str]:
    texts = []
    for variant in (0, 1, 2):
        text = render(spec, Ask("write", steps=(step,)), variant)
        read = parse(spec, text).steps[0]
        assert read.workflow == step.workflow, text
        for name, value in step.args.items():
            got = read.args[name]
            if isinstance(value, RefText):
                assert got == value, text
            else:  # values come back as written: compare them as the API takes them
                param = next(p for p in spec.workflows if p.name == step.workflow).params
                kind = next(p.type for p in param if p.name == name)
                want = {True: "yes", False: "no"}.get(value, value) if kind == "bool" else value
                assert str(parse_scalar(kind, str(got)) if kind in ("date", "datetime", "int") else got) == str(want), text
        texts.append(text)
    return texts


def test_the_kind_of_a_thing_made_for_a_row_goes_before_its_noun() -> None:
    courses = build_spec(load_seed(SUITE / "courses.yaml"))
    step = AskStep("post_assignment", {"section": RefText("COMP1010-A-W26", mine=True), "title": "SQL problem set 2",
                                       "kind": "homework", "points": 50, "due_at": "2026-04-03T09:00:00"})
    texts = _round_trip(courses, step)
    assert texts[0] == ('Post a homework assignment "SQL problem set 2" for my COMP1010-A-W26 section, '
                        'out of 50 and due April 3 at 9:00 AM.'), texts[0]
    assert 'the kind "homework"' not in texts[0] and "with out of" not in texts[0]
    essay = AskStep("post_assignment", {**step.args, "kind": "essay"})
    assert render(courses, Ask("write", steps=(essay,)), 0).startswith("Post an essay assignment ")


def test_a_makers_name_goes_before_its_noun(cars: Spec) -> None:
    cases = [
        (Question("count", "car_model", conds=(Cond("make", '"Ford"'),)), "How many Ford models are there?"),
        (Question("max", "car_model", "daily_rate", conds=(Cond("make", '"Volkswagen"'),)),
         "Which of the Volkswagen models has the highest daily rate?"),
    ]
    for q, said in cases:
        assert render(cars, Ask("read", question=q), 1) == said
        for variant in (0, 1):
            text = render(cars, Ask("read", question=q), variant)
            assert "whose make" not in text and "the make" not in text, text
            assert parse(cars, text).question == q, text


def test_a_yes_no_thing_and_its_state_are_said_as_words(cars: Spec) -> None:
    rental = RefText("Ford Fiesta LN72 MVM, May 7 at 9:00 AM", mine=False)
    for full, said in ((True, "and the tank full"), (False, "and the tank not full")):
        texts = _round_trip(cars, AskStep("check_in", {"rental": rental, "odometer": 26052, "full_tank": full}))
        assert all(said in t and "set to" not in t for t in texts), texts


def test_a_car_at_the_branch_a_manager_runs_is_not_their_car(tmp_path: Path) -> None:
    from factory.tasks.propose.proposer import Proposer
    from factory.world.assemble import build_world
    from factory.world.layout import World

    world = World(build_world(SUITE / "car_rental.yaml", tmp_path, frontend=False).path)
    proposer = Proposer(world.spec, world.seed_db)
    try:
        tom = next(u for u in proposer.users if u.username == "tom")
        hannah = next(u for u in proposer.users if u.username == "hannah")
        cars = proposer.world.visible("vehicle", tom.id)
        # his branches' cars are the branches', not "my car"; he still runs the branch itself
        assert cars and not any(proposer._holds(tom.id, "vehicle", car["id"]) for car in cars)
        rentals = proposer.world.visible("rental", hannah.id)
        assert rentals and all(proposer._holds(hannah.id, "rental", r["id"]) for r in rentals)
    finally:
        proposer.close()


def test_a_phrasing_ending_in_a_quote_keeps_its_stop() -> None:
    """The seed says `… with the reason "Too many people are off that week."`: filled with another
    reason, the sentence still ends with a stop, and reads back."""
    from factory.tasks.language.intents import intent_forms, parse_intent, render_intent

    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    form = next(f for f in intent_forms(hr) if f.workflow == "deny_leave")
    text = render_intent(form, {"employee": "Cindy Beard", "start_on": "June 1, 2026"}, ["Clashes with the stock take"])
    assert text == 'Deny Cindy Beard\'s leave request from June 1, 2026 with the reason "Clashes with the stock take".'
    read = parse_intent(hr, text)
    assert read is not None and read.steps[0].workflow == "deny_leave"
    assert "Clashes with the stock take" in str(read.steps[0].args)


def test_my_row_is_found_by_its_name_without_mine(tmp_path: Path) -> None:
    """"my shift "May 28 Late (14:00-22:00)"" finds the user's own shift (its label carries their
    name); the same words from anyone else find nothing."""
    from factory.predict.rows import UserView
    from factory.tasks.language.resolve import find_rows
    from factory.tasks.language.row_labels import person_split
    from factory.world.assemble import build_world
    from factory.world.layout import World

    world = World(build_world(SUITE / "hr_leave.yaml", tmp_path, frontend=False).path)
    view = UserView.open(world.spec, world.seed_db)
    shift = next(e for e in world.spec.entities if e.display == "{worker}, {work_date} {pattern}")
    column = shift.field_named("worker").column
    row = next(r for r in view.rows(shift.name) if r.get(column) is not None)
    label = view.label(shift.name, row)
    split = person_split(world.spec, shift, label)
    assert split is not None
    own = find_rows(view, shift.name, row[column], RefText(split[1], mine=True))
    assert row["id"] in [r["id"] for r in own]
    assert all(r.get(column) == row[column] for r in own)
    other = next(u for u in {r.get(column) for r in view.rows(shift.name)} if u not in (None, row[column]))
    assert not [r for r in find_rows(view, shift.name, other, RefText(split[1], mine=True)) if r["id"] == row["id"]]


def test_a_count_of_one_in_a_seed_phrasing_takes_a_singular_noun() -> None:
    """"Set {member}'s allowance to 28 days with 3 days carried over." filled with 1 carried over
    says "1 day carried over", never "1 days", and reads back."""
    from factory.tasks.language.intents import intent_forms, parse_intent, render_intent

    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    form = next(f for f in intent_forms(hr) if f.workflow == "adjust_allowance")
    text = render_intent(form, {"member": "Jonathan Haynes"}, ["22", "1"])
    assert text == "Set Jonathan Haynes's allowance to 22 days with 1 day carried over.", text
    read = parse_intent(hr, text)
    assert read is not None and read.steps[0].workflow == "adjust_allowance"
    plural = render_intent(form, {"member": "Jonathan Haynes"}, ["22", "3"])
    assert plural.endswith("with 3 days carried over.") and parse_intent(hr, plural) is not None


def test_a_span_of_a_rows_date_is_said_bare_and_rows_not_held_are_the() -> None:
    """"How many of my shifts are between May 16, 2026 and June 9, 2026?", never "with a date between …";
    a manager's question over the team's requests says "the", never "my"."""
    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    shift = next(e.name for e in hr.entities if e.display == "{worker}, {work_date} {pattern}")
    span = Question("count", shift, conds=(Cond("work_date", "May 16, 2026", "June 9, 2026"),))
    assert render(hr, Ask("read", question=span), 1) == "How many of my shifts are between May 16, 2026 and June 9, 2026?"
    team = Question("min", "leave_request", "end_on", conds=(Cond("status", '"pending"'),), mine=False)
    for q in (span, team):
        for variant in (0, 1):
            text = render(hr, Ask("read", question=q), variant)
            assert "with a date" not in text and (q is span or " my " not in text), text
            assert parse(hr, text).question == q, text


def test_the_finer_of_two_places_is_said_by_its_name() -> None:
    """A port is in a region and a country; the country (the finer filter) is said alone, with
    "the" where English puts one: "the ports in the Netherlands", "the ports in Germany"."""
    freight = build_spec(load_seed(SUITE / "freight.yaml"))
    for country, said in (("Netherlands", "in the Netherlands"), ("Germany", "in Germany"),
                          ("United States", "in the United States")):
        q = Question("count", "port", conds=(Cond("country", f'"{country}"'),))
        for variant in (0, 1):
            text = render(freight, Ask("read", question=q), variant)
            assert said in text and "the country" not in text, text
            assert parse(freight, text).question == q, text


def test_a_part_named_by_a_kind_goes_before_the_made_noun(cars: Spec) -> None:
    """"Log windscreen damage for the rental …" (the area names a thing, and "damage" is part of
    the damage report the run makes), never "Log the damage … with the area "windscreen""; a
    degree ("moderate") is no such kind and keeps its label."""
    rental = RefText("Ford Fiesta YK21 UBV, May 12 at 9:00 AM", mine=False)
    step = AskStep("log_damage", {"rental": rental, "area": "windscreen", "severity": "moderate",
                                  "description": "Crack spreading from the lower edge"})
    texts = _round_trip(cars, step)
    assert texts[0].startswith("Log windscreen damage for the Ford Fiesta YK21 UBV rental starting May 12"), texts[0]
    assert 'the area' not in texts[0] and 'the severity "moderate"' in texts[0]


def test_a_span_a_seed_phrasing_leaves_over_is_a_sentence_of_its_own() -> None:
    """"Book annual leave for me with the reason "…". From May 31 to June 2." (this year's days
    without the year), never
    "Set the start date to … and the end date to …"; it reads back."""
    from factory.tasks.language.intent_extras import extras_sentence
    from factory.tasks.language.intents import intent_forms, parse_intent, render_intent

    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    form = next(f for f in intent_forms(hr) if f.phrasing.startswith("Book annual leave for me"))
    workflow = next(w for w in hr.workflows if w.name == "request_leave")
    tail = extras_sentence(workflow, {"start_on": "2026-05-31", "end_on": "2026-06-02"}, hr)
    assert tail == "From May 31 to June 2.", tail
    text = render_intent(form, {}, ["Long weekend away"], tail)
    assert text == 'Book annual leave for me with the reason "Long weekend away". From May 31 to June 2.'
    read = parse_intent(hr, text)
    assert read is not None, text
    args = read.steps[0].args
    assert args["start_on"] == "May 31, 2026" and args["end_on"] == "June 2, 2026", args


def test_a_count_of_rows_in_a_place_says_where_they_are(cars: Spec) -> None:
    """"How many branches are in London?", "How many cars are at the London Heathrow T5 branch?"
    (the car's "Parked at" gives its preposition), never "How many branches in London are there?"."""
    cases = [(Question("count", "branch", conds=(Cond("city", '"London"'),)), "How many branches are in London?"),
             (Question("count", "vehicle", conds=(Cond("branch", '"London Heathrow T5"'),)),
              "How many cars are at the London Heathrow T5 branch?")]
    for q, said in cases:
        assert render(cars, Ask("read", question=q), 0) == said
        for variant in (0, 1):
            assert parse(cars, render(cars, Ask("read", question=q), variant)).question == q


def test_the_stamp_a_list_is_sorted_by_says_how_recent_a_row_is(cars: Spec) -> None:
    """"Which of my annual leave requests is the most recent?" (the list is newest first by
    "Requested on"), never "has the latest request date"; each reads back."""
    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    cases = [(hr, Question("max", "leave_request", "requested_on", conds=(Cond("leave_type", '"annual"'),)),
              "Which of my annual leave requests is the most recent?"),
             (cars, Question("min", "damage_report", "reported_at"), "Which of my damage reports is the oldest?")]
    for spec, q, said in cases:
        assert render(spec, Ask("read", question=q), 0) == said
        assert parse(spec, said).question == q


def test_an_amounts_symbol_says_the_currency_chosen() -> None:
    """"… a declared value of £130,000" says GBP: the currency goes unsaid and is read back from
    the symbol; the default currency, which no symbol can tell from the chooser left out, is said."""
    freight = build_spec(load_seed(SUITE / "freight.yaml"))
    base = {"your_ref": "PO-40833", "origin": RefText("Busan", mine=False), "destination": RefText("Los Angeles", mine=False),
            "goods": "CNC spindle assemblies", "weight_kg": 7266, "declared_value": 13000000,
            "pickup_from": "2026-07-03T10:00:00", "pickup_by": "2026-07-05T10:00:00",
            "dispatcher": RefText("Fatima Qureshi"), "broker": RefText("Vikram Iyer")}
    for currency, symbol in (("GBP", "£"), ("INR", "₹"), ("USD", "$")):
        step = AskStep("book_shipment", {**base, "currency": currency})
        text = render(freight, Ask("write", steps=(step,)), 0)
        assert f"a declared value of {symbol}130,000" in text, text
        assert ('the currency "USD"' in text) is (currency == "USD"), text
        assert "from Busan to Los Angeles for pickup between July 3" in text, text
        assert parse(freight, text).steps[0].args["currency"] == currency, text


def test_a_participle_label_is_a_clause_and_a_composite_label_stays_quoted(cars: Spec) -> None:
    """"my customs holds held by "Douane Rotterdam"", never "whose held by is …"; a car labelled by
    its model and plate stays `the car "Vauxhall Corsa SF74 MVU"`, while a branch's own name goes
    before its noun ("the London Heathrow T5 branch")."""
    from factory.tasks.language.row_names import name_of

    freight = build_spec(load_seed(SUITE / "freight.yaml"))
    hold = next(e for e in freight.entities if any(f.label == "Held by" for f in e.fields))
    held_by = next(f.name for f in hold.fields if f.label == "Held by")
    for q in (Question("count", hold.name, conds=(Cond(held_by, '"Douane Rotterdam"'),)),
              Question("min", hold.name, "duty", conds=(Cond(held_by, '"Customs and Border Protection"'),))):
        for variant in (0, 1):
            text = render(freight, Ask("read", question=q), variant)
            assert ' held by "' in text and "whose held by" not in text and "the held by" not in text, text
            assert parse(freight, text).question == q, text
    assert name_of(cars, "vehicle", RefText("Vauxhall Corsa SF74 MVU"), "subject") == 'the car "Vauxhall Corsa SF74 MVU"'
    assert name_of(cars, "branch", RefText("London Heathrow T5"), "subject") == "the London Heathrow T5 branch"


def test_a_count_of_rows_in_a_place_or_state_asks_where_they_are() -> None:
    """ "How many ticket tiers are on sale?", never "How many ticket tiers on sale are there?"
    (a preposition of place or state says where the rows are); it reads back."""
    tickets = build_spec(load_seed(SUITE / "ticketing.yaml"))
    q = Question("count", "tier", conds=(Cond("status", '"on sale"'),))
    text = render(tickets, Ask("read", question=q), 0)
    assert text == "How many ticket tiers are on sale?", text
    assert parse(tickets, text).question == q


def test_a_long_model_name_still_goes_before_its_noun() -> None:
    """ "the Lenovo ThinkPad T14 Gen 5 assets" (five words, a name throughout), never 'the assets
    whose model is "Lenovo ThinkPad T14 Gen 5"'; it reads back."""
    desk = build_spec(load_seed(SUITE / "helpdesk.yaml"))
    q = Question("sum", "asset", "purchase_cost", conds=(Cond("model", '"Lenovo ThinkPad T14 Gen 5"'),))
    text = render(desk, Ask("read", question=q), 0)
    assert text == "What is the total cost of the Lenovo ThinkPad T14 Gen 5 assets?", text
    assert parse(desk, text).question == q


def test_a_day_labelled_by_a_state_and_its_bound_is_asked_in_those_words() -> None:
    """ "When is Flat 14, The Tannery available from?", never "What is the availability date of
    …?"; both forms read back."""
    leases = build_spec(load_seed(SUITE / "leases.yaml"))
    q = Question("lookup", "unit", "available_from", RefText("Flat 14, The Tannery"))
    said = [render(leases, Ask("read", question=q), v) for v in (0, 1)]
    assert said == ["When is Flat 14, The Tannery available from?",
                    "Can you tell me when Flat 14, The Tannery is available from?"], said
    assert all(parse(leases, text).question == q for text in said)


def test_the_place_a_named_row_is_in_is_asked_where_it_is() -> None:
    """ "What city is the Whiteladies Mews property in?", "What country is the Harbourfront Rooms
    venue in?", never "the … property's city"; both forms read back."""
    leases = build_spec(load_seed(SUITE / "leases.yaml"))
    tickets = build_spec(load_seed(SUITE / "ticketing.yaml"))
    for spec, q, said in ((leases, Question("lookup", "property", "city", RefText("Whiteladies Mews")),
                           "What city is the Whiteladies Mews property in?"),
                          (tickets, Question("lookup", "venue", "country", RefText("Harbourfront Rooms")),
                           "What country is the Harbourfront Rooms venue in?")):
        assert render(spec, Ask("read", question=q), 0) == said
        for variant in (0, 1):
            assert parse(spec, render(spec, Ask("read", question=q), variant)).question == q
