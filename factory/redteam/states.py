"""Adversarial final states of one task: its golden (or initial) database copied, then changed.

Every state is built on a copy in the task's scratch folder with plain sqlite3 (never through the
app: these are states an agent could leave by other means, or that the app could leave on a bad
day), and handed out one at a time, so a run keeps at most a few copies on disk.

- `schema:*` (built in `schema.py`): the golden state plus one schema object. The rows are the
  golden rows, so only a diff that sees the schema can tell them apart.
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
from collections.abc import Callable, Iterator
from contextlib import closing
from typing import Any

from episodes.dbfiles import copy_db
from factory.redteam.context import (
    OTHER_ROWS,
    ROWID_NAMES,
    TRIES,
    StateContext,
    Statement,
    entity_of,
    key_columns_of,
    key_list,
    key_where,
    make_probe,
    not_applicable,
    nudged,
    open_readonly,
    sql_ident,
    table_columns,
    table_names,
)
from factory.redteam.probes import Probe
from factory.redteam.schema import SCHEMA_BUILDERS
from verifiers.changes import Row, TableDiff
from verifiers.dbdiff import diff_databases


def state_probes(ctx: StateContext, kinds: set[str]) -> Iterator[Probe]:
    """Every selected state probe of one task, in a fixed order, each built when asked for."""
    for kind, build in BUILDERS:
        if kind in kinds:
            yield from build(ctx)


def _candidates(ctx: StateContext, conn: sqlite3.Connection, td: TableDiff, row: Row) -> list[tuple[Any, ...]]:
    """Keys of the other rows an agent could have acted on instead of `row`: the acting user's
    rows of the table (or, for a row that is not the user's, the rows of the same owner; for a
    table without owners, every row), the task's own rows left out, in key order."""
    entity = entity_of(ctx.spec, td.table)
    owners = [entity.field_named(o).column for o in entity.owner_fields] if entity else []
    mine = [c for c in owners if row.get(c) == ctx.case.user_id]
    params: list[object]
    if mine:
        clause, params = " OR ".join(f"{sql_ident(c)} = ?" for c in mine), [ctx.case.user_id] * len(mine)
    elif owners and row.get(owners[0]) is not None:
        clause, params = f"{sql_ident(owners[0])} = ?", [row.get(owners[0])]
    else:
        clause, params = "1", []
    keys = key_list(td.key_columns)
    touched = ctx.touched(td.table)
    found = conn.execute(f"SELECT {keys} FROM {sql_ident(td.table)} WHERE {clause} ORDER BY {keys}", params)
    return [k for k in map(tuple, found) if k not in touched]


def _plan_other_rows(ctx: StateContext, conn: sqlite3.Connection) -> tuple[list[Statement], str]:
    """The task's first update (and first delete) of each table repeated on the candidate rows
    (one pattern per table: several would overwrite each other)."""
    statements: list[Statement] = []
    notes: list[str] = []
    for td in ctx.diff.tables:
        where = f"WHERE {key_where(td.key_columns)}"
        for change in td.updated[:1]:
            values = {c: change.after[c] for c in change.changed}
            columns = ", ".join(sql_ident(c) for c in values)
            sets = ", ".join(f"{sql_ident(c)} = ?" for c in values)
            done = 0
            for key in _candidates(ctx, conn, td, change.after):
                current = conn.execute(f"SELECT {columns} FROM {sql_ident(td.table)} {where}", key).fetchone()
                # A row that already holds the new values would change nothing.
                if current is None or tuple(current) == tuple(values.values()):
                    continue
                statements.append((f"UPDATE {sql_ident(td.table)} SET {sets} {where}", [*values.values(), *key]))
                done += 1
                if done >= OTHER_ROWS:
                    break
            if done:
                notes.append(f"{td.table} {', '.join(change.changed)} set on {done} more row(s)")
        for row in td.deleted[:1]:
            keys = _candidates(ctx, conn, td, row)[:OTHER_ROWS]
            statements += [(f"DELETE FROM {sql_ident(td.table)} {where}", key) for key in keys]
            if keys:
                notes.append(f"{len(keys)} more {td.table} row(s) deleted")
    return statements, "; ".join(notes)


def _rows_other(ctx: StateContext) -> Iterator[Probe]:
    kind = "rows:other_rows"
    if not any(td.updated or td.deleted for td in ctx.diff.tables):
        yield not_applicable(ctx, kind, "the task updates or deletes no row")
        return
    with closing(open_readonly(ctx.case.golden)) as conn:
        statements, note = _plan_other_rows(ctx, conn)
    if not statements:
        yield not_applicable(ctx, kind, "no other row of the changed table is the user's or can take the change")
        return
    yield make_probe(ctx, kind, ctx.case.golden, statements, note)


def _plan_duplicates(conn: sqlite3.Connection, inserted: list[TableDiff]) -> list[Statement] | str:
    """An INSERT of each new row again under the next free key; or why that cannot be done."""
    statements: list[Statement] = []
    for td in inserted:
        if len(td.key_columns) != 1:
            return f"{td.table} has a composite key"
        key = td.key_columns[0]
        real = {c[0] for c in table_columns(conn, td.table)}
        top = conn.execute(f"SELECT max({key_list([key])}) FROM {sql_ident(td.table)}").fetchone()[0]
        if not isinstance(top, int):
            return f"{td.table}'s key is not an integer"
        for n, row in enumerate(td.inserted, start=1):
            values = {c: v for c, v in row.items() if c in real}
            if key in real:
                values[key] = top + n
            names = ", ".join(sql_ident(c) for c in values)
            marks = ", ".join("?" for _ in values)
            statements.append((f"INSERT INTO {sql_ident(td.table)} ({names}) VALUES ({marks})", list(values.values())))
    return statements


def _rows_duplicate(ctx: StateContext) -> Iterator[Probe]:
    kind = "rows:duplicate_insert"
    inserted = [td for td in ctx.diff.tables if td.inserted]
    if not inserted:
        yield not_applicable(ctx, kind, "the task inserts no row")
        return
    with closing(open_readonly(ctx.case.golden)) as conn:
        plan = _plan_duplicates(conn, inserted)
    if isinstance(plan, str):
        yield not_applicable(ctx, kind, plan)
        return
    count = sum(len(td.inserted) for td in inserted)
    yield make_probe(ctx, kind, ctx.case.golden, plan, f"{count} inserted row(s) added twice")



def _untouched(ctx: StateContext, conn: sqlite3.Connection, table: str, kind: str) -> list[tuple[Any, ...]]:
    """Keys of up to TRIES rows of `table` the task does not touch, shuffled by the kind's generator."""
    keys = key_list(key_columns_of(conn, table))
    touched = ctx.touched(table)
    rows = [k for k in map(tuple, conn.execute(f"SELECT {keys} FROM {sql_ident(table)} ORDER BY {keys}"))
            if k not in touched]
    ctx.rng(kind).shuffle(rows)
    return rows[:TRIES]


def _focus_first(ctx: StateContext, conn: sqlite3.Connection) -> list[str]:
    return sorted(table_names(conn), key=lambda t: t != ctx.focus)


def _plan_update(ctx: StateContext, conn: sqlite3.Connection) -> tuple[Statement, str] | None:
    """One column of one untouched row nudged, the task's table first, a value column (a balance,
    a name) before a reference (a `*_id`): the change a careless agent most likely makes."""
    for table in _focus_first(ctx, conn):
        key_columns = key_columns_of(conn, table)
        others = sorted((c[0] for c in table_columns(conn, table) if not c[2]), key=lambda c: c.endswith("_id"))
        if not others:
            continue
        for key in _untouched(ctx, conn, table, "extra:update"):
            row = conn.execute(f"SELECT {', '.join(map(sql_ident, others))} FROM {sql_ident(table)} "
                               f"WHERE {key_where(key_columns)}", key).fetchone()
            for column, value in zip(others, row or (), strict=False):  # no row: nothing to nudge
                new = nudged(value)
                if new is not None:
                    return ((f"UPDATE {sql_ident(table)} SET {sql_ident(column)} = ? WHERE {key_where(key_columns)}",
                             [new, *key]), f"{table} {list(key)}: {column} {value!r} -> {new!r}")
    return None


def _extra_update(ctx: StateContext) -> Iterator[Probe]:
    with closing(open_readonly(ctx.case.golden)) as conn:
        plan = _plan_update(ctx, conn)
    if plan is None:
        yield not_applicable(ctx, "extra:update", "no untouched row has a number or a text to change")
        return
    yield make_probe(ctx, "extra:update", ctx.case.golden, [plan[0]], plan[1])


def _extra_delete(ctx: StateContext) -> Iterator[Probe]:
    with closing(open_readonly(ctx.case.golden)) as conn:
        plan = next(((f"DELETE FROM {sql_ident(t)} WHERE {key_where(key_columns_of(conn, t))}", keys[0], t)
                     for t in _focus_first(ctx, conn) if (keys := _untouched(ctx, conn, t, "extra:delete"))), None)
    if plan is None:
        yield not_applicable(ctx, "extra:delete", "every row is one the task touches")
        return
    sql, key, table = plan
    yield make_probe(ctx, "extra:delete", ctx.case.golden, [(sql, key)], f"{table} {list(key)} deleted")


def _plan_inserts(ctx: StateContext, conn: sqlite3.Connection) -> list[tuple[Statement, str]]:
    """For each table the task does not change (the task's own table last): a copy of one of its
    rows under the next key, text values marked so that a UNIQUE column (a username) takes it."""
    changed = set(ctx.diff.tables_changed())
    plans: list[tuple[Statement, str]] = []
    for table in sorted((t for t in table_names(conn) if t not in changed), key=lambda t: t == ctx.focus):
        key_columns = key_columns_of(conn, table)
        keys = _untouched(ctx, conn, table, "extra:insert")
        if not keys or len(key_columns) != 1 or key_columns[0] in ROWID_NAMES:
            continue
        columns = [c[0] for c in table_columns(conn, table)]
        source = conn.execute(f"SELECT {', '.join(map(sql_ident, columns))} FROM {sql_ident(table)} "
                              f"WHERE {key_where(key_columns)}", keys[0]).fetchone()
        top = conn.execute(f"SELECT max({sql_ident(key_columns[0])}) FROM {sql_ident(table)}").fetchone()[0]
        if not isinstance(top, int):
            continue
        values = [top + 1 if c == key_columns[0] else
                  (v + " (red team)" if isinstance(v, str) and not v[:4].isdigit() else v)
                  for c, v in zip(columns, source, strict=True)]
        sql = (f"INSERT INTO {sql_ident(table)} ({', '.join(map(sql_ident, columns))}) "
               f"VALUES ({', '.join('?' for _ in columns)})")
        plans.append(((sql, values), f"{table} #{top + 1}: a copy of {list(keys[0])}"))
    return plans


def _extra_insert(ctx: StateContext) -> Iterator[Probe]:
    with closing(open_readonly(ctx.case.golden)) as conn:
        plans = _plan_inserts(ctx, conn)
    for statement, note in plans:
        probe = make_probe(ctx, "extra:insert", ctx.case.golden, [statement], note)
        if probe.final is not None:  # else a constraint refused the copy: the next table
            yield probe
            return
    yield not_applicable(ctx, "extra:insert", "no table outside the task's change takes a copied row")



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
        yield not_applicable(ctx, "sanity:initial", "a question's golden state is its initial state")
        return
    yield Probe("sanity:initial", "initial", ctx.case.initial, ctx.case.reference_answer,
                "nothing done, the reference answer given", owned=False)


def _sanity_no_answer(ctx: StateContext) -> Iterator[Probe]:
    if not ctx.case.answer_checks():
        yield not_applicable(ctx, "sanity:no_answer", "the task's reward checks no answer")
        return
    yield Probe("sanity:no_answer", "no_answer", ctx.case.golden, None, "the golden state, no answer", owned=False)


BUILDERS: list[tuple[str, Callable[[StateContext], Iterator[Probe]]]] = [
    *SCHEMA_BUILDERS,
    ("rows:other_rows", _rows_other),
    ("rows:duplicate_insert", _rows_duplicate),
    ("extra:update", _extra_update),
    ("extra:delete", _extra_delete),
    ("extra:insert", _extra_insert),
    ("cross:other_golden", _cross),
    ("sanity:initial", _sanity_initial),
    ("sanity:no_answer", _sanity_no_answer),
]
