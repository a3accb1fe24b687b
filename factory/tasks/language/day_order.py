"""Days said in the order the world's people write them: "19 June" in a business that keeps its
books in pounds or euros, "June 19" in one that keeps them in dollars.

The language writes every day month first ("June 19, 2026") and reads it back so; a world whose
home currency is not the US or Canadian dollar has its instructions said day first ("19 June
2026") as the very last step of saying them (`said_in_order`), and read back by the inverse step
before anything else reads them (`read_in_order`). Only days outside quotes move: a quoted name
or text is the app's or the user's own words, kept as written. The home currency is the one most
of the seed's amounts are in (a fixed `currency`, or the default of the field that names it);
a world with no amounts writes as the US does.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from factory.spec.model import Spec
from factory.tasks.language.row_labels import _MONTHS

# The currencies of the countries that write the month first (the United States; Canada mostly).
MONTH_FIRST = frozenset(["USD", "CAD"])

_MONTH_DAY_YEAR = re.compile(rf"\b(?P<month>{_MONTHS}) (?P<day>\d{{1,2}}), (?P<year>\d{{4}})\b")
_MONTH_DAY = re.compile(rf"\b(?P<month>{_MONTHS}) (?P<day>\d{{1,2}})\b")
_DAY_MONTH_YEAR = re.compile(rf"\b(?P<day>\d{{1,2}}) (?P<month>{_MONTHS}) (?P<year>\d{{4}})\b")
_DAY_MONTH = re.compile(rf"\b(?P<day>\d{{1,2}}) (?P<month>{_MONTHS})\b")
_QUOTED = re.compile(r'("[^"]*")')

_HOMES: dict[tuple[str, str], bool] = {}


def day_first(spec: Spec) -> bool:
    """Whether `spec`'s world writes the day before the month (its home currency is none of
    `MONTH_FIRST`); once per seed."""
    key = (spec.world, spec.seed_sha256)
    if key not in _HOMES:
        found: Counter[str] = Counter()
        for ent in spec.entities:
            for f in ent.fields:
                if f.type != "money":
                    continue
                code = f.currency
                if not code and f.currency_field:
                    named = ent.field_named(f.currency_field)
                    code = str(named.default) if named.default else next(iter(named.values or []), None)
                found[code or "USD"] += 1
        home = min(found, key=lambda c: (-found[c], c)) if found else "USD"
        _HOMES[key] = home not in MONTH_FIRST
    return _HOMES[key]


def _outside_quotes(text: str, pattern: re.Pattern[str], say: str | Callable[[re.Match[str]], str]) -> str:
    parts = _QUOTED.split(text)
    return "".join(part if i % 2 else pattern.sub(say, part) for i, part in enumerate(parts))


def to_day_first(text: str) -> str:
    """ "June 19, 2026" → "19 June 2026", "June 19" → "19 June", outside quotes."""
    once = _outside_quotes(text, _MONTH_DAY_YEAR, r"\g<day> \g<month> \g<year>")
    return _outside_quotes(once, _MONTH_DAY, r"\g<day> \g<month>")


def from_day_first(text: str) -> str:
    """ "19 June 2026" → "June 19, 2026", "19 June" → "June 19", outside quotes (`to_day_first`
    read back)."""
    once = _outside_quotes(text, _DAY_MONTH_YEAR, r"\g<month> \g<day>, \g<year>")
    return _outside_quotes(once, _DAY_MONTH, r"\g<month> \g<day>")


# Two days of one month said as a range: "between 1 and 7 September 2023", "from 24 to 26 June".
_RANGE = re.compile(rf"\b(?P<w1>between|from) (?P<d1>\d{{1,2}}) (?P<m>{_MONTHS})(?P<y1> \d{{4}})? "
                    rf"(?P<w2>and|to) (?P<d2>\d{{1,2}}) (?P=m)(?P<y2> \d{{4}})?\b")
_SHARED = re.compile(rf"\b(?P<w1>between|from) (?P<d1>\d{{1,2}}) (?P<w2>and|to) (?P<d2>\d{{1,2}}) "
                     rf"(?P<m>{_MONTHS})(?P<y> \d{{4}})?\b")


def _shared_month(m: re.Match[str]) -> str:
    if m["y1"] and m["y1"] != m["y2"]:
        return m[0]
    return f"{m['w1']} {m['d1']} {m['w2']} {m['d2']} {m['m']}{m['y2'] or ''}"


def _each_month(m: re.Match[str]) -> str:
    year = m["y"] or ""  # each day with the year: it reads the same, as a range or a span
    return f"{m['w1']} {m['d1']} {m['m']}{year} {m['w2']} {m['d2']} {m['m']}{year}"


def said_in_order(spec: Spec, text: str) -> str:
    """An instruction with its days in the world's order (the last step of saying it), a month
    two days share said once ("between 1 and 7 September 2023")."""
    return _outside_quotes(to_day_first(text), _RANGE, _shared_month) if day_first(spec) else text


def read_in_order(spec: Spec, text: str) -> str:
    """An instruction with its days month first again (the first step of reading it)."""
    return from_day_first(_outside_quotes(text, _SHARED, _each_month)) if day_first(spec) else text


__all__ = ["MONTH_FIRST", "day_first", "from_day_first", "read_in_order", "said_in_order", "to_day_first"]
