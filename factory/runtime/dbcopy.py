"""The one way a world's database is copied: SQLite's backup API, so a write-ahead log is included.

Every stage copies databases (a fresh run database for the verifier, a task's initial state, a
scratch copy for a setup); all of them go through `copy_db`, so every copy has the same guarantee:
the committed state of the source, as a new file (never an overwrite), with no stale -wal or -shm
file of an earlier copy beside it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote


def copy_db(source: Path, target: Path) -> Path:
    """A standalone copy of a database file (no stale -wal/-shm left next to the target)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    for leftover in target.parent.glob(target.name + "-*"):
        leftover.unlink()
    # A new file, never an overwrite: a connection the app has not closed yet (FastAPI closes a
    # request's session after the response is sent) keeps reading the old inode, untouched.
    target.unlink(missing_ok=True)
    # The backup API copies the committed state, a write-ahead log included (a file copy would not).
    src = sqlite3.connect(f"file:{quote(str(Path(source).resolve()))}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    return target


__all__ = ["copy_db"]
