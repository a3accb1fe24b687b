"""The one working-copy maker: a closed database is copied byte for byte, a live one through the
backup API with what its write-ahead log holds."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from episodes.dbfiles import copy_db


def _make(path: Path, wal: bool) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA wal_autocheckpoint=0")  # committed rows stay in the log, not the file
    conn.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT)")
    conn.executemany("INSERT INTO note (title) VALUES (?)", [("a",), ("b",)])
    conn.commit()
    return conn


def test_a_closed_database_is_copied_byte_for_byte(tmp_path: Path) -> None:
    source = tmp_path / "seed.db"
    _make(source, wal=False).close()
    stale = tmp_path / "copy.db-wal"
    stale.write_bytes(b"left over by an earlier copy")
    copy = copy_db(source, tmp_path / "copy.db")
    assert copy.read_bytes() == source.read_bytes()
    assert not stale.exists()


def test_a_live_database_is_copied_with_its_write_ahead_log(tmp_path: Path) -> None:
    source = tmp_path / "live.db"
    writer = _make(source, wal=True)
    try:
        writer.execute("INSERT INTO note (title) VALUES ('only in the log')")
        writer.commit()
        assert source.with_name("live.db-wal").exists()
        copy = copy_db(source, tmp_path / "copy.db")
        with sqlite3.connect(copy) as conn:
            titles = [r[0] for r in conn.execute("SELECT title FROM note ORDER BY id")]
        conn.close()
    finally:
        writer.close()
    assert titles == ["a", "b", "only in the log"]
    assert not copy.with_name("copy.db-wal").exists()
