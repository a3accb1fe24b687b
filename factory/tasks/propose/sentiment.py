"""Whether a text a run sends agrees with the rating it sends beside it.

A review of one star that says "Spotless and right in the middle of everything." is no review a
person writes, and an agent told to write it learns that ratings and words are unrelated. The
texts a proposer draws come from the world's own rows or from the pools; the rating is drawn on its
own. This module reads a text's leaning from a small word list (words of praise, words of
complaint, a contrast such as "but" making it mixed) and says which part of a rating's range agrees
with it, so the proposer can move the rating there (the text is what the world holds; the number is
the free choice).
"""

from __future__ import annotations

import re
from typing import Literal

from factory.spec.model import ParamSpec

Leaning = Literal["good", "bad", "mixed"]

_GOOD = frozenset({
    "great", "wonderful", "lovely", "spotless", "perfect", "excellent", "amazing", "fantastic", "easy", "clean",
    "friendly", "helpful", "beautiful", "comfortable", "cosy", "cozy", "quiet", "recommend", "recommended", "love",
    "loved", "enjoyed", "superb", "brilliant", "quick", "fast", "delicious", "spacious", "thanks", "thank",
    "pleasant", "smooth", "best", "again", "stunning", "charming", "exactly", "plenty", "good", "nice", "happy",
})
_BAD = frozenset({
    "noisy", "dirty", "unreliable", "broken", "rude", "late", "slow", "disappointing", "disappointed", "smaller",
    "terrible", "awful", "bad", "poor", "worst", "cold", "smelly", "hard", "difficult", "problem", "problems",
    "issue", "issues", "never", "cancelled", "missing", "leak", "leaking", "uncomfortable", "overpriced", "crowded",
    "unhelpful", "unfriendly", "worse", "mould", "mold", "stained", "complaint", "refund", "wrong",
})
_CONTRAST = frozenset({"but", "although", "though", "however", "except"})
# Parameter names of a score a person gives (a review's stars, a rating out of ten).
_RATING_WORDS = frozenset({"rating", "stars", "star", "score", "grade"})


def leaning(text: str) -> Leaning | None:
    """How a text leans: "good" (only praise), "bad" (only complaint), "mixed" (both, or praise
    with a contrast), None when it says neither ("See you on Tuesday.")."""
    words = re.findall(r"[a-z]+", text.lower())
    good = sum(w in _GOOD for w in words)
    bad = sum(w in _BAD for w in words)
    contrast = any(w in _CONTRAST for w in words)
    if good and (bad or contrast):
        return "mixed"
    if bad:
        return "bad"
    if good:
        return "good"
    return None


def is_rating(p: ParamSpec) -> bool:
    """Whether a parameter is a score on a small whole-number scale ("rating", 1 to 5)."""
    words = set(p.name.lower().split("_")) | set(re.findall(r"[a-z]+", p.label.lower()))
    return (p.type == "int" and bool(words & _RATING_WORDS) and p.min is not None and p.max is not None
            and 2 <= p.max - p.min <= 10)


def agreeing(p: ParamSpec, lean: Leaning) -> list[int]:
    """The ratings of `p`'s range that agree with a text's leaning: the top fifth or so for praise,
    the bottom for complaint, the middle for a mixed text."""
    assert p.min is not None and p.max is not None
    low, high = int(p.min), int(p.max)
    span = high - low
    if lean == "good":
        return list(range(high - max(1, span // 4), high + 1))
    if lean == "bad":
        return list(range(low, low + max(1, span // 4) + 1))
    middle = (low + high) / 2
    return sorted({int(middle), round(middle + 0.01), int(middle) - (1 if span >= 6 else 0)} & set(range(low, high + 1)))
