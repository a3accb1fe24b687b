"""Sentences from workflow semantics (`language/frames.py`) and the registers (`registers.py`): each
run reads like a person wrote it and parses back to the same ask."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.tasks.language.asks import ONLY, ParseError
from factory.tasks.language.frames import IT
from factory.tasks.language.phrasing import Ask, AskStep, Cond, Question, RefText, parse, render
from factory.tasks.language.registers import drop_context, persona_context, with_context

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


@pytest.fixture(scope="module")
def bank() -> Spec:
    return build_spec(load_seed(SEEDS / "echobank.yaml"))


CASES = [
    (AskStep("transfer_funds", {"from_account": RefText("Main Checking ··3808"),
                                "to_account": RefText("Emergency Fund ··5290"), "amount": 20000}),
     "Transfer $200 from my Main Checking account (··3808) to my Emergency Fund account (··5290)."),
    (AskStep("report_card_lost", {"card": RefText("visa card ··9929")}), "Report my visa card ··9929 as lost or stolen."),
    (AskStep("pay_payee", {"payee": RefText("Sunvale Energy"), "from_account": RefText("Main Checking ··3808"),
                           "amount": 4500}),
     "Pay Sunvale Energy $45 from my Main Checking account (··3808)."),
    (AskStep("pay_credit_card", {"card_account": RefText("Travel Rewards Card ··1683"),
                                 "from_account": RefText("Main Checking ··3808"), "amount": 5000}),
     "Pay my Travel Rewards Card account (··1683) $50 from my Main Checking account (··3808)."),
    (AskStep("schedule_payment", {"payee": RefText("Jordan Lee"), "from_account": RefText("Main Checking ··3808"),
                                  "amount": 15000, "pay_on": "2026-07-16"}),
     "Schedule a payment of $150 to Jordan Lee from my Main Checking account (··3808) on July 16."),
    (AskStep("set_low_balance_alert", {"account": RefText("Main Checking ··3808"), "threshold": 2500}),
     "Set the low-balance alert on my Main Checking account (··3808) to $25."),
    (AskStep("rename_account", {"account": RefText("Main Checking ··3808"), "nickname": "Bills"}),
     'Rename my Main Checking account (··3808) to "Bills".'),
    (AskStep("update_contact_info", {"profile": RefText("my contact details", ONLY), "city": "Boston"}),
     'Update my contact details: set the city to "Boston".'),
]


@pytest.mark.parametrize(("step", "text"), CASES, ids=lambda c: c.workflow if isinstance(c, AskStep) else "")
def test_a_run_is_said_by_its_roles_and_read_back(bank: Spec, step: AskStep, text: str) -> None:
    assert render(bank, Ask("write", steps=(step,)), 0) == text
    for variant in range(3):
        back = parse(bank, render(bank, Ask("write", steps=(step,)), variant)).steps[0]
        assert back.workflow == step.workflow and set(back.args) == set(step.args)


def test_a_row_the_user_does_not_hold_is_not_mine(bank: Spec) -> None:
    step = AskStep("report_card_lost", {"card": RefText("visa card ··9929", mine=False)})
    text = render(bank, Ask("write", steps=(step,)), 0)
    assert text == "Report the visa card ··9929 as lost or stolen."
    assert parse(bank, text).steps[0].args["card"] == RefText("visa card ··9929")


def test_find_then_act_says_it(bank: Spec) -> None:
    q = Question("max", "card", "daily_limit", conds=(Cond("status", '"active"'),))
    step = AskStep("report_card_lost", {}, ("card", q))
    # "whichever …" stands only where "it" ends the act: with words after it, the clause would sit
    # mid-sentence ("Report whichever of my cards has the highest limit as lost"), so it finds first
    for variant in (0, 2):
        text = render(bank, Ask("read_write", steps=(step,)), variant)
        assert text == "Find my active card that has the highest daily limit, then report it as lost or stolen."
        assert parse(bank, text).steps[0] == step
    assert IT == "it"
    locks = AskStep("lock_card", {}, ("card", Question("min", "card", "expires_on")))
    text = render(bank, Ask("read_write", steps=(locks,)), 0)
    assert text.startswith("Lock my card with the earliest "), text  # a superlative after its noun
    assert parse(bank, text).steps[0] == locks, text
    with_reason = AskStep("lock_card", {"reason": "travel"}, ("card", Question("min", "card", "expires_on")))
    text = render(bank, Ask("read_write", steps=(with_reason,)), 0)
    assert text.startswith("Find my card that has the earliest "), text
    assert text.endswith(", then lock it with the reason \"travel\"."), text
    assert parse(bank, text).steps[0] == with_reason, text


def test_a_particle_goes_before_a_long_object() -> None:
    """"check it out", but "Check out my rental with the earliest …", never "Check … out"."""
    cars = build_spec(load_seed(SEEDS / "suite" / "car_rental.yaml"))
    step = AskStep("check_out", {}, ("rental", Question("min", "rental", "starts_at")))
    text = render(cars, Ask("read_write", steps=(step,)), 0)
    assert text.startswith("Check out my rental with the earliest "), text
    assert not text.endswith(" out."), text
    assert parse(cars, text).steps[0] == step, text


def test_goal_first_context_comes_from_the_persona(bank: Spec) -> None:
    assert persona_context("Travels for work, locks her credit card when she is away.") == "I travel for work"
    assert persona_context("Recently moved; updating her address.") == "I recently moved"
    assert persona_context("Student on a tight budget who splits costs.") == "I'm a student on a tight budget"
    # a plural noun opening a job title is not a verb in -s ("I sale associate" was written)
    assert persona_context("Sales associate new to the company.") == "I'm a sales associate new to the company"
    assert persona_context("Travels with his dog, so only books pet-friendly places.") is None
    assert persona_context("") is None
    goal = with_context("I travel for work", "Report my visa card ··9929 as lost or stolen.")
    assert goal == "I travel for work. Report my visa card ··9929 as lost or stolen."  # no "so": no reason claimed
    assert drop_context(goal) == "Report my visa card ··9929 as lost or stolen."
    assert drop_context("I travel for work, so report my visa card ··9929 as lost or stolen.") == \
        "Report my visa card ··9929 as lost or stolen."  # the older form still reads
    assert parse(bank, goal).steps[0].workflow == "report_card_lost"


def test_a_seed_phrasing_says_where_the_money_comes_from(bank: Spec) -> None:
    from factory.tasks.language.intent_extras import extras_sentence
    from factory.tasks.language.intents import intent_forms, render_intent

    form = next(f for f in intent_forms(bank) if f.phrasing == "Pay {payee} $45 today.")
    workflow = next(w for w in bank.workflows if w.name == "pay_payee")
    tail = extras_sentence(workflow, {"from_account": RefText("Main Checking ··8488")}, bank)
    text = render_intent(form, {"payee": "City Power & Light"}, ["$60.00"], tail)
    assert text == "Pay City Power & Light $60.00 today. Take it from my Main Checking account (··8488)."
    assert parse(bank, text).steps[0].args["from_account"] == RefText("Main Checking ··8488")


def test_questions_say_a_kind_before_the_noun_and_the_only_row_as_mine(bank: Spec) -> None:
    q = Question("max", "account", "opened_on", conds=(Cond("kind", '"savings"'),))
    text = render(bank, Ask("read", question=q), 0)
    assert text == "Which of my savings accounts has the latest opening date?"
    assert parse(bank, text).question == q
    count = Question("count", "payee", conds=(Cond("status", '"active"'),))
    assert render(bank, Ask("read", question=count), 0) == "How many active payees do I have?"
    assert parse(bank, "How many active payees do I have?").question == count
    only = Question("lookup", "profile", "city", RefText("my contact details", ONLY))
    assert render(bank, Ask("read", question=only), 0) == "What is the city of my contact details?"
    assert parse(bank, "What is the city of my contact details?").question == only


def test_a_persona_is_said_before_a_goal_only_when_it_speaks_of_it() -> None:
    from factory.tasks.language.registers import fits

    assert fits("Travels for work, locks her credit card when she is away.", 'Lock my visa card ··1684, reason "travel".')
    assert fits("Careful saver who pays bills the day they arrive.", 'Pay my bill "Bay Electric due June 26".')
    assert fits("Schedules rent and transfers ahead.", "Could you transfer $75 from my Main Checking account (··4471)?")
    assert not fits("Freelance designer with irregular cash flow; often short before payday.",
                    'Pay my bill "StreamBox Premium due June 16" from my Main Checking account (··6764).')
    # a word inside a quoted name is not what is asked: "Budget review" is a message's subject
    assert not fits("Student on a tight budget who splits costs.", 'Could you star my message "Re: Budget review"?')


def test_a_named_place_a_row_goes_to_is_said_with_its_name() -> None:
    """"Save to wishlist" with the wishlist's name as text: the name goes where the noun is ("to my
    wishlist "Dream homes""), never "to the wishlist with the wishlist "Dream homes""; it reads back."""
    stay = build_spec(load_seed(Path(__file__).resolve().parents[2] / "seeds" / "echostay.yaml"))
    args = {"listing": RefText("Sunny apartment in Shibuya"), "wishlist": "Dream homes", "note": "Close to the beach"}
    ask = Ask("write", steps=(AskStep("save_to_wishlist", args),))
    for variant in range(3):
        text = render(stay, ask, variant)
        assert 'to my wishlist "Dream homes" with the note "Close to the beach"' in text, text
        assert "with the wishlist" not in text and parse(stay, text).steps[0].args == args, text


def test_a_row_is_made_in_a_container_and_for_anything_else() -> None:
    """A note is written "in" a notebook; a hold is placed "for the book", a pickup requested "for"
    it (never "a hold in the book"); each reads back to the same step."""
    root = Path(__file__).resolve().parents[2]
    mock = build_spec(load_seed(root / "seeds" / "mock.yaml"))
    lookups = build_spec(load_seed(root / "tests" / "fixtures" / "lookups.yaml"))
    book = RefText("Salt and Stone", mine=False)
    hold = Ask("write", steps=(AskStep("place_hold", {"book": book, "placed_on": "2026-06-16"}),))
    pickup = Ask("write", steps=(AskStep("request_pickup", {"book": book}),))
    for variant in range(3):
        for ask, said in ((hold, 'hold for the book "Salt and Stone"'), (pickup, 'pickup for the book "Salt and Stone"')):
            text = render(lookups, ask, variant)
            assert said in text and " in the book" not in text, text
            back = parse(lookups, text).steps[0]
            assert back.workflow == ask.steps[0].workflow and back.args["book"] == book, text
    note = Ask("write", steps=(AskStep("write_note", {"title": "Groceries", "notebook": RefText("Personal", mine=True)}),))
    assert " in my notebook" in render(mock, note, 0), render(mock, note, 0)


def test_only_a_date_that_lies_years_back_by_nature_is_drawn_decades_ago() -> None:
    from factory.spec.model import ParamSpec
    from factory.tasks.propose.values import _of_history

    def date(name: str, label: str) -> ParamSpec:
        return ParamSpec(name=name, var=name, label=label, type="date", py_type="str", required=True, widget="date")

    assert _of_history(date("birth_date", "Date of birth")) and _of_history(date("dob", "DOB"))
    assert _of_history(date("founded_on", "Founded on"))
    assert not _of_history(date("placed_on", "Placed on")) and not _of_history(date("due_on", "Due date"))


def _template(spec: Spec, workflow: str) -> str:
    from factory.tasks.language.frames import PARTICLE_AFTER, frame

    found = frame(spec, next(w for w in spec.workflows if w.name == workflow))
    assert found is not None, workflow
    text = "".join(p.lead + (f"<{p.param}>" if p.param else "") for p in found.pieces if p.role != PARTICLE_AFTER)
    return text + (f"{found.setting_lead}<{','.join(found.settings)}>" if found.settings else "")


@pytest.mark.parametrize(("seed", "workflow", "said"), [
    # an activity or a state is said as the label says it; a place a row goes to takes "the"
    ("helpdesk", "put_on_hold", "Put <ticket> on hold"),
    ("helpdesk", "send_for_repair", "Send <asset> for repair"),
    ("car_rental", "send_to_workshop", "Send <vehicle> to the workshop"),
    # an exchange verb gives up what the row holds and takes the new thing: "swap A for B"
    ("car_rental", "swap_vehicle", "Swap the car on <rental> for <replacement>"),
    ("leases", "take_off_market", "Take <unit> off the market"),
    # a prepositional verb keeps its own object; the row follows the whole phrase
    ("hr_leave", "ask_for_cover", "Ask for cover for <shift>"),
    # a label that is a state, not a verb
    ("helpdesk", "back_from_repair", "Mark <asset> as back in stock"),
    # a noun compound naming the field it changes
    ("project_tracker", "adjust_budget", "Change the budget for <project> to <budget>"),
    # a phrasal verb and the thing it moves; a part of a row's name is no row ("leave" of a leave request)
    ("helpdesk", "hand_over_queue", "Hand over the queue from <from_tech> to <to_tech>"),
    ("hr_leave", "request_leave", "Request <leave_type> leave"),
    ("gym", "sign_up", "Sign up <member> for <plan>"),  # a phrasal verb's own preposition
    # a row the run makes takes "a"; a desk named on a booking is a detail, not the thing booked
    ("project_tracker", "request_review", "Request a review for <issue>"),
    ("freight", "book_shipment", "Book a shipment from <origin> to <destination>"),
    # a fused particle makes a verb
    ("hr_leave", "onboard", "Onboard <member> on <started_on>"),
])
def test_a_frame_follows_the_grammar_of_its_label(seed: str, workflow: str, said: str) -> None:
    """Labels written by strangers ("Put on hold", "Ask for cover", "Back in stock", "Budget
    change") are said as English says them, from the grammar and the workflow, not a word list."""
    spec = build_spec(load_seed(SEEDS / "suite" / f"{seed}.yaml"))
    assert _template(spec, workflow) == said


def test_the_sentences_of_strangers_labels_read_back() -> None:
    """Every such sentence parses back to the run it says."""
    helpdesk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    hr = build_spec(load_seed(SEEDS / "suite" / "hr_leave.yaml"))
    steps = [(helpdesk, AskStep("put_on_hold", {"ticket": RefText("INC-101 Monitor or dock not working")}),
              'ut the ticket INC-101 (Monitor or dock not working) on hold'),
             (helpdesk, AskStep("back_from_repair", {"asset": RefText("BWL-1045 Jabra Evolve2 40")}),
              'as back in stock'),
             (hr, AskStep("ask_for_cover", {"shift": RefText("Mary Romero, May 28 Late (14:00-22:00)")}),
              'sk for cover for my shift "Mary Romero, May 28 Late (14:00-22:00)"')]
    for spec, step, words in steps:
        for variant in range(3):
            text = render(spec, Ask("write", steps=(step,)), variant)
            assert words in text, text
            assert parse(spec, text).steps == (step,), text


def test_a_strangers_values_are_said_as_their_fields_mean_them() -> None:
    """A measure keeps its unit ("the terms 5 days"), an amount takes the currency the run chooses
    ("the currency "CAD", the standard rate CA$200"), a wh-label is said by what it names ("What's
    still wrong" of a field named reason: "the reason"), the user's only row is "my client" (never
    "the client my client"), a run without parameters is asked for by its description. Each reads back."""
    from factory.tasks.language.spoken import field_noun

    invoicing = build_spec(load_seed(SEEDS / "suite" / "invoicing.yaml"))
    helpdesk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    add = AskStep("add_client", {"name": "Snyder-Lee", "contact": RefText("Jonas Keller"),
                                 "accountant": RefText("Beatriz Santos"), "currency": "CAD", "rate": 20000,
                                 "terms_days": "5"})
    text = render(invoicing, Ask("write", steps=(add,)), 0)
    assert "terms of 5 days" in text and "CA$200" in text and "5 terms" not in text, text
    back = parse(invoicing, text).steps[0]
    assert back.args == {**add.args, "rate": "CA$200"}, text  # amounts read back as said
    reopen = next(w for w in helpdesk.workflows if w.name == "reopen")
    assert field_noun(next(p for p in reopen.params if p.name == "reason")) == "reason"
    chase = AskStep("chase_overdue", {})
    for variant in range(3):
        said = render(invoicing, Ask("write", steps=(chase,)), variant)
        assert "every sent or part-paid invoice of my freelancers" in said.lower(), said
        assert parse(invoicing, said).steps == (chase,), said
    project = next(w for w in invoicing.workflows if w.name == "new_project")
    client = next(p for p in project.params if p.ref == "client")
    only = AskStep("new_project", {client.name: RefText("my client", ONLY), "name": "Beach houses"})
    text = render(invoicing, Ask("write", steps=(only,)), 0)
    assert "client my client" not in text and "my client" in text, text
    assert parse(invoicing, text).steps == (only,), text


def test_a_persona_keeps_the_capitals_of_a_name() -> None:
    """"I'm a Picking & Packing manager" (a department's name), but "I'm a fleet manager for London"."""
    assert persona_context("Picking & Packing manager, runs the floor") == "I'm a Picking & Packing manager"
    assert persona_context("Fleet manager for London") == "I'm a fleet manager for London"
    assert persona_context("Looks after the Bristol flats and chases referencing hard.") == \
        "I look after the Bristol flats and chase referencing hard"  # every verb agrees
    assert persona_context("Desk-side technician at the Rotterdam office") == \
        "I'm a desk-side technician at the Rotterdam office"


def test_a_dative_verb_gives_its_row_to_the_one_person_named() -> None:
    """"Assign the ticket … to Mei Lin", never "… with the technician "Mei Lin""; it reads back."""
    helpdesk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    assert _template(helpdesk, "assign_ticket") == "Assign <ticket> to <technician>"
    step = AskStep("assign_ticket", {"ticket": RefText("INC-151 Locked out or password expired"),
                                     "technician": RefText("Mei Lin")})
    text = render(helpdesk, Ask("write", steps=(step,)), 0)
    assert text.endswith(" to Mei Lin."), text
    assert parse(helpdesk, text).steps == (step,), text


def test_a_row_the_app_finds_itself_is_still_said() -> None:
    """A member's own membership, found by the app (`lookup: first(… == me)`), is left out of the
    call but said in the sentence: "Freeze my membership until July 4" (a date labelled "Until"
    is said by that word), never "freeze until …"; it reads back to the call without it."""
    gym = build_spec(load_seed(SEEDS / "suite" / "gym.yaml"))
    freeze = next(w for w in gym.workflows if w.label == "Freeze")
    step = AskStep(freeze.name, {"until": "2026-07-04"})
    for variant in range(3):
        text = render(gym, Ask("write", steps=(step,)), variant)
        assert "reeze my membership until July 4" in text and "2026" not in text, text
        assert parse(gym, text).steps[0].args == {"until": "July 4, 2026"}, text


def test_moments_a_precondition_orders_are_drawn_in_order() -> None:
    """"arrives_at > departs_at" read from the check's syntax tree moves the later moment past the
    earlier (freight's "Add leg" was refused on every draft); "not (a <= b)" orders them alike."""
    from factory.tasks.propose.values import _in_order

    freight = build_spec(load_seed(SEEDS / "suite" / "freight.yaml"))
    leg = next(w for w in freight.workflows if w.name == "add_leg")
    values = {"departs_at": "2026-06-20T10:00:00", "arrives_at": "2026-06-18T09:00:00"}
    _in_order(leg, values)
    assert values["arrives_at"] > values["departs_at"], values


def test_an_amount_is_said_in_the_currency_of_the_row_it_is_for() -> None:
    """A payout's amount has no currency of its own; on a sterling claim it is "£50", never "$50",
    and "£50" reads back to the same cents. A row of no known currency keeps dollars."""
    insurance = build_spec(load_seed(SEEDS / "suite" / "insurance.yaml"))
    pay = AskStep("issue_payout", {"claim": RefText("Vet bills claim, August 17", currency="GBP"), "amount": 5000})
    text = render(insurance, Ask("write", steps=(pay,)), 0)
    assert "£50" in text and "$" not in text, text
    assert parse(insurance, text).steps[0].args["amount"] in (5000, "£50"), text
    plain = AskStep("issue_payout", {"claim": RefText("Vet bills claim, August 17"), "amount": 5000})
    assert "$50" in render(insurance, Ask("write", steps=(plain,)), 0)


def test_a_state_in_an_entitys_label_is_not_said_of_its_rows() -> None:
    """"Open claim" is a claim: closing one is "close the claim …", never "close the open claim";
    a noun or a participle before the head stays ("Saved listing", "Business trip")."""
    from factory.tasks.language.spoken import kind_of

    assert kind_of("Open claim") == "Claim" and kind_of("Pending order") == "Order"
    assert kind_of("Saved listing") == "Saved listing" and kind_of("Business trip") == "Business trip"
    assert kind_of("Blocked dates") == "Blocked dates" and kind_of("Claim") == "Claim"
    insurance = build_spec(load_seed(SEEDS / "suite" / "insurance.yaml"))
    step = AskStep("withdraw_claim", {"claim": RefText("Storm claim, Sep 7, 2026, awaiting signoff")})
    for variant in range(3):
        text = render(insurance, Ask("write", steps=(step,)), variant)
        assert "open claim" not in text.lower() and 'claim "Storm claim, Sep 7' in text, text
        assert parse(insurance, text).steps == (step,), text


def test_a_clause_label_is_said_as_a_noun_in_a_list() -> None:
    """"Happened on" (field incident_on) is "an incident date of September 1" among the values,
    never "…, happened on September 1" nor "the incident date September 1"; it reads back."""
    insurance = build_spec(load_seed(SEEDS / "suite" / "insurance.yaml"))
    step = AskStep("file_claim", {"policy": RefText("Home 40985015"), "category": "collision",
                                  "incident_on": "2026-09-01", "description": "Side swiped while parked",
                                  "amount_claimed": 22000})
    text = render(insurance, Ask("write", steps=(step,)), 0)
    # a day this year goes without the year ("an incident date of September 1") and reads back as this year's
    assert "a collision claim of $220 for my policy" in text and "happened on" not in text, text
    assert "with an incident date of September 1 and the description" in text, text
    assert parse(insurance, text).steps[0].args["incident_on"] == "September 1, 2026", text
    later = AskStep("file_claim", {**step.args, "incident_on": "2025-12-30"})
    text = render(insurance, Ask("write", steps=(later,)), 0)
    assert "an incident date of December 30, 2025" in text, text
    assert parse(insurance, text).steps[0].args["incident_on"] == "December 30, 2025", text


def test_a_yes_no_label_led_by_a_preposition_is_a_state_after_the_noun() -> None:
    """"How many dishes are on tonight", never "dishes on tonight set to yes"; "not on tonight" for
    no; both read back."""
    restaurant = build_spec(load_seed(SEEDS / "suite" / "restaurant.yaml"))
    ent = next(e for e in restaurant.entities if any(f.type == "bool" and f.label.lower().startswith("on ")
                                                      for f in e.fields))
    field = next(f for f in ent.fields if f.type == "bool" and f.label.lower().startswith("on "))
    for value, said in (("yes", "on tonight"), ("no", "not on tonight")):
        q = Question("count", ent.name, None, None, (Cond(field.name, value),))
        text = render(restaurant, Ask("read", question=q), 0)
        assert said in text and "set to" not in text, text
        assert parse(restaurant, text).question == q, text


def test_a_number_labelled_by_a_clause_is_said_after_its_value() -> None:
    """"Adjust the allowance … to 30 with 6 carried over", never "the number carried over 6"; a
    participle before its noun ("Agreed loss") keeps its place. Both read back."""
    from factory.tasks.language.measures import value_first

    hr = build_spec(load_seed(SEEDS / "suite" / "hr_leave.yaml"))
    adjust = next(w for w in hr.workflows if w.name == "adjust_allowance")
    carried = next(p for p in adjust.params if p.name == "carried_over")
    assert value_first(carried) == "carried over"
    insurance = build_spec(load_seed(SEEDS / "suite" / "insurance.yaml"))
    approve = next(w for w in insurance.workflows if w.name == "approve_claim")
    assert all(value_first(p) is None for p in approve.params)
    subject = next(p for p in adjust.params if p.name == adjust.subject)
    others = {p.name: ("30" if p.type == "int" else RefText("Aisha Bello")) for p in adjust.params
              if p.required and p.name not in (subject.name, carried.name)}
    step = AskStep("adjust_allowance", {subject.name: RefText("Aisha Bello"), **others, carried.name: "6"})
    for variant in range(3):
        text = render(hr, Ask("write", steps=(step,)), variant)
        assert "6 carried over" in text and "number carried over" not in text, text
        assert parse(hr, text).steps[0].args[carried.name] == "6", text


def test_an_amount_is_of_its_noun_and_a_bare_preposition_label_is_said_as_itself() -> None:
    """"Assess … with an estimate of £120" (never "with the estimate £120"); a label that is only
    prepositions ("Out of") has no noun to say: "… out of 20" (never "the number out of 20"). Both
    read back."""
    cars = build_spec(load_seed(SEEDS / "suite" / "car_rental.yaml"))
    assess = AskStep("assess_damage", {"damage_report": RefText("Ford Galaxy EA22 MDT: Interior, April 29 at 9:00 AM"),
                                       "estimate": 12000})
    courses = build_spec(load_seed(SEEDS / "suite" / "courses.yaml"))
    post = AskStep("post_assignment", {"section": RefText("COMP2140-A-W26"), "title": "Quiz 2", "kind": "quiz",
                                       "points": "20", "due_at": "2026-04-02T10:00:00"})
    for variant in range(3):
        text = render(cars, Ask("write", steps=(assess,)), variant)
        assert "with an estimate of £120" in text, text
        assert parse(cars, text).steps[0].args["estimate"] == "£120", text
        said = render(courses, Ask("write", steps=(post,)), variant)
        assert " out of 20" in said and "with out of" not in said and "number out of" not in said, said
        assert parse(courses, said).steps[0].args["points"] == "20", said


def test_an_amount_stands_between_its_noun_and_the_words_after_it() -> None:
    """"Premium on top" of £30 is "a premium of £30 on top", never "a premium on top of £30"."""
    hr = build_spec(load_seed(SEEDS / "suite" / "hr_leave.yaml"))
    step = AskStep("post_open_shift", {"department": RefText("Picking & Packing"),
                                       "pattern": RefText("Early (06:00-14:00)"), "work_date": "2026-06-02",
                                       "premium": 3000})
    for variant in range(3):
        text = render(hr, Ask("write", steps=(step,)), variant)
        assert "a premium of £30 on top" in text, text
        back = parse(hr, text).steps[0]  # amounts and dates read back as said
        assert back.args["premium"] == "£30" and back.args["pattern"] == step.args["pattern"], text


def test_the_kind_of_a_thing_made_is_said_before_its_noun() -> None:
    """A required "Type" of a thing made is its modifier: "Request sick leave from …", never
    "Request leave … with the type "sick""; the sentence reads back to the same run."""
    hr = build_spec(load_seed(SEEDS / "suite" / "hr_leave.yaml"))
    wf = next(w for w in hr.workflows if w.name == "request_leave")
    record = next(p for p in wf.params if p.name == "record")
    for kind in ("sick", "compassionate", "unpaid"):
        step = AskStep("request_leave", {record.name: RefText("my employee record", ONLY), "leave_type": kind,
                                         "start_on": "2026-06-22", "end_on": "2026-06-26"})
        step = AskStep("request_leave", {k: v for k, v in step.args.items() if k != record.name})
        for variant in range(3):
            text = render(hr, Ask("write", steps=(step,)), variant)
            assert f"equest {kind} leave from June 22 to June 26" in text and "type" not in text, text
            assert parse(hr, text).steps[0].args["leave_type"] == kind, text


def test_a_seed_phrasing_says_the_person_a_thing_goes_to_as_a_person() -> None:
    """Nothing is put into a person: the recipient a seed phrasing leaves over is who it is for."""
    from factory.tasks.language.intent_extras import extras_sentence
    from factory.tasks.language.intents import intent_forms, render_intent

    tickets = build_spec(load_seed(SEEDS / "suite" / "ticketing.yaml"))
    form = next(f for f in intent_forms(tickets) if f.phrasing == "Send my tickets for {event} to a friend.")
    workflow = next(w for w in tickets.workflows if w.name == "transfer_tickets")
    tail = extras_sentence(workflow, {"recipient": RefText("Jonathan Haynes")}, tickets)
    assert tail == "It's for Jonathan Haynes."
    text = render_intent(form, {"event": "the Fennel & Rye event"}, [], tail)
    ask = parse(tickets, text)
    assert ask.steps[0].args["recipient"] == RefText("Jonathan Haynes")


@pytest.mark.parametrize("seed, entity, field, row, said", [
    ("gym", "plan", "off_peak", "Titanic Quarter Off-Peak", "off-peak only"),
    ("leases", "rent_payment", "short_paid", None, "short paid"),
])
def test_a_yes_no_label_that_says_a_quality_is_said_as_one(seed: str, entity: str, field: str, row: str | None,
                                                           said: str) -> None:
    """A label of several words that says a quality ("Off-peak only", "Short paid") is what a row
    is or is not, never a thing it has or a value set to yes; an adjective and its participle go
    before the noun as one ("my short-paid rent payments")."""
    spec = build_spec(load_seed(SEEDS / "suite" / f"{seed}.yaml"))
    for value in ("yes", "no"):
        q = Question("count", entity, conds=(Cond(field, value),))
        for variant in range(2):
            text = render(spec, Ask("read", question=q), variant)
            assert "set to" not in text and " have " not in text and f" with {said}" not in text, text
            # a yes said before the noun as one adjective ("short-paid rent payments"), a no after it
            assert (f"not {said}" if value == "no" else said) in text or (
                value == "yes" and f"{said.replace(' ', '-')} " in text), text
            assert parse(spec, text).question == q
    if row is not None:
        lookup = Question("lookup", entity, field, RefText(row))
        text = render(spec, Ask("read", question=lookup), 0)
        assert text.startswith("Is ") and text.endswith(f" {said}?"), text
        assert parse(spec, text).question == lookup


@pytest.mark.parametrize("seed, entity, field, value, said", [
    ("gym", "plan", "club", "Dublin Docklands", "How many Dublin Docklands plans are there?"),
    ("ticketing", "venue", "country", "united kingdom", "How many venues are in the United Kingdom?"),
    ("ticketing", "venue", "country", "canada", "How many venues are in Canada?"),
    ("car_rental", "damage_report", "area", "interior", "How many interior damage reports do I have?"),
])
def test_a_value_that_is_a_name_is_written_as_one(seed: str, entity: str, field: str, value: str, said: str) -> None:
    """A closed list's value that is a name stands before the noun as written ("the Dublin Docklands
    plans", never 'whose club is "Dublin Docklands"'), a named place after it ("in Canada", never
    "the united kingdom venues"); a place that is a word ("interior") stays a modifier."""
    spec = build_spec(load_seed(SEEDS / "suite" / f"{seed}.yaml"))
    q = Question("count", entity, conds=(Cond(field, f'"{value}"'),))
    assert render(spec, Ask("read", question=q), 0) == said
    assert parse(spec, said).question == q


def test_a_superlative_follows_its_row_where_the_act_ends_on_it() -> None:
    """"Hold the ticket tier for Night Market Sessions with the lowest capacity", never
    "Hold whichever ticket tier … has the lowest capacity"; read back to the same find-then-act."""
    tickets = build_spec(load_seed(SEEDS / "suite" / "ticketing.yaml"))
    for op, word in (("max", "highest"), ("min", "lowest")):
        step = AskStep("hold_tier", {}, ("tier", Question(op, "tier", "capacity",
                                                          conds=(Cond("event", '"Night Market Sessions"'),))))
        text = render(tickets, Ask("read_write", steps=(step,)), 0)
        assert text == f"Hold the ticket tier for Night Market Sessions with the {word} capacity.", text
        assert parse(tickets, text).steps[0] == step


def test_a_row_ranked_by_its_price_is_the_cheapest_or_the_most_expensive() -> None:
    """A row's one price ranks it as people rank what they buy: "Hold the most expensive ticket
    tier for …", "Which of … is the cheapest?", "Find the cheapest …, then …"; each read back."""
    tickets = build_spec(load_seed(SEEDS / "suite" / "ticketing.yaml"))
    for op, word in (("max", "most expensive"), ("min", "cheapest")):
        q = Question(op, "tier", "price", conds=(Cond("event", '"Night Market Sessions"'),))
        step = AskStep("hold_tier", {}, ("tier", q))
        text = render(tickets, Ask("read_write", steps=(step,)), 0)
        assert text == f"Hold the {word} ticket tier for Night Market Sessions.", text
        assert parse(tickets, text).steps[0] == step
        asked = render(tickets, Ask("read", question=q), 0)
        assert asked == f"Which of the ticket tiers for Night Market Sessions is the {word}?", asked
        assert parse(tickets, asked).question == q
        sold = AskStep("sell_at_door", {"buyer": RefText("Danny Sharp", mine=False), "quantity": 3}, ("tier", q))
        said = render(tickets, Ask("read_write", steps=(sold,)), 0)
        assert f"the {word} ticket tier" in said, said
        back = parse(tickets, said).steps[0]
        assert (back.workflow, back.pick, back.args["quantity"]) == ("sell_at_door", ("tier", q), "3"), back
    plans = build_spec(load_seed(SEEDS / "suite" / "gym.yaml"))  # a joining fee and a monthly fee: neither alone
    q = Question("min", "plan", "monthly_fee")
    assert "cheapest" not in render(plans, Ask("read", question=q), 0)


def test_a_text_labelled_by_a_noun_and_whom_it_is_for_is_asked_of_them() -> None:
    """A question for the requester is asked of them: ', asking the requester "…"', never "with
    the question for the requester "…"" (nor "with the question "…" for the requester")."""
    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    step = AskStep("put_on_hold", {"ticket": RefText("INC-65 (Emails bouncing back)", mine=False),
                                   "question": "Are you in the office tomorrow?"})
    for variant in range(3):
        text = render(desk, Ask("write", steps=(step,)), variant)
        assert ', asking the requester "Are you in the office tomorrow?"' in text and "question" not in text, text
        assert parse(desk, text).steps[0] == step, text


def test_a_value_of_a_scale_in_a_list_is_said_with_what_it_grades() -> None:
    """"… and high priority", never "… and the priority "high""."""
    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    step = AskStep("raise_ticket", {"issue_type": RefText("Desk phone problem", mine=False), "summary": "No dial tone",
                                    "description": "Since this morning.", "priority": "high"})
    text = render(desk, Ask("write", steps=(step,)), 0)
    assert text.endswith(' the details "Since this morning." and high priority.'), text
    assert parse(desk, text).steps[0] == step, text


def test_a_list_titled_by_a_collective_counts_its_rows_by_their_own_noun() -> None:
    """A seed titling its list "Waitlist" for rows it calls "Waitlist spot": "How many waitlist
    spots …", never "How many waitlist … are there?"; a noun that is its own plural stays."""
    from factory.tasks.language import grammar
    from factory.tasks.language.spoken import spoken_plural

    gym = build_spec(load_seed(SEEDS / "suite" / "gym.yaml"))
    assert spoken_plural(gym.entity("waitlist_entry")) == "waitlist spots"
    assert grammar.own_plural("staff") and grammar.own_plural("people") and not grammar.own_plural("waitlist")


def test_a_choice_labelled_by_a_kind_that_holds_it_is_said_in_it() -> None:
    """"the common issues in the hardware category", never 'whose category is "hardware"'."""
    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    q = Question("count", "issue_type", conds=(Cond("category", '"hardware"'),))
    for variant, said in ((0, "How many common issues are in the hardware category?"),
                          (1, "How many common issues are in the hardware category?")):
        assert render(desk, Ask("read", question=q), variant) == said
        assert parse(desk, said).question == q


def test_a_compound_adjective_before_its_noun_takes_a_hyphen() -> None:
    """"the purpose-built properties", "checked-in orders"; never "converted-house properties"."""
    from factory.tasks.language.modifiers import compound_modifier

    assert compound_modifier("purpose built") == "purpose-built"
    assert compound_modifier("checked in") == "checked-in"
    assert compound_modifier("converted house") == "converted house"
    assert compound_modifier("notice given") == "notice-given"
    assert compound_modifier("standing order") == "standing order"
    leases = build_spec(load_seed(SEEDS / "suite" / "leases.yaml"))
    q = Question("count", "property", conds=(Cond("property_type", '"purpose built"'),))
    text = render(leases, Ask("read", question=q), 1)
    assert text == "How many purpose-built properties are there?", text
    assert parse(leases, text).question == q


def test_one_text_a_seed_phrasing_leaves_over_is_told_as_a_fact() -> None:
    """'Request a refund for my tickets to the Night Market Sessions event. The reason is "…".',
    never a form's "Set the reason to …"; read back to the same run."""
    from factory.tasks.language.intent_extras import extras_sentence
    from factory.tasks.language.intents import intent_forms, render_intent

    tickets = build_spec(load_seed(SEEDS / "suite" / "ticketing.yaml"))
    form = next(f for f in intent_forms(tickets) if f.phrasing == "Request a refund for my tickets to {event}.")
    workflow = next(w for w in tickets.workflows if w.name == "request_refund")
    tail = extras_sentence(workflow, {"reason": "I booked the wrong date by mistake"}, tickets)
    assert tail == 'The reason is "I booked the wrong date by mistake".'
    text = render_intent(form, {"event": "the Night Market Sessions event"}, [], tail)
    assert parse(tickets, text).steps[0].args["reason"] == "I booked the wrong date by mistake", text


def test_the_currency_of_a_row_is_asked_as_people_ask_it() -> None:
    """"What currency is the Lakeshore Folk Revue event in?", never "What is the … event's currency?"."""
    tickets = build_spec(load_seed(SEEDS / "suite" / "ticketing.yaml"))
    q = Question("lookup", "event", "currency", RefText("Lakeshore Folk Revue"))
    for variant, said in ((0, "What currency is the Lakeshore Folk Revue event in?"),
                          (1, "Can you tell me what currency the Lakeshore Folk Revue event is in?")):
        assert render(tickets, Ask("read", question=q), variant) == said
        assert parse(tickets, said).question == q


def test_a_mark_on_the_verbs_own_scale_is_said_out_of_its_top() -> None:
    """ "Rate" with a "Rating (1-5)": "Rate my ticket … 4 out of 5", never "with a rating of 4",
    and read back to the same number; a number that is no mark of the verb (a scale-less count)
    keeps its own words."""
    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    rate = next(w for w in desk.workflows if w.label == "Rate")
    ticket = next(p for p in rate.params if p.ref)
    step = AskStep(rate.name, {ticket.name: RefText("INC-8 New starter equipment", mine=True), "rating": 4})
    text = render(desk, Ask("write", steps=(step,)), 0)
    assert text == "Rate my ticket INC-8 (New starter equipment) 4 out of 5.", text
    back = parse(desk, text).steps[0].args
    assert int(back["rating"]) == 4 and back[ticket.name].text == "INC-8 New starter equipment"
    with pytest.raises(ParseError):
        parse(desk, "Rate my ticket INC-8 (New starter equipment) 4 out of 7.")
    unscaled = desk.model_copy(deep=True)
    next(p for w in unscaled.workflows if w.label == "Rate" for p in w.params if p.name == "rating").max = None
    assert "out of" not in render(unscaled, Ask("write", steps=(step,)), 0)


def test_a_row_argument_with_a_proper_name_is_said_before_its_noun() -> None:
    """ "Sign up Jamie Osborne for the Docklands Off-Peak plan" (the phrasal verb's own
    preposition), never 'for the plan "Docklands Off-Peak"'; a person's part keeps the name after
    it ("the manager Grace Okafor"); both read back."""
    gym = build_spec(load_seed(SEEDS / "suite" / "gym.yaml"))
    step = AskStep("sign_up", {"member": RefText("Jamie Osborne"), "plan": RefText("Docklands Off-Peak")})
    text = render(gym, Ask("write", steps=(step,)), 0)
    assert text == "Sign up Jamie Osborne for the Docklands Off-Peak plan.", text
    assert {k: v.text for k, v in parse(gym, text).steps[0].args.items()} == {k: v.text for k, v in step.args.items()}
    approvals = build_spec(load_seed(SEEDS.parent / "tests" / "fixtures" / "approvals.yaml"))
    draft = AskStep("draft_report", {"title": "Taxi rides", "period_start": "2026-05-21", "period_end": "2026-05-22",
                                     "amount": 120000, "manager": RefText("Grace Okafor")})
    said = render(approvals, Ask("write", steps=(draft,)), 0)
    assert 'the manager "Grace Okafor"' in said and parse(approvals, said).steps[0].args["manager"] == RefText("Grace Okafor")


def test_a_text_that_repeats_the_rows_name_is_said_as_that() -> None:
    """A new ticket's summary that is its issue's name is "with that as the summary", never
    'Report a "Desk phone problem" with the summary "Desk phone problem"'; read back to the
    issue's name. Two rows named leave "that" unsaid, and a "that" with no row is refused."""
    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    step = AskStep("raise_ticket", {"issue_type": RefText("Desk phone problem"), "summary": "Desk phone problem",
                                    "description": "No dial tone since Monday", "priority": "high"})
    text = render(desk, Ask("write", steps=(step,)), 0)
    assert 'Report a "Desk phone problem" with that as the summary, the details' in text, text
    assert parse(desk, text).steps[0].args == step.args
    other = AskStep("raise_ticket", {**step.args, "summary": "Phone dead at reception"})
    said = render(desk, Ask("write", steps=(other,)), 0)
    assert "that as" not in said and parse(desk, said).steps[0].args == other.args


def test_things_a_row_counts_are_said_as_the_users_own() -> None:
    """"Transfer my 3 VIP tickets for Canal Street Pride Party to …", never "Transfer tickets for
    my order of 3 VIP tickets for …": the label's noun is what the order counts; read back."""
    tickets = build_spec(load_seed(SEEDS / "suite" / "ticketing.yaml"))
    for label, said in (("VIP · Canal Street Pride Party ×3", "my 3 VIP tickets for Canal Street Pride Party"),
                        ("General admission · Night Market Sessions ×1",  # one, said without its count
                         "my General admission ticket for Night Market Sessions")):
        step = AskStep("transfer_tickets", {"order": RefText(label, mine=True),
                                            "recipient": RefText("Hana Sato", mine=False)})
        for variant in range(3):
            text = render(tickets, Ask("write", steps=(step,)), variant)
            assert f"ransfer {said} to Hana Sato" in text, text
            assert "order" not in text, text
            assert parse(tickets, text).steps[0].args["order"].text == label, text


def test_words_written_on_a_row_are_asked_on_it() -> None:
    """"the note on the … tickets I transferred to Cindy Beard", never "the note of my transfer …"."""
    tickets = build_spec(load_seed(SEEDS / "suite" / "ticketing.yaml"))
    label = "General admission · Canal Street Pride Party ×3 to Cindy Beard"
    q = Question("lookup", "transfer", "note", target=RefText(label, mine=True))
    text = render(tickets, Ask("read", question=q), 0)
    assert text.startswith("What is the note on the 3 General admission tickets") and text.endswith(
        "I transferred to Cindy Beard?"), text
    assert parse(tickets, text).question.target.text == label


@pytest.mark.parametrize(("seed", "entity", "field", "value", "said"), [
    ("leases", "unit", "property", "Maple Terrace", "How many flats are at Maple Terrace?"),
    ("ticketing", "event", "venue", "The Danforth Hall", "How many events are at The Danforth Hall?"),
])
def test_rows_of_a_place_are_at_it(seed: str, entity: str, field: str, value: str, said: str) -> None:
    """What belongs to a row that is somewhere (it has a city or an address) is "at" it by its
    name: "the flats at Maple Terrace", never "the flats for the Maple Terrace property"."""
    spec = build_spec(load_seed(SEEDS / "suite" / f"{seed}.yaml"))
    q = Question("count", entity, conds=(Cond(field, f'"{value}"'),))
    texts = [render(spec, Ask("read", question=q), v) for v in range(2)]
    assert said in texts, texts
    assert all(parse(spec, t).question == q for t in texts)
    plans = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))  # an asset's model is no place
    assert " at " not in render(plans, Ask("read", question=Question("count", "asset", conds=(
        Cond("model", '"Dell Latitude 5440"'),))), 1)


def test_a_count_labelled_by_what_was_done_is_asked_of_the_things_done_to() -> None:
    """A tier's "Sold" counts tickets: "How many tickets have been sold in the VIP ticket tier for
    …?", "… has the most tickets sold", never "the number sold"; each read back."""
    tickets = build_spec(load_seed(SEEDS / "suite" / "ticketing.yaml"))
    tier = RefText("VIP · Brixton Beats Weekender", mine=False)
    for q, said in (
            (Question("lookup", "tier", "sold", target=tier),
             "How many tickets have been sold in the VIP ticket tier for Brixton Beats Weekender?"),
            (Question("min", "tier", "sold", conds=(Cond("event", '"Night Market Sessions"'),)),
             "Which of the ticket tiers for Night Market Sessions has the fewest tickets sold?")):
        text = render(tickets, Ask("read", question=q), 0)
        assert text == said, text
        want = replace(q, target=replace(tier, mine=None)) if q.target else q
        assert parse(tickets, text).question == want


def test_rows_counted_by_the_day_of_an_act_are_counted_by_the_act() -> None:
    """"How many assets were bought between …?" (the label "Bought" says the act), never "How many
    of the assets have a purchase date between …?"; a day that is no act keeps its noun."""
    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    for field, said in (("purchased_on", "How many assets were bought between "),
                        ("warranty_until", "How many of the assets have a warranty end date between ")):
        q = Question("count", "asset", conds=(Cond(field, "September 1, 2023", "September 7, 2023"),))
        text = render(desk, Ask("read", question=q), 0)
        assert text.startswith(said), text
        assert parse(desk, text).question == q


def test_a_day_labelled_by_a_state_and_its_bound_is_said_with_them_in_a_list() -> None:
    """"Relist Flat 9, Maple Terrace, available from July 8", never "… with an availability date of
    July 8" (the label "Available from"; its `say:` names the noun a lookup uses); read back."""
    leases = build_spec(load_seed(SEEDS / "suite" / "leases.yaml"))
    flat = RefText("Flat 9, Maple Terrace", mine=False)
    for args, said in (({"unit": flat, "available_from": "2026-07-08"}, "Maple Terrace, available from July 8"),
                       ({"unit": flat, "asking_rent": 72000, "available_from": "2026-07-08"},
                        "with an asking rent of £720 and available from July 8")):
        text = render(leases, Ask("write", steps=(AskStep("relist", args),)), 0)
        assert said in text, text
        back = parse(leases, text).steps[0].args
        assert back["available_from"] == "July 8, 2026" and back["unit"].text == flat.text, back


def test_a_cost_and_a_kind_are_asked_as_people_ask_them() -> None:
    """"How much did asset BWL-1044 cost?" and "What type of asset is BWL-1044?", never "What
    is the cost of …" or "the type of the asset …"; both read back."""
    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    for field, said in (("purchase_cost", "How much did asset BWL-1044 cost?"),
                        ("kind", "What type of asset is BWL-1044?")):
        q = Question("lookup", "asset", field, target=RefText("BWL-1044", mine=False))
        text = render(desk, Ask("read", question=q), 0)
        assert text == said, text
        back = parse(desk, text).question
        assert (back.field, back.target.text) == (field, "BWL-1044"), back


@pytest.mark.parametrize(("label", "mine", "said"), [
    ("Paula Mitchell: Reformer Pilates at June 16 at 7:00 AM (Dublin Docklands)", False, "Take Paula Mitchell off"),
    ("Reformer Pilates at June 16 at 7:00 AM (Dublin Docklands)", True, "Take me off"),
])
def test_a_verb_of_leaving_is_said_of_the_one_who_leaves(label: str, mine: bool, said: str) -> None:
    """"Take Paula Mitchell off the waitlist for …" said by the desk, never "Leave Paula Mitchell's
    waitlist spot for …" (which says the desk leaves it); read back to the same row."""
    gym = build_spec(load_seed(SEEDS / "suite" / "gym.yaml"))
    step = AskStep("leave_waitlist", {"entry": RefText(label, mine=mine)})
    text = render(gym, Ask("write", steps=(step,)), 0)
    assert text.startswith(f"{said} the waitlist for the Reformer Pilates class at Dublin Docklands"), text
    assert parse(gym, text).steps[0].args["entry"].text == label


def test_a_day_of_an_act_done_by_the_holder_is_no_passive() -> None:
    """An application's "Applied on" is the applicant's act ("apply for"): "How many of my
    applications were applied between …" is no English; the day keeps its noun."""
    leases = build_spec(load_seed(SEEDS / "suite" / "leases.yaml"))
    q = Question("count", "application", conds=(Cond("submitted_on", "June 4, 2026", "June 19, 2026"),), mine=True)
    text = render(leases, Ask("read", question=q), 0)
    assert "applied between" not in text and "between June 4" in text, text


def test_a_sum_made_is_said_by_its_amount_and_in_its_rows_currency() -> None:
    """"Take a payment of £40 for Lisa Duncan's … membership" (the kind left to its default), never
    "… with an amount of £40" nor the older form's "$40" for a sterling membership; read back."""
    gym = build_spec(load_seed(SEEDS / "suite" / "gym.yaml"))
    member = RefText("Lisa Duncan, Titanic Quarter Unlimited", mine=False, currency="GBP")
    for args, said in (({"membership": member, "amount": 4000}, "Take a payment of £40 for Lisa Duncan's"),
                       ({"membership": member, "amount": 4000, "kind": "joining fee"},
                        "Take a joining fee payment of £40 for Lisa Duncan's")):
        text = render(gym, Ask("write", steps=(AskStep("take_payment", args),)), 0)
        assert text.startswith(said), text
        back = parse(gym, text).steps[0].args
        assert back["amount"] == "£40" and back.get("kind") == args.get("kind"), back


def test_a_payment_is_said_by_its_sum_its_means_and_its_day_by_its_act() -> None:
    """"Pay £750 rent for my tenancy, by debit card" (a verb of paying takes the sum; "Paid by"
    gives "by"), "… leaving on July 23" ("Leaving on"), never "with an amount of £750 and the
    payment method "debit card"" nor "a leaving date of July 23"; each read back."""
    leases = build_spec(load_seed(SEEDS / "suite" / "leases.yaml"))
    lease = RefText("my tenancy", by=ONLY)
    for step, said in ((AskStep("pay_rent", {"lease": lease, "amount": 75000, "method": "debit card"}),
                        "Pay £750 rent for my tenancy, by debit card."),
                       (AskStep("give_notice", {"lease": lease, "leaving_on": "2026-07-23"}),
                        "Give notice for my tenancy, leaving on July 23.")):  # a light verb's noun is bare
        text = render(leases, Ask("write", steps=(step,)), 0)
        assert text.endswith(said), text
        back = parse(leases, text).steps[0].args
        assert all(back[k] for k in step.args if k != "lease"), back
    assert parse(leases, "Pay £750 rent for my tenancy, by debit card.").steps[0].args["method"] == "debit card"


def test_an_amount_is_asked_how_much() -> None:
    """"How much was my monthly fee payment on May 1, 2026?", never "What is the amount of …"."""
    gym = build_spec(load_seed(SEEDS / "suite" / "gym.yaml"))
    q = Question("lookup", "payment", "amount", target=RefText("Monthly fee, May 1, 2026", mine=True))
    for variant, said in ((0, "How much was my monthly fee payment on May 1, 2026?"),
                          (1, "Can you tell me how much my monthly fee payment on May 1, 2026 was?")):
        text = render(gym, Ask("read", question=q), variant)
        assert text == said, text
        assert parse(gym, text).question == replace(q, target=replace(q.target, mine=None))


def test_a_fee_or_a_price_is_asked_how_much() -> None:
    """"How much is the joining fee for the Docklands Off-Peak plan?", "How much is the rent for
    Flat 9, Maple Terrace?", never "the … plan's joining fee"; both read back."""
    for seed, entity, field, label, said in (
            ("gym", "plan", "joining_fee", "Docklands Off-Peak", "How much is the joining fee for the Docklands Off-Peak plan?"),
            ("leases", "unit", "monthly_rent", "Flat 9, Maple Terrace", "How much is the rent for Flat 9, Maple Terrace?")):
        spec = build_spec(load_seed(SEEDS / "suite" / f"{seed}.yaml"))
        q = Question("lookup", entity, field, target=RefText(label, mine=False))
        text = render(spec, Ask("read", question=q), 0)
        assert text == said, text
        assert parse(spec, text).question == replace(q, target=RefText(label))


def test_a_giving_verb_on_someones_row_gives_to_them() -> None:
    """"Offer Ashley Vega the place for the Reformer Pilates class …", never "Offer the place for
    Ashley Vega's waitlist spot for …"; read back to the same row."""
    gym = build_spec(load_seed(SEEDS / "suite" / "gym.yaml"))
    label = "Ashley Vega: Reformer Pilates at June 17 at 7:00 PM (Dublin Docklands)"
    step = AskStep("move_up", {"entry": RefText(label, mine=False)})
    text = render(gym, Ask("write", steps=(step,)), 0)
    assert text.startswith("Offer Ashley Vega the place for the Reformer Pilates class at Dublin Docklands"), text
    assert parse(gym, text).steps[0].args["entry"].text == label


def test_a_kind_from_the_apps_list_is_said_before_the_thing_made() -> None:
    """'Report a "VPN keeps dropping" problem', 'Report an "Application keeps crashing" problem',
    'Report a "Desk phone problem"' (the noun said once), never 'Report a problem for the common
    issue "…"'; each reads back to the same row."""
    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    for name, said in (("VPN keeps dropping", 'Report a "VPN keeps dropping" problem with'),
                       ("Application keeps crashing", 'Report an "Application keeps crashing" problem with'),
                       ("Desk phone problem", 'Report a "Desk phone problem" with')):
        step = AskStep("raise_ticket", {"issue_type": RefText(name), "summary": "Phone dead at reception",
                                        "description": "Since Monday", "priority": "high"})
        text = render(desk, Ask("write", steps=(step,)), 0)
        assert text.startswith(said) and "common issue" not in text, text
        assert parse(desk, text).steps[0].args == step.args


def test_a_row_known_by_its_code_takes_no_article() -> None:
    """"Take ticket INC-151", "Has ticket INC-151 been escalated?", "How many replies are there for
    ticket INC-151?", as people name a flight or a room, never "the ticket INC-151"; each reads
    back to the same row, and "my ticket INC-151" stays the user's own."""
    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    ticket = RefText("INC-151", mine=False)
    for ask, said in (
            (Ask("write", steps=(AskStep("take_ticket", {"ticket": ticket}),)), "Take ticket INC-151."),
            (Ask("read", question=Question("lookup", "ticket", "escalated", target=ticket)),
             "Has ticket INC-151 been escalated?"),
            (Ask("read", question=Question("count", "comment", conds=(Cond("ticket", '"INC-151"'),))),
             "How many replies are there for ticket INC-151?")):
        texts = [render(desk, ask, v) for v in range(2)]
        assert said in texts, texts
        back = parse(desk, said)
        assert (back.steps[0].args["ticket"] == ticket) if ask.steps else back.question.op == ask.question.op
    mine = render(desk, Ask("write", steps=(AskStep("rate", {"ticket": RefText("INC-151", mine=True), "rating": 4}),)), 0)
    assert "my ticket INC-151" in mine and parse(desk, mine).steps[0].args["ticket"] == RefText("INC-151", mine=True), mine


def test_the_one_thing_a_run_says_to_someone_is_said_saying() -> None:
    """'Reply to ticket INC-151 saying "Restarted"' and 'Ask for a refund … saying "I moved"',
    never 'with the message "…"'; read back. A run with more to say keeps its list."""
    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    step = AskStep("reply", {"ticket": RefText("INC-151", mine=False), "body": "Restarted, still the same"})
    text = render(desk, Ask("write", steps=(step,)), 0)
    assert text == 'Reply to ticket INC-151 saying "Restarted, still the same".', text
    assert parse(desk, text).steps[0] == step
    raised = render(desk, Ask("write", steps=(AskStep("raise_ticket", {
        "issue_type": RefText("VPN keeps dropping"), "summary": "VPN drops", "description": "Since Monday"}),)), 0)
    assert "saying" not in raised, raised
    # a question is asked, of whom its label says: never 'with the question "…" for the requester'
    hold = AskStep("put_on_hold", {"ticket": RefText("INC-41", mine=False), "question": "Which file were you opening?"})
    asked = render(desk, Ask("write", steps=(hold,)), 0)
    assert asked == 'Put ticket INC-41 on hold, asking the requester "Which file were you opening?".', asked
    assert parse(desk, asked).steps[0] == hold


def test_a_row_other_labels_carry_bare_is_said_bare_in_a_condition() -> None:
    """Tiers are labelled "VIP · Brixton Beats Weekender", so an event is said bare: "my orders for
    Lakeshore Folk Revue", never "… for the Lakeshore Folk Revue event"; a title with an article
    stays quoted; both read back."""
    tickets = build_spec(load_seed(SEEDS / "suite" / "ticketing.yaml"))
    for value, said in (('"Lakeshore Folk Revue"', "Which of my orders for Lakeshore Folk Revue has the highest total?"),
                        ('"The Quiet Harbour"', 'Which of my orders for the event "The Quiet Harbour" has the highest total?')):
        q = Question("max", "order", "total", conds=(Cond("event", value),), mine=True)
        text = render(tickets, Ask("read", question=q), 0)
        assert text == said, text
        assert parse(tickets, text).question == q


def test_a_state_that_cannot_stand_before_its_noun_follows_it() -> None:
    """A status that is a process ("referencing") or a thing and what was done with it ("notice
    given") follows its noun: "my applications in referencing", "my tenancies with notice given";
    a kind ("purpose built") still stands before it; all read back."""
    leases = build_spec(load_seed(SEEDS / "suite" / "leases.yaml"))
    for q, said in ((Question("count", "application", conds=(Cond("status", '"referencing"'),)),
                     "How many of my applications are in referencing?"),
                    (Question("min", "lease", "deposit", conds=(Cond("status", '"notice given"'),)),
                     "Which of my tenancies with notice given has the lowest deposit?")):
        text = render(leases, Ask("read", question=q), 0)
        assert text == said, text
        assert parse(leases, text).question == q


def test_a_sum_ranks_largest_and_a_length_is_asked_how_long() -> None:
    """"Which of my euro payments is the smallest?" (a payment's one amount), "How long is the Spin
    class at …?" (a "Length (min)"), never "has the lowest amount" or "the length of"; read back."""
    gym = build_spec(load_seed(SEEDS / "suite" / "gym.yaml"))
    smallest = Question("min", "payment", "amount", conds=(Cond("currency", '"EUR"'),), mine=True)
    session = RefText("Spin at June 8 at 6:00 PM (Belfast Titanic Quarter)", mine=False)
    for q, said in ((smallest, "Which of my euro payments is the smallest?"),
                    (Question("lookup", "class_session", "duration_min", target=session),
                     "How long is the Spin class at Belfast Titanic Quarter on June 8 at 6:00 PM?")):
        text = render(gym, Ask("read", question=q), 0)
        assert text == said, text
        assert parse(gym, text).question == (q if q.op != "lookup" else replace(q, target=replace(session, mine=None)))


def test_a_total_of_what_is_paid_is_for_the_rows() -> None:
    """"What is the total rent for the flats at Maple Terrace?", never "the total rent of the
    flats"; a cost stays "of" ("the total cost of the assets in use"); both read back."""
    leases = build_spec(load_seed(SEEDS / "suite" / "leases.yaml"))
    q = Question("sum", "unit", "monthly_rent", conds=(Cond("property", '"Maple Terrace"'),))
    text = render(leases, Ask("read", question=q), 0)
    assert text == "What is the total rent for the flats at Maple Terrace?", text
    assert parse(leases, text).question == q
    desk = build_spec(load_seed(SEEDS / "suite" / "helpdesk.yaml"))
    cost = Question("sum", "asset", "purchase_cost", conds=(Cond("status", '"in use"'),))
    assert render(desk, Ask("read", question=cost), 0) == "What is the total cost of the assets in use?"


def test_a_row_other_labels_carry_bare_is_asked_of_by_its_name() -> None:
    """"What is the status of Dublin Comedy Gala?", never "What is the Dublin Comedy Gala event's
    status?"; a title with an article stays quoted; read back to the event."""
    tickets = build_spec(load_seed(SEEDS / "suite" / "ticketing.yaml"))
    q = Question("lookup", "event", "status", target=RefText("Dublin Comedy Gala"))
    text = render(tickets, Ask("read", question=q), 0)
    assert text == "What is the status of Dublin Comedy Gala?", text
    assert parse(tickets, text).question == q
    titled = Question("lookup", "event", "status", target=RefText("The Quiet Harbour"))
    assert '"The Quiet Harbour"' in render(tickets, Ask("read", question=titled), 0)
