"""A READ's answer as data (`Answer`), and how a phone answer is written as a person would.

Resolving a question (`resolve.py`) makes an `Answer`; a draft carries it, the gates write it out
and build wrong ones of the same kind (`hard_negatives.py`). It lives here, below the language,
so a module that only holds or writes an answer does not import the resolver.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifiers.answers.match import expected_phone


@dataclass(frozen=True)
class Answer:
    """A READ's answer: the `verifiers` answer kind, the expected value, accepted aliases.

    For kind `label` (a row), `value` is the row's display label and `aliases` its further names
    that identify it alone among the acting user's rows (`label_names`)."""

    kind: str
    value: Any
    aliases: tuple[str, ...] = ()
    rows: tuple[int, ...] = ()  # the rows the answer comes from (grounding evidence)
    currency: str | None = None  # money: the ISO code of the amount (None: US dollars)


def phone_text(value: str, change_last_digit: bool = False) -> str:
    """A phone number as a person writes it: "(520) 790-7206 ext. 229" for a North American
    number, "+44 2079460958" otherwise; `change_last_digit` gives a plausible wrong number."""
    number, _, extension = expected_phone(value).partition("x")
    if change_last_digit:
        number = number[:-1] + str((int(number[-1]) + 1) % 10)
    if len(number) == 11 and number.startswith("1"):
        shown = f"({number[1:4]}) {number[4:7]}-{number[7:]}"
    else:
        shown = f"+{number}"
    return f"{shown} ext. {extension}" if extension else shown
