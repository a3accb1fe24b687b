"""The databases a grade reads: paths checked, hot journals settled, unusable final states named.

A final state is the agent's doing, so a final database that cannot be read, or that lacks a
table the task's program reads, is a failed episode (score 0 with the reason), not a grader bug.
An initial database in the same condition is the task's fault and raises.

A rollback journal left beside a database (`-journal` with a valid header) means a writer died
mid-transaction: SQLite must roll it back before anyone may read, and a read-only connection
cannot ("attempt to write a readonly database"). The committed state is what the writer left
before that transaction, so the file and its journal are copied to a temporary folder and rolled
back there; the original files are never written.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from verifiers.errors import DatabaseNotFoundError, GradeInputError, NotADatabaseError

# The first 8 bytes of a rollback journal that still holds pages to restore.
JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")


def checked_path(value: object, argument: str) -> Path:
    """`value` as an existing regular file's resolved path; a clear error otherwise."""
    if isinstance(value, bytes):
        try:
            value = os.fsdecode(value)
        except UnicodeDecodeError as exc:
            raise GradeInputError(argument, f"is a bytes path that cannot be decoded: {exc}") from exc
    if not isinstance(value, str | os.PathLike):
        raise GradeInputError(argument, f"must be a path (str or os.PathLike), not "
                                        f"{type(value).__name__} {value!r:.80}")
    path = Path(value)
    if str(value) == "" or "\x00" in str(value):
        raise GradeInputError(argument, f"is not a usable path: {str(value)!r:.80}")
    if not path.exists():
        raise DatabaseNotFoundError(path)
    if not path.is_file():
        raise NotADatabaseError(path, "it is a directory" if path.is_dir() else "not a regular file")
    return path.resolve()


def hot_journal(path: Path) -> bool:
    """Whether a rollback journal with pages to restore sits beside `path`."""
    journal = Path(f"{path}-journal")
    try:
        with journal.open("rb") as fh:
            return fh.read(len(JOURNAL_MAGIC)) == JOURNAL_MAGIC
    except OSError:
        return False


@contextmanager
def settled(path: Path) -> Iterator[Path]:
    """`path`, or a rolled-back copy of it when a hot journal sits beside it."""
    if not hot_journal(path):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="grade-journal-") as folder:
        copy = Path(folder) / path.name
        shutil.copyfile(path, copy)
        shutil.copyfile(f"{path}-journal", f"{copy}-journal")
        conn = sqlite3.connect(copy)
        # Any read makes SQLite roll the hot journal back; an unreadable file stays unreadable
        # and is reported by whoever opens it next.
        with suppress(sqlite3.DatabaseError):
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        conn.close()
        yield copy


def table_names(conn: sqlite3.Connection, schema: str = "main") -> set[str]:
    """The ordinary tables of one of a connection's databases."""
    return {r[0] for r in conn.execute(f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table'")}
