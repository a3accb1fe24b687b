"""A database state as a patch: the rows that differ from the seed, as sqldiff-format SQL.

A task's initial state is kept as such a patch and always rebuilt by replaying it on a fresh copy
of the seed database, so what a task starts from is small, readable and exact.
"""

from __future__ import annotations

from pathlib import Path

from episodes.dbfiles import apply_patch
from verifiers.dbdiff import diff_databases
from verifiers.sqlrender import render_sqldiff


def make_patch(seed_db: Path, changed_db: Path) -> str:
    """The rows that differ, as sqldiff-format SQL that turns the seed into `changed_db`."""
    return render_sqldiff(diff_databases(seed_db, changed_db))


__all__ = ["apply_patch", "make_patch"]
