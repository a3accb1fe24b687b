"""`match_answer`: whether a free-text answer asserts a reward program's expected value.

One reader per kind locates the candidate values of that kind in the folded answer and hands
them to `assertion.assess`, which decides which one (if any) the answer asserts; the asserted
value is then compared with the expected one in the kind's canonical form. Kinds:

- number, money: floats (money in display units, default tolerance half a cent, in the check's
  currency: US dollars unless it names another);
- date: ISO day (a date without a year takes the expected year);
- bool: True/False;
- phone: international digits plus extension; email: case-folded address;
- text: the expected text or one of its aliases, as a whole name;
- label: a row's display label or one of its further names (aliases);
- list: unordered items of `item_kind`, compared as sets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from verifiers.answers.assertion import Reading, Rules, Span, assess
from verifiers.answers.contacts import emails, phone_key, phones
from verifiers.answers.currencies import decimal_point, other_currency
from verifiers.answers.dates import dates, times
from verifiers.answers.folding import fold, name_tokens, normalize_text, unwrap
from verifiers.answers.lists import list_candidates
from verifiers.answers.names import find_names
from verifiers.answers.numbers import quantities
from verifiers.answers.truth import polarities

Answer = str | int | float | bool | Sequence[object] | None
# The longest answer that can assert one value (per expected item, for lists): two sentences.
MAX_CHARS = 300

_NUMBER = Rules("number", quantity=True, sub_values=True)
_MONEY = Rules("money", quantity=True, sub_values=True)
_DATE = Rules("date", date=True, sub_values=True, stray_digits=True)
_BOOL = Rules("yes/no", polarity=True)
_PHONE = Rules("phone number", stray_digits=True, exact_tail=True)
_EMAIL = Rules("email address", exact_tail=True)
_TEXT = Rules("name", name=True)
# A label such as "Quick question (Carrie Payne)" ends in a bracket of its own: a bracket right
# after a shorter name of the row ("Quick question (Bob Smith)") is another row's label.
_LABEL = Rules("name", name=True, bracket_extends=True)


@dataclass(frozen=True)
class Match:
    """Whether an answer matched, what it normalised to, and why it did not match."""

    matched: bool
    normalised: object
    reason: str = ""


def _blank(text: str, places: Sequence[tuple[int, int]]) -> str:
    """`text` with the given places overwritten by NULs (same length, so places stay valid)."""
    chars = list(text)
    for start, end in places:
        chars[start:end] = "\0" * (end - start)
    return "".join(chars)


def _dates_and_times(text: str) -> list[tuple[int, int]]:
    found = [(d.start, d.end) for d in dates(text)]
    return found + [t for t in times(text) if not any(s < t[1] and t[0] < e for s, e in found)]


def read_quantity(answer: str, money: bool, currency: str | None = None) -> Reading:
    """The number (or amount of money, in `currency`: an ISO code, None for US dollars) an
    answer asserts."""
    text = unwrap(fold(answer))
    if money:  # "12,50 €" where euros are expected
        text = decimal_point(text, currency)
    if money and len(text) > 2 and text[0] == "(" and text[-1] == ")":
        inner = read_quantity(text[1:-1], money=True, currency=currency)  # accounting: "(12.50)" is -12.50
        if isinstance(inner.value, float):
            return Reading(-inner.value)
    others = _dates_and_times(text)
    blanked = _blank(text, others)
    found = quantities(blanked, currency if money else None)
    if money:
        if other_currency(currency).search(blanked):
            return Reading(None, "the amount is in another currency")
        marked = [q for q in found if q.marked]
        if marked:  # "Main Checking ··8488 has $20": the bare number names the account
            others += [(q.start, q.end) for q in found if not q.marked]
            found = marked
    spans = [Span(q.start, q.end, q.value) for q in found]
    return assess(text, spans, _MONEY if money else _NUMBER, others)


def read_date(answer: str, default_year: int | None = None) -> Reading:
    """The day (ISO text) an answer asserts."""
    text = unwrap(fold(answer))
    found = dates(text, default_year)
    places = [(d.start, d.end) for d in found]
    clock = [t for t in times(text) if not any(s < t[1] and t[0] < e for s, e in places)]
    return assess(text, [Span(d.start, d.end, d.value) for d in found], _DATE, clock)


def read_bool(answer: str) -> Reading:
    """The yes (True) or no (False) an answer asserts."""
    text = unwrap(fold(answer))
    return assess(text, [Span(p.start, p.end, p.value) for p in polarities(text)], _BOOL)


def read_phone(answer: str) -> Reading:
    """The phone number (canonical digits and extension) an answer asserts."""
    text = unwrap(fold(answer))
    found = phones(text)
    clock = [t for t in times(text) if not any(p.start < t[1] and t[0] < p.end for p in found)]
    return assess(text, [Span(p.start, p.end, p.value) for p in found], _PHONE, clock)


def read_email(answer: str) -> Reading:
    """The email address (case-folded) an answer asserts."""
    text = unwrap(fold(answer))
    return assess(text, [Span(e.start, e.end, e.value) for e in emails(text)], _EMAIL)


def _bracketed(names: Sequence[str]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(tokens of a name, tokens of its closing bracket) for names ending in "(...)"."""
    out = []
    for name in names:
        folded = fold(name)
        if folded.endswith(")") and "(" in folded:
            inner = folded[folded.rindex("(") + 1:-1]
            tokens = tuple(t for t, _s, _e in name_tokens(folded))
            bracket = tuple(t for t, _s, _e in name_tokens(inner))
            if bracket and len(bracket) < len(tokens):
                out.append((tokens, bracket))
    return out


def read_name(answer: str, names: Sequence[str], label: bool = False) -> Reading:
    """Whether an answer asserts one of `names` (all naming the same thing): the value is True.
    A `label` (a row's name) may not be followed by a bracket of its own (see `_LABEL`)."""
    text = unwrap(fold(answer))
    wanted = [tuple(t for t, _s, _e in name_tokens(fold(n))) for n in names]
    if label:  # "Quick question (Carrie Payne)" is also said "Quick question from Carrie Payne"
        wanted += [(*n[:-len(b)], joiner, *b) for n, b in _bracketed(names)
                   for joiner in ("from", "by")]
    spans = [Span(f.start, f.end, True) for f in find_names(text, wanted)]
    if not spans:
        return Reading(None, "the answer does not name the expected value")
    return assess(text, spans, _LABEL if label else _TEXT)


def normalize_number(text: str) -> float | None:
    """The one number an answer asserts, or None."""
    value = read_quantity(text, money=False).value
    return value if isinstance(value, float) else None


def normalize_money(text: str, currency: str | None = None) -> float | None:
    """The one amount an answer asserts, in display units, or None."""
    value = read_quantity(text, money=True, currency=currency).value
    return value if isinstance(value, float) else None


def normalize_date(text: str, default_year: int | None = None) -> str | None:
    """The one date an answer asserts, as ISO YYYY-MM-DD, or None."""
    value = read_date(text, default_year).value
    return value if isinstance(value, str) else None


def normalize_bool(text: str) -> bool | None:
    """True for a yes, False for a no, None when the answer asserts neither."""
    value = read_bool(text).value
    return value if isinstance(value, bool) else None


def normalize_phone(text: str) -> str | None:
    """The one phone number an answer asserts, canonical ("15207907206x229"), or None."""
    value = read_phone(text).value
    return value if isinstance(value, str) else None


def normalize_email(text: str) -> str | None:
    """The one email address an answer asserts, case-folded, or None."""
    value = read_email(text).value
    return value if isinstance(value, str) else None


def expected_phone(expected: str) -> str:
    """A program's expected phone number in canonical form (its digits when it is not one)."""
    found = phones(fold(expected))
    if len(found) == 1:
        return found[0].value
    return phone_key(expected, None)


def default_tolerance(kind: str) -> float:
    """Money tolerates half a cent of rounding; numbers must be equal."""
    return 0.005 if kind == "money" else 0.0


def _close(a: float, b: float, tolerance: float) -> bool:
    # The epsilon keeps a tolerance of 0.01 from rejecting 0.010000000000218 (binary fractions).
    return abs(a - b) <= tolerance + 1e-9


def _read(kind: str, text: str, default_year: int | None, currency: str | None = None) -> Reading:
    if kind in ("number", "money"):
        return read_quantity(text, money=kind == "money", currency=currency)
    if kind == "date":
        return read_date(text, default_year)
    if kind == "bool":
        return read_bool(text)
    if kind == "phone":
        return read_phone(text)
    return read_email(text)


def _equal(kind: str, got: object, want: object, tolerance: float) -> bool:
    if kind in ("number", "money"):
        return _close(float(got), float(want), tolerance)  # type: ignore[arg-type]  # numbers for these kinds
    if kind == "phone":
        return got == expected_phone(str(want))
    if kind == "email":
        return got == fold(str(want)).removeprefix("mailto:").strip()
    return got == want


def _default_year(kind: str, expected: object) -> int | None:
    if kind != "date":
        return None
    values = expected if isinstance(expected, list | tuple) else [expected]
    years = {date.fromisoformat(str(e)).year for e in values}
    return years.pop() if len(years) == 1 else None


def _as_text(answer: Answer) -> str | Sequence[object]:
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if isinstance(answer, int | float):
        return repr(answer) if isinstance(answer, float) and math.isfinite(answer) else str(answer)
    return answer  # type: ignore[return-value]  # str or a sequence: None was turned away by the caller


def _item_matches(item_kind: str, item: str, want: object, tolerance: float,
                  default_year: int | None, currency: str | None) -> bool:
    if item_kind in ("text", "label"):
        return read_name(item, [str(want)]).value is True
    got = _read(item_kind, item, default_year, currency).value
    return got is not None and _equal(item_kind, got, want, tolerance)


def _match_list(expected: Sequence[object], answer: str | Sequence[object], item_kind: str,
                tolerance: float, currency: str | None) -> Match:
    year = _default_year(item_kind, list(expected))
    first: list[str] = []
    for index, items in enumerate(list_candidates(answer, item_kind)):
        if index == 0:
            first = items
        if not items:
            continue
        # Every item asserts an expected value, and every expected value is asserted (a set:
        # repeating an item is not an error).
        hits = [[j for j, want in enumerate(expected)
                 if _item_matches(item_kind, item, want, tolerance, year, currency)] for item in items]
        if all(hits) and {j for h in hits for j in h} == set(range(len(expected))):
            return Match(True, items)
    return Match(False, first, "the items differ from the expected ones (or one asserts "
                               f"no single {item_kind} value)")


def match_answer(kind: str, expected: object, answer: Answer, *, tolerance: float | None = None,
                 aliases: Sequence[str] = (), item_kind: str = "text", currency: str | None = None) -> Match:
    """Whether `answer` asserts `expected` (a value as written in a reward program); an amount of
    money is read in `currency` (an ISO code; None: US dollars)."""
    if answer is None or (isinstance(answer, str) and not answer.strip()) or (
            isinstance(answer, Sequence) and not isinstance(answer, str) and not answer):
        return Match(False, None, "no answer was given")
    given = _as_text(answer)
    size = len(given) if isinstance(given, str) else sum(len(str(a)) for a in given)
    items = len(expected) if kind == "list" and isinstance(expected, Sequence) else 1
    if size > MAX_CHARS * items:
        # A person states a value in a sentence or two; a value somewhere in pages of text is a
        # search for the grader to run, not an answer that asserts it.
        return Match(False, None, f"the answer is {size} characters long: too long to assert "
                                  f"{'a list' if kind == 'list' else 'one value'} "
                                  f"(at most {MAX_CHARS * items})")
    value_kind = item_kind if kind == "list" else kind
    tol = default_tolerance(value_kind) if tolerance is None else tolerance
    if kind == "list":
        return _match_list(list(expected), given, item_kind, tol, currency)  # type: ignore[call-overload]  # a list: loaded as one
    text = given if isinstance(given, str) else ", ".join(str(a) for a in given)
    if kind in ("text", "label"):
        names = [str(expected), *aliases]
        reading = read_name(text, names, label=kind == "label")
        if reading.value is True:
            return Match(True, normalize_text(text))
        return Match(False, normalize_text(text), reading.reason)
    reading = _read(kind, text, _default_year(kind, expected), currency)
    if reading.value is None:
        return Match(False, None, reading.reason)
    ok = _equal(kind, reading.value, expected, tol)
    return Match(ok, reading.value, "" if ok else "the answer differs from the expected value")
