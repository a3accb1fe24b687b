"""Candidate values for witness search, and read-only access to the seed database's rows.

Candidates come from the spec alone (parameter types, bounds, defaults, today); the search that
tries them is `factory.claims.search`, answered by the oracle, never by the app.
"""

from __future__ import annotations

import datetime as dt
import itertools
import sqlite3
from pathlib import Path
from typing import Any

from factory.spec.model import ParamSpec, Spec
from factory.spec.roles import sees


def scalar_candidates(param: ParamSpec, today: dt.date) -> list[Any]:
    """Plausible values for a non-reference parameter, most likely to succeed first."""
    kind = param.type
    out: list[Any] = []
    if kind == "int":
        lo = int(param.min) if param.min is not None else None
        hi = int(param.max) if param.max is not None else None
        base = [param.default, 1, 2, 3, lo, hi, (lo + hi) // 2 if lo is not None and hi is not None else None, 5, 10]
        out = [v for v in base if v is not None and (lo is None or v >= lo) and (hi is None or v <= hi)]
    elif kind == "money":
        lo = round(param.min * 100) if param.min is not None else None
        hi = round(param.max * 100) if param.max is not None else None
        default = round(float(param.default) * 100) if param.default is not None else None
        base = [default, 2500, 1000, 100, 5000, 10000, lo, 50000]
        # then the rest of the range, up to the bound: a rule such as "a new limit at least what is
        # already spent" holds only for large amounts
        base += [250000, 1000000, (lo + hi) // 2 if lo is not None and hi is not None else None, hi, 5000000]
        out = [v for v in base if v is not None and (lo is None or v >= lo) and (hi is None or v <= hi)]
    elif kind == "date":
        out = [(today + dt.timedelta(days=d)).isoformat() for d in (7, 1, 30, 3, 60, 120, 200, 0, -1, -7)]
    elif kind == "datetime":
        out = [f"{(today + dt.timedelta(days=d)).isoformat()}T{h:02d}:00:00" for d, h in ((-1, 10), (0, 8), (1, 10), (7, 12))]
    elif kind == "enum":
        out = list(param.values or [])
        if param.default in out:
            out.remove(param.default)
            out.insert(0, param.default)
    elif kind == "bool":
        out = [True, False] if param.default is not False else [False, True]
    elif kind == "email":
        out = ["verifier@example.com"]
    elif kind == "text":
        out = ["Checked by the verifier: all good."]
    else:  # string
        text = f"Verifier {param.label}"
        if param.max_length:
            text = text[: param.max_length]
        out = [param.default] if param.default is not None else []
        out += [text, "Verifier"]
    if not param.required:
        out.append(None)
    unique: list[Any] = []
    for value in out:
        if value not in unique:
            unique.append(value)
    return unique


def range_candidates(today: dt.date, kind: str = "date") -> list[tuple[str, str]]:
    """(start, end) pairs for date-range parameters: future periods first (a stay, a trip), then
    periods that have ended or end today (an expense report's month, a statement's range). A range
    of datetimes (a car's pick-up and return) gets a time of day: a datetime input takes no bare date."""
    if kind == "datetime":
        return [(f"{a}T10:00:00", f"{b}T10:00:00") for a, b in range_candidates(today)]
    pairs = []
    for start, length in itertools.product((14, 30, 60, 7, 120, 200, 1, 3), (3, 2, 5, 1, 7)):
        begin = today + dt.timedelta(days=start)
        pairs.append((begin.isoformat(), (begin + dt.timedelta(days=length)).isoformat()))
    for end, length in itertools.product((0, 1, 7, 30, 90), (6, 13, 29, 1)):
        finish = today - dt.timedelta(days=end)
        pairs.append(((finish - dt.timedelta(days=length)).isoformat(), finish.isoformat()))
    return pairs


class SeedRows:
    """Read-only access to the seed database: which rows a user sees, and their values."""

    def __init__(self, spec: Spec, db: Path) -> None:
        self.spec = spec
        self.conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        self.conn.row_factory = sqlite3.Row

    def visible_ids(self, entity: str, user: int, limit: int = 60) -> list[int]:
        e = self.spec.entity(entity)
        if not sees(self.spec, e, user):  # the user's role does not see the entity at all
            return []
        if e.visibility == "public" or e.builtin:
            sql, args = f'SELECT id FROM "{e.table}" ORDER BY id LIMIT ?', [limit]
        else:
            owners = " OR ".join(f'"{o}_id" = ?' for o in e.owner_fields)
            sql, args = f'SELECT id FROM "{e.table}" WHERE {owners} ORDER BY id LIMIT ?', [user] * len(e.owner_fields) + [limit]
        return [r[0] for r in self.conn.execute(sql, args)]

    def row(self, entity: str, row_id: int) -> dict[str, Any]:
        found = self.conn.execute(f'SELECT * FROM "{self.spec.entity(entity).table}" WHERE id = ?', (row_id,)).fetchone()
        return dict(found) if found else {}
