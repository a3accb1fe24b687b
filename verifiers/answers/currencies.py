"""How people mark an amount of money in a given currency, and every other currency's marks.

A money answer is read in the currency its reward program expects (`currency` on an `answer`
check; US dollars when none is given): "€12.50", "12.50 EUR" and "12 euros and 50 cents" are
amounts in euros; "£12.50" in an answer that expects euros is an amount in a currency the grader
does not expect, so it asserts no amount at all. Dollar currencies other than the US dollar
(CAD, AUD) also take a bare "$" and "dollars": a Canadian user writes "$14" for CA$14.00.

Every mark here is in its folded form (`folding.fold`: case-folded, accents removed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Currency:
    """The marks of one currency: written before a number, and unit words written after one."""

    code: str
    before: tuple[str, ...]  # "$", "us$", "usd"
    major: tuple[str, ...]  # "dollars", "dollar", "bucks", "usd"
    minor: tuple[str, ...]  # "cents", "cent", "¢": the hundredth part


_CENTS = ("cents", "cent", "\u00a2")
CURRENCIES: dict[str, Currency] = {c.code: c for c in (
    Currency("USD", ("us$", "usd", "$"), ("usd", "dollars", "dollar", "bucks"), _CENTS),
    Currency("EUR", ("\u20ac", "eur"), ("eur", "euros", "euro"), _CENTS),
    Currency("GBP", ("\u00a3", "gbp"), ("gbp", "pounds", "pound", "quid"), ("pence", "penny", "p")),
    Currency("CAD", ("ca$", "c$", "cad", "$"), ("cad", "canadian dollars", "dollars", "dollar"), _CENTS),
    Currency("AUD", ("a$", "au$", "aud", "$"), ("aud", "australian dollars", "dollars", "dollar"), _CENTS),
    Currency("INR", ("\u20b9", "inr", "rs.", "rs"), ("inr", "rupees", "rupee"), ("paise", "paisa")),
)}
# Marks of currencies no reward program names: always another currency.
_FOREIGN = ("\u00a5", "\u20bd", "\u20a9", "yen", "jpy", "chf", "francs", "franc", "rmb", "yuan",
            "pesos", "peso")


# Currencies whose amounts are often written with a decimal comma ("12,50 €", "1.234,50 €").
_DECIMAL_COMMA = frozenset({"EUR"})
_COMMA_AMOUNT = re.compile(r"(?<![\d.,])(?P<whole>\d{1,3}(?:\.\d{3})+|\d+),(?P<cents>\d{2})(?![\d,])")


def decimal_point(text: str, code: str | None) -> str:
    """An answer in a currency written with a decimal comma, its amounts rewritten with a point
    ("12,50 €" → "12.50 €", "1.234,50" → "1234.50"); any other answer as it is."""
    if (code or "USD").upper() not in _DECIMAL_COMMA:
        return text
    return _COMMA_AMOUNT.sub(lambda m: f"{m['whole'].replace('.', '')}.{m['cents']}", text)


def currency(code: str | None) -> Currency:
    """The marks of an ISO code (None: US dollars); an unknown code marks by its code alone."""
    key = (code or "USD").upper()
    return CURRENCIES.get(key) or Currency(key, (key.casefold(),), (key.casefold(),), ())


def _alternation(marks: tuple[str, ...]) -> str:
    return "|".join(re.escape(m) for m in sorted(set(marks), key=len, reverse=True))


def _word(mark: str) -> str:
    """A mark as a regex: a word-like mark is not the start of a word ("eur", not "europe"), though
    a number may follow it closely ("usd5")."""
    return re.escape(mark) + (r"(?![a-z])" if mark[-1].isalnum() else "")


@cache
def before_pattern(code: str | None) -> str:
    """The marks written before an amount in this currency, longest first."""
    marks = currency(code).before
    return "|".join(_word(m) for m in sorted(set(marks), key=len, reverse=True))


@cache
def after_pattern(code: str | None) -> str:
    """The unit words written after an amount (major and minor units), longest first."""
    c = currency(code)
    return _alternation((*c.major, *c.minor))


def is_minor(code: str | None, word: str) -> bool:
    """Whether a unit word after an amount names the hundredth part ("cents", "pence")."""
    return word in currency(code).minor


def is_major(code: str | None, word: str) -> bool:
    return word in currency(code).major


@cache
def other_currency(code: str | None) -> re.Pattern[str]:
    """Marks of any currency but this one: "€5" or "5 pounds" in an answer expecting dollars."""
    own = currency(code)
    own_marks = {*own.before, *own.major, *own.minor}
    others = {m for c in CURRENCIES.values() if c.code != own.code for m in (*c.before, *c.major)}
    others = (others | set(_FOREIGN)) - own_marks
    symbols = sorted((m for m in others if not m[0].isalnum()), key=len, reverse=True)
    words = sorted((m for m in others if m[0].isalnum()), key=len, reverse=True)
    # "hk$", "nz$": one or two letters before a dollar sign, unless that is this currency's own mark.
    own_prefixed = [re.escape(m) for m in own.before if m.endswith("$") and m != "$"]
    guard = f"(?!{'|'.join(own_prefixed)})" if own_prefixed else ""
    prefixed = rf"(?<![\w]){guard}[a-z]{{1,2}}\$"
    parts = [*(re.escape(s) for s in symbols),
             r"(?<![\w])(?:" + "|".join(re.escape(w) for w in words) + r")(?![\w])", prefixed]
    return re.compile("|".join(parts))
