"""Row-level database diffs: semantics, read-only access, errors, speed, and sqldiff's format."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from verifiers import (
    DatabaseNotFoundError,
    NotADatabaseError,
    RowChange,
    UnknownTableError,
    VerifierError,
    dbdiff,
    diff_databases,
    render_sqldiff,
)

SQLDIFF = shutil.which("sqldiff")
needs_sqldiff = pytest.mark.skipif(
    SQLDIFF is None, reason="sqldiff not installed: apt-get install sqlite3-tools (.ci/run installs it; make setup does not)"
)

SCHEMA = """
CREATE TABLE account(id INTEGER PRIMARY KEY, owner TEXT NOT NULL, balance INTEGER, rate REAL,
                     frozen BOOLEAN);
CREATE TABLE currency(code TEXT PRIMARY KEY, name TEXT);
CREATE TABLE holding(account_id INT, symbol TEXT, qty REAL, note TEXT,
                     PRIMARY KEY(symbol, account_id));
CREATE TABLE log(at TEXT, message TEXT);
CREATE TABLE "order"(id INTEGER PRIMARY KEY, "due date" TEXT, kind2 TEXT);
"""
ROWS = {
    "account": [(1, "ann", 100, 0.5, False), (2, "bob", None, 1.25, True), (3, "it's", 7, None, 0)],
    "currency": [("EUR", "Euro"), ("USD", "Dollar"), ("GBP", None)],
    "holding": [(1, "ACME", 10.0, "n"), (2, "ACME", 2.5, "x"), (1, "ZZZ", 1e20, "y")],
    "log": [("d1", "opened"), ("d2", "moved")],
    "order": [(1, "2024-01-01", "a")],
}


def make_db(path: Path, schema: str = SCHEMA, rows: dict[str, list[tuple]] | None = None,
            edit: Callable[[sqlite3.Connection], None] | None = None) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(schema)
    for table, values in (ROWS if rows is None else rows).items():
        marks = ",".join("?" * len(values[0]))
        conn.executemany(f'INSERT INTO "{table}" VALUES({marks})', values)
    if edit:
        edit(conn)
    conn.commit()
    conn.close()
    return path


def edit_many(conn: sqlite3.Connection) -> None:
    """Inserts, updates and deletes across every kind of key, with awkward values."""
    conn.executescript("""
        UPDATE account SET balance = balance - 30, rate = 0.125 WHERE id = 1;
        UPDATE account SET owner = 'o''brien "quoted"', frozen = 0 WHERE id = 2;
        DELETE FROM account WHERE id = 3;
        INSERT INTO account VALUES (0, 'zero', -5, -0.0, NULL), (9, 'tab' || char(9) || 'new'
            || char(10) || 'line', 2, 2.5e-07, 1);
        UPDATE currency SET name = 'Euro €' WHERE code = 'EUR';
        DELETE FROM currency WHERE code = 'USD';
        INSERT INTO currency VALUES ('AUD', ''), ('eur', NULL);
        UPDATE holding SET qty = 11.5, note = NULL WHERE account_id = 1 AND symbol = 'ACME';
        DELETE FROM holding WHERE account_id = 2;
        INSERT INTO holding VALUES (3, 'ACME', 0.1, x'00ff10');
        UPDATE log SET message = 'moved twice' WHERE at = 'd2';
        INSERT INTO log VALUES ('d3', NULL);
        UPDATE "order" SET "due date" = NULL, kind2 = 'b';
    """)


@pytest.fixture()
def pair(tmp_path: Path) -> tuple[Path, Path]:
    return make_db(tmp_path / "before.db"), make_db(tmp_path / "after.db", edit=edit_many)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_identical_databases_have_an_empty_diff(tmp_path: Path) -> None:
    diff = diff_databases(make_db(tmp_path / "a.db"), make_db(tmp_path / "b.db"))
    assert diff.is_empty
    assert diff.tables_changed() == []
    assert diff.summary() == "no changes"
    assert [t.table for t in diff.tables] == ["account", "currency", "holding", "log", "order"]


def test_rows_are_matched_by_primary_key(pair: tuple[Path, Path]) -> None:
    diff = diff_databases(*pair)
    account = diff.table("account")
    assert account.key_columns == ("id",)
    assert [r["id"] for r in account.inserted] == [0, 9]
    assert account.deleted == [{"id": 3, "owner": "it's", "balance": 7, "rate": None, "frozen": 0}]
    assert account.updated[0] == RowChange(
        key=(1,),
        before={"id": 1, "owner": "ann", "balance": 100, "rate": 0.5, "frozen": 0},
        after={"id": 1, "owner": "ann", "balance": 70, "rate": 0.125, "frozen": 0},
        changed=("balance", "rate"),
    )
    # frozen went from 1 to 0 as well as owner changing
    assert account.updated[1].changed == ("owner", "frozen")


def test_composite_text_and_rowid_keys(pair: tuple[Path, Path]) -> None:
    diff = diff_databases(*pair)
    holding = diff.table("holding")
    assert holding.key_columns == ("symbol", "account_id")  # declared PK order, key first
    assert holding.columns == ("symbol", "account_id", "qty", "note")
    assert [u.key for u in holding.updated] == [("ACME", 1)]
    assert holding.updated[0].changed == ("qty", "note")
    assert [(r["symbol"], r["account_id"]) for r in holding.deleted] == [("ACME", 2)]
    currency = diff.table("currency")
    # Text keys sort by code point, like SQLite's BINARY collation: upper case first.
    assert [r["code"] for r in currency.inserted] == ["AUD", "eur"]
    log = diff.table("log")
    assert log.key_columns == ("rowid",)
    assert log.inserted == [{"rowid": 3, "at": "d3", "message": None}]
    assert log.updated[0].key == (2,)


def test_summary_and_changed_tables(pair: tuple[Path, Path]) -> None:
    diff = diff_databases(*pair)
    assert diff.tables_changed() == ["account", "currency", "holding", "log", "order"]
    assert diff.summary() == (
        "account: 2 inserted, 2 updated (owner, balance, rate, frozen), 1 deleted; "
        "currency: 2 inserted, 1 updated (name), 1 deleted; "
        "holding: 1 inserted, 1 updated (qty, note), 1 deleted; "
        "log: 1 inserted, 1 updated (message); "
        "order: 1 updated (due date, kind2)"
    )


def test_to_json_is_serialisable_and_deterministic(pair: tuple[Path, Path]) -> None:
    first = json.dumps(diff_databases(*pair).to_json(), allow_nan=False)
    again = json.dumps(diff_databases(*pair).to_json(), allow_nan=False)
    assert first == again
    data = json.loads(first)
    assert list(data["tables"]) == sorted(data["tables"])
    assert data["tables"]["holding"]["updated"][0]["key"] == ["ACME", 1]
    assert data["tables"]["holding"]["inserted"][0]["note"] == {"blob_hex": "00ff10"}


def test_the_tables_argument_limits_the_diff(pair: tuple[Path, Path]) -> None:
    diff = diff_databases(*pair, tables=["log", "currency"])
    assert [t.table for t in diff.tables] == ["currency", "log"]
    with pytest.raises(UnknownTableError, match=r"'nope'.*account"):
        diff_databases(*pair, tables=["nope"])


def test_tables_on_one_side_only(tmp_path: Path) -> None:
    before = make_db(tmp_path / "a.db", edit=lambda c: c.execute("CREATE TABLE old(x)"))
    after = make_db(tmp_path / "b.db", edit=lambda c: c.executescript(
        "CREATE TABLE new(id INTEGER PRIMARY KEY, v); INSERT INTO new VALUES (2, 'b'), (1, 'a');"
        " CREATE INDEX new_v ON new(v); ANALYZE;"))  # ANALYZE adds sqlite_stat1: state too
    diff = diff_databases(before, after)
    assert diff.tables_changed() == ["new", "old"]
    assert diff.table("new").schema == "added"
    assert diff.table("new").inserted == [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}]
    assert diff.table("old").schema == "dropped"
    assert diff.summary() == ("new: table added, 2 inserted; old: table dropped; "
                              "index 'new_v' on new added; statistics 'sqlite_stat1' added")


def test_appended_columns_read_as_null_and_other_changes_replace(tmp_path: Path) -> None:
    before = make_db(tmp_path / "a.db", "CREATE TABLE t(id INTEGER PRIMARY KEY, a);"
                     "CREATE TABLE u(id INTEGER PRIMARY KEY, a);", {"t": [(1, 1), (2, 2)], "u": [(1, 1)]})
    after = make_db(tmp_path / "b.db", "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b);"
                    "CREATE TABLE u(id INTEGER PRIMARY KEY, b);",
                    {"t": [(1, 1, None), (2, 2, "x")], "u": [(1, 1)]})
    diff = diff_databases(before, after)
    t, u = diff.table("t"), diff.table("u")
    assert (t.schema, t.new_columns) == ("columns_added", ("b",))
    assert [(c.key, c.changed) for c in t.updated] == [((2,), ("b",))]
    assert (u.schema, len(u.deleted), len(u.inserted)) == ("replaced", 1, 1)


def test_diffing_never_writes(pair: tuple[Path, Path]) -> None:
    hashes = [sha(p) for p in pair]
    diff_databases(*pair)
    assert [sha(p) for p in pair] == hashes
    assert sorted(p.name for p in pair[0].parent.iterdir()) == ["after.db", "before.db"]


def test_committed_rows_in_a_wal_file_are_seen(tmp_path: Path) -> None:
    before = make_db(tmp_path / "before.db")
    after = make_db(tmp_path / "after.db")
    writer = sqlite3.connect(after)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")  # keep the change in the -wal file only
        writer.execute("UPDATE account SET balance = 1 WHERE id = 1")
        writer.commit()
        writer.execute("INSERT INTO log VALUES ('d9', 'uncommitted')")  # open, uncommitted
        wal = tmp_path / "after.db-wal"
        assert wal.stat().st_size > 0
        hashes = sha(after), sha(wal)
        diff = diff_databases(before, after)
        assert diff.summary() == "account: 1 updated (balance)"
        assert (sha(after), sha(wal)) == hashes
        # A writer that died leaves the -wal behind (no -shm); copy that state aside.
        crashed = tmp_path / "crashed"
        crashed.mkdir()
        shutil.copy(after, crashed / "after.db")
        shutil.copy(wal, crashed / "after.db-wal")
    finally:
        writer.close()
    hashes = sha(crashed / "after.db"), sha(crashed / "after.db-wal")
    assert diff_databases(before, crashed / "after.db").summary() == "account: 1 updated (balance)"
    # SQLite may rebuild the -shm index (shared memory, not data); the data files stay as they were.
    assert (sha(crashed / "after.db"), sha(crashed / "after.db-wal")) == hashes


def test_missing_and_non_sqlite_files_name_the_path(tmp_path: Path) -> None:
    good = make_db(tmp_path / "good.db")
    with pytest.raises(DatabaseNotFoundError, match=r"missing\.db"):
        diff_databases(good, tmp_path / "missing.db")
    text = tmp_path / "notes.txt"
    text.write_text("hello, not a database\n")
    with pytest.raises(NotADatabaseError, match=r"notes\.txt"):
        diff_databases(text, good)
    with pytest.raises(NotADatabaseError, match="directory"):
        diff_databases(good, tmp_path)
    truncated = tmp_path / "truncated.db"
    truncated.write_bytes(good.read_bytes()[:100])
    with pytest.raises(VerifierError, match=r"truncated\.db"):
        diff_databases(good, truncated)


def test_large_database_with_few_changes_is_fast(tmp_path: Path) -> None:
    schema = "".join(f"CREATE TABLE t{i}(id INTEGER PRIMARY KEY, a TEXT, b INTEGER, c REAL);"
                     for i in range(9))
    rows = {f"t{i}": [(n, f"row {n}", n * 7, n / 3) for n in range(700)] for i in range(9)}
    before = make_db(tmp_path / "a.db", schema, rows)
    after = make_db(tmp_path / "b.db", schema, rows, edit=lambda c: c.executescript(
        "UPDATE t3 SET b = 0 WHERE id IN (5, 6); INSERT INTO t8 VALUES (999, 'n', 1, 1.0);"))
    diff_databases(before, after)  # warm the OS cache
    started = time.perf_counter()
    diff = diff_databases(before, after)
    elapsed = time.perf_counter() - started
    assert diff.summary() == "t3: 2 updated (b); t8: 1 inserted"
    assert elapsed < 0.5, f"diffing 6,300 rows took {elapsed * 1000:.0f} ms"


# --- sqldiff compatibility ---------------------------------------------------------------

def run_sqldiff(before: Path, after: Path, *flags: str) -> str:
    assert SQLDIFF is not None
    done = subprocess.run([SQLDIFF, *flags, str(before), str(after)], capture_output=True,
                          check=True)
    return done.stdout.decode()


@needs_sqldiff
def test_rendering_matches_sqldiff_primarykey_byte_for_byte(pair: tuple[Path, Path]) -> None:
    rendered = render_sqldiff(diff_databases(*pair))
    assert rendered == run_sqldiff(*pair, "--primarykey")
    assert "X'09'\n||'new'" in rendered  # the control-character case really is covered


@needs_sqldiff
def test_rendering_matches_plain_sqldiff_when_keys_are_storage_keys(tmp_path: Path) -> None:
    # Generated worlds key every table by INTEGER PRIMARY KEY; WITHOUT ROWID and keyless
    # tables are also keyed the same way by plain sqldiff.
    schema = ("CREATE TABLE a(id INTEGER PRIMARY KEY, v);"
              "CREATE TABLE w(k TEXT, n INT, v, PRIMARY KEY(n, k)) WITHOUT ROWID;"
              "CREATE TABLE z(v);")
    rows = {"a": [(1, "x"), (2, 1.5)], "w": [("p", 1, None), ("q", 1, 2)], "z": [(1,), (2,)]}
    before = make_db(tmp_path / "a.db", schema, rows)
    after = make_db(tmp_path / "b.db", schema, rows, edit=lambda c: c.executescript(
        "UPDATE a SET v = 9e300 * 9e300 WHERE id = 2; INSERT INTO a VALUES (3, 1.0 / 3), (4, 5e-324);"
        "DELETE FROM w WHERE k = 'p'; INSERT INTO w VALUES ('a', 0, x''); UPDATE z SET v = 'y';"
        "CREATE TABLE extra(id INTEGER PRIMARY KEY, v); CREATE INDEX extra_v ON extra(v);"
        "INSERT INTO extra VALUES (1, 'e');"))
    rendered = render_sqldiff(diff_databases(before, after))
    assert rendered == run_sqldiff(before, after)
    assert "Inf" in rendered and "X''" in rendered



@needs_sqldiff
def test_reals_are_printed_like_sqldiff(tmp_path: Path) -> None:
    # Python's correctly rounded '%.15g' and SQLite's printf disagree on about 1 value in 1,000;
    # 3,000 seeded values of every magnitude make sure the rendering follows SQLite.
    rng = random.Random(7)
    reals = [rng.uniform(-1, 1) * 10 ** rng.randint(-300, 300) for _ in range(3000)]
    schema = "CREATE TABLE r(id INTEGER PRIMARY KEY, x REAL);"
    before = make_db(tmp_path / "a.db", schema, {"r": [(0, 0.0)]})
    after = make_db(tmp_path / "b.db", schema, {"r": list(enumerate(reals))})
    assert render_sqldiff(diff_databases(before, after)) == run_sqldiff(before, after)

@needs_sqldiff
def test_rendering_matches_sqldiff_for_schema_changes(tmp_path: Path) -> None:
    before = make_db(tmp_path / "a.db", "CREATE TABLE t(id INTEGER PRIMARY KEY, a);"
                     "CREATE TABLE u(id INTEGER PRIMARY KEY, a); CREATE TABLE gone(x);",
                     {"t": [(1, 1)], "u": [(1, 1)], "gone": [(1,)]})
    after = make_db(tmp_path / "b.db", "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b);"
                    "CREATE TABLE u(id INTEGER PRIMARY KEY, b);",
                    {"t": [(1, 1, None), (2, 2, "x")], "u": [(1, 1)]})
    assert render_sqldiff(diff_databases(before, after)) == run_sqldiff(before, after)


def test_applying_the_rendering_reproduces_after(pair: tuple[Path, Path], tmp_path: Path) -> None:
    before, after = pair
    patched = tmp_path / "patched.db"
    shutil.copy(before, patched)
    conn = sqlite3.connect(patched)
    conn.executescript(render_sqldiff(diff_databases(before, after)))
    conn.close()
    assert diff_databases(patched, after).is_empty


def test_rendering_is_empty_for_no_changes(tmp_path: Path) -> None:
    assert render_sqldiff(diff_databases(make_db(tmp_path / "a.db"), make_db(tmp_path / "b.db"))) == ""


# --- rowid joins agree with the general EXCEPT path -------------------------------------------

AGREE_BEFORE = """
CREATE TABLE r(id INTEGER PRIMARY KEY, t TEXT, n TEXT COLLATE NOCASE, i INTEGER, f REAL, b BLOB,
               u, m NUMERIC);
CREATE TABLE k(x, y TEXT COLLATE NOCASE);
CREATE TABLE g(id INTEGER NOT NULL, v, PRIMARY KEY(id));
CREATE TABLE a(id INTEGER PRIMARY KEY, v);
CREATE TABLE d(id INTEGER PRIMARY KEY, v INTEGER);
CREATE TABLE c(p TEXT, q INT, v, PRIMARY KEY(p, q));
CREATE TABLE w(id INTEGER PRIMARY KEY, v) WITHOUT ROWID;
CREATE TABLE s(id INT PRIMARY KEY, v);
CREATE TABLE x(id INTEGER PRIMARY KEY DESC, v);
"""
# `a` gains a column; `d` keeps its column names but changes the declared type (and so the
# affinity) of `v`, which a plain `a.v IS NOT b.v` would compare after converting '1' to 1.
AGREE_AFTER = (AGREE_BEFORE
               .replace("a(id INTEGER PRIMARY KEY, v)", "a(id INTEGER PRIMARY KEY, v, e)")
               .replace("v INTEGER)", "v TEXT)"))
# Tables whose key is the rowid on both sides; the others have a key SQLite had to index.
ROWID_TABLES = {"r", "k", "g", "a", "d"}
KEYS = {"c": ("p", "q"), "k": ("rowid",)}


def random_value(rng: random.Random) -> object:
    return rng.choice([
        None, rng.randint(-3, 3), rng.choice([0.0, -0.0, 1.0, 2.5, -1e300, float("inf")]),
        rng.choice(["a", "A", "b", "1", "1.0", " a", "", "É"]), rng.choice([b"a", b"1", b""]),
        2**53, float(2**53), 2**53 + 1,
    ])


def twin(value: object, rng: random.Random) -> object:
    """A value SQLite may or may not call equal: 1 -> 1.0, 'a' -> 'A' or b'a', b'1' -> '1'."""
    if isinstance(value, bool) or value is None:
        return rng.choice([None, 0, ""])
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < 2**63 else str(value)
    if isinstance(value, str):
        return rng.choice([value.swapcase(), value.encode(), value + " "])
    return bytes(value).decode()  # type: ignore[arg-type]


def random_edits(conn: sqlite3.Connection, rng: random.Random) -> None:
    for table in ("r", "k", "g", "a", "d", "c", "w", "s", "x"):
        names = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
        key = KEYS.get(table, ("id",))
        values = [c for c in names if c not in key]
        rows = conn.execute(f"SELECT {', '.join(key)}, * FROM {table}").fetchall()
        for row in rows:
            where = " AND ".join(f"{k} IS ?" for k in key)
            old = dict(zip(names, row[len(key):], strict=True))
            roll = rng.random()
            if roll < 0.1:
                conn.execute(f"DELETE FROM {table} WHERE {where}", row[:len(key)])
            elif roll < 0.45:
                column = rng.choice(values)
                new = twin(old[column], rng) if rng.random() < 0.6 else random_value(rng)
                conn.execute(f"UPDATE {table} SET {column} = ? WHERE {where}",
                             (new, *row[:len(key)]))
        for n in range(rng.randint(0, 3)):
            fresh = {c: random_value(rng) for c in names}
            fresh.update({"id": 1000 + n, "p": f"new{n}", "q": n})
            marks = ", ".join("?" * len(names))
            conn.execute(f"INSERT INTO {table}({', '.join(names)}) VALUES({marks})",
                         [fresh[c] for c in names])


def random_pair(tmp_path: Path, seed: int) -> tuple[Path, Path]:
    rng = random.Random(seed)
    rows: dict[str, list[tuple]] = {}
    for table, width in (("r", 8), ("k", 2), ("g", 2), ("a", 2), ("d", 2), ("c", 3), ("w", 2),
                         ("s", 2), ("x", 2)):
        count = rng.randint(1, 25)
        if table == "c":
            rows[table] = [(rng.choice("aAbB"), i, random_value(rng)) for i in range(count)]
        elif table == "k":
            rows[table] = [(random_value(rng), random_value(rng)) for _ in range(count)]
        else:
            rows[table] = [(i * rng.randint(1, 3), *(random_value(rng) for _ in range(width - 1)))
                           for i in range(count)]
            rows[table] = list({r[0]: r for r in rows[table]}.values())
    before = make_db(tmp_path / f"before{seed}.db", AGREE_BEFORE, rows)
    after_rows = {t: [(*r, "extra" if r[0] % 2 else None) for r in v] if t == "a" else v
                  for t, v in rows.items()}
    after = make_db(tmp_path / f"after{seed}.db", AGREE_AFTER, after_rows,
                    edit=lambda conn: random_edits(conn, rng))
    return before, after


@pytest.fixture()
def rowid_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the tables diffed with rowid joins."""
    calls: list[str] = []
    real = dbdiff._changed_by_rowid

    def spy(conn: sqlite3.Connection, table: str, *args: object) -> object:
        calls.append(table)
        return real(conn, table, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(dbdiff, "_changed_by_rowid", spy)
    return calls


@pytest.mark.parametrize("seed", range(40))
def test_rowid_joins_and_except_find_the_same_changes(
    tmp_path: Path, seed: int, rowid_calls: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before, after = random_pair(tmp_path, seed)
    general = dbdiff._diff_databases(before, after, None, rowid_join=False)
    assert rowid_calls == []
    with monkeypatch.context() as m:
        m.setattr(dbdiff, "_page_view", lambda *a: None)  # every table down the rowid join
        fast = diff_databases(before, after)
    assert set(rowid_calls) == ROWID_TABLES
    # and with tables of untouched pages skipped, the same diff again
    assert repr(diff_databases(before, after)) == repr(general)
    # repr tells 1 from 1.0 and text from blobs, which == on the rows would not.
    assert repr(fast) == repr(general)
    assert json.dumps(fast.to_json()) == json.dumps(general.to_json())
    assert render_sqldiff(fast) == render_sqldiff(general)
    assert not fast.table("r").is_empty or not fast.table("k").is_empty


def test_rowid_joins_report_equal_values_and_affinity_like_except(
    tmp_path: Path, rowid_calls: list[str]
) -> None:
    schema = "CREATE TABLE t(id INTEGER PRIMARY KEY, n TEXT COLLATE NOCASE, u, i INTEGER);"
    rows = {"t": [(1, "a", 1, 5), (2, "b", "x", 6), (3, "c", 2.0, 7), (4, "d", None, 8)]}
    before = make_db(tmp_path / "a.db", schema, rows)
    after = make_db(tmp_path / "b.db", schema.replace("i INTEGER", "i TEXT"), rows,
                    edit=lambda c: c.executescript(
                        "UPDATE t SET n = 'A', u = 1.0 WHERE id = 1;"  # case change counts
                        "UPDATE t SET u = CAST('x' AS BLOB) WHERE id = 2;"  # text is not a blob
                        "UPDATE t SET u = 2 WHERE id = 3;"  # 2.0 is 2: no change
                        "DELETE FROM t WHERE id = 4; INSERT INTO t VALUES (5, 'e', NULL, 9);"))
    diff = diff_databases(before, after)
    t = diff.table("t")
    assert rowid_calls == ["t"]
    # '5' in the TEXT column is not 5 in the INTEGER one: every surviving row changed `i`.
    assert [(u.key, u.changed) for u in t.updated] == [
        ((1,), ("n", "i")), ((2,), ("u", "i")), ((3,), ("i",))]
    assert [r["id"] for r in t.inserted] == [5] and [r["id"] for r in t.deleted] == [4]
    assert repr(diff) == repr(dbdiff._diff_databases(before, after, None, rowid_join=False))


@pytest.mark.parametrize("edit", [
    "DELETE FROM t WHERE id = 2",  # counts differ by the deletion
    "DELETE FROM t WHERE id = 2; INSERT INTO t VALUES (9, 'new')",  # same count, other keys
    "DELETE FROM t; INSERT INTO t VALUES (1, 'one'), (7, 'seven'), (8, 'eight')",
    "UPDATE t SET id = 10 WHERE id = 3",  # a changed key is a delete plus an insert
])
def test_deletions_are_found_whatever_the_row_counts(
    tmp_path: Path, edit: str, rowid_calls: list[str]
) -> None:
    schema = "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);"
    rows = {"t": [(1, "one"), (2, "two"), (3, "three")]}
    before = make_db(tmp_path / "a.db", schema, rows)
    after = make_db(tmp_path / "b.db", schema, rows, edit=lambda c: c.executescript(edit))
    fast = diff_databases(before, after)
    assert rowid_calls == ["t"]
    assert repr(fast) == repr(dbdiff._diff_databases(before, after, None, rowid_join=False))
    assert fast.table("t").deleted


def test_only_keys_that_are_the_rowid_on_both_sides_take_rowid_joins(
    tmp_path: Path, rowid_calls: list[str]
) -> None:
    # `t` is INTEGER PRIMARY KEY before but INT PRIMARY KEY (any value, e.g. text) after.
    before = make_db(tmp_path / "a.db", "CREATE TABLE t(id INTEGER PRIMARY KEY, v);",
                     {"t": [(1, "x"), (2, "y")]})
    after = make_db(tmp_path / "b.db", "CREATE TABLE t(id INT PRIMARY KEY, v);",
                    {"t": [(1, "x"), ("two", "y")]})
    diff = diff_databases(before, after)
    assert rowid_calls == []
    assert [r["id"] for r in diff.table("t").inserted] == ["two"]
    assert [r["id"] for r in diff.table("t").deleted] == [2]


def _copy_with(tmp_path: Path, name: str, statements: list[str]) -> tuple[Path, Path]:
    """A database with two tables of many rows, and a byte copy of it with `statements` applied."""
    before = tmp_path / f"{name}-before.db"
    with sqlite3.connect(before) as conn:
        conn.execute("CREATE TABLE big (id INTEGER PRIMARY KEY, label TEXT, n INTEGER)")
        conn.execute("CREATE TABLE small (id INTEGER PRIMARY KEY, label TEXT)")
        conn.executemany("INSERT INTO big VALUES (?, ?, ?)", [(i, f"row{i:05d}", i) for i in range(1, 3000)])
        conn.executemany("INSERT INTO small VALUES (?, ?)", [(i, f"s{i}") for i in range(1, 50)])
    conn.close()
    after = tmp_path / f"{name}-after.db"
    shutil.copyfile(before, after)
    with sqlite3.connect(after) as conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()
    return before, after


def test_tables_whose_pages_are_untouched_are_skipped_and_changes_still_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from verifiers import dbdiff

    # a same-length update: no page count, cell count or payload size changes, only bytes
    before, after = _copy_with(tmp_path, "same", ["UPDATE big SET label = 'ROW01500' WHERE id = 1500"])
    diffed: list[str] = []
    real = dbdiff._diff_table
    monkeypatch.setattr(dbdiff, "_diff_table", lambda conn, table, *a: diffed.append(table) or real(conn, table, *a))
    diff = diff_databases(before, after)
    assert diffed == ["big"]  # `small` kept every page byte for byte: not read row by row
    big = next(t for t in diff.tables if t.table == "big")
    assert [c.key for c in big.updated] == [(1500,)] and big.updated[0].changed == ("label",)
    assert diff == dbdiff._diff_databases(before, after, None, rowid_join=False)


def test_a_journal_or_log_beside_a_file_turns_the_page_shortcut_off(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from verifiers import dbdiff

    before, after = _copy_with(tmp_path, "wal", ["UPDATE small SET label = 'x' WHERE id = 3"])
    Path(f"{after}-journal").write_bytes(b"")
    diffed: list[str] = []
    real = dbdiff._diff_table
    monkeypatch.setattr(dbdiff, "_diff_table", lambda conn, table, *a: diffed.append(table) or real(conn, table, *a))
    diff = diff_databases(before, after)
    assert sorted(diffed) == ["big", "small"]
    assert [c.key for t in diff.tables for c in t.updated] == [(3,)]


def _random_edits(rng: random.Random) -> list[str]:
    """Updates, inserts and deletes of every size, long values that spill to overflow pages,
    and now and then a whole-table rewrite or a VACUUM that renumbers every page."""
    out: list[str] = []
    for _ in range(rng.randint(1, 6)):
        n = rng.randint(1, 2999)
        out.append(rng.choice([
            f"UPDATE big SET label = 'L{rng.random()}' WHERE id = {n}",
            f"UPDATE big SET n = n + 1 WHERE id BETWEEN {n} AND {n + rng.randint(0, 300)}",
            f"UPDATE big SET label = '{'x' * rng.choice([10, 3000, 9000])}' WHERE id = {n}",
            f"DELETE FROM big WHERE id BETWEEN {n} AND {n + rng.randint(0, 50)}",
            f"INSERT INTO big VALUES ({3000 + n}, 'new{n}', {n})",
            f"INSERT INTO small VALUES ({100 + n}, '{'y' * rng.choice([1, 5000])}')",
            f"UPDATE small SET label = NULL WHERE id = {n % 50}",
            "UPDATE big SET label = 1.0 WHERE id = 7",
        ]))
    return out


@pytest.mark.parametrize("seed", range(30))
def test_rows_read_from_changed_pages_give_the_same_diff_as_reading_everything(
        tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    statements = _random_edits(rng)
    before, after = _copy_with(tmp_path, f"r{seed}", statements)
    if seed % 10 == 9:
        with sqlite3.connect(after) as conn:
            conn.execute("VACUUM")
        conn.close()
    restricted: list[int] = []
    real = dbdiff._changed_rowids
    monkeypatch.setattr(dbdiff, "_changed_rowids", lambda c, t, o, n, a, r: restricted.append(len(r)) or real(c, t, o, n, a, r))
    fast = diff_databases(before, after)
    general = dbdiff._diff_databases(before, after, None, rowid_join=False)
    assert repr(fast) == repr(general), statements
    assert render_sqldiff(fast) == render_sqldiff(general)
    if seed % 10 != 9 and not any("x" * 2000 in s or "y" * 2000 in s for s in statements):
        assert restricted, "a copy with a few rows changed must be diffed from its pages"


def test_page_view_declines_when_an_overflow_page_changed(tmp_path: Path) -> None:
    before = tmp_path / "o-before.db"
    with sqlite3.connect(before) as conn:
        conn.execute("CREATE TABLE doc (id INTEGER PRIMARY KEY, body TEXT)")
        conn.executemany("INSERT INTO doc VALUES (?, ?)", [(i, "a" * 9000) for i in range(1, 20)])
    conn.close()
    after = tmp_path / "o-after.db"
    shutil.copyfile(before, after)
    with sqlite3.connect(after) as conn:  # same length: only the overflow pages' bytes change
        conn.execute("UPDATE doc SET body = 'a' || substr(body, 2, 8000) || 'b' || substr(body, 8003) WHERE id = 5")
    conn.close()
    diff = diff_databases(before, after)
    assert [c.key for c in diff.table("doc").updated] == [(5,)]
    assert repr(diff) == repr(dbdiff._diff_databases(before, after, None, rowid_join=False))
