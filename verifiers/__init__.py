"""Standalone grading and checking runtime (standard library only): diffs, reward programs, grades."""

from verifiers.changes import DbDiff, RowChange, TableDiff
from verifiers.dbdiff import diff_databases
from verifiers.errors import (
    CheckError,
    DatabaseError,
    DatabaseNotFoundError,
    DatabaseReadError,
    GradeInputError,
    NotADatabaseError,
    ReadOnlyQueryError,
    RewardProgramError,
    UnkeyedTableError,
    UnknownTableError,
    VerifierError,
)
from verifiers.grade import CheckResult, Grade, grade
from verifiers.normalize import match_answer
from verifiers.program import RewardProgram
from verifiers.reward import load_reward
from verifiers.schemadiff import SchemaChange
from verifiers.sqlrender import render_sqldiff

__all__ = [
    "CheckError",
    "CheckResult",
    "DatabaseError",
    "DatabaseNotFoundError",
    "DatabaseReadError",
    "DbDiff",
    "Grade",
    "GradeInputError",
    "NotADatabaseError",
    "ReadOnlyQueryError",
    "RewardProgram",
    "RewardProgramError",
    "RowChange",
    "SchemaChange",
    "TableDiff",
    "UnkeyedTableError",
    "UnknownTableError",
    "VerifierError",
    "diff_databases",
    "grade",
    "load_reward",
    "match_answer",
    "render_sqldiff",
]
