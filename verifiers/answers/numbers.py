"""Where numbers and amounts of money sit in a folded answer, and what they are worth.

Numbers are written in digits ("1,234.5", "-3", "+2", ".5") or in words ("fifty-six",
"one hundred and twenty", "a hundred", "two thousand"). An amount of money is a number with a
currency's mark next to it ("$1,234.50", "US$ 5", "USD 1,234.50", "1234.5 dollars",
"50 cents", "$20 and 50 cents", "$1.2 million"; in euros "€12.50", "12 euros"); the marks of each
currency are in `currencies.py`. A number next to another currency's mark ("€5" when dollars are
expected) is an amount, but in a currency the grader does not expect.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from verifiers.answers.currencies import after_pattern, before_pattern, currency, is_major, is_minor
from verifiers.answers.lexicon import ONES, SCALES, TENS

_NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+"
_WORD_ALTERNATION = "|".join(sorted([*ONES, *TENS, *SCALES], key=len, reverse=True))
_STARTERS = frozenset([*ONES, *TENS, *SCALES, "a"])


@cache
def _digits(code: str | None) -> re.Pattern[str]:
    """A number not glued to a word or to another number; signs and the currency's marks either
    side ("$1,234.50", "-€5", "12.50 eur", "50 cents")."""
    return re.compile(
        rf"(?<![\w.,$\u20ac\u00a3\u20b9])(?P<sign>[-+]\s?)?(?P<pre>(?:{before_pattern(code)})\s?)?"
        rf"(?P<sign2>[-+]\s?)?(?P<num>{_NUMBER})(?:(?=(?:{after_pattern(code)})(?![\w]))|(?![\w]|[.,]\d))"
        r"(?P<scale>\s(?:thousand|million|billion)(?![\w]))?"
        rf"(?P<post>\s?(?:{after_pattern(code)})(?![\w]))?")


@cache
def _words(code: str | None) -> re.Pattern[str]:
    """Number words, with the currency's marks either side ("$twenty", "twelve euros")."""
    return re.compile(
        rf"(?<![\w'-])(?P<pre>(?:{before_pattern(code)})\s?)?(?P<words>(?:a\s+(?=hundred|thousand|million))?"
        rf"(?:{_WORD_ALTERNATION})(?:(?:\s+and\s+|\s+|-)(?:{_WORD_ALTERNATION}))*)(?![\w'-])"
        rf"(?P<post>\s(?:{after_pattern(code)})(?![\w]))?")


@cache
def _word_start(code: str | None) -> re.Pattern[str]:
    """Where a word starts: number words are looked for only where one of them begins (an
    alternation of thirty words tried at every character is the slowest step otherwise)."""
    return re.compile(rf"(?<![\w'-])(?:(?:{before_pattern(code)})\s?)?([a-z]+)")


@cache
def _minor_after(code: str | None) -> re.Pattern[str]:
    """The hundredth parts after a whole amount: "$20 and 50 cents", "£3 20p"."""
    minor = "|".join(re.escape(m) for m in sorted(currency(code).minor, key=len, reverse=True)) or "(?!)"
    return re.compile(rf"\s*(?:and\s+)?(?P<cents>\d{{1,2}})\s?(?:{minor})(?![\w])")


# Which kind of number word may follow which: "twenty-one", "one hundred", "a thousand", but not
# "one two" or "twenty thirty" (two numbers side by side).
_FOLLOWS: dict[str, frozenset[str]] = {
    "start": frozenset({"one", "teen", "ten", "a"}), "a": frozenset({"hundred", "scale"}),
    "one": frozenset({"hundred", "scale"}), "teen": frozenset({"hundred", "scale"}),
    "ten": frozenset({"one", "scale"}), "hundred": frozenset({"one", "teen", "ten", "scale"}),
    "scale": frozenset({"one", "teen", "ten", "a"}),
}


@dataclass(frozen=True)
class Quantity:
    """A number found in an answer: its place, its value (None when its words do not form one
    number, e.g. "three four"), and whether a mark of the currency read for stands next to it."""

    start: int
    end: int
    value: float | None
    marked: bool


def words_value(words: str) -> float | None:
    """The value of number words ("one hundred and twenty-three"), or None when they are not
    one number ("three four", "twenty twenty")."""
    tokens = [t for t in re.split(r"[\s-]+", words) if t and t != "and"]
    total, group, previous = 0, 0, "start"
    seen_scales: list[int] = []
    for token in tokens:
        if token == "a":
            kind, value = "a", 1
        elif token in ONES:
            kind, value = ("teen" if ONES[token] >= 10 or ONES[token] == 0 else "one"), ONES[token]
        elif token in TENS:
            kind, value = "ten", TENS[token]
        else:
            kind, value = ("hundred" if token == "hundred" else "scale"), SCALES[token]
        if kind not in _FOLLOWS[previous]:
            return None
        if kind in ("one", "teen", "ten", "a"):
            if token == "zero" and tokens != ["zero"]:
                return None
            group += value
        elif kind == "hundred":
            group = (group or 1) * 100
        else:
            if seen_scales and value >= min(seen_scales):
                return None  # "two thousand three thousand"
            seen_scales.append(value)
            total += (group or 1) * value
            group = 0
        previous = kind
    return float(total + group)


def quantities(text: str, code: str | None = None) -> list[Quantity]:
    """Every number of a folded answer, in order, each with whether a mark of the currency `code`
    (None: US dollars) stands next to it."""
    found: list[Quantity] = []
    for m in _digits(code).finditer(text):
        value = float(m["num"].replace(",", ""))
        if m["scale"]:
            value *= SCALES.get(m["scale"].strip(), 1_000_000_000)
        post = (m["post"] or "").strip()
        if is_minor(code, post):
            value /= 100
        negative = any(s and s.strip() == "-" for s in (m["sign"], m["sign2"]))
        end = m.end()
        if is_major(code, post) or (m["pre"] and not post):
            cents = _minor_after(code).match(text, end)
            if cents and float(m["num"].replace(",", "")).is_integer():
                value += int(cents["cents"]) / 100
                end = cents.end()
        found.append(Quantity(m.start(), end, -value if negative else value, bool(m["pre"] or post)))
    taken = [(q.start, q.end) for q in found]
    for start in (w.start() for w in _word_start(code).finditer(text) if w[1] in _STARTERS):
        spelled = _words(code).match(text, start)
        if spelled is None or any(s < spelled.end() and spelled.start() < e for s, e in taken):
            continue
        taken.append((spelled.start(), spelled.end()))
        worth = words_value(spelled["words"])
        post = (spelled["post"] or "").strip()
        end = spelled.end()
        if worth is not None and is_minor(code, post):
            worth /= 100
        elif worth is not None and is_major(code, post):
            cents = _minor_after(code).match(text, end)
            if cents:
                worth += int(cents["cents"]) / 100
                end = cents.end()
        found.append(Quantity(spelled.start(), end, worth, bool(spelled["pre"] or post)))
    return sorted(found, key=lambda q: q.start)
