"""Values in instructions: how an API value is written (`$1,250.00`, `€12.50`, `June 5, 2026`, `yes`,
`"travel"`) and how a written value is scanned and read back.

Both the renderer and the parser of the instruction language (`phrasing.py`), and the seed's own
phrasings (`intents.py`), write and read values the same way; this module is that one way.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from factory.predict.rows import date_text, enum_text
from factory.spec.labels import CURRENCIES, clock_label
from factory.spec.model import FieldSpec, ParamSpec
from factory.tasks.language.asks import ONLY, ParseError, RefText
from factory.tasks.language.spoken import money_words


def param_text(param: ParamSpec, value: Any) -> str:
    """How an instruction writes an API-level value of `param` (references are RefTexts)."""
    if isinstance(value, RefText):
        if param.ref == "user" and value.by is None and PERSON_NAME.fullmatch(value.text):
            return value.text  # a person by their name, as people write one: "the customs broker Vikram Iyer"
        return value.text if value.by == ONLY else f'"{value.text}"'
    return field_value_text(param.type, value, param.currency)


def int_text(n: int) -> str:
    """A whole number as people write one: "45,058" from five digits up, "1947" and "2026" bare."""
    return f"{n:,}" if abs(n) >= 10_000 else str(n)


def field_value_text(kind: str, value: Any, currency: str | None = None) -> str:
    """A value as written, by type: money (in `currency`, US dollars when None), dates and
    numbers bare, yes/no, the rest quoted."""
    if kind == "money":
        return money_words(int(value), currency)
    if kind == "date":
        return date_text(str(value))
    if kind == "datetime":
        return f"{date_text(str(value))} at {clock_label(str(value)[11:16])}"
    if kind == "bool":
        return "yes" if value else "no"
    if kind == "int":
        return int_text(int(value))
    if kind == "enum":
        return f'"{enum_text(str(value))}"'
    return f'"{value}"'


# Thousands groups only (`$1,250.00`), so a comma after a value ("$45, memo …") is not eaten; the
# symbol of any currency the app writes ("€12.50", "CA$5").
_SYMBOLS = "|".join(re.escape(sym) for sym in sorted(set(CURRENCIES.values()), key=len, reverse=True))
MONEY = re.compile(rf"-?(?:{_SYMBOLS})-?(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d{{1,2}})?")
# A whole number as written: five digits and more in thousands groups ("45,058"), four bare
# ("1947 kg", a year), so a comma and space after a value still ends it.
_INT = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)")
DATE = re.compile(r"([A-Z][a-z]+) (\d{1,2}), (\d{4})")
TIME = r" at \d{1,2}:\d{2}(?: [AP]M)?"  # "at 2:00 PM", and the 24-hour "at 14:00" read too
_TIME = re.compile(r" at (\d{1,2}):(\d{2})(?: ([AP]M))?")
_QUOTED = re.compile(r'"([^"]*)"')
# A person's name written bare: capitalised words ("Vikram Iyer", "Liam O'Connor", "Félix Gagnon");
# `PERSON` as a label writes one inside a sentence, of any length ("Paula Mitchell's …").
_NAME_WORD = r"[A-Z][\w'.-]*"
PERSON = rf"{_NAME_WORD}(?: {_NAME_WORD})*"
PERSON_NAME = re.compile(rf"{_NAME_WORD}(?: {_NAME_WORD}){{1,3}}")
_BOOL = re.compile(r"(yes|no)\b", re.IGNORECASE)


# The world's current year while one instruction is rendered or parsed (`seed_context.spoken_in`):
# a day of it is said without the year ("due June 4") and read back as this year's.
_THIS_YEAR: ContextVar[str | None] = ContextVar("this_year", default=None)
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DAY_ALONE = re.compile(rf"({_MONTHS}) (\d{{1,2}})\b(?!,? \d)")


@contextmanager
def this_year(year: str) -> Iterator[None]:
    """Say and read days inside a world whose current year is `year`."""
    token = _THIS_YEAR.set(year)
    try:
        yield
    finally:
        _THIS_YEAR.reset(token)


def without_this_year(kind: str, text: str) -> str:
    """A day or moment as a list says it: without the year when it is the current one ("due June 4
    at 9:00 AM"); as written outside a world's render (`this_year`)."""
    year = _THIS_YEAR.get()
    return text.replace(f", {year}", "", 1) if year and kind in ("date", "datetime") else text


# A day with or without its year, and a moment said either way round ("June 22 at 7:30 PM", or
# "7:30 PM on June 22" after a seed's own "at": "Book me into Yoga at 7:30 PM on June 22").
DAY_SAID = r"[A-Z][a-z]+ \d{1,2}(?:, \d{4})?"
_CLOCK = r"\d{1,2}:\d{2}(?: [AP]M)?"
MOMENT_SAID = rf"(?:{_CLOCK} on {DAY_SAID}|{DAY_SAID} at {_CLOCK})"
_TIME_FIRST = re.compile(rf"(?P<time>{_CLOCK}) on (?P<day>{DAY_SAID})")
_DAY_FIRST = re.compile(rf"(?P<day>{DAY_SAID}) at (?P<time>{_CLOCK})")


def time_first(text: str) -> str:
    """A moment with its time of day first ("7:30 PM on June 22"), as English says one after
    "at"; other texts as they are."""
    m = _DAY_FIRST.fullmatch(text)
    return f"{m['time']} on {m['day']}" if m else text


def day_first(text: str, year: str | None = None) -> str:
    """A day or moment as the app writes it, the day first and with its year ("June 22, 2026 at
    7:30 PM"), from any form `time_first` or `without_this_year` says; other texts as they are."""
    m = _TIME_FIRST.fullmatch(text)
    if m:
        text = f"{m['day']} at {m['time']}"
    if year and re.fullmatch(DAY_SAID + rf"(?: at {_CLOCK})?", text) and not re.search(r", \d{4}\b", text):
        day, at, clock = text.partition(" at ")
        text = f"{day}, {year}{at}{clock}"
    return text


def year_dropped(text: str, year: str) -> str:
    """A day or moment without the year when it is `year` ("June 22 at 7:30 PM")."""
    return text.replace(f", {year}", "", 1)


def scan_value(kind: str, text: str, pos: int) -> tuple[str, int]:
    """Read one value of `kind` at `pos`; return its text (quotes removed) and the end position."""
    if text.startswith('"', pos):
        m = _QUOTED.match(text, pos)
        if m:
            return m.group(1), m.end()
    for pattern in ((MONEY,) if kind == "money" else (DATE,) if kind in ("date", "datetime")
                    else (_BOOL,) if kind == "bool" else (_INT,) if kind == "int" else ()):
        m = pattern.match(text, pos)
        if m:
            end = m.end()
            if kind == "datetime":
                t = _TIME.match(text, end)
                if t:
                    end = t.end()
            return text[pos:end], end
    year = _THIS_YEAR.get()
    day = _DAY_ALONE.match(text, pos) if kind in ("date", "datetime") and year else None
    if day is not None:  # "June 4" this year (`without_this_year`): read as "June 4, 2026"
        end = day.end()
        t = _TIME.match(text, end) if kind == "datetime" else None
        if t:
            end = t.end()
        return f"{day[0]}, {year}{text[day.end():end]}", end
    raise ParseError(f"expected a {kind} value at {text[pos:pos + 30]!r}")


def parse_scalar(kind: str, text: str) -> Any:
    """An API-level value from its written form (money → cents, dates → ISO)."""
    try:
        if kind == "money":
            body = re.sub(rf"{_SYMBOLS}|,", "", text)
            return round(float(body) * 100)
        if kind in ("date", "datetime"):
            m = DATE.match(text)
            if not m:
                raise ValueError(text)
            day = dt.datetime.strptime(f"{m.group(1)} {m.group(2)} {m.group(3)}", "%B %d %Y").date()
            if kind == "date":
                return day.isoformat()
            t = _TIME.search(text)
            hour, mm = (int(t.group(1)), t.group(2)) if t else (0, "00")
            if t and t.group(3):
                hour = hour % 12 + (12 if t.group(3) == "PM" else 0)
            return f"{day.isoformat()}T{hour:02d}:{mm}:00"
        if kind == "int":  # "45,058" as written (`int_text`), never "4,5" or "1,2,3"
            if not _INT.fullmatch(text.strip()):
                raise ValueError(text)
            return int(text.replace(",", ""))
        if kind == "bool":
            return text.lower() == "yes"
    except ValueError as exc:
        raise ParseError(f"{text!r} is not a {kind} value") from exc
    return text


def priced(params: list[ParamSpec], args: dict[str, Any], subject: str | None = None) -> dict[str, ParamSpec]:
    """The parameters by name, an amount without a currency of its own in the currency another
    parameter of the run chooses ("the currency "EUR", the standard rate €120", never "$120"):
    the value that run gives, else that parameter's default; failing that, in the currency of
    the row acted on (`subject`), else of the rows the run names when they all share one."""
    chooser = currency_chooser(params)
    chosen = args.get(chooser.name, chooser.default) if chooser is not None else None
    if chooser is None:
        chosen = _row_currency(args, subject)
    out = {}
    for p in params:
        if p.type == "money" and p.currency is None and isinstance(chosen, str) and re.fullmatch(r"[A-Z]{3}", chosen):
            p = p.model_copy(update={"currency": chosen})
        out[p.name] = p
    return out


_Choice = TypeVar("_Choice", ParamSpec, FieldSpec)


def currency_chooser(params: Sequence[_Choice]) -> _Choice | None:
    """The parameter (or field) that picks the currency of the run's (or row's) amounts: an enum
    of ISO codes; None where there is none."""
    return next((p for p in params if p.type == "enum" and p.values
                 and all(re.fullmatch(r"[A-Z]{3}", v) for v in p.values)), None)


def said_by_amount(params: list[ParamSpec], args: dict[str, Any]) -> str | None:
    """The currency chooser a run's amount already says (its symbol: "a declared value of £22,000"
    says GBP), so the sentence leaves the chooser out; None when it must be said (no amount, or
    its default currency, which an amount's symbol cannot tell from the chooser left out)."""
    chooser = currency_chooser(params)
    if chooser is None or chooser.name not in args or args[chooser.name] == (chooser.default or "USD"):
        return None
    amounts = [p for p in params if p.type == "money" and p.currency is None and p.name in args]
    return chooser.name if amounts else None


def _row_currency(args: dict[str, Any], subject: str | None) -> str | None:
    """The currency of the row acted on, else the one currency every named row with one shares."""
    own = args.get(subject or "")
    if isinstance(own, RefText) and own.currency:
        return own.currency
    found = {v.currency for v in args.values() if isinstance(v, RefText) and v.currency}
    return found.pop() if len(found) == 1 else None
