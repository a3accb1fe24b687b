"""What a database diff finds, as data: a `RowChange` per updated row, a `TableDiff` per table,
one `DbDiff` over both databases, with their JSON forms and summaries, and SQLite's value order.

`verifiers.dbdiff` computes them; checks, renderers and graders read them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from verifiers.errors import UnknownTableError
from verifiers.schemadiff import SchemaChange

Value = int | float | str | bytes | None
Row = dict[str, Value]
Key = tuple[Value, ...]
SchemaStatus = Literal["same", "added", "dropped", "columns_added", "replaced"]


def sqlite_order(value: Value) -> tuple[int, Value]:
    """Sort key that orders values like SQLite: NULL, then numbers, then text, then blobs."""
    if value is None:
        return (0, 0)
    if isinstance(value, int | float):
        return (1, value)
    if isinstance(value, str):
        # Code-point order equals UTF-8 byte order, i.e. SQLite's BINARY collation.
        return (2, value)
    return (3, bytes(value))


def key_order(key: Sequence[Value]) -> tuple[tuple[int, Value], ...]:
    """Sort key for a whole primary-key tuple."""
    return tuple(sqlite_order(v) for v in key)


@dataclass(frozen=True)
class RowChange:
    """One row present on both sides whose values differ; `changed` is in column order."""

    key: Key
    before: Row
    after: Row
    changed: tuple[str, ...]


@dataclass(frozen=True)
class TableDiff:
    """Every difference in one table; each list is sorted by key."""

    table: str
    key_columns: tuple[str, ...]
    inserted: list[Row] = field(default_factory=list)
    deleted: list[Row] = field(default_factory=list)
    updated: list[RowChange] = field(default_factory=list)
    # Column order of the rows (key first): the `after` side's, or `before`'s for a dropped table.
    columns: tuple[str, ...] = ()
    schema: SchemaStatus = "same"
    # Columns appended in `after` ("columns_added" only).
    new_columns: tuple[str, ...] = ()
    # The `after` side's CREATE TABLE then CREATE INDEX statements ("added" and "replaced" only),
    # so the diff can be rendered as SQL that recreates the table.
    create_sql: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        """True when the table is the same on both sides, schema included."""
        return self.schema == "same" and not (self.inserted or self.deleted or self.updated)

    def changed_columns(self) -> tuple[str, ...]:
        """Columns changed by at least one update, in column order."""
        seen = {c for change in self.updated for c in change.changed}
        return tuple(c for c in self.columns if c in seen)

    def to_json(self) -> dict[str, object]:
        """A JSON-serialisable, deterministic description of this table's changes."""
        return {
            "table": self.table,
            "schema": self.schema,
            "key_columns": list(self.key_columns),
            "columns": list(self.columns),
            "new_columns": list(self.new_columns),
            "inserted": [_json_row(r) for r in self.inserted],
            "deleted": [_json_row(r) for r in self.deleted],
            "updated": [
                {
                    "key": [_json_value(v) for v in u.key],
                    "changed": list(u.changed),
                    "before": _json_row(u.before),
                    "after": _json_row(u.after),
                }
                for u in self.updated
            ],
        }

    def summary(self) -> str:
        """One clause such as `account: 2 updated (balance), 1 inserted`."""
        parts: list[str] = []
        if self.schema == "added":
            parts.append("table added")
        elif self.schema == "dropped":
            parts.append("table dropped")
        elif self.schema == "replaced":
            parts.append("schema replaced")
        elif self.schema == "columns_added":
            parts.append(f"columns added ({', '.join(self.new_columns)})")
        if self.inserted:
            parts.append(f"{len(self.inserted)} inserted")
        if self.updated:
            parts.append(f"{len(self.updated)} updated ({', '.join(self.changed_columns())})")
        if self.deleted:
            parts.append(f"{len(self.deleted)} deleted")
        return f"{self.table}: {', '.join(parts) if parts else 'no changes'}"


@dataclass(frozen=True)
class DbDiff:
    """The differences between two databases: one `TableDiff` per compared table, by name, and
    every schema object that differs (over the whole database), sorted."""

    tables: tuple[TableDiff, ...]
    schema: tuple[SchemaChange, ...] = ()

    @property
    def is_empty(self) -> bool:
        """True when no compared table differs and no schema object changed."""
        return not self.schema and all(t.is_empty for t in self.tables)

    def tables_changed(self) -> list[str]:
        """Names of the tables that differ (rows, or a schema object of theirs), sorted."""
        names = {t.table for t in self.tables if not t.is_empty}
        names |= {c.table for c in self.schema if c.table}
        return sorted(names)

    def schema_of(self, table: str) -> tuple[SchemaChange, ...]:
        """The schema changes that belong to `table` (its definition, indexes, triggers)."""
        return tuple(c for c in self.schema if c.table == table)

    def table(self, name: str) -> TableDiff:
        """The diff of one compared table (empty if it did not change)."""
        for t in self.tables:
            if t.table == name:
                return t
        raise UnknownTableError(name, [t.table for t in self.tables])

    def to_json(self) -> dict[str, object]:
        """JSON-serialisable and deterministic: changed tables by name, keys as lists."""
        out: dict[str, object] = {
            "compared": [t.table for t in self.tables],
            "tables": {t.table: t.to_json() for t in self.tables if not t.is_empty},
        }
        if self.schema:
            out["schema"] = [c.to_json() for c in self.schema]
        return out

    def summary(self) -> str:
        """E.g. `account: 2 updated (balance); transaction: 2 inserted; trigger 't' on account
        added`, or `no changes`."""
        clauses = [t.summary() for t in self.tables if not t.is_empty]
        clauses += [c.describe() for c in self.schema]
        return "; ".join(clauses) if clauses else "no changes"


def _json_value(value: Value) -> object:
    # Blobs and non-finite floats have no JSON literal; give them unambiguous stand-ins.
    if isinstance(value, bytes):
        return {"blob_hex": value.hex()}
    if isinstance(value, float) and not math.isfinite(value):
        return {"real": "Inf" if value > 0 else "-Inf"}
    return value


def _json_row(row: Row) -> dict[str, object]:
    return {name: _json_value(value) for name, value in row.items()}
