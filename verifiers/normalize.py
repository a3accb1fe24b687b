"""Normalise free-text READ answers (numbers, money, dates, names, lists, yes/no) and match them.

What is accepted, by kind (an empty or missing answer never matches anything):

- number: "1234.5", "1,234.5", "-3", "+2", "−7" (Unicode minus), a number inside a sentence
  ("There are 3 bills due") and a whole-answer number word ("three", zero to twenty). When the
  text holds several different numbers the answer is ambiguous and matches nothing.
- money: as number, plus "$1,234.50", "USD 1,234.50", "US$ 5", "1234.50 USD", "12 dollars",
  "-$5", "$-5" and accounting "(12.50)". Amounts next to a currency marker win over bare numbers
  in a sentence; dates are removed first so "on June 5, 2026 you paid $20" reads 20. Values are
  in display units (dollars, not cents). Default tolerance: half a cent. European "1.234,50" is
  not understood.
- date: ISO "2026-06-05" (a time after it is ignored), "2026/06/05", "June 5, 2026",
  "Jun 5 2026", "June 5th, 2026", "Friday, June 5, 2026", "5 June 2026", "5th of June 2026", and
  "06/05/2026" or "6/5/26" read as US month/day/year. A date without a year ("June 5") takes the
  expected date's year. Several different dates in one answer match nothing.
- text: compared after Unicode compatibility folding, accent stripping, case folding, "&" read
  as "and", punctuation turned into spaces and runs of spaces collapsed; no substring matching
  ("Acme Inc" never matches "Acme Corp", nor "Acme Inc and Acme Corp"). `aliases` add spellings.
- bool: yes/no, true/false, y/n, correct/incorrect as a word of the answer ("Yes, it is"); an
  answer holding both polarities matches nothing.
- list: unordered; items split on new lines or semicolons, else on commas (commas inside
  "$1,234" or before a year in "June 5, 2026" do not split), and also tried with "and" / "&" as
  separators; "- ", "* " and "1." bullets are dropped; a JSON list (or a Python list passed in)
  is taken item by item. Items are normalised by `item_kind` and compared as SETS: repeating an
  item is not an error (answers name distinct entities; a program that cares about multiplicity
  should ask for a number).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

Answer = str | int | float | bool | Sequence[object] | None

MONTHS = {
    name: number
    for number, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
         ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
         ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
         ("december", "dec")], start=1)
    for name in names
}
NUMBER_WORDS = {w: i for i, w in enumerate([
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty"])}
YES = frozenset({"yes", "y", "true", "correct", "yep", "yeah"})
NO = frozenset({"no", "n", "false", "incorrect", "nope"})

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
DATE_PATTERNS = [
    re.compile(r"(?<!\d)(?P<year>\d{4})[-/.](?P<month>\d{1,2})[-/.](?P<day>\d{1,2})(?!\d)"),
    re.compile(r"(?<![\d/])(?P<month>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{4}|\d{2})(?![\d/])"),
    re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?:,?\s+{_YEAR}\b)?", re.IGNORECASE),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR}\b)?", re.IGNORECASE),
]
# A number not glued to a word or another number; optional sign and currency in front or behind.
MONEY_TOKEN = re.compile(
    r"(?<![\w.])(?P<sign>[-−+]\s*)?(?P<pre>(?:US\$|USD|\$)\s*)?(?P<sign2>[-−]\s*)?"
    r"(?P<num>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?![\d])"
    r"(?P<post>\s*(?:USD|dollars?)\b)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Match:
    """Whether an answer matched, what it normalised to, and why it did not match."""

    matched: bool
    normalised: object
    reason: str = ""


def _clean(text: str) -> str:
    """Compatibility-fold, trim, and drop wrapping quotes and a final full stop."""
    text = unicodedata.normalize("NFKC", text).strip()
    text = text.strip("\"'`“”‘’").strip()
    return text[:-1].strip() if text.endswith(".") and not text[-2:-1].isdigit() else text


def normalize_text(text: str) -> str:
    """Case, accent, punctuation and space-insensitive form of a name ('' when nothing is left)."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    folded = "".join(c for c in folded if not unicodedata.combining(c)).casefold()
    folded = folded.replace("&", " and ")
    return " ".join("".join(c if c.isalnum() else " " for c in folded).split())


def _strip_dates(text: str) -> str:
    for pattern in DATE_PATTERNS:
        text = pattern.sub(" ", text)
    return text


def _amounts(text: str, money: bool) -> list[tuple[float, bool]]:
    """Every number in `text` as (value, next to a currency marker)."""
    found: list[tuple[float, bool]] = []
    for m in MONEY_TOKEN.finditer(text):
        value = float(m["num"].replace(",", ""))
        negative = any(s and s.strip() in "-−" for s in (m["sign"], m["sign2"]))
        marked = bool(m["pre"] or m["post"])
        if not money and marked:
            marked = False
        found.append((-value if negative else value, marked))
    return found


def _single(values: list[float]) -> float | None:
    distinct = sorted(set(values))
    return distinct[0] if len(distinct) == 1 else None


def normalize_number(text: str) -> float | None:
    """The one number an answer states, or None (nothing, or several different numbers)."""
    cleaned = _clean(text)
    word = normalize_text(cleaned)
    if word in NUMBER_WORDS:
        return float(NUMBER_WORDS[word])
    return _single([v for v, _ in _amounts(_strip_dates(cleaned), money=False)])


def normalize_money(text: str) -> float | None:
    """The one amount an answer states, in display units, or None."""
    cleaned = _clean(text)
    accounting = re.fullmatch(r"\((.*)\)", cleaned)
    if accounting:
        inner = normalize_money(accounting[1])
        return -inner if inner is not None else None
    amounts = _amounts(_strip_dates(cleaned), money=True)
    marked = [v for v, is_marked in amounts if is_marked]
    if marked:
        return _single(marked)
    word = normalize_text(cleaned)
    if word in NUMBER_WORDS:
        return float(NUMBER_WORDS[word])
    return _single([v for v, _ in amounts])


def normalize_date(text: str, default_year: int | None = None) -> str | None:
    """The one date an answer states, as ISO YYYY-MM-DD, or None."""
    cleaned = _clean(text)
    found: set[str] = set()
    for pattern in DATE_PATTERNS:
        for m in pattern.finditer(cleaned):
            month_text = m["month"]
            month = int(month_text) if month_text.isdigit() else MONTHS[month_text.lower()]
            year_text = m["year"]
            if year_text is None:
                if default_year is None:
                    # Still a date the answer states: it makes a second dated date ambiguous.
                    found.add(f"no year: {month}/{m['day']}")
                    continue
                year = default_year
            else:
                year = int(year_text) + (2000 if len(year_text) == 2 else 0)
            try:
                found.add(date(year, month, int(m["day"])).isoformat())
            except ValueError:
                continue  # e.g. 2026-02-30 or 13/05/2026: not a date
    only = found.pop() if len(found) == 1 else None
    return only if only and not only.startswith("no year") else None


def normalize_bool(text: str) -> bool | None:
    """True for a yes, False for a no, None when the answer holds neither or both."""
    words = set(normalize_text(text).split())
    yes, no = bool(words & YES), bool(words & NO)
    return yes if yes != no else None


def _split_lines(text: str) -> list[str]:
    """Items of a list answer written one per line or separated by semicolons, or []."""
    parts = [p for p in re.split(r"[\n;]+", text) if p.strip()]
    return parts if len(parts) > 1 else []


def _split_commas(text: str, item_kind: str) -> list[str]:
    if item_kind in ("number", "money"):
        separator = r",(?!\d{3}(?!\d))|(?<!\d),"  # keep thousands separators
    elif item_kind == "date":
        separator = r",(?!\s*\d{4}\b)"  # keep "June 5, 2026"
    else:
        separator = r","
    return re.split(separator, text)


def list_candidates(answer: str | Sequence[object], item_kind: str) -> list[list[str]]:
    """The ways a list answer can be read as items; a match with any of them counts."""
    if not isinstance(answer, str):
        return [[str(item) for item in answer]]
    text = _clean(answer)
    if text.startswith("["):
        try:
            loaded = json.loads(text)
        except ValueError:
            loaded = None
        if isinstance(loaded, list):
            return [[str(item) for item in loaded]]
    text = text.strip("[]")
    strict = _split_lines(text) or _split_commas(text, item_kind)
    loose: list[str] = []
    for part in strict:
        loose += re.split(r"\s+(?:and|&)\s+|^\s*(?:and|&)\s+", part.strip())
    bullet = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
    return [[bullet.sub("", p).strip() for p in c if p.strip() and bullet.sub("", p).strip()]
            for c in (strict, loose)]


def _normalise_item(kind: str, text: str, default_year: int | None) -> object:
    if kind == "number":
        return normalize_number(text)
    if kind == "money":
        return normalize_money(text)
    if kind == "date":
        return normalize_date(text, default_year)
    if kind == "bool":
        return normalize_bool(text)
    return normalize_text(text) or None


def _expected_value(kind: str, expected: object) -> object:
    """A program's expected value in the normalised form answers are compared in."""
    if kind in ("number", "money"):
        return float(expected)  # type: ignore[arg-type]
    if kind == "text":
        return normalize_text(str(expected))
    return expected  # dates are ISO strings and bools are bools already


def _close(a: float, b: float, tolerance: float) -> bool:
    # The epsilon keeps a tolerance of 0.01 from rejecting 0.010000000000218 (binary fractions).
    return abs(a - b) <= tolerance + 1e-9


def _same_set(got: list[object], want: list[object], kind: str, tolerance: float) -> bool:
    if kind not in ("number", "money"):
        return set(got) == set(want)

    def distinct(values: list[float]) -> list[float]:
        out: list[float] = []
        for v in sorted(values):
            if not out or not _close(out[-1], v, tolerance):
                out.append(v)
        return out

    a, b = distinct(got), distinct(want)  # type: ignore[arg-type]
    return len(a) == len(b) and all(_close(x, y, tolerance) for x, y in zip(a, b))


def default_tolerance(kind: str) -> float:
    """Money tolerates half a cent of rounding; numbers must be equal."""
    return 0.005 if kind == "money" else 0.0


def match_answer(kind: str, expected: object, answer: Answer, *, tolerance: float | None = None,
                 aliases: Sequence[str] = (), item_kind: str = "text") -> Match:
    """Whether `answer` states `expected` (a value as written in a reward program)."""
    if answer is None or (isinstance(answer, str) and not answer.strip()) or (
            isinstance(answer, Sequence) and not isinstance(answer, str) and not answer):
        return Match(False, None, "no answer was given")
    if isinstance(answer, bool):
        answer = "yes" if answer else "no"
    elif isinstance(answer, int | float):
        answer = repr(answer) if isinstance(answer, float) and math.isfinite(answer) else str(answer)
    value_kind = item_kind if kind == "list" else kind
    tol = default_tolerance(value_kind) if tolerance is None else tolerance
    default_year = None
    if value_kind == "date":
        years = {date.fromisoformat(str(e)).year
                 for e in (expected if kind == "list" else [expected])}  # type: ignore[union-attr]
        default_year = years.pop() if len(years) == 1 else None
    if kind == "list":
        want = [_expected_value(item_kind, e) for e in expected]  # type: ignore[union-attr]
        readings = list_candidates(answer, item_kind)
        first: list[object] = []
        for index, items in enumerate(readings):
            got = [_normalise_item(item_kind, item, default_year) for item in items]
            if index == 0:
                first = got
            if got and None not in got and _same_set(got, want, item_kind, tol):
                return Match(True, got)
        if None in first:
            return Match(False, first, f"an item could not be read as {item_kind}")
        return Match(False, first, "the items differ from the expected ones")
    text = answer if isinstance(answer, str) else ", ".join(str(a) for a in answer)
    got = _normalise_item(kind, text, default_year)
    if got is None:
        return Match(False, None, f"the answer could not be read as one {kind} value")
    if kind in ("number", "money"):
        ok = _close(float(got), float(expected), tol)  # type: ignore[arg-type]
    elif kind == "text":
        ok = got in {normalize_text(str(expected)), *(normalize_text(a) for a in aliases)}
    else:
        ok = got == _expected_value(kind, expected)
    return Match(ok, got, "" if ok else "the answer differs from the expected value")
