"""Row-level diff of two SQLite databases, matched by primary key and read strictly read-only.

`diff_databases(before, after)` attaches both files read-only to one in-memory connection and,
per table, lets SQLite find the rows that are not identical on both sides, so identical tables
never reach Python; only the differing rows are loaded and paired by key. A table keyed by its
rowid on both sides (an INTEGER PRIMARY KEY, or no key at all) is matched with joins on the rowid,
several times faster than the general path, `EXCEPT` both ways over whole rows, which every
other table takes; both paths find exactly the same rows.

Semantics, chosen to match `sqldiff --primarykey`:
- a row's key is the declared PRIMARY KEY (composite allowed); a table without one is keyed by
  its rowid, exposed as a `rowid` column (or `_rowid_` / `oid` when a real column takes the name);
- rows hold the key columns first, then the others in declared order;
- a table only in `before` is "dropped" (all rows deleted), only in `after` is "added" (all rows
  inserted); columns appended in `after` read as NULL in `before` ("columns_added"); any other
  schema change is "replaced" (every row deleted, then every row inserted);
- values compare as SQLite compares them (1 equals 1.0, text never equals a blob), but always with
  BINARY collation so a change of letter case is a change even in a NOCASE column;
- internal `sqlite_%` tables and virtual tables have no rows in the diff;
- the rest of the schema is state too: indexes, triggers, views, virtual tables, table
  definitions edited in place, `sqlite_stat*` statistics and the header pragmas are compared
  object by object (`verifiers.schemadiff`) and listed in `DbDiff.schema`, always over the whole
  database (even when `tables` limits the row diff), so no schema change goes unseen.

The results (`DbDiff`, `TableDiff`, `RowChange`) are data defined in `verifiers.changes`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from verifiers.changes import DbDiff, Row, RowChange, TableDiff, Value, key_order
from verifiers.errors import (
    DatabaseError,
    DatabaseNotFoundError,
    DatabaseReadError,
    NotADatabaseError,
    UnkeyedTableError,
    UnknownTableError,
)
from verifiers.pages import PageDiff, page_diff
from verifiers.schemadiff import schema_changes

SQLITE_HEADER = b"SQLite format 3\x00"
ROWID_ALIASES = ("rowid", "_rowid_", "oid")
# Schema names for the two attached files; neither is an SQL keyword.
BEFORE, AFTER = "before_db", "after_db"


def diff_databases(
    before: str | Path, after: str | Path, tables: list[str] | None = None
) -> DbDiff:
    """Diff two SQLite files row by row by primary key; neither file is ever modified.

    `tables` limits the diff to those names (each must exist on at least one side); by default
    every table on either side is compared.
    """
    return _diff_databases(before, after, tables, rowid_join=True)


def _diff_databases(
    before: str | Path, after: str | Path, tables: list[str] | None, *, rowid_join: bool
) -> DbDiff:
    """`diff_databases`; `rowid_join=False` sends every table down the general `EXCEPT` path,
    which the tests use as the reference the rowid joins must agree with."""
    conn, before_path, after_path = open_pair(before, after)
    try:
        # One read transaction over both files: a consistent snapshot even if a server writes.
        conn.execute("BEGIN")
        try:
            return diff_attached(conn, before_path, after_path, tables, rowid_join=rowid_join)
        finally:
            conn.rollback()
    finally:
        conn.close()


def open_pair(before: str | Path, after: str | Path) -> tuple[sqlite3.Connection, Path, Path]:
    """One in-memory connection with both files attached read-only (as `before_db` and
    `after_db`), and their resolved paths; a missing or non-SQLite file raises naming it."""
    before_path, after_path = _checked(before), _checked(after)
    conn = sqlite3.connect(":memory:", uri=True, isolation_level=None)
    try:
        _attach(conn, before_path, BEFORE)
        _attach(conn, after_path, AFTER)
    except DatabaseError:
        conn.close()
        raise
    return conn, before_path, after_path


def diff_attached(conn: sqlite3.Connection, before: Path, after: Path,
                  tables: list[str] | None = None, *, rowid_join: bool = True) -> DbDiff:
    """`diff_databases` over a connection from `open_pair`, inside the caller's transaction."""
    return _diff(conn, before, after, tables, rowid_join)


def _checked(path: str | Path) -> Path:
    """Reject missing and non-SQLite files up front, with a message naming the path."""
    p = Path(path)
    if not p.exists():
        raise DatabaseNotFoundError(p)
    if not p.is_file():
        raise NotADatabaseError(p, "it is a directory" if p.is_dir() else "not a regular file")
    try:
        with p.open("rb") as fh:
            header = fh.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise DatabaseError(p, f"cannot read the file ({exc.strerror})") from exc
    # SQLite treats an empty file as an empty database; anything else needs the magic header.
    if header and header != SQLITE_HEADER:
        raise NotADatabaseError(p, "the file lacks the 'SQLite format 3' header")
    return p.resolve()


def _attach(conn: sqlite3.Connection, path: Path, schema: str) -> None:
    # mode=ro: SQLite refuses every write, yet still reads committed rows from a -wal file.
    uri = f"file:{quote(str(path))}?mode=ro"
    try:
        conn.execute(f"ATTACH DATABASE ? AS {schema}", (uri,))
        conn.execute(f"SELECT count(*) FROM {schema}.sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        raise NotADatabaseError(path, str(exc)) from exc


@dataclass(frozen=True)
class _Layout:
    """How one side stores a table: its key and its columns, key first."""

    key: tuple[str, ...]
    columns: tuple[str, ...]
    by_rowid: bool
    sql: str
    # The key is the rowid itself (an INTEGER PRIMARY KEY alias, or no declared key): integer,
    # unique and never NULL, so rows can be matched with a join on it.
    rowid_key: bool = False

    def select_list(self) -> list[str]:
        # The rowid alias must stay unquoted: a quoted "oid" could not fall back to the rowid.
        names = [c if self.by_rowid and i == 0 else _ident(c) for i, c in enumerate(self.columns)]
        return [f"{n} COLLATE BINARY" for n in names]

    def refs(self, alias: str) -> list[str]:
        """The columns qualified by a table alias, as `select_list` names them."""
        return [f"{alias}.{c}" if self.by_rowid and i == 0 else f"{alias}.{_ident(c)}"
                for i, c in enumerate(self.columns)]


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _table_sql(conn: sqlite3.Connection, schema: str) -> dict[str, str]:
    rows = conn.execute(
        f"SELECT name, coalesce(sql, '') FROM {schema}.sqlite_master"
        " WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        " AND coalesce(sql, '') NOT LIKE 'CREATE VIRTUAL%'"
    ).fetchall()
    return dict(rows)


# A table's layout follows from its CREATE statement alone, so it is read once per statement: a
# process grading many episodes of one world asks SQLite only for statements it has not seen.
_LAYOUTS: dict[tuple[str, str], _Layout] = {}
MAX_LAYOUTS = 4096


def _layout(conn: sqlite3.Connection, path: Path, schema: str, table: str, sql: str) -> _Layout:
    known = _LAYOUTS.get((table, sql)) if sql else None
    if known is None:
        known = _read_layout(conn, path, schema, table, sql)
        if sql:
            if len(_LAYOUTS) >= MAX_LAYOUTS:
                _LAYOUTS.clear()
            _LAYOUTS[(table, sql)] = known
    return known


def _read_layout(conn: sqlite3.Connection, path: Path, schema: str, table: str, sql: str) -> _Layout:
    info = conn.execute(
        "SELECT name, pk FROM pragma_table_info(?, ?) ORDER BY cid", (table, schema)
    ).fetchall()
    key = tuple(name for name, pk in sorted((r for r in info if r[1]), key=lambda r: r[1]))
    others = tuple(name for name, pk in info if not pk)
    if key:
        # A one-column key is the rowid unless SQLite had to build an index for it ('pk' origin):
        # that catches INT PRIMARY KEY, INTEGER PRIMARY KEY DESC and WITHOUT ROWID tables.
        pk_index = conn.execute(
            "SELECT 1 FROM pragma_index_list(?, ?) WHERE origin = 'pk'", (table, schema)
        ).fetchone()
        return _Layout(key, key + others, False, sql, rowid_key=len(key) == 1 and not pk_index)
    taken = {name.lower() for name, _ in info}
    alias = next((a for a in ROWID_ALIASES if a not in taken), None)
    if alias is None:
        raise UnkeyedTableError(path, table)
    return _Layout((alias,), (alias,) + others, True, sql, rowid_key=True)


def _index_sql(conn: sqlite3.Connection, schema: str, table: str) -> tuple[str, ...]:
    rows = conn.execute(
        f"SELECT sql FROM {schema}.sqlite_master"
        " WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY rowid",
        (table,),
    ).fetchall()
    return tuple(r[0] for r in rows)


def _diff(
    conn: sqlite3.Connection, before: Path, after: Path, only: list[str] | None,
    rowid_join: bool,
) -> DbDiff:
    old_tables, new_tables = _table_sql(conn, BEFORE), _table_sql(conn, AFTER)
    names = sorted(old_tables.keys() | new_tables.keys())
    if only is not None:
        for name in only:
            if name not in old_tables and name not in new_tables:
                raise UnknownTableError(name, names)
        names = sorted(set(only))
    pages = _page_view(conn, before, after) if rowid_join else None
    result: list[TableDiff] = []
    for name in names:
        old = _layout(conn, before, BEFORE, name, old_tables[name]) if name in old_tables else None
        new = _layout(conn, after, AFTER, name, new_tables[name]) if name in new_tables else None
        if (pages is not None and pages.untouched(name) and new is not None and old is not None
                and old.sql == new.sql):
            result.append(TableDiff(name, new.key, columns=new.columns, schema="same"))
            continue
        try:
            rowids = pages.rowids(name) if pages is not None else None
            result.append(_diff_table(conn, name, old, new, rowid_join, rowids))
        except sqlite3.DatabaseError as exc:
            raise DatabaseReadError(before, after, name, str(exc)) from exc
    try:
        changes = schema_changes(conn, BEFORE, AFTER)
    except sqlite3.DatabaseError as exc:
        raise DatabaseReadError(before, after, "sqlite_master", str(exc)) from exc
    # A table whose row diff already states its schema status is not listed twice.
    told = {t.table for t in result if t.schema != "same"}
    return DbDiff(tuple(result), tuple(c for c in changes
                                       if not (c.kind == "table" and c.name in told)))


def _page_view(conn: sqlite3.Connection, before: Path, after: Path) -> PageDiff | None:
    """Which tables can differ, and which of their rows, from the two files' pages (see
    `verifiers.pages`); None when the pages cannot tell and every table is diffed row by row."""
    roots: list[dict[str, int]] = []
    for schema in (BEFORE, AFTER):
        rows = conn.execute(f"SELECT name, rootpage FROM {schema}.sqlite_master"
                            " WHERE type IN ('table', 'index') AND rootpage > 0").fetchall()
        roots.append({"sqlite_schema": 1, **dict(rows)})
    tables = {name for side in roots for name in side}
    return page_diff(before, after, roots[0], roots[1], tables)


def _all_rows(conn: sqlite3.Connection, schema: str, table: str, layout: _Layout) -> list[Row]:
    cursor = conn.execute(f"SELECT {', '.join(layout.select_list())} FROM {schema}.{_ident(table)}")
    return _sorted_rows((dict(zip(layout.columns, r, strict=True)) for r in cursor), len(layout.key))


def _sorted_rows(rows: Iterable[Row], key_len: int) -> list[Row]:
    return sorted(rows, key=lambda r: key_order(list(r.values())[:key_len]))


def _diff_table(
    conn: sqlite3.Connection, table: str, old: _Layout | None, new: _Layout | None,
    rowid_join: bool, rowids: frozenset[int] | None = None,
) -> TableDiff:
    if new is None:
        assert old is not None  # the table came from one of the two sides
        return TableDiff(table, old.key, deleted=_all_rows(conn, BEFORE, table, old),
                         columns=old.columns, schema="dropped")
    if old is None:
        return TableDiff(table, new.key, inserted=_all_rows(conn, AFTER, table, new),
                         columns=new.columns, schema="added",
                         create_sql=(new.sql, *_index_sql(conn, AFTER, table)))
    old_names = [c.lower() for c in old.columns]
    new_names = [c.lower() for c in new.columns]
    # Like sqldiff: same key, and `after` may only append columns; anything else replaces.
    if len(old.key) != len(new.key) or new_names[: len(old_names)] != old_names:
        return TableDiff(
            table, new.key,
            inserted=_all_rows(conn, AFTER, table, new),
            deleted=_all_rows(conn, BEFORE, table, old),
            columns=new.columns, schema="replaced",
            create_sql=(new.sql, *_index_sql(conn, AFTER, table)),
        )
    appended = new.columns[len(old.columns):]
    if rowid_join and old.rowid_key and new.rowid_key:
        gone, came = _changed_by_rowid(conn, table, old, new, appended, rowids)
        return _pair(table, new, gone, came, appended)
    old_select = ", ".join(old.select_list() + ["NULL"] * len(appended))
    new_select = ", ".join(new.select_list())
    ident = _ident(table)
    gone = conn.execute(
        f"SELECT {old_select} FROM {BEFORE}.{ident} EXCEPT SELECT {new_select} FROM {AFTER}.{ident}"
    ).fetchall()
    came = conn.execute(
        f"SELECT {new_select} FROM {AFTER}.{ident} EXCEPT SELECT {old_select} FROM {BEFORE}.{ident}"
    ).fetchall()
    return _pair(table, new, gone, came, appended)


def _changed_by_rowid(
    conn: sqlite3.Connection, table: str, old: _Layout, new: _Layout, appended: tuple[str, ...],
    rowids: frozenset[int] | None = None,
) -> tuple[list[tuple[Value, ...]], list[tuple[Value, ...]]]:
    """The rows `EXCEPT` would find both ways, for a table keyed by its rowid on both sides.

    Returns (gone, came) shaped like the general path's: `before` rows padded with NULL for the
    appended columns, and `after` rows. `rowids`, when given, are the only rows that can differ
    (from the pages, `verifiers.pages`): only those are read.
    """
    if rowids is not None:
        return _changed_rowids(conn, table, old, new, appended, rowids)
    ident = _ident(table)
    old_refs, new_refs = old.refs("a"), new.refs("b")
    old_key, new_key = old_refs[0], new_refs[0]
    # `EXCEPT` compares values with no type affinity and, here, BINARY collation. Unary `+`
    # strips the column's affinity (otherwise an INTEGER column would make '1' equal 1 when the
    # two sides declare different types) and the explicit COLLATE overrides e.g. NOCASE. The
    # keys are equal by the join, so only the other columns need comparing.
    differs = [f"(+{a}) COLLATE BINARY IS NOT (+{b}) COLLATE BINARY"
               for a, b in zip(old_refs[1:], new_refs[1:], strict=False)]  # `after` may have more columns
    # Appended columns read as NULL in `before`.
    differs += [f"{b} IS NOT NULL" for b in new_refs[len(old_refs):]]
    condition = " OR ".join([f"{old_key} IS NULL", *differs])
    # One pass over `after` finds inserted rows (no partner) and updated ones (a partner that
    # differs): each row costs a rowid lookup, where `EXCEPT` sorts whole rows of both tables.
    rows = conn.execute(
        f"SELECT {', '.join(new_refs + old_refs)} FROM {AFTER}.{ident} AS b"
        f" LEFT JOIN {BEFORE}.{ident} AS a ON {old_key} = {new_key} WHERE {condition}"
    ).fetchall()
    n_new = len(new_refs)
    padding: tuple[Value, ...] = (None,) * len(appended)
    came = [row[:n_new] for row in rows]
    gone = [row[n_new:] + padding for row in rows if row[n_new] is not None]
    inserted = len(rows) - len(gone)
    # Keys are unique on each side, so `before` rows without a partner number
    # count(before) - (count(after) - inserted). Counting walks b-tree pages without decoding a
    # row, which lets the usual case (nothing deleted) skip the second pass entirely.
    old_count, new_count = conn.execute(
        f"SELECT (SELECT count(*) FROM {BEFORE}.{ident}), (SELECT count(*) FROM {AFTER}.{ident})"
    ).fetchone()
    if old_count > new_count - inserted:
        gone += [
            row + padding
            for row in conn.execute(
                f"SELECT {', '.join(old_refs)} FROM {BEFORE}.{ident} AS a"
                f" LEFT JOIN {AFTER}.{ident} AS b ON {new_key} = {old_key} WHERE {new_key} IS NULL"
            )
        ]
    return gone, came


def _changed_rowids(
    conn: sqlite3.Connection, table: str, old: _Layout, new: _Layout, appended: tuple[str, ...],
    rowids: frozenset[int],
) -> tuple[list[tuple[Value, ...]], list[tuple[Value, ...]]]:
    """`_changed_by_rowid` over the listed rows only: both sides' rows with those rowids."""
    if not rowids:
        return [], []
    listed = ",".join(str(int(r)) for r in sorted(rowids))  # integers from the pages: safe
    ident = _ident(table)
    padding: tuple[Value, ...] = (None,) * len(appended)
    # The key column is the rowid (or its alias), whatever other column may be named "rowid".
    old_rows = conn.execute(f"SELECT {', '.join(old.select_list())} FROM {BEFORE}.{ident}"
                            f" WHERE {old.refs(ident)[0]} IN ({listed})").fetchall()
    new_rows = conn.execute(f"SELECT {', '.join(new.select_list())} FROM {AFTER}.{ident}"
                            f" WHERE {new.refs(ident)[0]} IN ({listed})").fetchall()
    old_by_key = {r[0]: r for r in old_rows}
    new_by_key = {r[0]: r for r in new_rows}
    gone = [r + padding for k, r in old_by_key.items()
            if k not in new_by_key or not _same_row(r + padding, new_by_key[k])]
    came = [r for k, r in new_by_key.items()
            if k not in old_by_key or not _same_row(old_by_key[k] + padding, r)]
    return gone, came


def _same_row(a: tuple[Value, ...], b: tuple[Value, ...]) -> bool:
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))


def _pair(
    table: str,
    layout: _Layout,
    gone: list[tuple[Value, ...]],
    came: list[tuple[Value, ...]],
    appended: tuple[str, ...],
) -> TableDiff:
    """Pair rows that left `before` with rows that arrived in `after` by key."""
    n = len(layout.key)
    old_by_key = {tuple(r[:n]): r for r in gone}
    new_by_key = {tuple(r[:n]): r for r in came}
    inserted: list[Row] = []
    deleted: list[Row] = []
    updated: list[RowChange] = []
    for key in sorted(old_by_key.keys() | new_by_key.keys(), key=key_order):
        old_row, new_row = old_by_key.get(key), new_by_key.get(key)
        if old_row is None:
            inserted.append(dict(zip(layout.columns, new_row or (), strict=True)))
        elif new_row is None:
            deleted.append(dict(zip(layout.columns, old_row, strict=True)))
        else:
            changed = tuple(
                c for c, a, b in zip(layout.columns, old_row, new_row, strict=True) if not _same(a, b)
            )
            if changed:
                updated.append(RowChange(key, dict(zip(layout.columns, old_row, strict=True)),
                                         dict(zip(layout.columns, new_row, strict=True)), changed))
    return TableDiff(table, layout.key, inserted, deleted, updated, columns=layout.columns,
                     schema="columns_added" if appended else "same", new_columns=appended)


def _same(a: Value, b: Value) -> bool:
    """SQLite's `IS` under BINARY collation: 1 is 1.0, but text is never a blob or a number."""
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b
