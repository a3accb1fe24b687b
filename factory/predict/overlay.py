"""The database as a prediction sees it: read-only SQLite rows under an overlay of changes.

`Rows` loads each table on first use (base rows shared between predictions on one unchanged file),
takes the changes the interpreter's steps make, and hands them back as a `Prediction` in storage
form. `Ref` is the interpreter's reference value: a row of an entity, checked on use.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from factory.errors import PredictionError
from factory.spec.model import Spec
from factory.spec.roles import sees


@dataclass
class Prediction:
    """The database after the steps, as changes in storage form (cents, ISO text, 0/1)."""

    updates: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    inserts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    deletes: list[tuple[str, int]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    # (step index from 0, id of the first failing precondition): the check the app answers 409 with
    refusals: list[tuple[int, str]] = field(default_factory=list)
    # (step index from 0, effect index from 0, what happened): `when` held or not ("when:true",
    # "when:false") and how many rows a `for_each` selected ("rows:3"), so claims can pick calls
    # that take each branch and reach several rows
    trace: list[tuple[int, int, str]] = field(default_factory=list)
    # per refusal, the text the app answers with (a message's `{expression}` holes filled in)
    messages: list[str] = field(default_factory=list)



@dataclass(frozen=True)
class Ref:
    """A reference value: a row of `entity` (whether it exists is checked on use)."""

    entity: str
    id: int


def ref_id(value: Any) -> Any:
    """A reference as the id column stores it; any other value as it is."""
    return value.id if isinstance(value, Ref) else value


def stored(value: Any) -> Any:
    """A Python value as SQLAlchemy stores it in SQLite."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Ref):
        return value.id
    return value


def _loaded(kind: str, raw: Any) -> Any:
    """A stored value as the app's models read it back."""
    if raw is None:
        return None
    if kind == "bool":
        return bool(raw)
    if kind == "date" and isinstance(raw, str):
        return dt.date.fromisoformat(raw)
    if kind == "datetime" and isinstance(raw, str):
        return dt.datetime.fromisoformat(raw)
    return raw


# Loaded base tables: (path, (size, mtime), entity) → rows by id. Never mutated once stored.
_BASE: dict[tuple[str, tuple[int, int], str], dict[int, dict[str, Any]]] = {}


class Rows:
    """The database as predicted so far: read-only SQLite rows under an overlay of changes."""

    def __init__(self, spec: Spec, db: Path) -> None:
        self.spec = spec
        self.entities = {e.name: e for e in spec.entities}
        self.path = str(db.resolve())
        stat = db.stat()
        self.stamp = (stat.st_size, stat.st_mtime_ns)
        self.conn = sqlite3.connect(f"file:{quote(self.path)}?mode=ro", uri=True)
        self.tables: dict[str, dict[int, dict[str, Any]]] = {}
        self.assigned: dict[tuple[str, int], dict[str, Any]] = {}  # (entity, id) → column → value
        self.created: dict[tuple[str, int], None] = {}  # insertion-ordered set
        self.deleted: list[tuple[str, int]] = []

    def close(self) -> None:
        self.conn.close()

    def table(self, entity: str) -> dict[int, dict[str, Any]]:
        """Every current row of `entity` by id, loaded on first use.

        Base rows are shared between predictions on the same unchanged file (keyed by path, size
        and modification time): the proposer predicts thousands of candidates on one database.
        The mapping is copied per prediction and rows are copied before they are changed."""
        if entity not in self.tables:
            key = (self.path, self.stamp, entity)
            if key not in _BASE:
                _BASE[key] = self._load(entity)
            self.tables[entity] = dict(_BASE[key])
        return self.tables[entity]

    def _load(self, entity: str) -> dict[int, dict[str, Any]]:
        e = self.entities[entity]
        kinds = {f.column: f.type for f in e.fields}
        try:
            cursor = self.conn.execute(f'SELECT * FROM "{e.table}"')
        except sqlite3.DatabaseError as exc:
            raise PredictionError(f"cannot read table {e.table!r} of the database: {exc}") from exc
        names = [d[0] for d in cursor.description]
        rows = {}
        for raw in cursor.fetchall():
            row = {n: _loaded(kinds.get(n, ""), v) for n, v in zip(names, raw, strict=True)}
            rows[row["id"]] = row
        if len(_BASE) > 256:  # bounded: many setup databases must not pile up in memory
            _BASE.clear()
        return rows

    def get(self, entity: str, row_id: int | None) -> dict[str, Any] | None:
        return None if row_id is None else self.table(entity).get(row_id)

    def visible(self, entity: str, row: dict[str, Any], user_id: int) -> bool:
        """The app's `visible`: public entities to everyone, others to their owners."""
        e = self.entities[entity]
        if not sees(self.spec, e, user_id):  # the role does not see the entity at all
            return False
        if e.visibility == "public":
            return True
        return any(row.get(f"{owner}_id") == user_id for owner in e.owner_fields)

    def assign(self, entity: str, row_id: int, column: str, value: Any) -> None:
        table = self.table(entity)
        table[row_id] = {**table[row_id], column: value}  # copy on write: base rows are shared
        if (entity, row_id) not in self.created:
            self.assigned.setdefault((entity, row_id), {})[column] = value

    def insert(self, entity: str, values: dict[str, Any]) -> int:
        rows = self.table(entity)
        # SQLite (no AUTOINCREMENT) gives a new row the largest rowid in the table plus one
        row_id = max(rows, default=0) + 1
        rows[row_id] = {**values, "id": row_id}
        self.created[(entity, row_id)] = None
        return row_id

    def delete(self, entity: str, row_id: int) -> None:
        del self.table(entity)[row_id]
        self.assigned.pop((entity, row_id), None)
        if (entity, row_id) in self.created:
            del self.created[(entity, row_id)]
        else:
            self.deleted.append((entity, row_id))

    def snapshot(self) -> tuple[Any, ...]:
        """The overlay as it stands, for `restore` (rows are copied on write, so shallow copies do)."""
        return ({e: dict(t) for e, t in self.tables.items()}, {k: dict(v) for k, v in self.assigned.items()},
                dict(self.created), list(self.deleted))

    def restore(self, state: tuple[Any, ...]) -> None:
        """Back to a `snapshot`: a call refused halfway (a lookup that finds nothing) changes nothing."""
        tables, assigned, created, deleted = state
        self.tables, self.assigned, self.created, self.deleted = dict(tables), dict(assigned), dict(created), list(deleted)

    def prediction(self, failed: list[str]) -> Prediction:
        table = {name: e.table for name, e in self.entities.items()}
        updates = {(table[e], i): {c: stored(v) for c, v in cols.items()}
                   for (e, i), cols in sorted(self.assigned.items())}
        inserts = []
        deleted = list(self.deleted)
        for entity, row_id in self.created:
            row = self.tables[entity][row_id]
            values = {c: stored(v) for c, v in row.items() if c != "id"}
            if (entity, row_id) in deleted:
                # SQLite gave the new row the id of the one just deleted: to a row diff (and so to
                # the grader) that is one row whose values changed, not a delete and an insert.
                deleted.remove((entity, row_id))
                updates[(table[entity], row_id)] = values
                continue
            inserts.append((table[entity], values))
        return Prediction(dict(sorted(updates.items())), inserts, [(table[e], i) for e, i in deleted], failed)
