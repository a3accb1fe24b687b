"""Standalone grading and checking runtime (standard library only): database diffs and errors."""

from verifiers.dbdiff import DbDiff, RowChange, TableDiff, diff_databases
from verifiers.errors import (
    DatabaseError,
    DatabaseNotFoundError,
    DatabaseReadError,
    NotADatabaseError,
    UnkeyedTableError,
    UnknownTableError,
    VerifierError,
)
from verifiers.sqlrender import render_sqldiff

__all__ = [
    "DatabaseError",
    "DatabaseNotFoundError",
    "DatabaseReadError",
    "DbDiff",
    "NotADatabaseError",
    "RowChange",
    "TableDiff",
    "UnkeyedTableError",
    "UnknownTableError",
    "VerifierError",
    "diff_databases",
    "render_sqldiff",
]
