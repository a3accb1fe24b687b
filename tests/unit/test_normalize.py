"""READ answer normalisation: what each kind accepts, and near misses that must not match.

The systematic table of the rules is tests/unit/answer_cases.py; this module keeps the readers'
contracts (what each `normalize_*` returns) and the adversary's answers of issue 9.
"""

from __future__ import annotations

import pytest

from verifiers.normalize import (
    list_candidates,
    match_answer,
    normalize_bool,
    normalize_date,
    normalize_email,
    normalize_money,
    normalize_number,
    normalize_phone,
    normalize_text,
)


@pytest.mark.parametrize(("text", "value"), [
    ("$1,234.50", 1234.5), ("1234.5", 1234.5), ("USD 1,234.50", 1234.5), ("1234.50 USD", 1234.5),
    ("US$ 5", 5.0), ("12 dollars", 12.0), ("-$5.25", -5.25), ("$-5.25", -5.25),
    ("(12.50)", -12.5), ("$0.99", 0.99), ("The total is $1,234.50.", 1234.5),
    ("On June 5, 2026 you paid $20.", 20.0), ("2026-06-05: $20", 20.0), ("seven", 7.0),
    ("$1,000,000", 1_000_000.0),
])
def test_money(text: str, value: float) -> None:
    assert normalize_money(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "no idea", "$5 or $6", "between 3 and 4", "1.234,50 €"])
def test_money_unreadable_or_ambiguous(text: str) -> None:
    assert normalize_money(text) is None


@pytest.mark.parametrize(("text", "value"), [
    ("3", 3.0), ("There are 3 bills due", 3.0), ("1,234", 1234.0), ("-2", -2.0), ("+4", 4.0),
    ("−7", -7.0), ("0.5", 0.5), ("three", 3.0), ("Twenty.", 20.0), ("12.", 12.0),
])
def test_number(text: str, value: float) -> None:
    assert normalize_number(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "3 or 4", "none", "account 8488 has 2 bills"])
def test_number_unreadable_or_ambiguous(text: str) -> None:
    assert normalize_number(text) is None


@pytest.mark.parametrize("text", [
    "2026-06-05", "2026-06-05T10:30:00", "2026/06/05", "June 5, 2026", "Jun 5 2026",
    "jun. 5, 2026", "June 5th, 2026", "Friday, June 5, 2026", "5 June 2026", "5th of June 2026",
    "06/05/2026", "6/5/2026", "6/5/26", "It is due on June 5, 2026.",
])
def test_dates_read_as_the_same_day(text: str) -> None:
    assert normalize_date(text) == "2026-06-05"


def test_date_without_year_takes_the_expected_year() -> None:
    assert normalize_date("June 5") is None
    assert normalize_date("June 5", default_year=2026) == "2026-06-05"


@pytest.mark.parametrize("text", [
    "", "soon", "2026-02-30", "13/45/2026", "June 5 or June 6, 2026", "2026-06-05 to 2026-06-07",
])
def test_dates_unreadable_or_ambiguous(text: str) -> None:
    assert normalize_date(text) is None


@pytest.mark.parametrize(("text", "value"), [
    ("Acme Inc.", "acme inc"), ("  ACME   inc ", "acme inc"), ("acme, inc", "acme inc"),
    ("Café & Co", "cafe and co"), ("'Metro Water'", "metro water"), ("O'Brien-Smith", "o brien smith"),
])
def test_text(text: str, value: str) -> None:
    assert normalize_text(text) == value


@pytest.mark.parametrize(("text", "value"), [
    ("yes", True), ("Yes, it is.", True), ("TRUE", True), ("y", True), ("no", False),
    ("No, it is not locked", False), ("false", False), ("yes and no", None), ("maybe", None),
])
def test_bool(text: str, value: bool | None) -> None:
    assert normalize_bool(text) is value


@pytest.mark.parametrize(("kind", "expected", "answer", "options"), [
    ("money", 1234.5, "$1,234.50", {}),
    ("money", 1234.5, "1234.5", {"tolerance": 0.01}),
    ("money", 1234.5, "USD 1,234.51", {"tolerance": 0.01}),
    ("money", 1234.5, "1234.504", {}),
    ("number", 3, "3 bills", {}),
    ("number", 2.5, "2.5", {}),
    ("date", "2026-06-05", "June 5", {}),
    ("date", "2026-06-05", "06/05/2026", {}),
    ("text", "Acme Inc", "acme inc.", {}),
    ("text", "Acme Inc", "ACME Incorporated", {"aliases": ["Acme Incorporated"]}),
    ("bool", True, "Yes", {}),
    ("bool", False, False, {}),
    ("number", 4, 4, {}),
    ("list", ["Netflix", "Spotify", "Hulu"], "hulu, Netflix and spotify", {}),
    ("list", ["Netflix", "Spotify"], "- Spotify\n- Netflix\n", {}),
    ("list", ["Netflix", "Spotify"], "Netflix; Spotify; Netflix", {}),
    ("list", ["Netflix", "Spotify"], '["Spotify", "Netflix"]', {}),
    ("list", ["Netflix", "Spotify"], ["Spotify", "netflix"], {}),
    ("list", ["Barnes and Noble", "Acme"], "Acme, Barnes & Noble", {}),
    ("list", [1234.5, 20], "$20, $1,234.50", {"item_kind": "money"}),
    ("list", ["2026-06-05", "2026-06-06"], "June 6, 2026, June 5, 2026", {"item_kind": "date"}),
])
def test_matches(kind: str, expected: object, answer: object, options: dict) -> None:
    result = match_answer(kind, expected, answer, **options)  # type: ignore[arg-type]
    assert result.matched, result


@pytest.mark.parametrize(("kind", "expected", "answer", "options"), [
    ("money", 1234.5, "1243.5", {}),
    ("money", 1234.5, "$1,234.52", {"tolerance": 0.01}),
    ("money", 1234.5, "$1,234.51", {}),
    ("money", 1234.5, "-$1,234.50", {}),
    ("money", 1234.5, "$1,234.50 or $1,243.50", {}),
    ("number", 3, "4", {}),
    ("number", 3, "3 or 4", {}),
    ("date", "2026-06-05", "June 6", {}),
    ("date", "2026-06-05", "June 5, 2025", {}),
    ("date", "2026-06-05", "05/06/2026", {}),  # US reading: May 6
    ("text", "Acme Inc", "Acme Corp", {}),
    ("text", "Acme Inc", "Acme Inc and Acme Corp", {}),
    ("text", "Acme Inc", "Acme", {}),
    ("bool", True, "no", {}),
    ("bool", True, "yes and no", {}),
    ("list", ["Netflix", "Spotify"], "Netflix", {}),
    ("list", ["Netflix", "Spotify"], "Netflix, Spotify, Hulu", {}),
    ("list", [1234.5, 20], "$20, $1,243.50", {"item_kind": "money"}),
    ("list", ["2026-06-05"], "June 6, 2026", {"item_kind": "date"}),
])
def test_near_misses_do_not_match(kind: str, expected: object, answer: object,
                                  options: dict) -> None:
    assert not match_answer(kind, expected, answer, **options).matched  # type: ignore[arg-type]


@pytest.mark.parametrize("answer", [None, "", "   ", []])
@pytest.mark.parametrize(("kind", "expected"), [
    ("text", "x"), ("number", 0), ("money", 0), ("bool", False), ("list", ["x"]),
    ("date", "2026-06-05"),
])
def test_empty_or_missing_answer_never_matches(kind: str, expected: object, answer: object) -> None:
    result = match_answer(kind, expected, answer)  # type: ignore[arg-type]
    assert not result.matched and result.reason == "no answer was given"


def test_list_splitting_keeps_thousands_and_dated_commas() -> None:
    assert list_candidates("$1,234.50, $20", "money")[0] == ["$1,234.50", "$20"]
    assert list_candidates("June 5, 2026, June 6, 2026", "date")[0] == [
        "June 5, 2026", "June 6, 2026"]
    assert list_candidates("Netflix, Spotify and Hulu", "text") == [
        ["Netflix", "Spotify and Hulu"], ["Netflix", "Spotify", "Hulu"]]


@pytest.mark.parametrize(("text", "key"), [
    ("(520) 790-7206", "15207907206"), ("520-790-7206", "15207907206"),
    ("+1 520 790 7206", "15207907206"), ("520.790.7206", "15207907206"),
    ("001-520-790-7206x229", "15207907206x229"), ("520-790-7206 ext. 229", "15207907206x229"),
    ("520-790-7206, extension 229", "15207907206x229"), ("520-790-7206 #229", "15207907206x229"),
    ("+44 20 7946 0958", "442079460958"), ("Call 790-7206.", "7907206"),
])
def test_phone(text: str, key: str) -> None:
    assert normalize_phone(text) == key


@pytest.mark.parametrize("text", ["", "12345", "520-790-7206 or 520-790-7207", "maybe 520-790-7206"])
def test_phone_unreadable_or_ambiguous(text: str) -> None:
    assert normalize_phone(text) is None


@pytest.mark.parametrize(("text", "address"), [
    ("Carrie.Payne@Example.COM", "carrie.payne@example.com"),
    ("mailto:carrie@example.com", "carrie@example.com"),
    ("Carrie Payne <carrie@example.com>", "carrie@example.com"),
    ("Her email is carrie@example.com.", "carrie@example.com"),
])
def test_email(text: str, address: str) -> None:
    assert normalize_email(text) == address


# Issue 9: what an adversary found on a built world, and right answers that scored 0.
@pytest.mark.parametrize(("kind", "expected", "answer", "options"), [
    ("number", 137, "more than 137", {}), ("number", 137, "fewer than 137", {}),
    ("number", 137, "not 137", {}), ("number", 1, "' OR 1=1; --", {}), ("number", 1, "1+1", {}),
    ("bool", True, "Not true", {}), ("bool", True, "That is not correct", {}),
    ("bool", True, "I would not say yes", {}),
    ("label", "Quick question about the proposal (Carrie Payne)",
     "Quick question about the proposal (Bob Smith)",
     {"aliases": ["Quick question about the proposal"]}),
])
def test_issue_9_adversary_scores_0(kind: str, expected: object, answer: str,
                                    options: dict) -> None:
    assert not match_answer(kind, expected, answer, **options).matched


@pytest.mark.parametrize(("kind", "expected", "answer", "options"), [
    ("text", "friend", "a friend", {}), ("text", "friend", "David Ortiz is a friend.", {}),
    ("text", "Acme Inc", "The answer is Acme Inc.", {}),
    ("phone", "5207907206", "(520) 790-7206", {}),
    ("phone", "520-790-7206 x229", "(520) 790-7206 ext. 229", {}),
    ("label", "Quick question about the proposal (Carrie Payne)",
     "Quick question about the proposal", {"aliases": ["Quick question about the proposal"]}),
    ("number", 56, "56 in total (2 in inbox, 1 archived)", {}),
    ("number", 3, "There are three of them.", {}),
])
def test_issue_9_person_written_answers_score_1(kind: str, expected: object, answer: str,
                                                options: dict) -> None:
    result = match_answer(kind, expected, answer, **options)
    assert result.matched, result


def test_an_answer_too_long_to_assert_a_value_scores_zero() -> None:
    from verifiers.normalize import match_answer

    filler = "the quick brown fox jumps over the lazy dog " * 20
    for kind, expected, value in (("number", 137, "137"), ("money", 12.5, "$12.50"),
                                  ("date", "2026-06-05", "June 5, 2026"), ("bool", True, "yes"),
                                  ("text", "friend", "friend")):
        assert match_answer(kind, expected, value).matched
        long = match_answer(kind, expected, f"{filler} {value} {filler}")
        assert not long.matched and "too long" in long.reason
    names = [f"Name number {i}" for i in range(40)]
    assert match_answer("list", names, "; ".join(names)).matched  # a long list is still a list


def test_a_value_offered_with_an_alternative_after_it_scores_zero() -> None:
    from verifiers.normalize import match_answer

    for kind, expected, value in (("phone", "5207907206", "(520) 790-7206"),
                                  ("email", "amy_clark@echomail.example", "amy_clark@echomail.example"),
                                  ("label", "Q2 planning (Amy Clark)", "Q2 planning (Amy Clark)"),
                                  ("number", 137, "137"), ("date", "2026-06-05", "June 5, 2026")):
        assert match_answer(kind, expected, value).matched
        for tail in (" or similar", " or something like that", " or the one after it", ", or similar"):
            assert not match_answer(kind, expected, value + tail).matched, value + tail
    assert not match_answer("phone", "5207907206", "(520) 790-7206 roughly").matched
    assert not match_answer("phone", "5207907206", "(520) 790-7206 and others").matched
    assert match_answer("phone", "5207907206", "(520) 790-7206 is the answer").matched


def test_a_percentage_is_not_the_count() -> None:
    from verifiers.normalize import match_answer

    for answer in ("137%", "137 %", "137 percent", "137 per cent", "137‰"):
        assert not match_answer("number", 137, answer).matched, answer
    assert not match_answer("money", 12.5, "12.5%").matched
    assert match_answer("number", 137, "137").matched
