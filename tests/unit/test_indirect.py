"""One grammar for a question asked directly and as "Can you tell me …?" (`language/indirect.py`):
each shape the lookups write reads back to its direct form, whatever the subject holds."""

from __future__ import annotations

import pytest

from factory.tasks.language.indirect import asked, direct

SHAPES = [
    ("how much", "did", "asset BWL-1044", " cost", "Can you tell me how much asset BWL-1044 cost?"),
    ("when", "was", 'the hold "Dune"', " placed", 'Can you tell me when the hold "Dune" was placed?'),
    ("when", "is", "Flat 14, The Tannery", " available from", "Can you tell me when Flat 14, The Tannery is available from?"),
    ("how long", "is", "the Spin class on 8 June", "", "Can you tell me how long the Spin class on 8 June is?"),
    ("how much", "is", "the joining fee for the Docklands Off-Peak plan", "",
     "Can you tell me how much the joining fee for the Docklands Off-Peak plan is?"),
    ("what currency", "is", 'the event "What is love"', " in", 'Can you tell me what currency the event "What is love" is in?'),
    ("what city", "is", "the Whiteladies Mews property", " in", "Can you tell me what city the Whiteladies Mews property is in?"),
]


@pytest.mark.parametrize(("wh", "aux", "subject", "rest", "told"), SHAPES)
def test_a_question_and_its_can_you_tell_me_form_are_one(wh: str, aux: str, subject: str, rest: str, told: str) -> None:
    said = asked(wh, aux, subject, rest, 0)
    assert said.startswith(wh[:1].upper()) and said.endswith("?") and f" {subject}" in said, said
    assert asked(wh, aux, subject, rest, 1) == told  # the subject before its verb; "did" gives its past
    assert direct(told) == said


def test_what_is_no_indirect_wh_question_stays_as_it_is() -> None:
    for text in ("Can you tell me the status of my booking?", "How much is the joining fee for X?",
                 "Lock my card, then tell me the balance."):
        assert direct(text) == text
