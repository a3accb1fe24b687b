"""What every builder of a task's adversarial states shares: the task's context (its diff, the
table it is about, seeded choices, where to build) and small sqlite helpers to copy a state and
change it. The builders are in `factory/redteam/schema.py` and `factory/redteam/states.py`."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

from episodes.dbfiles import copy_db
from factory.predict.rows import connect_ro
from factory.redteam.corpus import Case
from factory.redteam.probes import Probe
from factory.spec.model import EntitySpec, Spec
from verifiers.changes import DbDiff
from verifiers.dbdiff import diff_databases
from verifiers.errors import UnknownTableError

# Rows the broadened change touches at most, per changed row (the user's other rows are few; a
# public table could have thousands, and a handful proves the point as well).
OTHER_ROWS = 25
# Rows tried when looking for one an unrelated change can be made to.
TRIES = 50
ROWID_NAMES = ("rowid", "_rowid_", "oid")
Statement = tuple[str, Sequence[object]]


@dataclass
class StateContext:
    """What the builders of one task's states need: the task, the corpus, the spec, where to write."""

    case: Case
    cases: list[Case]
    spec: Spec
    scratch: Path
    seed: int
    cross_limit: int | None = None
    diff: DbDiff = field(init=False)
    focus: str = field(init=False)

    def __post_init__(self) -> None:
        self.diff = diff_databases(self.case.initial, self.case.golden)
        self.focus = focus_table(self)

    def rng(self, kind: str) -> Random:
        """A generator for one kind of one task: the same choices on every run with this seed."""
        return Random(f"{self.seed}:{self.case.id}:{kind}")

    def path(self, kind: str, n: int = 0) -> Path:
        """Where this task's n-th probe of `kind` is built (deleted once graded)."""
        return self.scratch / f"{kind.replace(':', '-')}-{n}.db"

    def touched(self, table: str) -> set[tuple[Any, ...]]:
        """Keys of the rows of `table` the task's golden change inserts, updates or deletes."""
        try:
            td = self.diff.table(table)
        except UnknownTableError:  # a table the diff does not know holds no touched row
            return set()
        keys = {tuple(c.key) for c in td.updated}
        keys |= {tuple(r[c] for c in td.key_columns) for r in td.inserted + td.deleted}
        return keys


def entity_of(spec: Spec, table: str) -> EntitySpec | None:
    """The spec's entity stored in `table` (None for a table no entity owns)."""
    return next((e for e in spec.entities if e.table == table), None)


def focus_table(ctx: StateContext) -> str:
    """The table the task is about: the first it changes, else the first row it names."""
    changed = ctx.diff.tables_changed()
    if changed:
        return changed[0]
    for required in ctx.case.record.get("metadata", {}).get("required_entities", []):
        entity = next((e for e in ctx.spec.entities if e.name == required.get("entity")), None)
        if entity is not None:
            return entity.table
    return min(e.table for e in ctx.spec.entities if not e.builtin)


def sql_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def table_columns(conn: sqlite3.Connection, table: str) -> list[tuple[str, str, int]]:
    """(name, declared type, position in the primary key) of each real column."""
    return [(r[1], str(r[2] or "").upper(), int(r[5])) for r in conn.execute(f"PRAGMA table_info({sql_ident(table)})")]


def table_names(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                       "AND name NOT LIKE 'sqlite%' ORDER BY name")]


def key_where(key_columns: Sequence[str]) -> str:
    return " AND ".join(f"{key_list([c])} IS ?" for c in key_columns)


def nudged(value: object) -> object:
    """Another value of the same type, or None when there is none worth trying (dates, keys)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str) and value and not value[:4].isdigit():
        return value + " (red team)"
    return None


def build_state(source: Path, target: Path, statements: Sequence[Statement]) -> Path:
    """A copy of `source` at `target` with `statements` run on it; sqlite3.Error when one fails."""
    copy_db(source, target)
    conn = sqlite3.connect(target)
    try:
        for sql, params in statements:
            conn.execute(sql, params)
        conn.commit()
    finally:
        conn.close()
    return target


def make_probe(ctx: StateContext, kind: str, source: Path, statements: Sequence[Statement], note: str,
           n: int = 0) -> Probe:
    """The probe of `statements` run on a copy of `source`, or a not-applicable one if they fail."""
    target = ctx.path(kind, n)
    try:
        final = build_state(source, target, statements)
    except sqlite3.Error as exc:
        target.unlink(missing_ok=True)
        return Probe(kind, kind.split(":")[1], None, note=f"{note}: refused by SQLite ({exc})")
    return Probe(kind, kind.split(":")[1], final, ctx.case.reference_answer, note)


def not_applicable(ctx: StateContext, kind: str, why: str) -> Probe:
    return Probe(kind, kind.split(":")[1], None, ctx.case.reference_answer, why)


def open_readonly(db: Path) -> sqlite3.Connection:
    conn = connect_ro(db)
    conn.row_factory = None  # plain tuples: the helpers compare rows as tuples
    return conn


def key_columns_of(conn: sqlite3.Connection, table: str) -> list[str]:
    return [c[0] for c in sorted((c for c in table_columns(conn, table) if c[2]), key=lambda c: c[2])] or ["rowid"]


def key_list(key_columns: Sequence[str]) -> str:
    # The rowid must stay unquoted: a quoted "rowid" names a column that does not exist.
    return ", ".join(c if c in ROWID_NAMES else sql_ident(c) for c in key_columns)
