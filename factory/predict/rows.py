"""Read a world database the way its users see it: visible rows, display labels, value texts.

Shared by the proposer (which names rows in instructions) and reward-gen (which resolves those
names back to rows), so both speak of a row exactly as the app's pages show it. Everything here is
read-only and ordered by primary key, so results are deterministic.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from factory.spec.labels import LABEL_DEPTH, clock_label, currency_of, money_label, value_label
from factory.spec.model import EntitySpec, FieldSpec, Spec
from factory.spec.naming import CODE
from factory.spec.roles import sees

_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
# A display that ends on a field after some words or marks ("{plan} since {started_on}").
# A label that ends on one field in brackets after the rest ("{class_type} at {starts_at} ({club})").
BRACKETED = re.compile(r"(?P<head>.*\}) \(\{(?P<last>[a-z_][a-z0-9_]*)\}\)")
_LAST_SLOT = re.compile(r"(?P<head>.*\})(?P<sep>[^{}]+)\{(?P<last>[a-z_][a-z0-9_]*)\}(?P<close>\)?)")

Row = dict[str, Any]


def connect_ro(db: Path) -> sqlite3.Connection:
    """A read-only connection (URI mode=ro): nothing here may change a database."""
    conn = sqlite3.connect(f"file:{quote(str(Path(db).resolve()))}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


def money_text(cents: int | None) -> str:
    """Money as the app shows it: $1,234.56 (cents in, display units out; `spec.labels`)."""
    return money_label(cents)


def date_text(iso: str) -> str:
    """A date as a person writes it: June 5, 2026."""
    day = dt.date.fromisoformat(iso[:10])
    return f"{day:%B} {day.day}, {day.year}"


def enum_text(value: str) -> str:
    """An enum value as words: suspicious_activity → suspicious activity."""
    return value.replace("_", " ")


@dataclass
class UserView:
    """A spec plus an open read-only database: the rows every stage-two step reasons about."""

    spec: Spec
    conn: sqlite3.Connection
    # The database is only read, so rows and visibility are computed once per entity (and user).
    _rows: dict[str, list[Row]] = field(default_factory=dict)
    _visible: dict[tuple[str, int], list[Row]] = field(default_factory=dict)
    _by_id: dict[str, dict[int, Row]] = field(default_factory=dict)
    _short: dict[tuple[str, int], tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def open(cls, spec: Spec, db: Path) -> UserView:
        return cls(spec, connect_ro(db))

    def close(self) -> None:
        self.conn.close()

    def entity(self, name: str) -> EntitySpec:
        return self.spec.entity(name)

    def field(self, entity: str, name: str) -> FieldSpec:
        return self.entity(entity).field_named(name)

    def rows(self, entity: str) -> list[Row]:
        if entity not in self._rows:
            table = self.entity(entity).table
            self._rows[entity] = [dict(r) for r in self.conn.execute(f'SELECT * FROM "{table}" ORDER BY id')]
            self._by_id[entity] = {r["id"]: r for r in self._rows[entity]}
        return self._rows[entity]

    def row(self, entity: str, row_id: int) -> Row | None:
        self.rows(entity)
        return self._by_id[entity].get(row_id)

    def visible(self, entity: str, user_id: int) -> list[Row]:
        """Rows `user_id` may read, as the app decides: public, or named by an owner field."""
        key = (entity, user_id)
        if key not in self._visible:
            spec = self.entity(entity)
            rows = self.rows(entity)
            if not sees(self.spec, spec, user_id):  # a role that does not see the entity sees none of it
                self._visible[key] = []
            elif spec.visibility == "public":
                self._visible[key] = rows
            else:
                owners = [self.field(entity, o).column for o in spec.owner_fields]
                self._visible[key] = [r for r in rows if any(r.get(c) == user_id for c in owners)]
        return self._visible[key]

    def is_public(self, entity: str) -> bool:
        return self.entity(entity).visibility == "public"

    def label(self, entity: str, row: Row, depth: int = 0, said_as: dict[str, str] | None = None,
              template: str | None = None) -> str:
        """The row's display label, filled exactly like the app's `_label` (with `said_as`, the
        slots it names filled with those texts instead; with `template`, a part of the display)."""
        spec = self.entity(entity)
        fields = {f.name: f for f in spec.fields}

        def value(match: re.Match[str]) -> str:
            name = match.group(1)
            if said_as and name in said_as:
                return said_as[name]
            f = fields.get(name)
            if f is None:
                return str(row.get(name, ""))
            raw = row.get(f.column)
            if f.type == "reference" and f.ref:
                target = self.row(f.ref, raw) if raw is not None and depth < LABEL_DEPTH else None
                return self.label(f.ref, target, depth + 1) if target else ("" if raw is None else str(raw))
            return value_label(f.type, raw, currency_of(f, row))

        return _FIELD.sub(value, spec.display if template is None else template)

    def short_labels(self, entity: str, row: Row) -> tuple[str, ...]:
        """Shorter names a person gives a row whose label is made of fields, where one names it
        alone (the caller checks): the row it belongs to, when the label opens on a row that is no
        person ("Flat 5, Kelvin House" of the tenancy "Flat 5, Kelvin House from August 10,
        2025"), and the label with such a row said by its own shorter name ("Flat 15, Kelvin House
        · July 1, 2025" of a rent payment on that tenancy). Shortest first."""
        key = (entity, row["id"])
        if key not in self._short:
            self._short[key] = self._shorter(entity, row, 0)
        return self._short[key]

    def _shorter(self, entity: str, row: Row, depth: int) -> tuple[str, ...]:
        spec = self.entity(entity)
        slots = _FIELD.findall(spec.display)
        out: list[str] = []
        lead = re.fullmatch(r"\{(?P<code>[a-z_][a-z0-9_]*)\}[ ·:,–-]+\S.*", spec.display)
        code = next((g for g in spec.fields if lead and g.name == lead["code"]), None)
        if code is not None and code.unique and code.type == "string" and CODE.fullmatch(str(row.get(code.column) or "")):
            out.append(str(row[code.column]))  # a row known by its own code: "INC-122", not "INC-122 New starter equipment"
        where = BRACKETED.fullmatch(spec.display)
        aside = next((g for g in spec.fields if where and g.name == where["last"]), None)
        if where is not None and aside is not None and aside.type not in ("date", "datetime", "reference"):
            # without what its brackets add, where that names it alone ("Spin at June 17 at 6:30 AM"
            # of "… (Dublin Docklands)": the caller checks no other row answers to it)
            out.append(self.label(entity, row, template=where["head"]))
        dated = _LAST_SLOT.fullmatch(spec.display)
        last = next((g for g in spec.fields if dated and g.name == dated["last"]), None)
        if dated is not None and last is not None and last.type in ("date", "datetime") \
                and bool(dated["close"]) == dated["sep"].endswith("("):  # "… ({submitted_on})" too
            out.append(self.label(entity, row, template=dated["head"]))  # without its day: "Flat 18, Maple Terrace"
        for i, name in enumerate(slots):
            f = next((g for g in spec.fields if g.name == name), None)
            if f is None or f.type != "reference" or not f.ref or f.ref == entity or self.entity(f.ref).builtin:
                continue
            target = self.row(f.ref, row[f.column]) if row.get(f.column) is not None else None
            if target is None or depth >= LABEL_DEPTH:
                continue
            if i == 0 and len(slots) > 1 and spec.display.startswith("{"):
                out.append(self.label(f.ref, target))  # the row it belongs to
            out += [self.label(entity, row, said_as={name: short}) for short in self._shorter(f.ref, target, depth + 1)]
        return tuple(sorted(dict.fromkeys(out), key=len))

    def value_text(self, entity: str, field: str, raw: Any, row: Row | None = None) -> str:
        """A stored value as an instruction writes it (without quotes); `row` says the currency
        of an amount whose row names it ("€12.50")."""
        f = self.field(entity, field)
        if raw is None:
            return ""
        if f.type == "reference" and f.ref:
            target = self.row(f.ref, raw)
            return self.label(f.ref, target) if target else str(raw)
        if f.type == "money":
            return money_label(raw, currency_of(f, row))
        if f.type == "date":
            return date_text(raw)
        if f.type == "datetime":
            return f"{date_text(raw)} at {clock_label(str(raw)[11:16])}"
        if f.type == "bool":
            return "yes" if raw else "no"
        if f.type == "enum":
            return enum_text(str(raw))
        return str(raw)
