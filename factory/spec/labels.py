"""A row's display label as the app shows it, one rule for every reader.

The generated app fills an entity's `display` template in `runtime.label_of`; the factory fills it
again wherever it must know what a user sees (the claims' row oracle, the proposer's user view,
the effect interpreter, the seed planner and the seed checker). Each value is written the way the
app's pages write it (`templates/frontend/runtime/format.js`): money as `$1,234.56`, an enum value
in words with a capital (`Visa`, `Suspicious activity`), a date as `Jun 5, 2026`, a time as
`Jun 5, 2026, 2:30 PM`, yes/no as `Yes`/`No`. The app's template carries the same rule in its own
words (it imports nothing from the factory); `tests/unit/test_labels.py` holds the two together.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

KINDS = ("money", "enum", "date", "datetime", "bool")  # the kinds a label writes otherwise than str()
# ISO code → the symbol written before an amount (`currency:` on a money field; USD when none is given)
# How many references deep a display label follows before it shows a raw id: a transfer's label
# names its order, whose label names its tier, whose label names its event ("Early bird · Night
# Market Sessions ×2"); the app's `label_of` (templates/backend/runtime.py.j2) uses the same bound.
LABEL_DEPTH = 4
CURRENCIES = {"USD": "$", "EUR": "€", "GBP": "£", "CAD": "CA$", "AUD": "A$", "INR": "₹"}


def money_label(cents: Any, currency: str | None = None) -> str:
    """123456 → "$1,234.56"; with currency "EUR", "€1,234.56"."""
    if cents is None or cents == "":
        return ""
    value = int(cents)
    symbol = CURRENCIES.get(currency or "USD", "$")
    return f"{'-' if value < 0 else ''}{symbol}{abs(value) / 100:,.2f}"


def currency_in(text: str) -> str | None:
    """The ISO code of the symbol an amount as the app writes it starts with ("€12.50" → "EUR",
    "-CA$5.00" → "CAD"); None for US dollars or no known symbol."""
    body = text.strip().removeprefix("-")
    for code, symbol in sorted(CURRENCIES.items(), key=lambda item: -len(item[1])):
        if body.startswith(symbol):
            return None if code == "USD" else code
    return None


def enum_label(value: Any) -> str:
    """"suspicious_activity" → "Suspicious activity"."""
    text = str(value).replace("_", " ")
    return text[:1].upper() + text[1:]


def _day(value: Any) -> dt.date | None:
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def date_label(value: Any) -> str:
    """"2026-06-05" → "Jun 5, 2026"."""
    day = _day(value)
    return f"{day:%b} {day.day}, {day.year}" if day is not None else str(value)


def clock_label(hhmm: str) -> str:
    """A time of day as the app shows it: "14:00" → "2:00 PM"."""
    hour, minute = int(hhmm[:2] or 0), hhmm[3:5] or "00"
    return f"{hour % 12 or 12}:{minute} {'PM' if hour >= 12 else 'AM'}"


def datetime_label(value: Any) -> str:
    """"2026-06-05T14:30:00" → "Jun 5, 2026, 2:30 PM"."""
    try:
        moment = value if isinstance(value, dt.datetime) else dt.datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    hour = moment.hour % 12 or 12
    return f"{date_label(moment.date())}, {hour}:{moment.minute:02d} {'PM' if moment.hour >= 12 else 'AM'}"


def currency_of(field: Any, row: dict[str, Any] | None) -> str | None:
    """The currency a money field's value is in: its own `currency`, the row's `currency_field`, else
    None (USD). `field` is a seed or spec field; `row` maps columns to stored values."""
    code = getattr(field, "currency", None)
    name = getattr(field, "currency_field", None)
    if not code and name and row is not None:
        code = row.get(name)
    return None if not code or code == "USD" else str(code)  # one spelling of dollars: None


def value_label(kind: str | None, raw: Any, currency: str | None = None) -> str:
    """One stored value as a label writes it (money in `currency`, USD when None)."""
    if raw is None:
        return ""
    if kind == "money":
        return money_label(raw, currency)
    if kind == "enum":
        return enum_label(raw)
    if kind == "date":
        return date_label(raw)
    if kind == "datetime":
        return datetime_label(raw)
    if kind == "bool":
        return "Yes" if raw and raw not in ("0", "false", "False") else "No"
    return str(raw)


__all__ = ["CURRENCIES", "KINDS", "LABEL_DEPTH", "clock_label", "currency_of", "date_label", "datetime_label",
           "enum_label", "money_label", "value_label"]
