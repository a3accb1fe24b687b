"""The reward program as data: one frozen dataclass per check type, and `RewardProgram`.

`verifiers.reward` documents the JSON format and loads a program from it (strictly); each check's
`to_dict` gives that JSON form back, and `verifiers.checks` runs the checks.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import ClassVar, Literal

SCHEMA_VERSION = 1
Scalar = int | float | str | bool | None
Mode = Literal["all", "checklist"]
DbSide = Literal["initial", "final"]


@dataclass(frozen=True, kw_only=True)
class Check:
    """Fields every check has; subclasses set TYPE, the name used in JSON."""

    TYPE: ClassVar[str] = ""

    id: str
    weight: float = 1.0
    description: str = ""

    def diff_tables(self) -> list[str] | None:
        """Tables this check needs from the diff (None: every table)."""
        return []

    def to_dict(self) -> dict[str, object]:
        """The JSON form that `load_reward` reads back to an equal check."""
        out: dict[str, object] = {"id": self.id, "type": self.TYPE}
        for f in fields(self):
            value = getattr(self, f.name)
            default = f.default_factory() if f.default_factory is not MISSING else f.default
            if f.name != "id" and value != default:  # defaults are left out, as people write them
                out[f.name] = _plain(value)
        return out


def _plain(value: object) -> object:
    if isinstance(value, TableAllowance):
        out: dict[str, object] = {}
        if value.max_inserts != 0:  # 0 and False both mean none, and are left out
            out["insert"] = value.insert
        if value.delete:
            out["delete"] = True
        if value.update:
            out["update"] = True if value.update is True else list(value.update)
        if value.rows is not None:
            out["rows"] = list(value.rows)
        return out
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True, kw_only=True)
class RowMatches(Check):
    """One row, selected by `key`, has the `expect`ed values."""

    TYPE: ClassVar[str] = "row_matches"
    table: str
    key: dict[str, Scalar]
    expect: dict[str, Scalar]
    db: DbSide = "final"


@dataclass(frozen=True, kw_only=True)
class FieldDelta(Check):
    """A numeric column of one row changed by `delta` between the databases."""

    TYPE: ClassVar[str] = "field_delta"
    table: str
    key: dict[str, Scalar]
    column: str
    delta: float
    tolerance: float = 0.0


@dataclass(frozen=True, kw_only=True)
class RowsAdded(Check):
    """Exactly `count` inserted rows of `table` match `where`."""

    TYPE: ClassVar[str] = "rows_added"
    table: str
    where: dict[str, Scalar] = field(default_factory=dict)
    count: int = 1

    def diff_tables(self) -> list[str] | None:
        return [self.table]


@dataclass(frozen=True, kw_only=True)
class RowsRemoved(RowsAdded):
    """Exactly `count` deleted rows of `table` matched `where`."""

    TYPE: ClassVar[str] = "rows_removed"


@dataclass(frozen=True, eq=False)
class TableAllowance:
    """What `diff_within` lets change in one table.

    `insert` is True (any number of new rows), False (none) or a positive whole number (at most
    that many); `update` is True (any column) or columns; `rows`, when given, holds the primary-key
    values of the only rows that may be updated or deleted.
    """

    insert: bool | int = False
    delete: bool = False
    update: Literal[True] | tuple[str, ...] = ()
    rows: tuple[int | str, ...] | None = None

    @property
    def max_inserts(self) -> int | None:
        """How many rows may be inserted; None for any number."""
        if self.insert is True:
            return None
        return 0 if self.insert is False else int(self.insert)

    def allows_row(self, key: tuple[object, ...]) -> bool:
        """Whether the row with primary key `key` may be updated or deleted (given `rows`)."""
        if self.rows is None:
            return True
        # Strict, as grading compares: 7 matches 7 and 7.0, never '7' (text is not a number).
        return len(key) == 1 and any(_same_key(k, key[0]) for k in self.rows)

    def _identity(self) -> tuple[object, ...]:
        # True == 1 in Python, but "any number of inserts" is not "at most one": compare types too.
        return (type(self.insert), self.insert, self.delete, type(self.update), self.update, self.rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TableAllowance) and self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())


def _same_key(allowed: int | str, actual: object) -> bool:
    if isinstance(allowed, int) and isinstance(actual, int | float) and not isinstance(actual, bool):
        return allowed == actual
    return type(allowed) is type(actual) and allowed == actual


@dataclass(frozen=True, kw_only=True)
class DiffWithin(Check):
    """Every difference between the databases is one the program allows."""

    TYPE: ClassVar[str] = "diff_within"
    allowed: dict[str, TableAllowance]

    def diff_tables(self) -> list[str] | None:
        return None


@dataclass(frozen=True, kw_only=True)
class Unchanged(Check):
    """The named tables are identical in both databases."""

    TYPE: ClassVar[str] = "unchanged"
    tables: tuple[str, ...]

    def diff_tables(self) -> list[str] | None:
        return list(self.tables)


@dataclass(frozen=True, kw_only=True)
class SqlCheck(Check):
    """A read-only query returns the expected rows."""

    TYPE: ClassVar[str] = "sql"
    query: str
    expect: tuple[tuple[Scalar, ...], ...]
    db: DbSide = "final"
    ordered: bool = False


@dataclass(frozen=True, kw_only=True)
class AnswerCheck(Check):
    """The agent's answer, normalised by `kind`, equals one of the acceptable values."""

    TYPE: ClassVar[str] = "answer"
    kind: str
    # Acceptable expected values: `expected` loads as a one-element tuple, `one_of` as several.
    one_of: tuple[object, ...]
    tolerance: float | None = None
    aliases: tuple[str, ...] = ()
    item_kind: str = "text"
    # The ISO code an amount of money is read in ("EUR": "€12.50" matches, "$12.50" does not);
    # empty for US dollars, as programs without the key have always meant.
    currency: str = ""

    def to_dict(self) -> dict[str, object]:
        out = super().to_dict()
        if len(self.one_of) == 1:
            out["expected"] = out.pop("one_of")[0]  # type: ignore[index]  # a list: _plain made one of the tuple
        return out


CHECK_TYPES: dict[str, type[Check]] = {
    c.TYPE: c for c in (RowMatches, FieldDelta, RowsAdded, RowsRemoved, DiffWithin, Unchanged,
                        SqlCheck, AnswerCheck)
}


@dataclass(frozen=True)
class RewardProgram:
    """A validated reward program; `checks` keep the program's order."""

    checks: tuple[Check, ...]
    mode: Mode = "all"
    schema_version: int = SCHEMA_VERSION

    def diff_tables(self) -> list[str] | None:
        """Tables the diff must cover for this program: None for all, [] for no diff at all."""
        wanted: set[str] = set()
        for check in self.checks:
            tables = check.diff_tables()
            if tables is None:
                return None
            wanted.update(tables)
        return sorted(wanted)

    def to_dict(self) -> dict[str, object]:
        """The JSON form of the program."""
        return {"schema_version": self.schema_version, "mode": self.mode,
                "checks": [c.to_dict() for c in self.checks]}
