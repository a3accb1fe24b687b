"""Render a `DbDiff` as SQL in the exact text format of SQLite's `sqldiff --primarykey`.

The output applied to a copy of `before` reproduces `after` (values SQLite cannot write as a
literal aside: sqldiff prints infinity as `Inf` and reals with 15 significant digits). Where every
table's declared key is also its storage key (an INTEGER PRIMARY KEY, a WITHOUT ROWID table, or
no key at all), as in every generated world, plain `sqldiff` prints the same text.

Known differences from sqldiff: `sqlite_%` tables (e.g. `sqlite_sequence`) are not diffed,
values are compared with BINARY collation where sqldiff uses each column's own, and changed
indexes, triggers, views and header pragmas (which sqldiff ignores) follow the row statements.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from verifiers.changes import DbDiff, Key, Row, RowChange, TableDiff, Value, key_order
from verifiers.schemadiff import SchemaChange

# SQLite's keyword list (https://sqlite.org/lang_keywords.html); sqldiff quotes these names.
SQL_KEYWORDS = frozenset("""
ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT BEFORE BEGIN
BETWEEN BY CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE CROSS CURRENT
CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DATABASE DEFAULT DEFERRABLE DEFERRED DELETE DESC
DETACH DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN FAIL FILTER
FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP GROUPS HAVING IF IGNORE IMMEDIATE IN
INDEX INDEXED INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN KEY LAST LEFT LIKE
LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL NULLS OF OFFSET ON OR ORDER OTHERS
OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY RAISE RANGE RECURSIVE REFERENCES REGEXP
REINDEX RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT SET
TABLE TEMP TEMPORARY THEN TIES TO TRANSACTION TRIGGER UNBOUNDED UNION UPDATE USING VACUUM VALUES
VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT
""".split())  # noqa: SIM905  (the list as sqlite.org prints it, easy to compare)


def quote_identifier(name: str) -> str:
    """Quote a name only where sqldiff does: non-[A-Za-z_] characters (digits after the first
    character are fine) or an SQL keyword."""
    plain = name != "" and all(
        (c.isascii() and c.isalpha()) or c == "_" or (i > 0 and c.isascii() and c.isdigit())
        for i, c in enumerate(name)
    )
    has_digit = any(c.isdigit() for c in name)
    if plain and (has_digit or name.upper() not in SQL_KEYWORDS):
        return name
    return '"' + name.replace('"', '""') + '"'


class LiteralWriter:
    """Writes values as SQL literals byte-compatible with sqldiff's `printQuoted`."""

    def __init__(self) -> None:
        # Reals go through SQLite's own printf: Python's correctly rounded '%.15g' disagrees
        # with it in the last digit for about one value in a thousand.
        self._conn: sqlite3.Connection | None = None
        self._reals: dict[float, str] = {}

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def real(self, value: float) -> str:
        if value not in self._reals:
            if self._conn is None:
                self._conn = sqlite3.connect(":memory:")
            row = self._conn.execute("SELECT printf('%!.15g', ?)", (value,)).fetchone()
            # SQLite stores NaN as NULL, so a NaN can only ever come back as NULL.
            self._reals[value] = row[0] if row[0] else "NULL"
        return self._reals[value]

    def literal(self, value: Value) -> str:
        if value is None:
            return "NULL"
        if isinstance(value, bool | int):
            return str(int(value))
        if isinstance(value, float):
            return self.real(value)
        if isinstance(value, str):
            return text_literal(value)
        if isinstance(value, bytes | bytearray | memoryview):
            data = bytes(value)
            # sqldiff gets a NULL pointer for an empty blob and prints uppercase X''.
            return f"x'{data.hex()}'" if data else "X''"
        raise TypeError(f"cannot write {type(value).__name__} as an SQL literal: {value!r}")


def value_literal(value: object) -> str:
    """A stored value (cents, ISO dates, 0/1 for booleans) as a plain SQLite literal, for the
    queries people read (a task's verification query, a claim's SQL); sqldiff text uses `Literals`."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def text_literal(text: str) -> str:
    """A quoted string; runs of control characters become `'||X'0a0d'` blobs, as in sqldiff."""
    # sqldiff walks a C string, so it stops at the first NUL character.
    text = text.split("\0", 1)[0]
    out = ["'"]
    in_control = False
    for ch in text:
        if ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"{ord(ch):02x}" if in_control else f"'||X'{ord(ch):02x}")
            in_control = True
            continue
        if in_control:
            # sqldiff really does break the line here.
            out.append("'\n||'")
            in_control = False
        out.append("''" if ch == "'" else ch)
    out.append("'")
    return "".join(out)


def render_sqldiff(diff: DbDiff) -> str:
    """SQL that turns `before` into `after`, in sqldiff's statement format and order."""
    writer = LiteralWriter()
    try:
        rows = "".join(line for table in diff.tables for line in _table_lines(table, writer))
        # sqldiff ignores indexes, triggers and views; a patch must still replay them. A table
        # created by the row statements brings its indexes along (its `create_sql`).
        created = {t.table for t in diff.tables if t.schema in ("added", "replaced")}
        return rows + "".join(_schema_lines(c) for c in diff.schema
                              if not (c.kind == "index" and c.table in created))
    finally:
        writer.close()


def _schema_lines(change: SchemaChange) -> str:
    """SQL that replays one schema change after the row statements (indexes, triggers, views,
    pragmas). Table definitions and statistics cannot be replayed statement by statement; they
    are written as comments so a patch still names them."""
    if change.kind in ("index", "trigger", "view"):
        # IF EXISTS: dropping a table has already dropped its indexes and triggers.
        drop = ("" if change.change == "added" else
                f"DROP {change.kind.upper()} IF EXISTS {quote_identifier(change.name)};\n")
        return drop + (f"{change.after};\n" if change.after is not None else "")
    if change.kind == "pragma":
        return f"PRAGMA {change.name}={int(change.after or 0)};\n"
    return f"-- {change.describe()}\n"


def _table_lines(table: TableDiff, writer: LiteralWriter) -> Iterator[str]:
    name = quote_identifier(table.table)
    if table.schema == "dropped":
        yield f"DROP TABLE {name};\n"
        return
    if table.schema in ("added", "replaced"):
        if table.schema == "replaced":
            yield f"DROP TABLE {name}; -- due to schema mismatch\n"
        yield f"{table.create_sql[0]};\n"
        for row in table.inserted:
            yield _insert(name, row, writer)
        for index in table.create_sql[1:]:
            yield f"{index};\n"
        return
    for column in table.new_columns:
        yield f"ALTER TABLE {name} ADD COLUMN {quote_identifier(column)};\n"
    # sqldiff emits one stream ordered by key, whatever the kind of change.
    events: list[tuple[Key, str, Row | RowChange]] = []
    n = len(table.key_columns)
    events += [(tuple(row.values())[:n], "insert", row) for row in table.inserted]
    events += [(tuple(row.values())[:n], "delete", row) for row in table.deleted]
    events += [(change.key, "update", change) for change in table.updated]
    events.sort(key=lambda e: key_order(e[0]))
    for key, kind, item in events:
        if isinstance(item, RowChange):
            sets = ", ".join(
                f"{quote_identifier(c)}={writer.literal(item.after[c])}" for c in item.changed
            )
            yield f"UPDATE {name} SET {sets}{_where(table.key_columns, key, writer)};\n"
        elif kind == "delete":
            yield f"DELETE FROM {name}{_where(table.key_columns, key, writer)};\n"
        else:
            yield _insert(name, item, writer)


def _where(columns: tuple[str, ...], key: Key, writer: LiteralWriter) -> str:
    terms = [f"{quote_identifier(c)}={writer.literal(v)}" for c, v in zip(columns, key, strict=True)]
    return " WHERE " + " AND ".join(terms)


def _insert(name: str, row: Row, writer: LiteralWriter) -> str:
    columns = ",".join(quote_identifier(c) for c in row)
    values = ",".join(writer.literal(v) for v in row.values())
    return f"INSERT INTO {name}({columns}) VALUES({values});\n"
