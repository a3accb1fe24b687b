"""Where a yes or a no sits in a folded answer.

Yes: yes, yeah, yep, yup, true, correct, right, affirmative, absolutely, certainly, definitely,
indeed, and "y" or "of course" as the whole answer. No: no, nope, nah, false, incorrect, wrong,
negative, and "n" as the whole answer. A negated yes ("not true", "I would not say yes") is not a
no: negation voids a yes/no answer (see `assertion`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifiers.answers.lexicon import NO_ALONE, NO_WORDS, YES_ALONE, YES_WORDS

_MARKER = re.compile(r"(?<![\w'])(?:" + "|".join(sorted(YES_WORDS | NO_WORDS, key=len, reverse=True))
                     + r")(?![\w'])")


@dataclass(frozen=True)
class Polarity:
    """A yes or a no found in an answer: its place and its value."""

    start: int
    end: int
    value: bool


def polarities(text: str) -> list[Polarity]:
    """Every yes and no word of a folded answer, in order."""
    if text in YES_ALONE or text in NO_ALONE:
        return [Polarity(0, len(text), text in YES_ALONE)]
    return [Polarity(m.start(), m.end(), m[0] in YES_WORDS) for m in _MARKER.finditer(text)]
