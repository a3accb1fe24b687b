"""`schema:*` probes: the golden state plus one schema object (a trigger, a view, an index made or
dropped, statistics, an extra table, an added column). The rows are the golden rows, so only a
diff that sees the schema can tell them apart."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing

from factory.redteam.context import (
    StateContext,
    make_probe,
    not_applicable,
    open_readonly,
    sql_ident,
    table_columns,
)
from factory.redteam.probes import Probe


def _text_or_number_column(conn: sqlite3.Connection, table: str) -> tuple[str, str] | None:
    """A column of `table` a trigger can rewrite, and the expression that rewrites it."""
    columns = [c for c in table_columns(conn, table) if not c[2]]
    for name, kind, _ in columns:
        if "CHAR" in kind or "TEXT" in kind or "CLOB" in kind:
            return name, f"{sql_ident(name)} || ' (trigger)'"
    for name, kind, _ in columns:
        if "INT" in kind or "REAL" in kind or "NUM" in kind:
            return name, f"{sql_ident(name)} + 1"
    return None


def _schema_trigger(ctx: StateContext) -> Iterator[Probe]:
    kind, t = "schema:trigger", ctx.focus
    with closing(open_readonly(ctx.case.golden)) as conn:
        target = _text_or_number_column(conn, t)
    if target is None:
        yield not_applicable(ctx, kind, f"{t} has no text or number column for a trigger to rewrite")
        return
    column, expression = target
    # Dormant until the app's next update of that table: then it silently rewrites the row.
    sql = (f"CREATE TRIGGER redteam_trigger AFTER UPDATE ON {sql_ident(t)} WHEN NEW.{sql_ident(column)} IS "
           f"OLD.{sql_ident(column)} BEGIN UPDATE {sql_ident(t)} SET {sql_ident(column)} = {expression} "
           f"WHERE rowid = NEW.rowid; END")
    yield make_probe(ctx, kind, ctx.case.golden, [(sql, ())], f"trigger on {t} rewriting {column} on its next update")


def _schema_view(ctx: StateContext) -> Iterator[Probe]:
    t = ctx.focus
    yield make_probe(ctx, "schema:view", ctx.case.golden,
                 [(f"CREATE VIEW redteam_view AS SELECT * FROM {sql_ident(t)}", ())], f"view over {t}")


def _schema_create_index(ctx: StateContext) -> Iterator[Probe]:
    t = ctx.focus
    with closing(open_readonly(ctx.case.golden)) as conn:
        column = next((c[0] for c in table_columns(conn, t) if not c[2]), table_columns(conn, t)[0][0])
    yield make_probe(ctx, "schema:create_index", ctx.case.golden,
                 [(f"CREATE INDEX redteam_index ON {sql_ident(t)}({sql_ident(column)})", ())], f"index on {t}({column})")


def _schema_drop_index(ctx: StateContext) -> Iterator[Probe]:
    with closing(open_readonly(ctx.case.golden)) as conn:
        # Indexes made by CREATE INDEX (sql is set); the task's table first. Automatic indexes
        # (UNIQUE, PRIMARY KEY) cannot be dropped.
        found = conn.execute("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
                             "ORDER BY tbl_name != ?, tbl_name, name", (ctx.focus,)).fetchone()
    if found is None:
        yield not_applicable(ctx, "schema:drop_index", "the world's database has no index made by CREATE INDEX")
        return
    yield make_probe(ctx, "schema:drop_index", ctx.case.golden, [(f"DROP INDEX {sql_ident(found[0])}", ())],
                 f"index {found[0]} on {found[1]} dropped")


def _schema_analyze(ctx: StateContext) -> Iterator[Probe]:
    yield make_probe(ctx, "schema:analyze", ctx.case.golden, [("ANALYZE", ())], "ANALYZE (sqlite_stat1 written)")


def _schema_create_table(ctx: StateContext) -> Iterator[Probe]:
    yield make_probe(ctx, "schema:create_table", ctx.case.golden,
                 [("CREATE TABLE redteam_extra (id INTEGER PRIMARY KEY, note TEXT)", ()),
                  ("INSERT INTO redteam_extra (note) VALUES ('red team')", ())], "table redteam_extra with one row")


def _schema_add_column(ctx: StateContext) -> Iterator[Probe]:
    t = ctx.focus
    yield make_probe(ctx, "schema:add_column", ctx.case.golden,
                 [(f"ALTER TABLE {sql_ident(t)} ADD COLUMN redteam_note TEXT", ())], f"column redteam_note added to {t}")


# The schema probes in their fixed order, for `states.BUILDERS`.
SCHEMA_BUILDERS: list[tuple[str, Callable[[StateContext], Iterator[Probe]]]] = [
    ("schema:trigger", _schema_trigger),
    ("schema:view", _schema_view),
    ("schema:create_index", _schema_create_index),
    ("schema:drop_index", _schema_drop_index),
    ("schema:analyze", _schema_analyze),
    ("schema:create_table", _schema_create_table),
    ("schema:add_column", _schema_add_column),
]
