"""Errors raised by the verifiers runtime; every message names what failed and where."""

from __future__ import annotations

from pathlib import Path


class VerifierError(Exception):
    """Base class of every error the verifiers runtime raises on purpose."""


class DatabaseError(VerifierError):
    """A database file could not be used; `path` names it."""

    def __init__(self, path: str | Path, message: str) -> None:
        self.path = Path(path)
        super().__init__(f"{self.path}: {message}")


class DatabaseNotFoundError(DatabaseError):
    """The database path does not exist."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, "database file not found (check the path; nothing was created)")


class NotADatabaseError(DatabaseError):
    """The path exists but is not a readable SQLite database (a directory, text, a corrupt file)."""

    def __init__(self, path: str | Path, detail: str) -> None:
        super().__init__(path, f"not a SQLite database ({detail})")


class DatabaseReadError(VerifierError):
    """SQLite failed while reading a table (e.g. a corrupt page); names both files and the table."""

    def __init__(self, before: str | Path, after: str | Path, table: str, detail: str) -> None:
        self.table = table
        super().__init__(f"reading table {table!r} of {before} and {after} failed: {detail}")


class UnknownTableError(VerifierError):
    """A table was asked for by name but neither database has it."""

    def __init__(self, table: str, available: list[str]) -> None:
        self.table = table
        self.available = available
        listed = ", ".join(available) if available else "none"
        super().__init__(f"table {table!r} is in neither database (tables: {listed})")


class UnkeyedTableError(VerifierError):
    """A table has no primary key and every rowid alias is shadowed by a real column."""

    def __init__(self, path: str | Path, table: str) -> None:
        self.path = Path(path)
        self.table = table
        super().__init__(
            f"{self.path}: table {table!r} has no primary key and columns named rowid, _rowid_ "
            "and oid hide its rowid, so its rows cannot be matched; declare a PRIMARY KEY"
        )


class RewardProgramError(VerifierError):
    """A reward program is malformed; `problems` lists every one, each naming the check and field."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        listed = "\n  - ".join(self.problems)
        super().__init__(f"invalid reward program ({len(self.problems)} problem(s)):\n  - {listed}")


class CheckError(VerifierError):
    """A well-formed check cannot be evaluated on these databases (no such table or column,
    a failing query); a program bug, so it is raised rather than scored as a failure."""

    def __init__(self, check_id: str, message: str) -> None:
        self.check_id = check_id
        super().__init__(f"check {check_id!r}: {message}")


class ReadOnlyQueryError(CheckError):
    """An `sql` check's query is not a single read-only SELECT/WITH statement."""


class GradeInputError(VerifierError):
    """An argument of `grade` has the wrong type or form; the message names the argument."""

    def __init__(self, argument: str, message: str) -> None:
        self.argument = argument
        super().__init__(f"grade(): {argument} {message}")
