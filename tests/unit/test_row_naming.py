"""How a sentence names a row whose label ends with its day, and how times of day are written
(issue 30, the suite's readings): the app's part of the label is quoted as the app shows it and the
day follows in words ("my rental "Ford Fiesta LN72 MVM" from May 7 at 9:00 AM"), never a quoted
label re-spelled into a form the app never shows; a time of day is written as the app writes it
("at 2:00 PM"), and the 24-hour form still reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.tasks.language.phrasing import Ask, AskStep, RefText, parse, render
from factory.tasks.language.row_names import name_of, read_name
from factory.tasks.language.values import parse_scalar

SUITE = Path(__file__).resolve().parents[2] / "seeds" / "suite"


@pytest.fixture(scope="module")
def cars() -> Spec:
    return build_spec(load_seed(SUITE / "car_rental.yaml"))


def test_a_label_ending_in_its_day_says_its_row_and_the_day(cars: Spec) -> None:
    rental = RefText("Ford Fiesta LN72 MVM, May 7 at 9:00 AM", mine=True)
    said = name_of(cars, "rental", rental, "subject")
    # the car it is for leads, then the day in the words of the date field's own label ("From"),
    # said as the span's start: a frame's own "to …" after "from May 7" would read as the change
    assert said == "my Ford Fiesta LN72 MVM rental starting May 7 at 9:00 AM"
    assert read_name(cars, "rental", said) == rental
    report = RefText("Ford Galaxy EA22 MDT: Interior, April 29 at 9:00 AM", mine=False)
    said = name_of(cars, "damage_report", report, "subject")
    assert said == 'the damage report "Ford Galaxy EA22 MDT: Interior" logged on April 29 at 9:00 AM'
    assert read_name(cars, "damage_report", said) == report


def test_a_row_named_by_its_start_is_not_read_as_the_change(cars: Spec) -> None:
    """"Extend my rental "X" from May 17 to May 28" reads as moving the end from May 17."""
    step = AskStep("extend_rental", {"rental": RefText("Vauxhall Corsa SF74 MVU, May 17 at 9:00 AM", mine=True),
                                     "new_end": "2026-05-28T10:00:00"})
    text = render(cars, Ask("write", steps=(step,)), 0)
    assert "from May 17" not in text and "Vauxhall Corsa SF74 MVU rental starting May 17 at 9:00 AM to May 28" in text, text
    assert parse(cars, text).steps[0].args["rental"] == step.args["rental"], text


def test_a_write_on_such_a_row_reads_back(cars: Spec) -> None:
    step = AskStep("check_out", {"rental": RefText("Ford Fiesta LN72 MVM, May 7 at 9:00 AM", mine=False)})
    for variant in (0, 1, 2):
        text = render(cars, Ask("write", steps=(step,)), variant)
        assert "the Ford Fiesta LN72 MVM rental starting May 7" in text, text
        assert parse(cars, text).steps == (step,), text


def test_a_span_is_said_from_its_start_and_a_label_with_its_own_words_is_quoted_whole() -> None:
    stay = build_spec(load_seed(SUITE.parent / "echostay.yaml"))
    span = next(e for e in stay.entities if e.display.endswith("{start_on} to {end_on}"))
    text = "Loft: June 3 to June 5"
    said = name_of(stay, span.name, RefText(text, mine=True), "subject")
    assert said == "my Loft blocked dates from June 3 to June 5", said  # a span is said from its start
    assert read_name(stay, span.name, said) == RefText(text)
    freight = build_spec(load_seed(SUITE / "freight.yaml"))
    issued = next(e for e in freight.entities if e.display == "{shipment}, issued {issued_on}")
    text = "PO-92206 · Antwerp to Nhava Sheva, issued May 24"
    assert f'"{text}"' in name_of(freight, issued.name, RefText(text, mine=True), "subject")


def test_a_time_of_day_is_written_as_the_app_shows_it(cars: Spec) -> None:
    step = AskStep("reserve_car", {"vehicle": RefText("Ford Fiesta LN72 MVM", mine=False),
                                   "starts_at": "2026-06-04T09:00:00", "ends_at": "2026-06-06T14:30:00"})
    text = render(cars, Ask("write", steps=(step,)), 0)
    # this year's moments go without the year, as people say them; a later year keeps its own
    assert "from June 4 at 9:00 AM to June 6 at 2:30 PM" in text, text
    later = AskStep("reserve_car", {**step.args, "ends_at": "2027-01-02T14:30:00"})
    span = render(cars, Ask("write", steps=(later,)), 0)
    assert "from June 4, 2026 at 9:00 AM to January 2, 2027 at 2:30 PM" in span, span
    assert parse(cars, span).steps[0].args["ends_at"] == "January 2, 2027 at 2:30 PM", span
    assert "14:30" not in text
    read = parse(cars, text).steps[0].args
    assert parse_scalar("datetime", read["starts_at"]) == "2026-06-04T09:00:00"
    assert parse_scalar("datetime", read["ends_at"]) == "2026-06-06T14:30:00"
    assert parse_scalar("datetime", "June 6, 2026 at 14:30") == "2026-06-06T14:30:00"
    assert parse_scalar("datetime", "June 6, 2026 at 12:05 AM") == "2026-06-06T00:05:00"
    assert parse_scalar("datetime", "June 6, 2026 at 12:05 PM") == "2026-06-06T12:05:00"


def test_a_row_named_after_someone_is_theirs_in_the_sentence() -> None:
    """"Cindy Beard's shift "May 28 Late (14:00-22:00)"", "Félix Gagnon's submission "Book review
    (HIST2150-A-W26)"", never `the shift "Cindy Beard, May 28 Late …"`; each reads back to the
    app's whole label."""
    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    courses = build_spec(load_seed(SUITE / "courses.yaml"))
    shift = next(e.name for e in hr.entities if e.display == "{worker}, {work_date} {pattern}")
    submission = next(e.name for e in courses.entities if e.display == "{assignment} by {student}")
    cases = [(hr, shift, "Cindy Beard, May 28 Late (14:00-22:00)", 'Cindy Beard\'s shift "May 28 Late (14:00-22:00)"'),
             (courses, submission, "Book review (HIST2150-A-W26) by Félix Gagnon",
              'Félix Gagnon\'s submission "Book review (HIST2150-A-W26)"')]
    for spec, entity, label, said in cases:
        ref = RefText(label, mine=False)
        assert name_of(spec, entity, ref, "subject") == said
        assert read_name(spec, entity, said) == ref
    # the user's own row is "my shift "…"" without their name (the proposer leaves it out)
    assert name_of(hr, shift, RefText("May 28 Late (14:00-22:00)", mine=True), "subject") == \
        'my shift "May 28 Late (14:00-22:00)"'


def test_a_row_that_is_a_persons_own_is_named_by_them() -> None:
    """A staff record shown as its member's name is "Jill Gay's employee record" to a manager,
    read back to the row; a department in a building is "in" it, never "whose building is"."""
    from factory.tasks.language.phrasing import Cond, Question

    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    record = next(e for e in hr.entities if e.display == "{member}")
    rate = next(f.name for f in record.fields if f.type == "money")
    q = Question("lookup", record.name, rate, RefText("Jill Gay", mine=False))
    for variant in (0, 1):
        text = render(hr, Ask("read", question=q), variant)
        assert "Jill Gay's employee record" in text and '"Jill Gay"' not in text, text
        assert parse(hr, text).question == q
    dept = Question("count", "department", conds=(Cond("building", '"unit b"'),))
    for variant in (0, 1):
        text = render(hr, Ask("read", question=dept), variant)
        assert " in the building " in text and "whose building" not in text and "have the building" not in text, text
        assert parse(hr, text).question == dept


def test_a_write_on_someones_row_reads_back() -> None:
    """"Excuse Félix Gagnon's submission "Book review (HIST2150-A-W26)" with the reason …" is read
    back to the submission (a frame's row said as someone's, not "my" or "the")."""
    courses = build_spec(load_seed(SUITE / "courses.yaml"))
    step = AskStep("excuse", {"submission": RefText("Book review (HIST2150-A-W26) by Félix Gagnon", mine=False),
                              "reason": "Documentation provided"})
    for variant in (0, 1, 2):
        text = render(courses, Ask("write", steps=(step,)), variant)
        assert 'Félix Gagnon\'s submission "Book review (HIST2150-A-W26)"' in text, text
        assert parse(courses, text).steps == (step,), text


def test_a_persons_own_record_is_never_named_like_a_place() -> None:
    """The staff record shown as its member's name stays "my employee record "Sharon Neal"" to
    Sharon, never "my Sharon Neal employee record" (a proper name before its noun is for places
    and units: "the Albion Court property")."""
    hr = build_spec(load_seed(SUITE / "hr_leave.yaml"))
    record = next(e.name for e in hr.entities if e.display == "{member}")
    said = name_of(hr, record, RefText("Sharon Neal", mine=True), "subject")
    assert said == 'my employee record "Sharon Neal"', said
    assert read_name(hr, record, said) == RefText("Sharon Neal")


def test_a_day_that_tells_the_row_alone_is_said_without_its_time(cars: Spec) -> None:
    """"logged on April 29", not "… at 9:00 AM": the resolver reads a label without its time of
    day, so the proposer leaves the time out wherever the day alone names one row."""
    from factory.tasks.language.spoken import spoken_label

    shown = "Ford Galaxy EA22 MDT: Interior, Apr 29, 2026, 9:00 AM"  # as the app labels it
    assert spoken_label(shown, "2026") == "Ford Galaxy EA22 MDT: Interior, April 29 at 9:00 AM"
    assert spoken_label(shown, "2026", timeless=True) == "Ford Galaxy EA22 MDT: Interior, April 29"
    assert spoken_label(shown, timeless=True) == "Ford Galaxy EA22 MDT: Interior, April 29, 2026"
    report = RefText("Ford Galaxy EA22 MDT: Interior, April 29", mine=False)
    said = name_of(cars, "damage_report", report, "subject")
    assert said == 'the damage report "Ford Galaxy EA22 MDT: Interior" logged on April 29'
    assert read_name(cars, "damage_report", said) == report


def test_a_label_that_says_at_before_its_moment_keeps_the_time() -> None:
    """"Spin at June 15 at 6:00 PM" keeps its time: "Spin at June 15" would be no English."""
    from factory.tasks.language.spoken import spoken_label

    shown = "Spin at Jun 15, 2026, 6:00 PM (Belfast Titanic Quarter)"
    assert spoken_label(shown, "2026", timeless=True) == "Spin at June 15 at 6:00 PM (Belfast Titanic Quarter)"
