"""Days said in the order the world's people write them (issue 30, the blind readings' "US dates
in a UK business"): a world whose home currency is not the dollar says "19 June", and every such
instruction reads back to the same ask; quoted names keep the app's own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.tasks.language.day_order import day_first, from_day_first, said_in_order, to_day_first
from factory.tasks.language.phrasing import Ask, Cond, Question, RefText, parse, render

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


@pytest.fixture(scope="module")
def gym() -> Spec:
    return build_spec(load_seed(SEEDS / "suite" / "gym.yaml"))


@pytest.mark.parametrize(("said", "day_first_said"), [
    ("Book the Spin class on June 19 at 7:00 AM.", "Book the Spin class on 19 June at 7:00 AM."),
    ("between December 14, 2025 and January 19, 2026?", "between 14 December 2025 and 19 January 2026?"),
    ("from June 24 to June 26, 2026", "from 24 June to 26 June 2026"),
    ('my rental "Ford Fiesta, May 7" on May 7', 'my rental "Ford Fiesta, May 7" on 7 May'),  # a quote is kept
    ("Flat 13, Albion Court (June 11)", "Flat 13, Albion Court (11 June)"),
    ("May I have 3 tickets for May Day?", "May I have 3 tickets for May Day?"),  # no day: no date
])
def test_a_day_is_said_day_first_and_read_back(said: str, day_first_said: str) -> None:
    assert to_day_first(said) == day_first_said
    assert from_day_first(day_first_said) == said
    assert to_day_first(day_first_said) == day_first_said  # said twice, the same


def test_the_home_currency_says_the_order() -> None:
    """Pounds and euros write the day first; dollars, and a world with no amounts, the month."""
    assert day_first(build_spec(load_seed(SEEDS / "suite" / "leases.yaml")))
    assert not day_first(build_spec(load_seed(SEEDS / "echobank.yaml")))
    assert not day_first(build_spec(load_seed(SEEDS / "echomail.yaml")))


def test_an_irish_gyms_instruction_says_the_day_first_and_parses(gym: Spec) -> None:
    step_text = render(gym, Ask("read", question=Question(
        "lookup", "booking", "status", RefText("Spin at June 19, 2026 at 7:00 AM (Dublin Docklands)", mine=True))), 0)
    said = said_in_order(gym, step_text)
    assert "on 19 June" in said and "June 19" not in said, said
    assert parse(gym, said) == parse(gym, step_text)
    span = Question("count", "payment", conds=(Cond("paid_on", "May 16, 2026", "June 9, 2026"),))
    text = said_in_order(gym, render(gym, Ask("read", question=span), 0))
    assert "16 May 2026" in text and parse(gym, text).question == span, text


def test_two_days_of_one_month_say_it_once_and_read_back(gym: Spec) -> None:
    """ "between 1 and 7 September 2023", "from 24 to 26 June", never "between 1 September 2023 and
    7 September 2023"; read back to the same question."""
    span = Question("count", "payment", conds=(Cond("paid_on", "September 1, 2023", "September 7, 2023"),))
    text = said_in_order(gym, render(gym, Ask("read", question=span), 0))
    assert "between 1 and 7 September 2023" in text, text
    assert parse(gym, text).question == span
    apart = Question("count", "payment", conds=(Cond("paid_on", "December 14, 2025", "January 19, 2026"),))
    text = said_in_order(gym, render(gym, Ask("read", question=apart), 0))
    assert "between 14 December 2025 and 19 January 2026" in text and parse(gym, text).question == apart
