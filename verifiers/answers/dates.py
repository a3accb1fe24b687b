"""Where dates and times of day sit in a folded answer, and which day a date names.

Written forms: ISO "2026-06-05" (a time after it belongs to it), "2026/06/05", US numeric
"06/05/2026", "6/5/26", "06-05-2026" (month first), "June 5, 2026", "Jun. 5th 2026",
"Friday, June 5, 2026", "5 June 2026", "the 5th of June, 2026". A date without a year takes the
expected date's year; a weekday that is not the date's own weekday makes the date invalid.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from verifiers.answers.lexicon import MONTHS, WEEKDAYS

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY = r"(?:(?P<weekday>" + "|".join(sorted(WEEKDAYS, key=len, reverse=True)) + r")\.?,?\s+)?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_ISO_TIME = r"(?:[t ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?"
PATTERNS = (
    re.compile(rf"(?<![\w/.-]){_WEEKDAY}(?P<year>\d{{4}})(?P<sep>[-/.])(?P<month>\d{{1,2}})(?P=sep)"
               rf"(?P<day>\d{{1,2}})(?!\d){_ISO_TIME}(?![\w/-]|\.\d)"),
    re.compile(rf"(?<![\w/.-]){_WEEKDAY}(?P<month>\d{{1,2}})(?P<sep>[/-])(?P<day>\d{{1,2}})(?P=sep)"
               r"(?P<year>\d{4}|\d{2})(?![\w/-]|\.\d)"),
    re.compile(rf"(?<![\w]){_WEEKDAY}(?:the\s+)?{_MONTH}\s+(?:the\s+)?{_DAY}(?![\w])"
               rf"(?:,?\s+(?:of\s+)?{_YEAR}(?![\w]))?"),
    re.compile(rf"(?<![\w]){_WEEKDAY}(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}(?![\w])"
               rf"(?:,?\s+{_YEAR}(?![\w]))?"),
)
TIME = re.compile(r"(?<![\w:])\d{1,2}(?::\d{2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?|\s*(?:am|pm|a\.m\.|p\.m\.))"
                  r"(?![\w])")


@dataclass(frozen=True)
class DateFound:
    """A date written in an answer: its place and the day as ISO text (None when it is not a
    real day, names a wrong weekday, or has no year and none can be assumed)."""

    start: int
    end: int
    value: str | None


def _day(m: re.Match[str], default_year: int | None) -> str | None:
    month_text = m["month"]
    month = int(month_text) if month_text.isdigit() else MONTHS[month_text.rstrip(".")]
    year_text = m["year"]
    if year_text is None:
        if default_year is None:
            return None
        year = default_year
    else:
        year = int(year_text) + (2000 if len(year_text) == 2 else 0)
    try:
        day = dt.date(year, month, int(m["day"]))
    except ValueError:
        return None  # 2026-02-30, 13/05/2026: not a day
    weekday = m["weekday"]
    if weekday and WEEKDAYS[weekday.rstrip(".,")] != day.weekday():
        return None  # "Monday, June 5, 2026" contradicts itself
    return day.isoformat()


def dates(text: str, default_year: int | None = None) -> list[DateFound]:
    """Every date of a folded answer, in order (the longest reading where two overlap)."""
    found: list[DateFound] = []
    for pattern in PATTERNS:
        for m in pattern.finditer(text):
            if any(f.start < m.end() and m.start() < f.end for f in found):
                continue
            found.append(DateFound(m.start(), m.end(), _day(m, default_year)))
    return sorted(found, key=lambda f: f.start)


def times(text: str) -> list[tuple[int, int]]:
    """The places of times of day ("10:30", "4 pm") in a folded answer."""
    return [(m.start(), m.end()) for m in TIME.finditer(text)]
