"""Adversarial final states of one task: its golden (or initial) database copied, then changed.

Every state is built on a copy in the task's scratch folder with plain sqlite3 (never through the
app: these are states an agent could leave by other means, or that the app could leave on a bad
day), and handed out one at a time, so a run keeps at most a few copies on disk.

- `schema:*`: the golden state plus one schema object. The rows are the golden rows, so only a
  diff that sees the schema can tell them apart.
- `rows:*`: the task's change done too broadly: its update or delete repeated on the other rows
  an agent could have picked (the acting user's rows of that table), or each inserted row twice.
- `extra:*`: the golden state plus an unrelated update, delete or insert.
- `cross:other_golden`: another task's golden change on this task's initial state. Tasks that
  share the initial state (the same setup patch) are graded on the other task's golden file
  itself; otherwise the other task's sqldiff is replayed on this initial state, and a change
  that does not apply (a key that already exists) is counted as not applicable. Another task that
  changes nothing (a question) is left out: its "golden" is this initial state, `sanity:initial`.
- `sanity:*`: the initial state (a write or read-write task must change something), and the
  golden state with no answer (a task that asks a question must get its answer).

Every state probe is graded with the task's reference answer, so for a question only the state
can make it fail: a read must change nothing. Choices among rows are made with a generator seeded
by the run's seed and the task id, so a run is reproducible.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

from factory.redteam.corpus import Case
from factory.redteam.probes import Probe
from factory.spec.model import EntitySpec, Spec
from factory.tasks.rows import connect_ro
from factory.tasks.setupgen import copy_db
from verifiers.dbdiff import DbDiff, Row, TableDiff, diff_databases
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


def state_probes(ctx: StateContext, kinds: set[str]) -> Iterator[Probe]:
    """Every selected state probe of one task, in a fixed order, each built when asked for."""
    for kind, build in BUILDERS:
        if kind in kinds:
            yield from build(ctx)


# ---------------------------------------------------------------- helpers ----------------------

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


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _columns(conn: sqlite3.Connection, table: str) -> list[tuple[str, str, int]]:
    """(name, declared type, position in the primary key) of each real column."""
    return [(r[1], str(r[2] or "").upper(), int(r[5])) for r in conn.execute(f"PRAGMA table_info({_ident(table)})")]


def _tables(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                       "AND name NOT LIKE 'sqlite%' ORDER BY name")]


def _where(key_columns: Sequence[str]) -> str:
    return " AND ".join(f"{_key_list([c])} IS ?" for c in key_columns)


def _nudge(value: object) -> object:
    """Another value of the same type, or None when there is none worth trying (dates, keys)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str) and value and not value[:4].isdigit():
        return value + " (red team)"
    return None


def _build(source: Path, target: Path, statements: Sequence[Statement]) -> Path:
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


def _probe(ctx: StateContext, kind: str, source: Path, statements: Sequence[Statement], note: str,
           n: int = 0) -> Probe:
    """The probe of `statements` run on a copy of `source`, or a not-applicable one if they fail."""
    target = ctx.path(kind, n)
    try:
        final = _build(source, target, statements)
    except sqlite3.Error as exc:
        target.unlink(missing_ok=True)
        return Probe(kind, kind.split(":")[1], None, note=f"{note}: refused by SQLite ({exc})")
    return Probe(kind, kind.split(":")[1], final, ctx.case.reference_answer, note)


def _na(ctx: StateContext, kind: str, why: str) -> Probe:
    return Probe(kind, kind.split(":")[1], None, ctx.case.reference_answer, why)


def _readonly(db: Path) -> sqlite3.Connection:
    conn = connect_ro(db)
    conn.row_factory = None  # plain tuples: the helpers compare rows as tuples
    return conn


# ---------------------------------------------------------------- schema -----------------------

def _text_or_number_column(conn: sqlite3.Connection, table: str) -> tuple[str, str] | None:
    """A column of `table` a trigger can rewrite, and the expression that rewrites it."""
    columns = [c for c in _columns(conn, table) if not c[2]]
    for name, kind, _ in columns:
        if "CHAR" in kind or "TEXT" in kind or "CLOB" in kind:
            return name, f"{_ident(name)} || ' (trigger)'"
    for name, kind, _ in columns:
        if "INT" in kind or "REAL" in kind or "NUM" in kind:
            return name, f"{_ident(name)} + 1"
    return None


def _schema_trigger(ctx: StateContext) -> Iterator[Probe]:
    kind, t = "schema:trigger", ctx.focus
    with closing(_readonly(ctx.case.golden)) as conn:
        target = _text_or_number_column(conn, t)
    if target is None:
        yield _na(ctx, kind, f"{t} has no text or number column for a trigger to rewrite")
        return
    column, expression = target
    # Dormant until the app's next update of that table: then it silently rewrites the row.
    sql = (f"CREATE TRIGGER redteam_trigger AFTER UPDATE ON {_ident(t)} WHEN NEW.{_ident(column)} IS "
           f"OLD.{_ident(column)} BEGIN UPDATE {_ident(t)} SET {_ident(column)} = {expression} "
           f"WHERE rowid = NEW.rowid; END")
    yield _probe(ctx, kind, ctx.case.golden, [(sql, ())], f"trigger on {t} rewriting {column} on its next update")


def _schema_view(ctx: StateContext) -> Iterator[Probe]:
    t = ctx.focus
    yield _probe(ctx, "schema:view", ctx.case.golden,
                 [(f"CREATE VIEW redteam_view AS SELECT * FROM {_ident(t)}", ())], f"view over {t}")


def _schema_create_index(ctx: StateContext) -> Iterator[Probe]:
    t = ctx.focus
    with closing(_readonly(ctx.case.golden)) as conn:
        column = next((c[0] for c in _columns(conn, t) if not c[2]), _columns(conn, t)[0][0])
    yield _probe(ctx, "schema:create_index", ctx.case.golden,
                 [(f"CREATE INDEX redteam_index ON {_ident(t)}({_ident(column)})", ())], f"index on {t}({column})")


def _schema_drop_index(ctx: StateContext) -> Iterator[Probe]:
    with closing(_readonly(ctx.case.golden)) as conn:
        # Indexes made by CREATE INDEX (sql is set); the task's table first. Automatic indexes
        # (UNIQUE, PRIMARY KEY) cannot be dropped.
        found = conn.execute("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
                             "ORDER BY tbl_name != ?, tbl_name, name", (ctx.focus,)).fetchone()
    if found is None:
        yield _na(ctx, "schema:drop_index", "the world's database has no index made by CREATE INDEX")
        return
    yield _probe(ctx, "schema:drop_index", ctx.case.golden, [(f"DROP INDEX {_ident(found[0])}", ())],
                 f"index {found[0]} on {found[1]} dropped")


def _schema_analyze(ctx: StateContext) -> Iterator[Probe]:
    yield _probe(ctx, "schema:analyze", ctx.case.golden, [("ANALYZE", ())], "ANALYZE (sqlite_stat1 written)")


def _schema_create_table(ctx: StateContext) -> Iterator[Probe]:
    yield _probe(ctx, "schema:create_table", ctx.case.golden,
                 [("CREATE TABLE redteam_extra (id INTEGER PRIMARY KEY, note TEXT)", ()),
                  ("INSERT INTO redteam_extra (note) VALUES ('red team')", ())], "table redteam_extra with one row")


def _schema_add_column(ctx: StateContext) -> Iterator[Probe]:
    t = ctx.focus
    yield _probe(ctx, "schema:add_column", ctx.case.golden,
                 [(f"ALTER TABLE {_ident(t)} ADD COLUMN redteam_note TEXT", ())], f"column redteam_note added to {t}")


# ---------------------------------------------------------------- rows -------------------------

def _candidates(ctx: StateContext, conn: sqlite3.Connection, td: TableDiff, row: Row) -> list[tuple[Any, ...]]:
    """Keys of the other rows an agent could have acted on instead of `row`: the acting user's
    rows of the table (or, for a row that is not the user's, the rows of the same owner; for a
    table without owners, every row), the task's own rows left out, in key order."""
    entity = entity_of(ctx.spec, td.table)
    owners = [entity.field_named(o).column for o in entity.owner_fields] if entity else []
    mine = [c for c in owners if row.get(c) == ctx.case.user_id]
    params: list[object]
    if mine:
        clause, params = " OR ".join(f"{_ident(c)} = ?" for c in mine), [ctx.case.user_id] * len(mine)
    elif owners and row.get(owners[0]) is not None:
        clause, params = f"{_ident(owners[0])} = ?", [row.get(owners[0])]
    else:
        clause, params = "1", []
    keys = _key_list(td.key_columns)
    touched = ctx.touched(td.table)
    found = conn.execute(f"SELECT {keys} FROM {_ident(td.table)} WHERE {clause} ORDER BY {keys}", params)
    return [k for k in map(tuple, found) if k not in touched]


def _plan_other_rows(ctx: StateContext, conn: sqlite3.Connection) -> tuple[list[Statement], str]:
    """The task's first update (and first delete) of each table repeated on the candidate rows
    (one pattern per table: several would overwrite each other)."""
    statements: list[Statement] = []
    notes: list[str] = []
    for td in ctx.diff.tables:
        where = f"WHERE {_where(td.key_columns)}"
        for change in td.updated[:1]:
            values = {c: change.after[c] for c in change.changed}
            columns = ", ".join(_ident(c) for c in values)
            sets = ", ".join(f"{_ident(c)} = ?" for c in values)
            done = 0
            for key in _candidates(ctx, conn, td, change.after):
                current = conn.execute(f"SELECT {columns} FROM {_ident(td.table)} {where}", key).fetchone()
                # A row that already holds the new values would change nothing.
                if current is None or tuple(current) == tuple(values.values()):
                    continue
                statements.append((f"UPDATE {_ident(td.table)} SET {sets} {where}", [*values.values(), *key]))
                done += 1
                if done >= OTHER_ROWS:
                    break
            if done:
                notes.append(f"{td.table} {', '.join(change.changed)} set on {done} more row(s)")
        for row in td.deleted[:1]:
            keys = _candidates(ctx, conn, td, row)[:OTHER_ROWS]
            statements += [(f"DELETE FROM {_ident(td.table)} {where}", key) for key in keys]
            if keys:
                notes.append(f"{len(keys)} more {td.table} row(s) deleted")
    return statements, "; ".join(notes)


def _rows_other(ctx: StateContext) -> Iterator[Probe]:
    kind = "rows:other_rows"
    if not any(td.updated or td.deleted for td in ctx.diff.tables):
        yield _na(ctx, kind, "the task updates or deletes no row")
        return
    with closing(_readonly(ctx.case.golden)) as conn:
        statements, note = _plan_other_rows(ctx, conn)
    if not statements:
        yield _na(ctx, kind, "no other row of the changed table is the user's or can take the change")
        return
    yield _probe(ctx, kind, ctx.case.golden, statements, note)


def _plan_duplicates(conn: sqlite3.Connection, inserted: list[TableDiff]) -> list[Statement] | str:
    """An INSERT of each new row again under the next free key; or why that cannot be done."""
    statements: list[Statement] = []
    for td in inserted:
        if len(td.key_columns) != 1:
            return f"{td.table} has a composite key"
        key = td.key_columns[0]
        real = {c[0] for c in _columns(conn, td.table)}
        top = conn.execute(f"SELECT max({_key_list([key])}) FROM {_ident(td.table)}").fetchone()[0]
        if not isinstance(top, int):
            return f"{td.table}'s key is not an integer"
        for n, row in enumerate(td.inserted, start=1):
            values = {c: v for c, v in row.items() if c in real}
            if key in real:
                values[key] = top + n
            names = ", ".join(_ident(c) for c in values)
            marks = ", ".join("?" for _ in values)
            statements.append((f"INSERT INTO {_ident(td.table)} ({names}) VALUES ({marks})", list(values.values())))
    return statements


def _rows_duplicate(ctx: StateContext) -> Iterator[Probe]:
    kind = "rows:duplicate_insert"
    inserted = [td for td in ctx.diff.tables if td.inserted]
    if not inserted:
        yield _na(ctx, kind, "the task inserts no row")
        return
    with closing(_readonly(ctx.case.golden)) as conn:
        plan = _plan_duplicates(conn, inserted)
    if isinstance(plan, str):
        yield _na(ctx, kind, plan)
        return
    count = sum(len(td.inserted) for td in inserted)
    yield _probe(ctx, kind, ctx.case.golden, plan, f"{count} inserted row(s) added twice")


# ---------------------------------------------------------------- extra changes ----------------

def _key_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [c[0] for c in sorted((c for c in _columns(conn, table) if c[2]), key=lambda c: c[2])] or ["rowid"]


def _key_list(key_columns: Sequence[str]) -> str:
    # The rowid must stay unquoted: a quoted "rowid" names a column that does not exist.
    return ", ".join(c if c in ROWID_NAMES else _ident(c) for c in key_columns)


def _untouched(ctx: StateContext, conn: sqlite3.Connection, table: str, kind: str) -> list[tuple[Any, ...]]:
    """Keys of up to TRIES rows of `table` the task does not touch, shuffled by the kind's generator."""
    keys = _key_list(_key_columns(conn, table))
    touched = ctx.touched(table)
    rows = [k for k in map(tuple, conn.execute(f"SELECT {keys} FROM {_ident(table)} ORDER BY {keys}"))
            if k not in touched]
    ctx.rng(kind).shuffle(rows)
    return rows[:TRIES]


def _focus_first(ctx: StateContext, conn: sqlite3.Connection) -> list[str]:
    return sorted(_tables(conn), key=lambda t: t != ctx.focus)


def _plan_update(ctx: StateContext, conn: sqlite3.Connection) -> tuple[Statement, str] | None:
    """One column of one untouched row nudged, the task's table first, a value column (a balance,
    a name) before a reference (a `*_id`): the change a careless agent most likely makes."""
    for table in _focus_first(ctx, conn):
        key_columns = _key_columns(conn, table)
        others = sorted((c[0] for c in _columns(conn, table) if not c[2]), key=lambda c: c.endswith("_id"))
        if not others:
            continue
        for key in _untouched(ctx, conn, table, "extra:update"):
            row = conn.execute(f"SELECT {', '.join(map(_ident, others))} FROM {_ident(table)} "
                               f"WHERE {_where(key_columns)}", key).fetchone()
            for column, value in zip(others, row or ()):
                new = _nudge(value)
                if new is not None:
                    return ((f"UPDATE {_ident(table)} SET {_ident(column)} = ? WHERE {_where(key_columns)}",
                             [new, *key]), f"{table} {list(key)}: {column} {value!r} -> {new!r}")
    return None


def _extra_update(ctx: StateContext) -> Iterator[Probe]:
    with closing(_readonly(ctx.case.golden)) as conn:
        plan = _plan_update(ctx, conn)
    if plan is None:
        yield _na(ctx, "extra:update", "no untouched row has a number or a text to change")
        return
    yield _probe(ctx, "extra:update", ctx.case.golden, [plan[0]], plan[1])


def _extra_delete(ctx: StateContext) -> Iterator[Probe]:
    with closing(_readonly(ctx.case.golden)) as conn:
        plan = next(((f"DELETE FROM {_ident(t)} WHERE {_where(_key_columns(conn, t))}", keys[0], t)
                     for t in _focus_first(ctx, conn) if (keys := _untouched(ctx, conn, t, "extra:delete"))), None)
    if plan is None:
        yield _na(ctx, "extra:delete", "every row is one the task touches")
        return
    sql, key, table = plan
    yield _probe(ctx, "extra:delete", ctx.case.golden, [(sql, key)], f"{table} {list(key)} deleted")


def _plan_inserts(ctx: StateContext, conn: sqlite3.Connection) -> list[tuple[Statement, str]]:
    """For each table the task does not change (the task's own table last): a copy of one of its
    rows under the next key, text values marked so that a UNIQUE column (a username) takes it."""
    changed = set(ctx.diff.tables_changed())
    plans: list[tuple[Statement, str]] = []
    for table in sorted((t for t in _tables(conn) if t not in changed), key=lambda t: t == ctx.focus):
        key_columns = _key_columns(conn, table)
        keys = _untouched(ctx, conn, table, "extra:insert")
        if not keys or len(key_columns) != 1 or key_columns[0] in ROWID_NAMES:
            continue
        columns = [c[0] for c in _columns(conn, table)]
        source = conn.execute(f"SELECT {', '.join(map(_ident, columns))} FROM {_ident(table)} "
                              f"WHERE {_where(key_columns)}", keys[0]).fetchone()
        top = conn.execute(f"SELECT max({_ident(key_columns[0])}) FROM {_ident(table)}").fetchone()[0]
        if not isinstance(top, int):
            continue
        values = [top + 1 if c == key_columns[0] else
                  (v + " (red team)" if isinstance(v, str) and not v[:4].isdigit() else v)
                  for c, v in zip(columns, source)]
        sql = (f"INSERT INTO {_ident(table)} ({', '.join(map(_ident, columns))}) "
               f"VALUES ({', '.join('?' for _ in columns)})")
        plans.append(((sql, values), f"{table} #{top + 1}: a copy of {list(keys[0])}"))
    return plans


def _extra_insert(ctx: StateContext) -> Iterator[Probe]:
    with closing(_readonly(ctx.case.golden)) as conn:
        plans = _plan_inserts(ctx, conn)
    for statement, note in plans:
        probe = _probe(ctx, "extra:insert", ctx.case.golden, [statement], note)
        if probe.final is not None:  # else a constraint refused the copy: the next table
            yield probe
            return
    yield _na(ctx, "extra:insert", "no table outside the task's change takes a copied row")


# ---------------------------------------------------------------- other tasks, sanity ----------

def _cross(ctx: StateContext) -> Iterator[Probe]:
    kind = "cross:other_golden"
    others = [o for o in ctx.cases if o.index != ctx.case.index and o.change.strip()]
    if ctx.cross_limit is not None and len(others) > ctx.cross_limit:
        others = sorted(ctx.rng(kind).sample(others, ctx.cross_limit), key=lambda o: o.index)
    for n, other in enumerate(others):
        if other.setup_key == ctx.case.setup_key:
            # Same initial state: the other task's golden file is exactly its change applied here.
            yield Probe(kind, other.id, other.golden, ctx.case.reference_answer, f"{other.id}'s golden state",
                        owned=False)
            continue
        target = ctx.path(kind, n)
        try:
            copy_db(ctx.case.initial, target)
            with closing(sqlite3.connect(target)) as conn:
                conn.executescript("BEGIN;\n" + other.change + "\nCOMMIT;")
                changed = conn.total_changes
        except sqlite3.Error as exc:
            target.unlink(missing_ok=True)
            yield Probe(kind, other.id, None, note=f"{other.id}'s change does not apply here ({exc})")
            continue
        if not changed or diff_databases(ctx.case.initial, target).is_empty:
            # Its rows are not here, or already hold its values (the other task's setup made
            # them): this is the initial state again, which sanity:initial grades.
            target.unlink(missing_ok=True)
            yield Probe(kind, other.id, None, note=f"{other.id}'s change changes no row here")
            continue
        yield Probe(kind, other.id, target, ctx.case.reference_answer, f"{other.id}'s change on this initial state")


def _sanity_initial(ctx: StateContext) -> Iterator[Probe]:
    if ctx.case.task_type == "read":
        yield _na(ctx, "sanity:initial", "a question's golden state is its initial state")
        return
    yield Probe("sanity:initial", "initial", ctx.case.initial, ctx.case.reference_answer,
                "nothing done, the reference answer given", owned=False)


def _sanity_no_answer(ctx: StateContext) -> Iterator[Probe]:
    if not ctx.case.answer_checks():
        yield _na(ctx, "sanity:no_answer", "the task's reward checks no answer")
        return
    yield Probe("sanity:no_answer", "no_answer", ctx.case.golden, None, "the golden state, no answer", owned=False)


BUILDERS: list[tuple[str, Callable[[StateContext], Iterator[Probe]]]] = [
    ("schema:trigger", _schema_trigger),
    ("schema:view", _schema_view),
    ("schema:create_index", _schema_create_index),
    ("schema:drop_index", _schema_drop_index),
    ("schema:analyze", _schema_analyze),
    ("schema:create_table", _schema_create_table),
    ("schema:add_column", _schema_add_column),
    ("rows:other_rows", _rows_other),
    ("rows:duplicate_insert", _rows_duplicate),
    ("extra:update", _extra_update),
    ("extra:delete", _extra_delete),
    ("extra:insert", _extra_insert),
    ("cross:other_golden", _cross),
    ("sanity:initial", _sanity_initial),
    ("sanity:no_answer", _sanity_no_answer),
]
