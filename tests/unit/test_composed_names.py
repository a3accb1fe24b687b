"""Rows whose label is made of fields are named as people name them (issue 30, the unseen suite
worlds' readings): "the Spin class at Dublin Docklands on June 19 at 7:00 AM" (a class session,
its noun said by the kind its label opens on), never the class session "Spin at June 19 at 7:00 AM
(Dublin Docklands)"; "Krista Fleming's booking for the Spin class …"; "the General admission
ticket tier for Brixton Beats Weekender". Every form reads back to the label, and a name that is
no such form is refused, not guessed."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from factory.builder.build import build_spec
from factory.predict.rows import UserView
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.tasks.language.asks import ParseError
from factory.tasks.language.intents import intent_forms, parse_intent, render_intent, slot_key, slot_said
from factory.tasks.language.phrasing import Ask, AskStep, Cond, Question, RefText, parse, render
from factory.tasks.language.resolve import find_rows
from factory.tasks.language.row_names import name_of, read_name
from factory.tasks.propose.base import ProposerBase
from factory.tasks.propose.proposer import Proposer

SUITE = Path(__file__).resolve().parents[2] / "seeds" / "suite"


@pytest.fixture(scope="module")
def gym() -> Spec:
    return build_spec(load_seed(SUITE / "gym.yaml"))


@pytest.mark.parametrize(("entity", "label", "mine", "said"), [
    ("class_session", "Spin at June 19 at 7:00 AM (Dublin Docklands)", None,
     "the Spin class at Dublin Docklands on June 19 at 7:00 AM"),
    ("booking", "Spin at June 19 at 7:00 AM (Dublin Docklands)", True,
     "my booking for the Spin class at Dublin Docklands on June 19 at 7:00 AM"),
    ("booking", "Krista Fleming: Spin at June 15 at 6:00 PM (Dublin Docklands)", False,
     "Krista Fleming's booking for the Spin class at Dublin Docklands on June 15 at 6:00 PM"),
    ("membership", "Titanic Quarter Off-Peak since June 2, 2025", True,
     "my Titanic Quarter Off-Peak membership since June 2, 2025"),
    ("membership", "Sinead O'Neill, Docklands Unlimited since May 2", False,
     "Sinead O'Neill's Docklands Unlimited membership since May 2"),
])
def test_a_label_made_of_fields_is_said_around_its_noun(gym: Spec, entity: str, label: str, mine: bool | None,
                                                        said: str) -> None:
    text = name_of(gym, entity, RefText(label, mine=mine), "subject")
    assert text == said
    back = read_name(gym, entity, text)
    assert back == RefText(label) and back.text == label  # the label exactly, casing included


def test_a_kind_leads_in_its_own_words_and_reads_back_in_the_apps() -> None:
    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    said = name_of(hr, "leave_request", RefText("Annual from February 23", mine=True), "subject")
    assert said == "my annual leave request from February 23"
    assert read_name(hr, "leave_request", said).text == "Annual from February 23"


def test_a_person_a_state_or_a_stranger_never_leads(gym: Spec) -> None:
    """Only a kind (an enum that is no status) or a row's own name goes before the noun: a
    person's name does not ("my Mary Romero shift"), and text that only contains the noun is no
    name of that row ("booking for the Spin class session …" names no class session)."""
    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    shift = next(e for e in hr.entities if e.display.startswith("{worker}"))
    label = "Mary Romero, May 28 Late (14:00-22:00)"
    said = name_of(hr, shift.name, RefText(label, mine=True), "subject")
    assert "Mary Romero shift" not in said and '"' in said, said
    with pytest.raises(ParseError):
        read_name(gym, "class_session", "my booking for the Spin class session on June 17 at 6:30 AM (Dublin Docklands)")
    with pytest.raises(ParseError):
        read_name(gym, "class_session", "my booking for the Spin class at Dublin Docklands on June 17 at 6:30 AM")


def test_a_row_its_parent_names_last_is_for_it() -> None:
    tickets = build_spec(load_seed(SUITE / "ticketing.yaml"))
    for label, said in [("General admission · Brixton Beats Weekender",
                         "the General admission ticket tier for Brixton Beats Weekender"),
                        ("Table for two · Jazz at the Danforth: Vol. 4",
                         "the Table for two ticket tier for Jazz at the Danforth: Vol. 4")]:
        assert name_of(tickets, "tier", RefText(label), "subject") == said
        assert read_name(tickets, "tier", said).text == label


def test_actions_on_such_rows_read_back_alone_and_in_a_pair(gym: Spec) -> None:
    cancel = AskStep("cancel_booking", {"booking": RefText("Spin at June 17 at 6:30 AM (Dublin Docklands)", mine=True)})
    book = AskStep("book_class", {"class_session": RefText("Spin at June 17 at 6:30 AM (Dublin Docklands)")})
    freeze = AskStep("freeze", {"until": "2026-07-17"})  # read back as written: "July 17, 2026"
    read_freeze = AskStep("freeze", {"until": "July 17, 2026"})
    for steps, read in (((cancel,), (cancel,)), ((book, cancel), (book, cancel)), ((cancel, freeze), (cancel, read_freeze))):
        for variant in range(3):
            text = render(gym, Ask("write", steps=steps), variant)
            assert '"' not in text and "2026" not in text, text
            assert parse(gym, text).steps == read, text


def test_a_condition_on_such_a_row_names_it_the_same_way(gym: Spec) -> None:
    q = Question("count", "booking", conds=(Cond("class_session", '"Spin at June 6 at 10:00 AM (Belfast Titanic Quarter)"'),))
    text = render(gym, Ask("read", question=q), 0)
    assert "for the Spin class at Belfast Titanic Quarter on June 6 at 10:00 AM" in text, text
    assert parse(gym, text).question == q, text


def test_a_seed_phrasing_says_its_moment_after_at_with_the_time_first(gym: Spec) -> None:
    """"Book me into {class_type} at {starts_at}." → "Book me into Yoga at 7:30 PM on June 22.",
    never "at June 22, 2026 at 7:30 PM"; a row slot is named as a sentence names it."""
    form = next(f for f in intent_forms(gym) if f.phrasing.startswith("Book me into"))
    shown = {"class_type": "Yoga", "starts_at": "June 22, 2026 at 7:30 PM"}
    slots = {slot: slot_said(gym, "class_session", field, shown[field]) for slot, (_e, field, _p) in form.slots.items()}
    text = render_intent(form, slots, [])
    assert text == "Book me into Yoga at 7:30 PM on June 22.", text
    read = parse_intent(gym, text)
    assert read is not None
    ref = read.steps[0].args["class_session"]
    assert {ref.by, *(f for f, _t in ref.also)} == {"class_type", "starts_at"}
    assert slot_key(gym, "class_session", "starts_at", "7:30 PM on June 22") == "June 22, 2026 at 7:30 PM"
    assert slot_said(gym, "booking", "class_session", "Boxfit at Jun 20, 2026, 11:00 AM (Belfast Titanic Quarter)") \
        == "the Boxfit class at Belfast Titanic Quarter on June 20 at 11:00 AM"


def test_a_row_it_is_for_is_said_bare_when_its_name_cannot_lead() -> None:
    """"my viewing appointment for Flat 26, Harbour View on June 19 …" (a name with a comma
    cannot go before a noun), "Tom Whitaker's application for Flat 26, Harbour View from June 4";
    a label of marks and counts stays quoted."""
    leases = build_spec(load_seed(SUITE / "leases.yaml"))
    for entity, label, mine, said in [
            ("viewing", "Flat 26, Harbour View at June 19 at 7:45 PM", True,
             "my viewing appointment for Flat 26, Harbour View on June 19 at 7:45 PM"),
            ("application", "Tom Whitaker for Flat 26, Harbour View (June 4)", False,
             "Tom Whitaker's application for Flat 26, Harbour View from June 4")]:
        assert name_of(leases, entity, RefText(label, mine=mine), "subject") == said
        assert read_name(leases, entity, said).text == label
    tickets = build_spec(load_seed(SUITE / "ticketing.yaml"))
    label = "General admission · Canal Street Pride Party ×3, February 19 to Cindy Beard"
    said = name_of(tickets, "transfer", RefText(label, mine=True), "subject")
    assert said.startswith("my transfer to Cindy Beard for the order of 3 General admission tickets for Canal Street Pride"), said
    assert '"' not in said and "·" not in said and "×" not in said  # a count mark is said in words


def test_how_many_of_the_thing_a_label_names_goes_before_it() -> None:
    """"Buy tickets" with a quantity: "Buy 4 … tickets …", "Buy 1 … ticket …", and "Buy … tickets …"
    when the run leaves the app's default; never "with a quantity of 4". The tier they come from
    is a kind of ticket, so its name says which tickets (`unit_fold`): "Buy 4 General admission
    tickets for Brixton Beats Weekender", never "4 tickets to the General admission ticket tier"."""
    tickets = build_spec(load_seed(SUITE / "ticketing.yaml"))
    tier = RefText("General admission · Brixton Beats Weekender")
    for quantity, words in ((4, "uy 4 General admission tickets for Brixton Beats Weekender"),
                            (1, "uy 1 General admission ticket for Brixton"),
                            (None, "uy General admission tickets for Brixton")):
        step = AskStep("buy_tickets", {"tier": tier, **({"quantity": quantity} if quantity else {})})
        for variant in range(3):
            text = render(tickets, Ask("write", steps=(step,)), variant)
            assert words in text and "quantity" not in text, text
            args = parse(tickets, text).steps[0].args
            assert args["tier"] == tier and args.get("quantity") == (str(quantity) if quantity else None), text


def test_a_thing_a_row_has_may_be_a_hyphenated_compound() -> None:
    tickets = build_spec(load_seed(SUITE / "ticketing.yaml"))
    q = Question("lookup", "venue", "accessible", RefText("Brixton Foundry"))
    text = render(tickets, Ask("read", question=q), 0)
    assert text == "Does the Brixton Foundry venue have step-free access?", text
    assert parse(tickets, text).question == q


def test_a_choice_labelled_by_a_bare_plural_is_asked_by_its_fields_noun() -> None:
    """A choice labelled "Ages" of a field named `age_limit` is "the age limit" ("What is the
    age limit of Marlowe Street Band?", never "What are … ages?"); a person "sold to" is where
    the thing goes, and the tickets sold are counted, not the tier ("Sell 2 General admission
    tickets for … to Dennis Diaz", never "Sell the … ticket tier … with a quantity of 2")."""
    tickets = build_spec(load_seed(SUITE / "ticketing.yaml"))
    q = Question("lookup", "event", "age_limit", RefText("Marlowe Street Band"))
    text = render(tickets, Ask("read", question=q), 0)
    assert text == "What is the age limit of Marlowe Street Band?", text
    assert parse(tickets, text).question == q
    step = AskStep("sell_at_door", {"tier": RefText("General admission · Brixton Beats Weekender"), "quantity": 2,
                                    "buyer": RefText("Dennis Diaz")})
    text = render(tickets, Ask("write", steps=(step,)), 0)
    assert text == "Sell 2 General admission tickets for Brixton Beats Weekender to Dennis Diaz.", text
    args = parse(tickets, text).steps[0].args
    assert args["buyer"] == RefText("Dennis Diaz") and args["quantity"] == "2"
    assert args["tier"].text == "General admission · Brixton Beats Weekender"


def test_a_row_known_by_its_code_is_named_by_it() -> None:
    """A label that is the row's unique code and a title ("INC-16 MFA codes not arriving") is said
    as a person names a ticket: "the ticket INC-16 (MFA codes not arriving)"."""
    desk = build_spec(load_seed(SUITE / "helpdesk.yaml"))
    for entity, label, said in [("ticket", "INC-16 MFA codes not arriving", "the ticket INC-16 (MFA codes not arriving)"),
                                ("asset", "BWL-1042 Dell WD19S", "the asset BWL-1042 (Dell WD19S)")]:
        assert name_of(desk, entity, RefText(label), "subject") == said
        assert read_name(desk, entity, said).text == label
    # a title with its own brackets stays quoted: the brackets would not read back
    assert '"' in name_of(desk, "ticket", RefText("INC-17 VPN (office) keeps dropping"), "subject")


def test_moving_tickets_is_no_moving_money() -> None:
    """"I'm moving some money around this week:" fits a bank's transfer, never a ticket transfer."""
    from factory.tasks.language.errands import purposes_for

    tickets = build_spec(load_seed(SUITE / "ticketing.yaml"))
    order = RefText("Balcony · Dublin Comedy Gala ×1, April 9")
    ask = Ask("write", steps=(AskStep("transfer_tickets", {"order": order, "recipient": RefText("Danny Sharp")}),
                              AskStep("transfer_tickets", {"order": order, "recipient": RefText("Hana Sato")})))
    assert not any("money" in p for p in purposes_for(tickets, ask))
    bank = build_spec(load_seed(SUITE.parent / "echobank.yaml"))
    transfer = next(w for w in bank.workflows if w.name.startswith("transfer"))
    assert any("money" in p for p in purposes_for(bank, Ask("write", steps=(AskStep(transfer.name, {}),))))


@pytest.mark.parametrize(("label", "thing", "bare"), [
    ("Flat 23, Maple Terrace", "flat", True), ("Room 4B", "room", True), ("Gate 12", "gate", True),
    ("Flat A", "flat", False),  # no number: a name that happens to start with the noun
    ("Flat 23, the old mill", "flat", False),  # what follows the comma is no place's name
    ("Flat 23", "viewing slot", False),  # the label does not say this row's noun
])
def test_a_numbered_noun_is_a_proper_name_said_bare(label: str, thing: str, bare: bool) -> None:
    from factory.tasks.language.row_labels import titled

    assert titled(label, thing) is bare


def test_a_numbered_flat_is_said_bare_and_a_moment_of_a_thing_made_after_on() -> None:
    """"Add a viewing slot for Flat 20, Ropewalk Apartments on July 7 at 2:00 PM", never "for the flat
    "Flat 20, Ropewalk Apartments" with the slot July 7 at 2:00 PM"; it reads back."""
    from factory.tasks.language.render import render_step

    leases = build_spec(load_seed(SUITE / "leases.yaml"))
    step = AskStep("add_slot", {"unit": RefText("Flat 20, Ropewalk Apartments"), "starts_at": "2026-07-07T14:00"})
    text = render_step(leases, step, 0)
    assert text == "Add a viewing slot for Flat 20, Ropewalk Apartments on July 7, 2026 at 2:00 PM."
    back = parse(leases, text).steps[0]
    assert back.workflow == "add_slot" and back.args["unit"] == RefText("Flat 20, Ropewalk Apartments")
    assert back.args["starts_at"] == "July 7, 2026 at 2:00 PM"  # as written: values are typed later


def test_a_name_that_holds_the_counted_noun_is_not_folded_into_it() -> None:
    """"Buy 2 Two tickets deal tickets" would read back as another tier: such a name stays whole."""
    from factory.tasks.language.unit_fold import folded

    assert folded("the General admission ticket tier for Fennel & Rye", "ticket tier", "tickets") == \
        ("General admission", " for Fennel & Rye")
    assert folded("the Two tickets deal ticket tier for Fennel & Rye", "ticket tier", "tickets") is None
    assert folded('the ticket tier "Balcony"', "ticket tier", "tickets") is None


def test_only_a_noun_that_classes_things_gives_up_its_count() -> None:
    """A "ticket tier" classes tickets ("Sell 4 General admission tickets"); a "gift card" is a card,
    never "4 gifts"."""
    from factory.tasks.language.frame_params import classes_things

    assert classes_things("ticket tier") == "ticket"
    assert classes_things("room type") == "room"
    assert classes_things("gift card") is None
    assert classes_things("class session") is None


def test_a_named_place_in_brackets_after_a_time_is_said_at_it(gym: Spec) -> None:
    """ "Spin at June 19 at 7:00 AM (Dublin Docklands)": what happens at a time in a named place is
    said "at" the place, after its noun; a place whose own name holds "on" still reads back whole;
    a bracket that holds no place name (a number) stays as the label writes it."""
    session = gym.entity("class_session")
    club = session.field_named("club")
    odd = gym.model_copy(deep=True)
    odd.entity("class_session").field_named("club").values = [*(club.values or []), "Stratford on Avon"]
    for spec, label, said in (
            (gym, "Spin at June 19 at 7:00 AM (Dublin Docklands)", "the Spin class at Dublin Docklands on June 19 at 7:00 AM"),
            (odd, "Yoga at June 2 at 8:30 AM (Stratford on Avon)", "the Yoga class at Stratford on Avon on June 2 at 8:30 AM")):
        text = name_of(spec, "class_session", RefText(label, mine=False), "subject")
        assert text == said
        assert read_name(spec, "class_session", text).text == label
    text = name_of(odd, "class_session", RefText("Yoga at June 2 at 8:30 AM (Room 2)", mine=False), "subject")
    assert "at Room 2" not in text and read_name(odd, "class_session", text).text == "Yoga at June 2 at 8:30 AM (Room 2)"


def _lettings(leases: list[dict[str, Any]], payments: list[dict[str, Any]]) -> tuple[Spec, UserView]:
    spec = build_spec(load_seed(SUITE / "leases.yaml"))
    rows = {"property": [{"id": 1, "name": "Kelvin House"}],
            "unit": [{"id": 5, "unit_no": "Flat 5", "property_id": 1}, {"id": 15, "unit_no": "Flat 15", "property_id": 1}],
            "lease": leases, "rent_payment": payments}
    view = UserView(spec, sqlite3.connect(":memory:"), _rows=rows, _by_id={e: {r["id"]: r for r in rs} for e, rs in rows.items()})
    return spec, view


def test_a_row_is_named_by_the_row_it_belongs_to_where_that_names_it_alone() -> None:
    """A tenancy is "my tenancy for Flat 5, Kelvin House" and a rent payment "my rent payment for
    Flat 15, Kelvin House on July 1, 2025" where no other row the user sees answers to that
    (their whole labels repeat the tenancy's start: "… from January 3, 2025"); where two
    tenancies of one flat answer to it, it names neither. Each reads back to the name it says."""
    leases = [{"id": 1, "unit_id": 5, "tenant_id": 7, "start_on": "2025-08-10"},
              {"id": 2, "unit_id": 15, "tenant_id": 7, "start_on": "2025-01-03"}]
    payments = [{"id": 1, "lease_id": 2, "tenant_id": 7, "paid_on": "2025-07-01"},
                {"id": 2, "lease_id": 2, "tenant_id": 7, "paid_on": "2025-08-01"}]
    spec, view = _lettings(leases, payments)
    assert view.short_labels("lease", leases[0])[0] == "Flat 5, Kelvin House"
    assert "Flat 15, Kelvin House · Jul 1, 2025" in view.short_labels("rent_payment", payments[0])
    for entity, short, said in (("lease", "Flat 5, Kelvin House", "my tenancy for Flat 5, Kelvin House"),
                                ("rent_payment", "Flat 15, Kelvin House · July 1, 2025",
                                 "my rent payment for Flat 15, Kelvin House on July 1, 2025")):
        assert [r["id"] for r in find_rows(view, entity, 7, RefText(short))] == [1]
        assert name_of(spec, entity, RefText(short, mine=True), "subject") == said
        assert read_name(spec, entity, said).text == short
    again = [*leases, {"id": 3, "unit_id": 5, "tenant_id": 7, "start_on": "2024-02-01"}]
    spec, view = _lettings(again, payments)
    assert len(find_rows(view, "lease", 7, RefText("Flat 5, Kelvin House"))) == 2  # names neither


def test_an_order_named_by_what_it_counts_leaves_its_count_and_day_out() -> None:
    """ "my order of VIP tickets for Canal Street Pride Party" (the short name `UserView.short_labels`
    gives an order, its tier's label), never a quoted tier; rows named after the order say it so
    too, what it moves before whom it goes to ("the VIP tickets … I transferred to Colin Hanna"); all read back."""
    tickets = build_spec(load_seed(SUITE / "ticketing.yaml"))
    for entity, label, mine, said in (
            ("order", "VIP · Canal Street Pride Party", True, "my order of VIP tickets for Canal Street Pride Party"),
            ("transfer", "VIP · Canal Street Pride Party to Colin Hanna", True,
             "the VIP tickets for Canal Street Pride Party I transferred to Colin Hanna")):
        text = name_of(tickets, entity, RefText(label, mine=mine), "subject")
        assert text == said
        assert read_name(tickets, entity, text).text == label
    # a count without its day is the order named without its day, not the tier's short name
    assert read_name(tickets, "order", "my order of 3 VIP tickets for Canal Street Pride Party").text \
        == "VIP · Canal Street Pride Party ×3"


def test_a_moment_a_phrasing_puts_before_a_noun_is_said_after_it(gym: Spec) -> None:
    """ "Get me a place on the {starts_at} {class_type} class." → "Get me a place on the Body Pump
    class at 9:30 AM on June 20.", never "the June 20 at 9:30 AM Body Pump class"; read back."""
    form = next(f for f in intent_forms(gym) if f.phrasing.startswith("Get me a place"))
    shown = {"class_type": "Body Pump", "starts_at": "June 20, 2026 at 9:30 AM"}
    slots = {slot: slot_said(gym, "class_session", field, shown[field]) for slot, (_e, field, _p) in form.slots.items()}
    text = render_intent(form, slots, [])
    assert text == "Get me a place on the Body Pump class at 9:30 AM on June 20.", text
    read = parse_intent(gym, text)
    assert read is not None and {read.steps[0].args["class_session"].by,
                                 *(f for f, _t in read.steps[0].args["class_session"].also)} == {"class_type", "starts_at"}


@pytest.mark.parametrize(("entity", "label", "mine", "said"), [
    ("membership", "Titanic Quarter Off-Peak", True, "my Titanic Quarter Off-Peak membership"),
    ("membership", "Sinead O'Neill, Docklands Unlimited", False, "Sinead O'Neill's Docklands Unlimited membership"),
    ("payment", "Late cancellation", True, "my late cancellation payment"),
    ("payment", "Sinead O'Neill, Monthly fee", False, "Sinead O'Neill's monthly fee payment"),
])
def test_a_row_named_without_its_day_says_its_lead_before_the_noun(gym: Spec, entity: str, label: str,
                                                                    mine: bool, said: str) -> None:
    """A label that ends on its day, named without it where that names the row alone
    (`UserView.short_labels`): "my Titanic Quarter Off-Peak membership", never `my membership
    "Titanic Quarter Off-Peak"`; read back in the app's casing ("Monthly fee")."""
    text = name_of(gym, entity, RefText(label, mine=mine), "subject")
    assert text == said
    assert read_name(gym, entity, text).text == label


def test_a_holder_named_after_someone_is_theirs_whoever_asks(gym: Spec) -> None:
    """ "How many payments are there for Wendy Walker's … membership since February 2, 2026?" (a
    name that ends on a day is never followed by "have"), never "… does my membership for Wendy
    Walker, … have?" said by the front desk."""
    q = Question("count", "payment",
                 conds=(Cond("membership", '"Wendy Walker, Titanic Quarter Off-Peak since February 2, 2026"'),))
    text = render(gym, Ask("read", question=q), 0)
    assert text.startswith("How many payments are there for Wendy Walker's Titanic Quarter Off-Peak membership"), text
    assert parse(gym, text).question == q


def test_an_order_named_without_its_day_keeps_its_count_in_words() -> None:
    """ "my order of 4 Courtyard tickets for Twelfth Night in the Yard" (its day left out where
    that names it alone), never "… for Twelfth Night in the Yard ×4"; a refund request for it says
    it so too; both read back."""
    tickets = build_spec(load_seed(SUITE / "ticketing.yaml"))
    for entity, label, mine, said in (
            ("order", "Courtyard · Twelfth Night in the Yard ×4", True,
             "my order of 4 Courtyard tickets for Twelfth Night in the Yard"),
            ("refund", "Refund for Courtyard · Twelfth Night in the Yard ×4", False,
             "the refund request for the order of 4 Courtyard tickets for Twelfth Night in the Yard")):
        text = name_of(tickets, entity, RefText(label, mine=mine), "subject")
        assert text == said and "×" not in text
        assert read_name(tickets, entity, text).text == label


def test_a_row_known_by_its_own_code_is_said_by_it_alone() -> None:
    """ "my ticket INC-122", never "my ticket INC-122 (New starter equipment)", where the code
    names it alone (`UserView.short_labels` offers the code of a label that opens on a unique one);
    the whole label still reads as before; both read back."""
    desk = build_spec(load_seed(SUITE / "helpdesk.yaml"))
    for label, said in (("INC-122", "my ticket INC-122"),
                        ("INC-122 New starter equipment", "my ticket INC-122 (New starter equipment)")):
        text = name_of(desk, "ticket", RefText(label, mine=True), "subject")
        assert text == said
        assert read_name(desk, "ticket", text).text == label
    rows = {"ticket": [{"id": 1, "number": "INC-122", "summary": "New starter equipment", "requester_id": 7}]}
    view = UserView(desk, sqlite3.connect(":memory:"), _rows=rows, _by_id={"ticket": {1: rows["ticket"][0]}})
    assert "INC-122" in view.short_labels("ticket", rows["ticket"][0])


@pytest.mark.parametrize(("label", "mine", "said"), [
    ("Flat 6, The Tannery", True, "my application for Flat 6, The Tannery"),
    ("Melissa Bullock for Flat 6, The Tannery", False, "Melissa Bullock's application for Flat 6, The Tannery"),
])
def test_a_row_for_another_named_without_its_bracketed_day(label: str, mine: bool, said: str) -> None:
    """An application labelled "{applicant} for {unit} ({submitted_on})", named without its day
    where that names it alone: "my application for Flat 6, The Tannery", never "… (June 15)"."""
    leases = build_spec(load_seed(SUITE / "leases.yaml"))
    text = name_of(leases, "application", RefText(label, mine=mine), "subject")
    assert text == said
    assert read_name(leases, "application", text).text == label


def test_a_unique_name_with_a_space_is_no_code_to_name_a_row_by() -> None:
    """ "Flat 22" is unique in the lettings world, but it is a name, not a code: a flat is never
    named by it alone ("take Flat 1 off the market" leaves out the building), as "INC-122" names
    its ticket. The short-label rule and the renderer share one shape (`naming.CODE`)."""
    leases = build_spec(load_seed(SUITE / "leases.yaml"))
    rows = {"property": [{"id": 1, "name": "Kelvin House"}],
            "unit": [{"id": 22, "unit_no": "Flat 22", "property_id": 1}]}
    view = UserView(leases, sqlite3.connect(":memory:"), _rows=rows,
                    _by_id={e: {r["id"]: r for r in rs} for e, rs in rows.items()})
    assert "Flat 22" not in view.short_labels("unit", rows["unit"][0])


def test_a_row_the_run_makes_is_named_by_its_own_code_alone() -> None:
    """A ticket a task's setup makes is said "the ticket INC-171", as one already there is: its
    code is unique, so it names it alone though no row answers to it yet; a code some row already
    has does not."""
    desk = build_spec(load_seed(SUITE / "helpdesk.yaml"))
    rows = {"ticket": [{"id": 1, "number": "INC-122", "summary": "New starter equipment", "requester_id": 7}]}
    view = UserView(desk, sqlite3.connect(":memory:"), _rows=rows, _by_id={"ticket": {1: rows["ticket"][0]}})
    proposer = object.__new__(ProposerBase)
    proposer.spec, proposer.world = desk, view
    made = {"id": 2, "number": "INC-171", "summary": "Wi-Fi won't connect", "requester_id": 7}
    assert proposer._spoken_name("ticket", made, 7, new=True) == "INC-171"
    clash = {**made, "number": "INC-122"}  # a code some row has already: the whole label
    assert proposer._spoken_name("ticket", clash, 7, new=True) != "INC-122"
    assert proposer._spoken_name("ticket", rows["ticket"][0], 7) == "INC-122"


def test_a_transfer_to_the_user_is_said_as_the_things_that_came_to_them() -> None:
    """"the 3 General admission tickets for Canal Street Pride Party transferred to me", never
    "the transfer of … to me"; the sender says "the … I transferred to Rachel Randolph";
    both read back, in a lookup too."""
    tickets = build_spec(load_seed(SUITE / "ticketing.yaml"))
    label = "General admission · Canal Street Pride Party ×3"
    said = name_of(tickets, "transfer", RefText(label, mine=True), "subject")
    assert said == "the 3 General admission tickets for Canal Street Pride Party transferred to me", said
    assert read_name(tickets, "transfer", said).text == label
    sent = name_of(tickets, "transfer", RefText(f"{label} to Rachel Randolph", mine=True), "subject")
    assert sent == "the 3 General admission tickets for Canal Street Pride Party I transferred to Rachel Randolph", sent
    assert read_name(tickets, "transfer", sent) == RefText(f"{label} to Rachel Randolph", mine=True)
    q = Question("lookup", "transfer", "note", target=RefText(label, mine=True))
    text = render(tickets, Ask("read", question=q), 0)
    assert text.endswith("transferred to me?") and parse(tickets, text).question.target.text == label, text


def test_an_amount_for_a_row_with_no_amount_of_its_own_is_in_that_rows_currency() -> None:
    """A new tier for a Dublin event is priced in euros ("the event's currency"): the event has no
    amount, only its currency, and the run acts on no row; never "$40" for it."""
    tickets = build_spec(load_seed(SUITE / "ticketing.yaml"))
    rows = {"event": [{"id": 3, "name": "Saoirse Nolan: Live at the Quay", "currency": "EUR"}]}
    view = UserView(tickets, sqlite3.connect(":memory:"), _rows=rows, _by_id={"event": {3: rows["event"][0]}})
    proposer = object.__new__(Proposer)
    proposer.spec, proposer.world = tickets, view
    add_tier = next(w for w in tickets.workflows if w.name == "add_tier")
    assert proposer._currency("event", rows["event"][0]) == "EUR"
    assert proposer._run_currency(add_tier, {"event": 3, "name": "Balcony"}) == "EUR"


def test_a_row_is_named_without_what_its_brackets_add_where_that_names_it_alone() -> None:
    """A class labelled "Spin at June 17 at 6:30 AM (Dublin Docklands)" is "the Spin class on June
    17 at 6:30 AM" where no class at the other club answers to that, and a booking for it "my
    booking for the Spin class on …"; the whole label is still read, and both read back."""
    gym = build_spec(load_seed(SUITE / "gym.yaml"))
    rows = {"class_session": [{"id": 1, "class_type": "Spin", "starts_at": "2026-06-17T06:30", "club": "Dublin Docklands"}]}
    view = UserView(gym, sqlite3.connect(":memory:"), _rows=rows, _by_id={"class_session": {1: rows["class_session"][0]}})
    assert "Spin at Jun 17, 2026, 6:30 AM" in view.short_labels("class_session", rows["class_session"][0])
    for entity, label, mine, said in (
            ("class_session", "Spin at June 17 at 6:30 AM", False, "the Spin class on June 17 at 6:30 AM"),
            ("booking", "Spin at June 17 at 6:30 AM", True, "my booking for the Spin class on June 17 at 6:30 AM"),
            ("class_session", "Spin at June 17 at 6:30 AM (Dublin Docklands)", False,
             "the Spin class at Dublin Docklands on June 17 at 6:30 AM")):
        text = name_of(gym, entity, RefText(label, mine=mine), "subject")
        assert text == said, text
        assert read_name(gym, entity, text).text == label
