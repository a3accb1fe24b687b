"""One small function per check type: read the state it needs (getter), then compare (predicate).

Each function takes its check and a `Context` and returns an `Outcome` whose evidence holds the
expected and actual values (JSON-serialisable, deterministic). A check that cannot be evaluated at
all (no such table or column, a query SQLite rejects) raises `CheckError`: that is a bug in the
program, not an agent's failure, and must not be scored as one.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from verifiers.changes import DbDiff, Row, TableDiff, Value, sqlite_order
from verifiers.dbdiff import AFTER, BEFORE, diff_attached, open_pair
from verifiers.errors import (
    CheckError,
    NotADatabaseError,
    ReadOnlyQueryError,
    UnknownTableError,
)
from verifiers.normalize import Answer, match_answer
from verifiers.program import (
    AnswerCheck,
    Check,
    DiffWithin,
    FieldDelta,
    RewardProgram,
    RowMatches,
    RowsAdded,
    RowsRemoved,
    Scalar,
    SqlCheck,
    Unchanged,
)
from verifiers.schemadiff import SchemaChange, schema_changes

# Evidence lists are cut here so that a runaway diff cannot produce a megabyte of evidence.
MAX_LISTED = 20
READ_ACTIONS = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE})
# Allowed as functions, but these would make a grade depend on chance or load native code.
DENIED_FUNCTIONS = frozenset({"random", "randomblob", "load_extension"})


@dataclass(frozen=True)
class Outcome:
    """What one check found: pass or fail, one line saying why, and the evidence."""

    passed: bool
    message: str
    evidence: dict[str, object] = field(default_factory=dict)


def _authorize(action: int, arg1: str | None, arg2: str | None, db: str | None,
               source: str | None) -> int:
    """SQLite authorizer: reading and calling deterministic functions is all a check may do."""
    if action in READ_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() not in DENIED_FUNCTIONS:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


SCHEMAS = {"initial": BEFORE, "final": AFTER}


class Context:
    """The two databases and the answer of one grade call; opens and diffs lazily, once.

    Both files are attached read-only to one connection, inside one read transaction, so every
    check sees the same snapshot and the files are opened once. Only `sql` checks, whose queries
    name tables without a schema, get a connection of their own per side (with the authorizer).
    """

    def __init__(self, program: RewardProgram, initial: Path, final: Path, answer: Answer) -> None:
        self.program, self.answer = program, answer
        self.paths = {"initial": initial, "final": final}
        self._pair: sqlite3.Connection | None = None
        self._connections: dict[str, sqlite3.Connection] = {}
        self._diff: DbDiff | None = None

    def pair(self) -> sqlite3.Connection:
        """The connection with both sides attached (`before_db` initial, `after_db` final)."""
        if self._pair is None:
            conn, _, _ = open_pair(self.paths["initial"], self.paths["final"])
            conn.execute("BEGIN")
            self._pair = conn
        return self._pair

    def table(self, side: str, table: str) -> str:
        """`table` on one side, qualified for `pair()`."""
        return f"{SCHEMAS[side]}.{_ident(table)}"

    def connection(self, side: str) -> sqlite3.Connection:
        """A read-only connection (mode=ro and the authorizer) to one side."""
        if side not in self._connections:
            path = self.paths[side]
            conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True,
                                   isolation_level=None)
            try:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            except sqlite3.DatabaseError as exc:
                conn.close()
                raise NotADatabaseError(path, str(exc)) from exc
            conn.set_authorizer(_authorize)
            self._connections[side] = conn
        return self._connections[side]

    def diff(self) -> DbDiff:
        """The row-level diff, computed on first use over the tables the program names."""
        if self._diff is None:
            try:
                self._diff = diff_attached(self.pair(), self.paths["initial"], self.paths["final"],
                                           self.program.diff_tables())
            except UnknownTableError as exc:
                users = [c.id for c in self.program.checks
                         if exc.table in (c.diff_tables() or ())]
                raise CheckError(", ".join(users) or "?", str(exc)) from exc
        return self._diff

    def schema(self) -> tuple[SchemaChange, ...]:
        """Every schema object that differs between the sides (from the diff when it was made)."""
        if self._diff is not None:
            return self._diff.schema
        return schema_changes(self.pair(), BEFORE, AFTER)

    def close(self) -> None:
        """Close every connection opened."""
        for conn in self._connections.values():
            conn.close()
        self._connections.clear()
        if self._pair is not None:
            self._pair.close()
            self._pair = None


def same(expected: object, actual: object) -> bool:
    """SQLite equality under BINARY collation: 1 == 1.0 == true, text never equals a number."""
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


def jsonable(value: object) -> object:
    """Evidence values: blobs as hex, non-finite reals as text, tuples as lists."""
    if isinstance(value, bytes):
        return {"blob_hex": value.hex()}
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def _show(value: object) -> str:
    return repr(value) if isinstance(value, str) else "NULL" if value is None else str(value)


def _where_text(where: Mapping[str, Scalar]) -> str:
    return ", ".join(f"{k}={_show(v)}" for k, v in where.items()) or "any values"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _select(ctx: Context, check: Check, side: str, table: str,
            where: Mapping[str, Scalar]) -> list[Row]:
    """Rows of `table` on one side equal to `where` (strict equality, checked in Python)."""
    clause = " AND ".join(f"{_ident(c)} IS ?" for c in where) or "1"
    sql = f"SELECT * FROM {ctx.table(side, table)} WHERE {clause}"
    try:
        cursor = ctx.pair().execute(sql, tuple(where.values()))
    except sqlite3.DatabaseError as exc:
        raise CheckError(check.id, f"cannot read {table!r} in the {side} database: {exc}") from exc
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    # SQL's IS applies column affinity and collation; keep only exactly equal rows.
    return [r for r in rows if all(same(v, r[c]) for c, v in where.items())]


def check_row_matches(check: RowMatches, ctx: Context) -> Outcome:
    """One row, selected by key, holds the expected values."""
    rows = _select(ctx, check, check.db, check.table, check.key)
    base = {"db": check.db, "table": check.table, "key": jsonable(check.key),
            "expected": jsonable(check.expect)}
    where = f"{check.table} {_where_text(check.key)}"
    if len(rows) != 1:
        return Outcome(False, f"{len(rows)} rows of {where} in the {check.db} database "
                              "(expected exactly one)", {**base, "rows_found": len(rows)})
    row = rows[0]
    unknown = [c for c in check.expect if c not in row]
    if unknown:
        raise CheckError(check.id, f"table {check.table!r} has no column {unknown[0]!r}")
    actual = {c: row[c] for c in check.expect}
    wrong = [c for c, v in check.expect.items() if not same(v, actual[c])]
    evidence = {**base, "actual": jsonable(actual), "mismatched": wrong}
    if wrong:
        detail = ", ".join(f"{c} = {_show(actual[c])} (expected {_show(check.expect[c])})"
                           for c in wrong)
        return Outcome(False, f"{where}: {detail}", evidence)
    return Outcome(True, f"{where}: {_where_text(check.expect)}", evidence)


def check_field_delta(check: FieldDelta, ctx: Context) -> Outcome:
    """final - initial of one numeric column of one row equals the expected delta."""
    values: dict[str, Value] = {}
    where = f"{check.table} {_where_text(check.key)}"
    base = {"table": check.table, "key": jsonable(check.key), "column": check.column,
            "expected_delta": check.delta, "tolerance": check.tolerance}
    for side in ("initial", "final"):
        rows = _select(ctx, check, side, check.table, check.key)
        if len(rows) != 1:
            return Outcome(False, f"{len(rows)} rows of {where} in the {side} database "
                                  "(expected exactly one)", {**base, f"{side}_rows": len(rows)})
        if check.column not in rows[0]:
            raise CheckError(check.id, f"table {check.table!r} has no column {check.column!r}")
        values[side] = rows[0][check.column]
    before, after = values["initial"], values["final"]
    evidence = {**base, "initial": jsonable(before), "final": jsonable(after)}
    if not (isinstance(before, int | float) and isinstance(after, int | float)):
        return Outcome(False, f"{where} {check.column} is not numeric on both sides "
                              f"({_show(before)} -> {_show(after)})", evidence)
    delta = after - before
    evidence["actual_delta"] = delta
    ok = abs(delta - check.delta) <= check.tolerance + 1e-9
    return Outcome(ok, f"{where} {check.column} changed by {delta:g} ({_show(before)} -> "
                       f"{_show(after)}), expected {check.delta:g}", evidence)


def _table_diff(check: Check, ctx: Context, table: str) -> TableDiff:
    try:
        return ctx.diff().table(table)
    except UnknownTableError as exc:
        raise CheckError(check.id, str(exc)) from exc


def _key_of(td: TableDiff, row: Row) -> list[object]:
    return [jsonable(row.get(c)) for c in td.key_columns]


def check_rows_changed(check: RowsAdded, ctx: Context) -> Outcome:
    """Exactly `count` rows inserted (rows_added) or deleted (rows_removed) match `where`."""
    td = _table_diff(check, ctx, check.table)
    unknown = [c for c in check.where if c not in td.columns]
    if unknown and td.columns:
        raise CheckError(check.id, f"table {check.table!r} has no column {unknown[0]!r}")
    removed = isinstance(check, RowsRemoved)
    rows = td.deleted if removed else td.inserted
    matching = [r for r in rows if all(c in r and same(v, r[c]) for c, v in check.where.items())]
    verb = "deleted" if removed else "inserted"
    evidence = {"table": check.table, "where": jsonable(check.where),
                "expected_count": check.count, "actual_count": len(matching),
                f"{verb}_total": len(rows), "matching": jsonable(matching[:MAX_LISTED])}
    ok = len(matching) == check.count
    return Outcome(ok, f"{len(matching)} {verb} row(s) of {check.table} match "
                       f"{_where_text(check.where)} (expected {check.count})", evidence)


def check_diff_within(check: DiffWithin, ctx: Context) -> Outcome:
    """Every change between the databases is allowed by the program."""
    diff = ctx.diff()
    compared = {t.table for t in diff.tables}
    unknown = sorted(set(check.allowed) - compared)
    if unknown:
        raise CheckError(check.id, f"allowed names table {unknown[0]!r}, which neither database "
                                   f"has (tables: {', '.join(sorted(compared))})")
    offending: list[dict[str, object]] = []
    for td in diff.tables:
        allow = check.allowed.get(td.table)
        if allow is not None and allow.rows is not None and len(td.key_columns) != 1:
            # Whether or not the table changed: a program that cannot work should fail loudly.
            raise CheckError(check.id, f"allowed[{td.table!r}] names rows, but the table's key has "
                                       f"{len(td.key_columns)} columns ({', '.join(td.key_columns)})")
        if td.is_empty:
            continue
        if td.schema != "same":
            offending.append({"table": td.table, "change": f"schema {td.schema}"})
            continue
        limit = 0 if allow is None else allow.max_inserts
        # Rows are in key order, so the rows past the limit are the newest keys: name those.
        for r in td.inserted[limit:] if limit is not None else ():
            offence: dict[str, object] = {"table": td.table, "change": "insert", "key": _key_of(td, r)}
            if limit:
                offence["limit"] = limit
            offending.append(offence)
        for r in td.deleted:
            if not (allow and allow.delete):
                offending.append({"table": td.table, "change": "delete", "key": _key_of(td, r)})
            elif not allow.allows_row(tuple(r.get(c) for c in td.key_columns)):
                offending.append({"table": td.table, "change": "delete", "key": _key_of(td, r),
                                  "reason": "row not in rows"})
        permitted = () if allow is None else allow.update
        for change in td.updated:
            extra = [] if permitted is True else [c for c in change.changed if c not in permitted]
            if extra:
                offending.append({"table": td.table, "change": "update",
                                  "key": jsonable(list(change.key)), "columns": extra})
            elif allow is not None and not allow.allows_row(change.key):
                offending.append({"table": td.table, "change": "update",
                                  "key": jsonable(list(change.key)),
                                  "columns": list(change.changed), "reason": "row not in rows"})
    # No program allows a schema change: an index, trigger or view is state like a row.
    offending += [{"table": c.table, "change": f"{c.kind} {c.change}", "object": c.describe()}
                  for c in diff.schema]
    evidence = {"changes": diff.summary(), "offending_total": len(offending),
                "offending": offending[:MAX_LISTED]}
    if not offending:
        return Outcome(True, f"every change is allowed ({diff.summary()})", evidence)
    shown = "; ".join(_offence_text(o) for o in offending[:3])
    more = f" and {len(offending) - 3} more" if len(offending) > 3 else ""
    return Outcome(False, f"{len(offending)} change(s) not allowed: {shown}{more}", evidence)


def _offence_text(offence: Mapping[str, object]) -> str:
    if "object" in offence:
        return str(offence["object"])
    key = offence.get("key")
    text = f"{offence['table']} {offence['change']}"
    if key is not None:
        text += f" key {key}"
    if "columns" in offence:
        text += f" ({', '.join(offence['columns'])})"  # type: ignore[arg-type]  # column names, as check_diff_within lists them
    if "limit" in offence:
        text += f" (over the limit of {offence['limit']} new rows)"
    if "reason" in offence:
        text += f" ({offence['reason']})"
    return text


def check_unchanged(check: Unchanged, ctx: Context) -> Outcome:
    """The named tables are identical on both sides."""
    changed: dict[str, str] = {}
    for t in check.tables:
        td = _table_diff(check, ctx, t)
        clauses = [] if td.is_empty else [td.summary()]
        # The table's definition, indexes and triggers are part of it.
        clauses += [c.describe() for c in ctx.diff().schema_of(t)]
        if clauses:
            changed[t] = "; ".join(clauses)
    evidence: dict[str, object] = {"tables": list(check.tables), "changed": changed}
    if changed:
        return Outcome(False, "changed: " + "; ".join(changed.values()), evidence)
    return Outcome(True, f"unchanged: {', '.join(check.tables)}", evidence)


def _row_order(row: Sequence[object]) -> tuple[object, ...]:
    return tuple(sqlite_order(v) for v in row)  # type: ignore[arg-type]  # SQLite values: a query's rows or JSON scalars


def check_sql(check: SqlCheck, ctx: Context) -> Outcome:
    """A read-only query returns the expected rows (as a multiset unless `ordered`)."""
    conn = ctx.connection(check.db)
    try:
        actual = [tuple(r) for r in conn.execute(check.query).fetchall()]
    except (sqlite3.DatabaseError, sqlite3.Warning) as exc:
        # The authorizer's refusal surfaces as "not authorized"; several statements as a
        # ProgrammingError: both mean the query is not one read-only statement.
        if "not authorized" in str(exc) or "one statement" in str(exc):
            raise ReadOnlyQueryError(check.id, f"query refused, only a single read-only "
                                               f"SELECT/WITH statement may run: {exc}") from exc
        raise CheckError(check.id, f"query failed on the {check.db} database: {exc}") from exc
    expected = list(check.expect)
    got, want = (actual, expected) if check.ordered else (
        sorted(actual, key=_row_order), sorted(expected, key=_row_order))
    ok = len(got) == len(want) and all(
        len(a) == len(e) and all(same(x, y) for x, y in zip(e, a, strict=True))
        for a, e in zip(got, want, strict=True))
    evidence = {"db": check.db, "query": check.query, "ordered": check.ordered,
                "expected": jsonable(expected), "actual": jsonable(actual[:MAX_LISTED]),
                "actual_rows": len(actual)}
    shown = jsonable(actual[:3])
    message = (f"query returned {len(actual)} row(s) as expected" if ok else
               f"query returned {shown}{' ...' if len(actual) > 3 else ''}, "
               f"expected {jsonable(expected[:3])}")
    return Outcome(ok, message, evidence)


def check_answer(check: AnswerCheck, ctx: Context) -> Outcome:
    """The answer, normalised by kind, matches one of the acceptable values."""
    results = [match_answer(check.kind, list(e) if isinstance(e, tuple) else e, ctx.answer,
                            tolerance=check.tolerance, aliases=check.aliases,
                            item_kind=check.item_kind, currency=check.currency or None)
               for e in check.one_of]
    hit = next((m for m in results if m.matched), None)
    first = hit or results[0]
    expected = jsonable(check.one_of[0] if len(check.one_of) == 1 else list(check.one_of))
    evidence = {"kind": check.kind, "expected": expected, "answer": jsonable(ctx.answer),
                "normalised": jsonable(first.normalised), **({"currency": check.currency} if check.currency else {})}
    if hit:
        return Outcome(True, f"answer reads as {jsonable(hit.normalised)!r}", evidence)
    evidence["reason"] = first.reason
    return Outcome(False, f"{first.reason}: answer {_show(jsonable(ctx.answer))} read as "
                          f"{_show(jsonable(first.normalised))}, expected {_show(expected)}",
                   evidence)


# Each function takes only the check type it is keyed by, which the Callable type cannot say: hence the ignores.
CHECK_FUNCTIONS: dict[type[Check], Callable[[Check, Context], Outcome]] = {
    RowMatches: check_row_matches,  # type: ignore[dict-item]  # its key's type only
    FieldDelta: check_field_delta,  # type: ignore[dict-item]  # its key's type only
    RowsAdded: check_rows_changed,  # type: ignore[dict-item]  # its key's type only
    RowsRemoved: check_rows_changed,  # type: ignore[dict-item]  # its key's type only
    DiffWithin: check_diff_within,  # type: ignore[dict-item]  # its key's type only
    Unchanged: check_unchanged,  # type: ignore[dict-item]  # its key's type only
    SqlCheck: check_sql,  # type: ignore[dict-item]  # its key's type only
    AnswerCheck: check_answer,  # type: ignore[dict-item]  # its key's type only
}
