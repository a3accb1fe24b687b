"""The part of a database's state that is not rows: indexes, triggers, views, statistics, pragmas.

A task's state is its whole schema, not only its tables' rows: a trigger added to a final state
changes what the app does on its next write, a dropped index changes plans and uniqueness, a view
can shadow what a reader sees. `schema_changes(conn, before, after)` compares the two attached
schemas object by object and returns one `SchemaChange` per difference, sorted, so a diff names
every such change and every check that forbids unlisted changes can fail on it.

Compared, per side:
- every `index`, `trigger` and `view` in `sqlite_master` that has SQL (automatic indexes have
  none: they follow from their table's definition, which the row diff compares), by type and
  name, on its SQL text and the table it belongs to;
- virtual tables (their rows are not diffed; their definition is);
- every ordinary table's definition: a table added or dropped, or its SQL edited in place (a
  changed type, a new constraint or default); the row diff reports its own schema status too
  ("added", "dropped", "columns_added", "replaced"), and `DbDiff` lists a table's definition here
  only when the row diff did not already say it;
- the statistics tables `sqlite_stat1`..`sqlite_stat4` (`ANALYZE` creates them; they steer the
  query planner), by presence and content;
- `PRAGMA user_version` and `application_id` (stored in the file header).
`sqlite_sequence` is left out: it moves with every insert into an AUTOINCREMENT table, which the
row diff already reports.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal

ObjectKind = Literal["index", "trigger", "view", "virtual table", "table", "statistics", "pragma"]
Change = Literal["added", "dropped", "changed"]
STAT_TABLES = ("sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4")
PRAGMAS = ("user_version", "application_id")


@dataclass(frozen=True, order=True)
class SchemaChange:
    """One schema object that differs: what it is, which table it belongs to, before and after.

    `before` / `after` hold its definition (SQL text, a pragma's value, or a digest of a
    statistics table's rows); None on the side where it does not exist.
    """

    kind: ObjectKind
    name: str
    table: str
    change: Change
    before: str | None = None
    after: str | None = None

    def describe(self) -> str:
        """E.g. `trigger 'star_all' on message added`."""
        where = f" on {self.table}" if self.table and self.table != self.name else ""
        return f"{self.kind} {self.name!r}{where} {self.change}"

    def to_json(self) -> dict[str, object]:
        """JSON-serialisable form."""
        return {"kind": self.kind, "name": self.name, "table": self.table, "change": self.change,
                "before": self.before, "after": self.after}


# (kind, name) -> (table it belongs to, definition)
Objects = dict[tuple[str, str], tuple[str, str]]


def read_objects(conn: sqlite3.Connection, schema: str) -> Objects:
    """Every compared schema object of one attached database (`schema` is its name: main,
    or an ATTACH alias)."""
    objects: Objects = {}
    rows = conn.execute(
        f"SELECT type, name, tbl_name, coalesce(sql, '') FROM {schema}.sqlite_master"
    ).fetchall()
    names = {name for _, name, _, _ in rows}
    for kind, name, table, sql in rows:
        if kind in ("index", "trigger", "view") and sql:
            objects[(kind, name)] = (table, sql)
        elif kind == "table" and sql.upper().startswith("CREATE VIRTUAL"):
            objects[("virtual table", name)] = (name, sql)
        elif kind == "table" and not name.startswith("sqlite_"):
            objects[("table", name)] = (name, sql)
    for stat in STAT_TABLES:
        if stat in names:
            content = conn.execute(f"SELECT * FROM {schema}.{stat}").fetchall()
            # Sorted text of every row: equal statistics give equal text whatever the row order.
            objects[("statistics", stat)] = ("", repr(sorted(map(repr, content))))
    for pragma in PRAGMAS:
        value = conn.execute(f"PRAGMA {schema}.{pragma}").fetchone()[0]
        if value:
            objects[("pragma", pragma)] = ("", str(value))
    return objects


def compare_objects(before: Objects, after: Objects) -> tuple[SchemaChange, ...]:
    """The differences between two sides' objects, sorted by kind then name."""
    changes: list[SchemaChange] = []
    for key in sorted(before.keys() | after.keys()):
        kind, name = key
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        table = (new or old or ("", ""))[0]
        change: Change = "added" if old is None else "dropped" if new is None else "changed"
        changes.append(SchemaChange(kind, name, table, change,  # type: ignore[arg-type]  # kind: an ObjectKind, read above
                                    old[1] if old else None, new[1] if new else None))
    return tuple(sorted(changes))


def schema_changes(conn: sqlite3.Connection, before: str, after: str) -> tuple[SchemaChange, ...]:
    """Compare two databases attached to `conn` as `before` and `after`."""
    return compare_objects(read_objects(conn, before), read_objects(conn, after))
