"""The one way a working copy of a world's database is made, and the other file operations on
episode databases: replaying a setup patch, and a consistent snapshot of a live database.

Every stage copies databases (a fresh run database for the verifier, a task's initial state, an
episode's reset); all of them go through `copy_db`, so every copy has the same guarantee: the
committed state of the source, as a new file (never an overwrite), with no stale -wal or -shm file
of an earlier copy beside it. (Installing a finished database file as an artifact, such as a
regenerated `data/seed.db` whose hash the manifest records, is a file copy, not a database copy.)
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from urllib.parse import quote


def copy_db(source: Path, target: Path) -> Path:
    """A standalone copy of a database that no one is writing right now: its committed state,
    a write-ahead log included, as a new file with no stale -wal/-shm left next to it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    for leftover in target.parent.glob(target.name + "-*"):
        leftover.unlink()
    # A new file, never an overwrite: a connection the app has not closed yet (FastAPI closes a
    # request's session after the response is sent) keeps reading the old inode, untouched.
    target.unlink(missing_ok=True)
    source = Path(source)
    if not any(source.with_name(source.name + side).exists() for side in ("-wal", "-journal")):
        # Nothing committed lives outside the main file (no write-ahead log, no hot journal): the
        # file is the database, and a byte copy is 4x faster than the backup API and keeps its hash.
        shutil.copyfile(source, target)
        return target
    return snapshot(source, target)


def snapshot(source: Path, target: Path) -> Path:
    """The committed state of a database that may be live (written under WAL right now), as a new
    file: SQLite's backup API reads one consistent state, the write-ahead log included."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{quote(str(Path(source).resolve()))}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    return target


def apply_patch(seed_db: Path, patch: str, target: Path) -> Path:
    """A task's initial state: its setup patch (sqldiff-format SQL) replayed on a fresh copy of
    the seed database, in one transaction."""
    copy_db(seed_db, target)
    if patch.strip():
        conn = sqlite3.connect(target)
        try:
            conn.executescript("BEGIN;\n" + patch + "\nCOMMIT;")
        finally:
            conn.close()
    return target


__all__ = ["apply_patch", "copy_db", "snapshot"]
