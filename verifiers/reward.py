"""The reward program format: declarative checks over (initial DB, final DB, answer), loaded strictly.

A reward program is a JSON object::

    {"schema_version": 1,
     "mode": "all",          # optional; "all" (binary, the default) or "checklist"
     "checks": [ {"id": "...", "type": "...", ...}, ... ]}

In mode "all" the score is 1 when every check passes, else 0. In mode "checklist" the score is
the passed weight over the total weight; the grade passes only when the score is 1.

Every check has `id` (unique, non-empty), `type`, optional `weight` (a positive number, default 1)
and optional `description` (shown in explanations). Values in `key`, `expect` and `where` are JSON
scalars compared as SQLite compares them: 1 equals 1.0 and true equals 1, text never equals a
number, null matches only NULL. Money columns hold whatever the schema stores (integer cents in
generated worlds), so deltas and values are written in those units.

- `row_matches`: `table`, `key` {col: value} (must select exactly one row), `expect`
  {col: value}; optional `db` ("final", the default, or "initial").
- `field_delta`: `table`, `key`, `column`, `delta` (final minus initial); optional `tolerance`
  (default 0). The row must exist in both databases.
- `rows_added` / `rows_removed`: `table`, optional `where` {col: value} (default: any row),
  optional `count` (exact number of matching inserted / deleted rows, default 1).
- `diff_within`: `allowed` {table: {"insert": bool | n, "delete": bool, "update": true | [cols],
  "rows": [key, ...]}}; every change between the databases must be allowed (schema changes never
  are). `insert` true allows any number of new rows, a whole number n >= 0 at most n (false and 0
  allow none). `rows`, a list of primary-key values (integers or strings; the table must have a
  one-column key), limits updates and deletes to those rows; it needs `update` or `delete`.
- `unchanged`: `tables` [names]; each must be identical in both databases.
- `sql`: `query` (one read-only SELECT/WITH statement), `expect` (a list of rows, each a list);
  optional `db` (default "final") and `ordered` (default false: rows compare as a multiset).
- `answer`: `kind` and either `expected` or `one_of` (a list of acceptable expected values);
  optional `tolerance` (number and money; money's default is half a cent), `aliases`,
  `item_kind` (list: the kind of each item, default text), `currency` (money: the ISO code the
  amount is read in, e.g. "EUR"; default US dollars). Kinds and their expected values:
  `number` and `money` (a JSON number; money in display units), `date` (ISO "YYYY-MM-DD"),
  `bool` (true/false), `text` (free text such as an enum value or a name; `aliases` adds further
  accepted spellings), `label` (a row: `expected` is its display label as the app shows it,
  e.g. "Quick question about the proposal (Carrie Payne)"; `aliases` lists further names that
  identify the row on their own among the user's rows, such as its main field "Quick question
  about the proposal" or "Main Checking account"; a bracket right after a name must be the
  label's own), `phone` (a string holding 7 to 15 digits besides its extension, e.g.
  "520-790-7206 x229"; compared by digits and extension), `email` (one address
  "local@domain.tld"; compared case-insensitively) and `list` (a JSON list of `item_kind`
  values: number, money, date, text, phone or email). An answer scores only when it asserts the
  value: docs/answers.md gives the rules, `verifiers.answers` implements them.

`load_reward` reports every problem of a program at once, each naming the check and the field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import date
from typing import Any, Literal

from verifiers.errors import RewardProgramError
from verifiers.program import (
    CHECK_TYPES,
    SCHEMA_VERSION,
    AnswerCheck,
    Check,
    DbSide,
    DiffWithin,
    FieldDelta,
    RewardProgram,
    RowMatches,
    RowsAdded,
    RowsRemoved,
    Scalar,
    SqlCheck,
    TableAllowance,
    Unchanged,
)

ANSWER_KINDS = ("number", "money", "date", "text", "label", "phone", "email", "list", "bool")
ITEM_KINDS = ("number", "money", "date", "text", "phone", "email")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# An email address as a reward program states it: one "@", a dotted domain, no spaces.
EMAIL = re.compile(r"[^@\s<>()]+@[^@\s<>()]+\.[^@\s<>().]+")
PHONE_DIGITS = (7, 15)
EXTENSION = re.compile(r"(?i)\s*,?\s*(?:extension|ext\.?|x|#)\s*(?=\d)")


class _Fields:
    """Reads one JSON object's fields, recording every problem instead of stopping at the first."""

    def __init__(self, raw: Mapping[str, object], where: str, problems: list[str]) -> None:
        self.raw, self.where, self.problems = raw, where, problems
        self.seen: set[str] = set()

    def problem(self, name: str, message: str) -> None:
        self.problems.append(f"{self.where}: field {name!r} {message}")

    def get(self, name: str, required: bool) -> object:
        self.seen.add(name)
        if name not in self.raw:
            if required:
                self.problem(name, "is missing")
            return None
        return self.raw[name]

    def string(self, name: str, required: bool = True, default: str = "") -> str:
        value = self.get(name, required)
        if value is None:
            return default
        if not isinstance(value, str) or not value.strip():
            self.problem(name, f"must be a non-empty string, not {value!r}")
            return default
        return value

    def choice(self, name: str, options: tuple[str, ...], default: str | None = None) -> str:
        value = self.string(name, required=default is None, default=default or "")
        if value and value not in options:
            self.problem(name, f"must be one of {', '.join(options)}, not {value!r}")
            return default or options[0]
        return value or (default or options[0])

    def number(self, name: str, required: bool = True, default: float | None = None,
               minimum: float | None = None, positive: bool = False) -> float | None:
        value = self.get(name, required)
        if value is None:
            return default
        # JSON true/false are ints to Python; a boolean weight or delta is a mistake.
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            self.problem(name, f"must be a finite number, not {value!r}")
            return default
        if (positive and value <= 0) or (minimum is not None and value < minimum):
            self.problem(name, f"must be {'> 0' if positive else f'>= {minimum:g}'}, not {value!r}")
            return default
        return value

    def integer(self, name: str, default: int) -> int:
        value = self.get(name, False)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.problem(name, f"must be an integer >= 0, not {value!r}")
            return default
        return value

    def flag(self, name: str, default: bool) -> bool:
        value = self.get(name, False)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.problem(name, f"must be true or false, not {value!r}")
            return default
        return value

    def scalars(self, name: str, required: bool = True, allow_empty: bool = False
                ) -> dict[str, Scalar]:
        value = self.get(name, required)
        if value is None:
            return {}
        if not isinstance(value, dict) or (not value and not allow_empty):
            self.problem(name, f"must be a non-empty object of column: value, not {value!r}")
            return {}
        for column, item in value.items():
            if not _is_scalar(item):
                self.problem(name, f"column {column!r} must map to a JSON scalar, not {item!r}")
        # Sorted so that a program's key order never changes evidence or messages.
        return dict(sorted(value.items()))

    def names(self, name: str) -> tuple[str, ...]:
        value = self.get(name, True)
        if value is None:
            return ()
        if (not isinstance(value, list) or not value
                or not all(isinstance(v, str) and v for v in value)):
            self.problem(name, f"must be a non-empty list of names, not {value!r}")
            return ()
        return tuple(sorted(set(value)))

    def finish(self) -> None:
        for name in sorted(set(self.raw) - self.seen):
            self.problems.append(
                f"{self.where}: unknown key {name!r} (allowed: {', '.join(sorted(self.seen))})"
            )


def _is_scalar(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, str | int | bool)


def load_reward(data: Mapping[str, object]) -> RewardProgram:
    """Validate a reward program's JSON form; raise RewardProgramError listing every problem."""
    problems: list[str] = []
    if not isinstance(data, Mapping):
        raise RewardProgramError([f"reward program must be a JSON object, not {type(data).__name__}"])
    top = _Fields(data, "reward program", problems)
    version = top.get("schema_version", True)
    if version is not None and (isinstance(version, bool) or version != SCHEMA_VERSION):
        top.problem("schema_version", f"must be {SCHEMA_VERSION}, not {version!r}")
    mode = top.choice("mode", ("all", "checklist"), default="all")
    raw_checks = top.get("checks", True)
    top.finish()
    checks: list[Check] = []
    if raw_checks is not None and (not isinstance(raw_checks, list) or not raw_checks):
        top.problem("checks", "must be a non-empty list of checks")
    elif isinstance(raw_checks, list):
        seen_ids: set[str] = set()
        for index, raw in enumerate(raw_checks):
            check = _load_check(index, raw, problems)
            if check is None:
                continue
            if check.id in seen_ids:
                problems.append(f"check {check.id!r}: duplicate id (ids must be unique)")
            seen_ids.add(check.id)
            checks.append(check)
    if problems:
        raise RewardProgramError(problems)
    return RewardProgram(tuple(checks), mode)  # type: ignore[arg-type]  # choice() returned one of Mode's values


def _load_check(index: int, raw: object, problems: list[str]) -> Check | None:
    if not isinstance(raw, dict):
        problems.append(f"checks[{index}]: must be an object, not {raw!r}")
        return None
    raw_id = raw.get("id")
    name = raw_id if isinstance(raw_id, str) and raw_id.strip() else f"checks[{index}]"
    raw_type = raw.get("type")
    kind = CHECK_TYPES.get(raw_type) if isinstance(raw_type, str) else None
    where = f"check {name!r}" + (f" ({raw_type})" if kind else "")
    f = _Fields(raw, where, problems)
    check_id = f.string("id")
    f.get("type", True)
    if kind is None and "type" in raw:
        f.problem("type", f"must be one of {', '.join(sorted(CHECK_TYPES))}, not {raw_type!r}")
    if kind is None:
        return None
    common = {"id": check_id,
              "weight": f.number("weight", required=False, default=1.0, positive=True),
              "description": f.string("description", required=False)}
    before = len(problems)
    check = _LOADERS[kind](f, common)
    f.finish()
    return check if len(problems) == before else None


def _db_side(f: _Fields) -> DbSide:
    """`db`: "final" (the default) or "initial"."""
    return "initial" if f.choice("db", ("final", "initial"), "final") == "initial" else "final"


def _load_row_matches(f: _Fields, common: dict[str, Any]) -> Check:
    return RowMatches(**common, table=f.string("table"), key=f.scalars("key"),
                      expect=f.scalars("expect"), db=_db_side(f))


def _load_field_delta(f: _Fields, common: dict[str, Any]) -> Check:
    return FieldDelta(**common, table=f.string("table"), key=f.scalars("key"),
                      column=f.string("column"), delta=f.number("delta") or 0.0,
                      tolerance=f.number("tolerance", False, 0.0, minimum=0) or 0.0)


def _load_rows_changed(f: _Fields, common: dict[str, Any]) -> Check:
    cls = RowsAdded if f.raw.get("type") == "rows_added" else RowsRemoved
    return cls(**common, table=f.string("table"),
               where=f.scalars("where", required=False, allow_empty=True),
               count=f.integer("count", 1))


def _load_diff_within(f: _Fields, common: dict[str, Any]) -> Check:
    raw = f.get("allowed", True)
    allowed: dict[str, TableAllowance] = {}
    if raw is not None and not isinstance(raw, dict):
        f.problem("allowed", f"must be an object of table: {{insert, delete, update, rows}}, not {raw!r}")
    for table, spec in sorted((raw or {}).items()) if isinstance(raw, dict) else ():
        sub = _Fields(spec if isinstance(spec, dict) else {}, f"{f.where} allowed[{table!r}]",
                      f.problems)
        if not isinstance(spec, dict):
            f.problem("allowed", f"table {table!r} must map to an object, not {spec!r}")
            continue
        update = sub.get("update", False)
        if update is None or update is False:
            columns: Literal[True] | tuple[str, ...] = ()
        elif update is True:
            columns = True
        elif isinstance(update, list) and update and all(isinstance(c, str) and c for c in update):
            columns = tuple(sorted(set(update)))
        else:
            sub.problem("update", f"must be true, false or a non-empty list of columns, not {update!r}")
            columns = ()
        delete = sub.flag("delete", False)
        allowed[table] = TableAllowance(_insert_allowance(sub), delete, columns,
                                        _row_keys(sub, bool(columns) or delete))
        sub.finish()
    return DiffWithin(**common, allowed=allowed)


def _insert_allowance(sub: _Fields) -> bool | int:
    """`insert`: true, false, or the most rows that may be inserted (0 reads as false)."""
    value = sub.get("insert", False)
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, int) and value >= 0:
        return value or False
    sub.problem("insert", f"must be true, false or a whole number of rows >= 0, not {value!r}")
    return False


def _row_keys(sub: _Fields, restricts: bool) -> tuple[int | str, ...] | None:
    """`rows`: the primary-key values of the rows updates and deletes are limited to."""
    value = sub.get("rows", False)
    if value is None:
        return None
    if (not isinstance(value, list) or not value
            or not all(isinstance(k, int | str) and not isinstance(k, bool) for k in value)):
        sub.problem("rows", f"must be a non-empty list of primary-key values (integers or strings), "
                            f"not {value!r}")
        return None
    if not restricts:
        sub.problem("rows", "limits updates and deletes, so it needs 'update' or 'delete'")
    # Canonical order (numbers before text, as SQLite sorts) so that equal programs compare equal.
    return tuple(sorted(set(value), key=lambda k: (isinstance(k, str), k)))


def _load_unchanged(f: _Fields, common: dict[str, Any]) -> Check:
    return Unchanged(**common, tables=f.names("tables"))


def _load_sql(f: _Fields, common: dict[str, Any]) -> Check:
    query = f.string("query")
    raw = f.get("expect", True)
    rows: list[tuple[Scalar, ...]] = []
    if raw is not None:
        if not isinstance(raw, list) or not all(isinstance(r, list) for r in raw):
            f.problem("expect", f"must be a list of rows, each a list, not {raw!r}")
        else:
            for row in raw:
                if not all(_is_scalar(v) for v in row):
                    f.problem("expect", f"row {row!r} must hold only JSON scalars")
                rows.append(tuple(row))
    return SqlCheck(**common, query=query, expect=tuple(rows),
                    db=_db_side(f),
                    ordered=f.flag("ordered", False))


CURRENCY_CODE = re.compile(r"[A-Z]{3}")


def _load_answer(f: _Fields, common: dict[str, Any]) -> Check:
    kind = f.choice("kind", ANSWER_KINDS)
    item_kind = f.choice("item_kind", ITEM_KINDS, default="text")
    has_expected, has_one_of = "expected" in f.raw, "one_of" in f.raw
    expected, one_of = f.get("expected", False), f.get("one_of", False)
    values: list[object] = []
    if has_expected == has_one_of:
        f.problem("expected", "or 'one_of' must be given (exactly one of them)")
    elif has_expected:
        values = [expected]
    elif not isinstance(one_of, list) or not one_of:
        f.problem("one_of", f"must be a non-empty list of expected values, not {one_of!r}")
    else:
        values = list(one_of)
    label = "expected" if has_expected else "one_of"
    for value in values:
        problem = _expected_problem(kind, item_kind, value)
        if problem:
            f.problem(label, problem)
    if "item_kind" in f.raw and kind != "list":
        f.problem("item_kind", "applies only to kind 'list'")
    tolerance = f.number("tolerance", required=False, minimum=0)
    if tolerance is not None and kind not in ("number", "money", "list"):
        f.problem("tolerance", f"does not apply to kind {kind!r}")
    aliases_raw = f.get("aliases", False)
    aliases: tuple[str, ...] = ()
    if aliases_raw is not None:
        if kind not in ("text", "label"):
            f.problem("aliases", "applies only to kinds 'text' and 'label'")
        elif not isinstance(aliases_raw, list) or not all(
                isinstance(a, str) and a.strip() for a in aliases_raw):
            f.problem("aliases", f"must be a list of non-empty strings, not {aliases_raw!r}")
        else:
            aliases = tuple(aliases_raw)
    currency = f.string("currency", required=False).upper()
    if currency and not CURRENCY_CODE.fullmatch(currency):
        f.problem("currency", f"must be a three-letter ISO code such as 'EUR', not {currency!r}")
    elif (currency and kind not in ("money", "list")) or (kind == "list" and currency and item_kind != "money"):
        f.problem("currency", "applies only to amounts of money (kind 'money', or a list of them)")
    return AnswerCheck(**common, kind=kind, one_of=tuple(_freeze(v) for v in values),
                       tolerance=tolerance, aliases=aliases, item_kind=item_kind,
                       currency="" if currency == "USD" else currency)


def _freeze(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value


def _expected_problem(kind: str, item_kind: str, value: object) -> str:
    """Why `value` cannot be an expected answer of `kind` ('' when it can)."""
    if kind == "list":
        if not isinstance(value, list) or not value:
            return f"must be a non-empty list for kind 'list', not {value!r}"
        return next((p for p in (_expected_problem(item_kind, "", v) for v in value) if p), "")
    if kind in ("number", "money"):
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        return "" if ok else f"must be a number for kind {kind!r}, not {value!r}"
    if kind == "date":
        if isinstance(value, str) and ISO_DATE.fullmatch(value):
            try:
                date.fromisoformat(value)
                return ""
            except ValueError:
                pass
        return f"must be an ISO date (YYYY-MM-DD) for kind 'date', not {value!r}"
    if kind == "bool":
        return "" if isinstance(value, bool) else f"must be true or false, not {value!r}"
    if kind in ("text", "label") and (not isinstance(value, str) or not value.strip()):
        return f"must be a non-empty string for kind {kind!r}, not {value!r}"
    if kind == "phone":
        # The number's own digits: an extension ("x229", "ext. 229", "#229") is not counted.
        number = EXTENSION.split(value, maxsplit=1)[0] if isinstance(value, str) else ""
        digits = sum(c.isdigit() for c in number)
        low, high = PHONE_DIGITS
        if not low <= digits <= high:
            return f"must be a phone number string with {low} to {high} digits, not {value!r}"
    if kind == "email" and (not isinstance(value, str) or not EMAIL.fullmatch(value.strip())):
        return f"must be one email address (local@domain.tld) for kind 'email', not {value!r}"
    return ""


_LOADERS = {
    RowMatches: _load_row_matches, FieldDelta: _load_field_delta, RowsAdded: _load_rows_changed,
    RowsRemoved: _load_rows_changed, DiffWithin: _load_diff_within, Unchanged: _load_unchanged,
    SqlCheck: _load_sql, AnswerCheck: _load_answer,
}
