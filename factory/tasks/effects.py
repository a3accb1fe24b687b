"""Predict what workflows do to a database by interpreting the seed's expressions, never the app.

reward-gen sees the instruction, the spec and the initial database; it must not run the backend.
`predict` replays the asked-for workflows on an overlay of the read-only database the way the
generated `workflows.run` does: parameters are checked and their rows loaded (visible to the
actor), preconditions evaluated, then the effects applied in order, each expression seeing the
earlier ones; several steps share one overlay. `reward_checks` turns the prediction into
`verifiers` checks: the predicted rows, plus a `diff_within` that allows nothing else.

The interpreter walks the type-checked AST of `factory.expr` with the semantics `pycode` documents:
money in integer cents (a number written next to money is an amount for + - and comparisons, a
factor for * / %), integer division rounding down, `x.f` on a reference following its `<f>_id`
column, `text()` as the app's `_money_text`/`_label`/`_text`, `now()` as today at 09:00, and
queries over every row of the entity (visibility does not apply) with SQL's NULL logic inside
`where` and `sum`. It is an independent oracle on purpose: where the generated code strays from
those semantics, the golden gate fails instead of the reward repeating the bug. Two such places
are known, both inside query conditions and used by no seed today: `pycode` writes a number next
to money in cents even as a factor (`x.amount * 2`), and SQLAlchemy divides with `/` as reals.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from factory.errors import ExpressionError, PredictionError
from factory.expr.pycode import cents, mentions
from factory.expr.syntax import (
    Attr,
    Binary,
    Call,
    Literal,
    Name,
    Node,
    Query,
    Unary,
    parse,
)
from factory.expr.typecheck import (
    BOOL,
    INT,
    MONEY,
    Scope,
    Type,
    check,
    field_type,
    is_numeric_literal,
)
from factory.runtime.step import Step
from factory.spec.model import (
    EffectSpec,
    EntitySpec,
    FieldSpec,
    ParamSpec,
    Spec,
    WorkflowSpec,
)
from factory.tasks.rows import money_text

NOW_TIME = dt.time(9, 0)  # the generated app's frozen clock: `today` at 09:00 (app.py.j2 `Clock`)
_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


@dataclass
class Prediction:
    """The database after the steps, as changes in storage form (cents, ISO text, 0/1)."""

    updates: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    inserts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    deletes: list[tuple[str, int]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    # (step index from 0, id of the first failing precondition): the check the app answers 409 with
    refusals: list[tuple[int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class _Ref:
    """A reference value: a row of `entity` (whether it exists is checked on use)."""

    entity: str
    id: int


def _stored(value: Any) -> Any:
    """A Python value as SQLAlchemy stores it in SQLite."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, _Ref):
        return value.id
    return value


def _loaded(kind: str, raw: Any) -> Any:
    """A stored value as the app's models read it back."""
    if raw is None:
        return None
    if kind == "bool":
        return bool(raw)
    if kind == "date" and isinstance(raw, str):
        return dt.date.fromisoformat(raw)
    if kind == "datetime" and isinstance(raw, str):
        return dt.datetime.fromisoformat(raw)
    return raw


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dt.date):  # datetimes too: both print as isoformat
        return value.isoformat()
    return str(value)


def _rule_problem(f: FieldSpec | ParamSpec, value: Any) -> str | None:
    """The app's `check_value` message for `value`, or None when the value passes."""
    if value is None or value == "":
        return f"{f.label} is required." if f.required and f.type != "bool" else None
    if f.values is not None and value not in f.values:
        return f"{f.label} must be one of: {', '.join(f.values)}."
    if f.max_length is not None and isinstance(value, str) and len(value) > f.max_length:
        return f"{f.label} must be at most {f.max_length} characters."
    scale = 100 if f.type == "money" else 1
    shown = money_text if f.type == "money" else _text
    if f.min is not None and value < round(f.min * scale):
        return f"{f.label} must be at least {shown(round(f.min * scale))}."
    if f.max is not None and value > round(f.max * scale):
        return f"{f.label} must be at most {shown(round(f.max * scale))}."
    return None


# Loaded base tables: (path, (size, mtime), entity) → rows by id. Never mutated once stored.
_BASE: dict[tuple[str, tuple[int, int], str], dict[int, dict[str, Any]]] = {}


class _Rows:
    """The database as predicted so far: read-only SQLite rows under an overlay of changes."""

    def __init__(self, spec: Spec, db: Path) -> None:
        self.entities = {e.name: e for e in spec.entities}
        self.path = str(db.resolve())
        stat = db.stat()
        self.stamp = (stat.st_size, stat.st_mtime_ns)
        self.conn = sqlite3.connect(f"file:{quote(self.path)}?mode=ro", uri=True)
        self.tables: dict[str, dict[int, dict[str, Any]]] = {}
        self.assigned: dict[tuple[str, int], dict[str, Any]] = {}  # (entity, id) → column → value
        self.created: dict[tuple[str, int], None] = {}  # insertion-ordered set
        self.deleted: list[tuple[str, int]] = []

    def close(self) -> None:
        self.conn.close()

    def table(self, entity: str) -> dict[int, dict[str, Any]]:
        """Every current row of `entity` by id, loaded on first use.

        Base rows are shared between predictions on the same unchanged file (keyed by path, size
        and modification time): the proposer predicts thousands of candidates on one database.
        The mapping is copied per prediction and rows are copied before they are changed."""
        if entity not in self.tables:
            key = (self.path, self.stamp, entity)
            if key not in _BASE:
                _BASE[key] = self._load(entity)
            self.tables[entity] = dict(_BASE[key])
        return self.tables[entity]

    def _load(self, entity: str) -> dict[int, dict[str, Any]]:
        e = self.entities[entity]
        kinds = {f.column: f.type for f in e.fields}
        try:
            cursor = self.conn.execute(f'SELECT * FROM "{e.table}"')
        except sqlite3.DatabaseError as exc:
            raise PredictionError(f"cannot read table {e.table!r} of the database: {exc}") from exc
        names = [d[0] for d in cursor.description]
        rows = {}
        for raw in cursor.fetchall():
            row = {n: _loaded(kinds.get(n, ""), v) for n, v in zip(names, raw, strict=True)}
            rows[row["id"]] = row
        if len(_BASE) > 256:  # bounded: many setup databases must not pile up in memory
            _BASE.clear()
        return rows

    def get(self, entity: str, row_id: int | None) -> dict[str, Any] | None:
        return None if row_id is None else self.table(entity).get(row_id)

    def visible(self, entity: str, row: dict[str, Any], user_id: int) -> bool:
        """The app's `visible`: public entities to everyone, others to their owners."""
        e = self.entities[entity]
        if e.visibility == "public":
            return True
        return any(row.get(f"{owner}_id") == user_id for owner in e.owner_fields)

    def assign(self, entity: str, row_id: int, column: str, value: Any) -> None:
        table = self.table(entity)
        table[row_id] = {**table[row_id], column: value}  # copy on write: base rows are shared
        if (entity, row_id) not in self.created:
            self.assigned.setdefault((entity, row_id), {})[column] = value

    def insert(self, entity: str, values: dict[str, Any]) -> int:
        rows = self.table(entity)
        # SQLite (no AUTOINCREMENT) gives a new row the largest rowid in the table plus one
        row_id = max(rows, default=0) + 1
        rows[row_id] = {**values, "id": row_id}
        self.created[(entity, row_id)] = None
        return row_id

    def delete(self, entity: str, row_id: int) -> None:
        del self.table(entity)[row_id]
        self.assigned.pop((entity, row_id), None)
        if (entity, row_id) in self.created:
            del self.created[(entity, row_id)]
        else:
            self.deleted.append((entity, row_id))

    def prediction(self, failed: list[str]) -> Prediction:
        table = {name: e.table for name, e in self.entities.items()}
        updates = {(table[e], i): {c: _stored(v) for c, v in cols.items()}
                   for (e, i), cols in sorted(self.assigned.items())}
        inserts = []
        deleted = list(self.deleted)
        for entity, row_id in self.created:
            row = self.tables[entity][row_id]
            values = {c: _stored(v) for c, v in row.items() if c != "id"}
            if (entity, row_id) in deleted:
                # SQLite gave the new row the id of the one just deleted: to a row diff (and so to
                # the grader) that is one row whose values changed, not a delete and an insert.
                deleted.remove((entity, row_id))
                updates[(table[entity], row_id)] = values
                continue
            inserts.append((table[entity], values))
        return Prediction(dict(sorted(updates.items())), inserts, [(table[e], i) for e, i in deleted], failed)


class _Interpreter:
    """Evaluates one checked expression of a workflow step over the predicted rows."""

    def __init__(self, rows: _Rows, env: dict[str, Any], today: dt.date, source: str) -> None:
        self.rows, self.env, self.today, self.source = rows, env, today, source
        # a query scans every row: whether a node names the row variable, and the value of one that
        # does not, are the same for every row of one scan (nodes live as long as the interpreter)
        self._mentioned: dict[tuple[int, str], bool] = {}
        self._constants: dict[int, Any] = {}

    def _mentions(self, node: Node | None, var: str) -> bool:
        key = (id(node), var)
        if key not in self._mentioned:
            self._mentioned[key] = mentions(node, var)
        return self._mentioned[key]

    def fail(self, message: str) -> PredictionError:
        return PredictionError(f"`{self.source}`: {message} (the app would answer with a server error)")

    # ---- object context: parameters are rows, values are Python values --------------------
    def value(self, node: Node, want: Type | None = None) -> Any:
        if want is not None and want.kind == "money" and is_numeric_literal(node):
            return cents(node)
        if isinstance(node, Literal):
            return node.value
        if isinstance(node, Name):
            return self.env[node.id]
        if isinstance(node, Attr):
            return self.attr(self.value(node.obj), node)
        if isinstance(node, Unary):
            inner = self.value(node.operand)
            if node.op == "not":
                return not inner
            return self.arith("-", 0, inner)
        if isinstance(node, Binary):
            return self.binary(node)
        if isinstance(node, Call):
            return self.call(node)
        assert isinstance(node, Query)
        return self.query(node)

    def row_of(self, ref: Any, what: str) -> dict[str, Any]:
        row = self.rows.get(ref.entity, ref.id) if isinstance(ref, _Ref) else None
        if row is None:
            raise self.fail(f"{what} of a missing row")
        return row

    def attr(self, base: Any, node: Attr) -> Any:
        row = self.row_of(base, f".{node.name}")
        if node.name == "id":
            return row["id"]
        if node.type.kind == "ref":
            # `_load` gives None for a null (or dangling) id, so a reference to nothing is null
            target = row.get(f"{node.name}_id")
            if target is None or not self.rows.get(node.type.entity, target):
                return None
            return _Ref(node.type.entity, target)
        return row.get(node.name)  # a scalar field's column is its name

    def arith(self, op: str, left: Any, right: Any) -> Any:
        try:
            if op == "+":
                return left + right
            if op == "-":
                return left - right
            if op == "*":
                return left * right
            if op == "/":
                return left // right
            if op == "%":
                return left % right
            return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]
        except (TypeError, ZeroDivisionError) as exc:
            raise self.fail(f"cannot compute {left!r} {op} {right!r}") from exc

    def binary(self, node: Binary) -> Any:
        op = node.op
        if op in ("and", "or"):
            left = self.value(node.left)  # short-circuit as Python does: the right may not be safe
            if (op == "and") != bool(left):
                return left
            return self.value(node.right)
        lk, rk = node.left.type.kind, node.right.type.kind
        if op in ("==", "!=") and "null" in (lk, rk):
            other = node.right if lk == "null" else node.left
            return (self.value(other) is None) == (op == "==")
        if op in ("==", "!=") and lk == "ref":
            same = _ref_id(self.value(node.left)) == _ref_id(self.value(node.right))
            return same == (op == "==")
        scale = op not in ("*", "/", "%")  # a number next to money: an amount, or a factor
        left = self.value(node.left, MONEY if scale and rk == "money" else None)
        right = self.value(node.right, MONEY if scale and lk == "money" else None)
        if op == "-" and lk in ("date", "datetime") and rk == lk:
            return self.arith("-", left, right).days
        if op == "==":
            return left == right
        if op == "!=":
            return left != right
        return self.arith(op, left, right)

    def call(self, node: Call) -> Any:
        fn = node.fn
        if fn == "today":
            return self.today
        if fn == "now":
            return dt.datetime.combine(self.today, NOW_TIME)
        if fn in ("min", "max"):
            want = MONEY if node.type.kind == "money" else None
            a, b = (self.value(arg, want) for arg in node.args)
            try:
                return min(a, b) if fn == "min" else max(a, b)
            except TypeError as exc:
                raise self.fail(f"cannot compare {a!r} with {b!r}") from exc
        if fn.startswith("rand_"):
            raise PredictionError(f"`{self.source}`: {fn}() is random; only storylines may use it")
        arg = self.value(node.args[0])
        if fn == "days":
            if not isinstance(arg, int):
                raise self.fail(f"days({arg!r}) is not a duration")
            return dt.timedelta(days=arg)
        if fn == "lower":
            return (arg or "").lower()
        if fn == "len":
            return len(arg or "")
        kind = node.args[0].type.kind  # text()
        if kind == "money":
            return money_text(arg)
        if kind == "ref":
            return self.label(arg.entity, self.rows.get(arg.entity, arg.id)) if arg is not None else ""
        return _text(arg)

    def label(self, entity: str, row: dict[str, Any] | None, depth: int = 0) -> str:
        """The app's `_label`: the display template, money as $1,234.56, references by label."""
        if row is None:
            return ""
        e = self.rows.entities[entity]
        fields = {f.name: f for f in e.fields}

        def fill(match: re.Match[str]) -> str:
            f = fields.get(match.group(1))
            if f is not None and f.type == "reference" and f.ref:
                target = self.rows.get(f.ref, row.get(f.column)) if depth < 2 else None
                return self.label(f.ref, target, depth + 1) if target is not None else _text(row.get(f.column))
            raw = row.get(match.group(1))
            return money_text(raw) if f is not None and f.type == "money" else _text(raw)

        return _FIELD.sub(fill, e.display)

    # ---- queries: SQL over every row of the entity ---------------------------------------
    def query(self, node: Query) -> Any:
        outer, self._constants = self._constants, {}
        try:
            return self._query(node)
        finally:
            self._constants = outer

    def _query(self, node: Query) -> Any:
        matched = [row for row in list(self.rows.table(node.entity).values())
                   if node.where is None or self.sql(node.where, node.var, row) is True]
        if node.fn == "count":
            return len(matched)
        if node.fn == "exists":
            return bool(matched)
        if node.fn == "sum":
            assert node.value is not None
            found = [self.sql(node.value, node.var, row) for row in matched]
            return sum(v for v in found if v is not None)  # SUM skips NULLs; coalesce(…, 0)
        raise PredictionError(f"`{self.source}`: a bare row selector is not a value")

    def sql(self, node: Node, var: str, row: dict[str, Any]) -> Any:
        """`node` for one row bound to `var`, in SQL's three-valued logic (None is NULL)."""
        if not self._mentions(node, var):
            # a bound parameter, computed in Python once per scan
            if id(node) not in self._constants:
                self._constants[id(node)] = _ref_id(self.value(node))
            return self._constants[id(node)]
        if isinstance(node, Name):
            return row["id"]
        if isinstance(node, Attr):
            return row.get(f"{node.name}_id" if node.type.kind == "ref" else node.name)
        if isinstance(node, Unary):
            inner = self.sql(node.operand, var, row)
            if inner is None:
                return None
            return (not inner) if node.op == "not" else -inner
        if isinstance(node, Call):
            if node.fn not in ("lower", "len"):  # the app's code generator refuses these too
                raise PredictionError(f"`{self.source}`: {node.fn}() of a query column is not supported")
            inner = self.sql(node.args[0], var, row)
            if inner is None:
                return None
            # SQLite's lower() folds ASCII letters only
            return inner.translate(_ASCII_LOWER) if node.fn == "lower" else len(inner)
        assert isinstance(node, Binary)
        return self.sql_binary(node, var, row)

    def sql_binary(self, node: Binary, var: str, row: dict[str, Any]) -> Any:
        op = node.op
        if op in ("and", "or"):
            a, b = self.sql(node.left, var, row), self.sql(node.right, var, row)
            decided = op == "or"  # the value that settles it: True for or, False for and
            if (a is not None and bool(a) == decided) or (b is not None and bool(b) == decided):
                return decided
            return None if a is None or b is None else not decided
        lk, rk = node.left.type.kind, node.right.type.kind
        if op in ("==", "!=") and "null" in (lk, rk):
            other = node.right if lk == "null" else node.left
            return (self.sql(other, var, row) is None) == (op == "==")
        scale = op not in ("*", "/", "%")
        left = self._sql_operand(node.left, rk, scale, var, row)
        right = self._sql_operand(node.right, lk, scale, var, row)
        if op in ("==", "!="):
            on_left, on_right = self._mentions(node.left, var), self._mentions(node.right, var)
            # SQLAlchemy writes `column == <parameter that is None>` as IS NULL, not as `= NULL`
            if (left is None and not on_left) or (right is None and not on_right):
                column = right if not on_left else left
                return (column is None) == (op == "==")
            if left is None or right is None:
                return None
            return (left == right) == (op == "==")
        if left is None or right is None:
            return None
        if op == "-" and lk in ("date", "datetime") and rk == lk:
            return self.arith("-", left, right).days
        return self.arith(op, left, right)

    def _sql_operand(self, node: Node, other_kind: str, scale: bool, var: str, row: dict[str, Any]) -> Any:
        if scale and other_kind == "money" and is_numeric_literal(node):
            return cents(node)
        return self.sql(node, var, row)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _ref_id(value: Any) -> Any:
    return value.id if isinstance(value, _Ref) else value


# ---- predict ---------------------------------------------------------------------------------
def predict(spec: Spec, db: Path, user_id: int, steps: list[Step]) -> Prediction:
    """The changes `steps`, run in order by user `user_id`, make to database `db`.

    A step whose preconditions fail changes nothing; their messages are collected in `failed` and
    later steps still run. Raises PredictionError for what the app would reject before or after
    the preconditions: an unknown workflow or parameter, a missing, unknown or invisible row, a
    parameter breaking its rule (422), or effects storing a row that breaks a field rule (422), a
    uniqueness constraint or a reference (409).
    """
    rows = _Rows(spec, Path(db))
    try:
        if rows.get("user", user_id) is None:
            raise PredictionError(f"acting user #{user_id} does not exist in {db}")
        failed: list[str] = []
        refusals: list[tuple[int, str]] = []
        for index, step in enumerate(steps, 1):
            workflow = next((w for w in spec.workflows if w.name == step.workflow and not w.system), None)
            if workflow is None:
                raise PredictionError(f"step {index}: no workflow {step.workflow!r} with an endpoint in {spec.world}")
            try:
                code = _Step(spec, rows, user_id, workflow).run(step.params, failed)
            except PredictionError as exc:
                raise PredictionError(f"step {index} ({workflow.name}): {exc}") from exc
            if code is not None:
                refusals.append((index - 1, code))
        prediction = rows.prediction(failed)
        prediction.refusals = refusals
        return prediction
    finally:
        rows.close()


class _Step:
    """One workflow call: the parameters, the preconditions, the effects."""

    def __init__(self, spec: Spec, rows: _Rows, user_id: int, workflow: WorkflowSpec) -> None:
        self.rows, self.user_id, self.workflow = rows, user_id, workflow
        self.today = dt.date.fromisoformat(spec.today)
        schema = {e.name: {"id": INT, **{f.name: field_type(f.type, f.ref, f.values) for f in e.fields}}
                  for e in spec.entities}
        self.scope = Scope(schema, {"me": Type("ref", entity="user"),
                                    **{p.name: field_type(p.type, p.ref, p.values) for p in workflow.params}})
        self.env: dict[str, Any] = {"me": _Ref("user", user_id)}

    def compiled(self, source: str, expect: Type | None = None, nullable: bool = False) -> Node:
        try:
            node = parse(source)
            check(source, node, self.scope, expect, nullable)
        except ExpressionError as exc:
            raise PredictionError(f"cannot interpret `{source}`: {exc}") from exc
        return node

    def evaluate(self, source: str, node: Node, want: Type | None = None) -> Any:
        return _Interpreter(self.rows, self.env, self.today, source).value(node, want)

    def run(self, raw: dict[str, Any], failed: list[str]) -> str | None:
        """Apply the step; the id of the first failing precondition when it is refused."""
        for effect in self.workflow.effects:
            needs = {"set": (effect.target, effect.to), "delete": (effect.target,), "create": (effect.values,)}
            if any(part is None for part in needs[effect.kind]):  # a spec.json older than the sources
                raise PredictionError(f"the spec keeps no expression sources for `{effect.source}`; rebuild the world")
        self.load_params(raw)
        messages: list[str] = []
        first: str | None = None
        for pre in self.workflow.preconditions:
            node = self.compiled(pre.source, BOOL)
            try:
                holds = self.evaluate(pre.source, node)
            except PredictionError:
                if messages:  # the app stops at the first failing check and never gets here
                    continue
                raise
            if not holds:
                messages.append(pre.message)
                first = first or pre.id
        if messages:
            failed.extend(messages)
            return first
        touched: dict[tuple[str, int], None] = {}
        removed: list[tuple[str, int]] = []
        for effect in self.workflow.effects:
            if effect.kind == "set":
                touched[self.set(effect)] = None
            elif effect.kind == "create":
                touched[self.create(effect)] = None
            else:
                removed.append(self.delete(effect))
        self.check_rows([t for t in touched if t not in removed], removed)
        return None

    # ---- parameters, as `workflows.run` validates and loads them --------------------------
    def load_params(self, raw: dict[str, Any]) -> None:
        declared = {p.name: p for p in self.workflow.params}
        unknown = sorted(set(raw) - set(declared))
        if unknown:
            raise PredictionError(f"unknown parameter(s) {', '.join(unknown)} "
                                  f"(declared: {', '.join(declared) or 'none'})")
        for p in self.workflow.params:
            if p.name in raw and raw[p.name] is None and p.required:
                # the parameter model's annotation is not Optional: pydantic refuses null (422)
                raise PredictionError(f"the app would reject parameter {p.name!r}: {p.label} is required.")
            if p.name in raw:
                value = _api_value(p, raw[p.name])
            elif p.default is not None:
                value = _default(p.type, p.default)
            elif not p.required:
                value = None
            else:
                raise PredictionError(f"parameter {p.name!r} is missing")
            problem = _rule_problem(p, value) if p.type != "reference" or value is None else None
            if problem:
                raise PredictionError(f"the app would reject parameter {p.name!r}: {problem}")
            if p.type == "reference" and value is not None:
                row = self.rows.get(p.ref or "", value)
                if row is None or not self.rows.visible(p.ref or "", row, self.user_id):
                    raise PredictionError(f"parameter {p.name!r}: {p.ref} #{value} does not exist or is "
                                          f"not visible to user #{self.user_id}")
                value = _Ref(p.ref or "", value)
            self.env[p.name] = value

    # ---- effects -------------------------------------------------------------------------
    def target(self, effect: EffectSpec) -> _Ref:
        ref = self.env.get(effect.target or "")
        if not isinstance(ref, _Ref) or self.rows.get(ref.entity, ref.id) is None:
            raise PredictionError(f"`{effect.source}`: {effect.target} is null or already deleted "
                                  "(the app would answer with a server error)")
        return ref

    def set(self, effect: EffectSpec) -> tuple[str, int]:
        ref = self.target(effect)
        f = _field(self.rows.entities[effect.entity], effect.field or "")
        want = field_type(f.type, f.ref, f.values)
        value = self.evaluate(effect.source, self.compiled(effect.to or "", want, not f.required), want)
        self.rows.assign(effect.entity, ref.id, f.column, _ref_id(value))
        return (effect.entity, ref.id)

    def create(self, effect: EffectSpec) -> tuple[str, int]:
        entity = self.rows.entities[effect.entity]
        values: dict[str, Any] = {}
        for name, source in (effect.values or {}).items():
            f = _field(entity, name)
            want = field_type(f.type, f.ref, f.values)
            values[f.column] = _ref_id(self.evaluate(source, self.compiled(source, want, not f.required), want))
        for owner in entity.owner_fields:  # as the compiled rule: an owner not given is the actor
            values.setdefault(f"{owner}_id", self.user_id)
        for f in entity.fields:
            if f.column in values:
                continue
            if not f.required:
                values[f.column] = None  # the model's default=None
            elif f.default is not None and f.type != "datetime":  # a datetime default is stored unparsed
                values[f.column] = _default(f.type, f.default)
        return (effect.entity, self.rows.insert(effect.entity, values))

    def delete(self, effect: EffectSpec) -> tuple[str, int]:
        ref = self.target(effect)
        self.rows.delete(effect.entity, ref.id)
        return (effect.entity, ref.id)

    def check_rows(self, written: list[tuple[str, int]], removed: list[tuple[str, int]]) -> None:
        """What the flush would refuse: field rules (422), uniqueness and references (409)."""
        for entity_name, row_id in written:
            entity = self.rows.entities[entity_name]
            row = self.rows.table(entity_name)[row_id]
            for f in entity.fields:
                problem = _rule_problem(f, row.get(f.column))
                if problem:
                    raise PredictionError(f"the app would refuse to store {entity_name} #{row_id}: {problem}")
                value = row.get(f.column)
                if f.unique and value is not None and any(
                        other["id"] != row_id and other.get(f.column) == value
                        for other in self.rows.table(entity_name).values()):
                    raise PredictionError(f"{entity_name} #{row_id} would repeat the unique {f.name} {value!r} (409)")
        for entity_name, row_id in removed:
            for other in self.rows.entities.values():
                for f in other.fields:
                    if f.ref != entity_name:
                        continue
                    holder = next((r for r in self.rows.table(other.name).values() if r.get(f.column) == row_id), None)
                    if holder is not None:
                        raise PredictionError(f"deleting {entity_name} #{row_id} would break the reference from "
                                              f"{other.name} #{holder['id']}.{f.name} (409)")


def _field(entity: EntitySpec, name: str) -> FieldSpec:
    try:
        return entity.field_named(name)
    except KeyError as exc:
        raise PredictionError(exc.args[0]) from exc


def _default(kind: str, value: Any) -> Any:
    """A declared default as the generated code writes it (money in major units → cents)."""
    if kind == "money":
        return round(float(value) * 100)
    if kind == "date":
        return dt.date.fromisoformat(str(value))
    if kind == "datetime":
        return dt.datetime.fromisoformat(str(value))
    return value


def _api_value(p: ParamSpec, raw: Any) -> Any:
    """An API-level parameter value in the Python form the app's parameter model gives it."""
    if raw is None:
        return None
    kind = p.type
    ok = True
    if kind in ("int", "money", "reference"):
        ok = isinstance(raw, int) and not isinstance(raw, bool)
    elif kind == "bool":
        ok = isinstance(raw, bool)
    elif kind == "date":
        if isinstance(raw, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw):
            raw = dt.date.fromisoformat(raw)
        ok = isinstance(raw, dt.date) and not isinstance(raw, dt.datetime)
    elif kind == "datetime":
        if isinstance(raw, str):
            try:
                raw = dt.datetime.fromisoformat(raw)
            except ValueError:
                ok = False
        ok = ok and isinstance(raw, dt.datetime) and raw.tzinfo is None
    else:
        ok = isinstance(raw, str)
    if not ok:
        forms = {"int": "an integer", "money": "integer cents", "reference": "an integer id", "bool": "true or false",
                 "date": "'YYYY-MM-DD'", "datetime": "'YYYY-MM-DDTHH:MM:SS' (no time zone)"}
        raise PredictionError(f"parameter {p.name!r} must be {forms.get(kind, 'a string')}, not {raw!r}")
    return raw


# ---- reward checks ---------------------------------------------------------------------------
def reward_checks(spec: Spec, db: Path, prediction: Prediction) -> list[dict[str, object]]:
    """Checks (the `verifiers.reward` JSON form) passing exactly on the predicted end state.

    One `row_matches` per updated row, one `rows_added` per distinct inserted row (with how many),
    one `rows_removed` per deleted row, and a `diff_within` allowing just those changes: the
    assigned columns of the updated rows, deletes of the deleted rows, and no more inserts than
    predicted. `db` is the initial database; the rows the checks name must exist in it.
    """
    labels = {e.table: e.label.lower() for e in spec.entities}
    conn = sqlite3.connect(f"file:{quote(str(Path(db).resolve()))}?mode=ro", uri=True)
    try:
        def before(table: str, row_id: int) -> dict[str, Any]:
            if table not in labels:
                raise PredictionError(f"the prediction names table {table!r}, which {spec.world} does not have")
            try:
                cursor = conn.execute(f'SELECT * FROM "{table}" WHERE id = ?', (row_id,))
            except sqlite3.DatabaseError as exc:
                raise PredictionError(f"cannot read {table} #{row_id} from {db}: {exc}") from exc
            found = cursor.fetchone()
            if found is None:
                raise PredictionError(f"{table} #{row_id} is not in the initial database {db}")
            return dict(zip([d[0] for d in cursor.description], found, strict=True))

        checks: list[dict[str, object]] = []
        allowed: dict[str, dict[str, Any]] = {}
        for (table, row_id), columns in sorted(prediction.updates.items()):
            old = before(table, row_id)
            expect = dict(sorted(columns.items()))
            changes = ", ".join(f"{c} {old.get(c)!r} -> {v!r}" for c, v in expect.items())
            checks.append({"id": f"{table}_{row_id}_updated", "type": "row_matches", "table": table,
                           "key": {"id": row_id}, "expect": expect,
                           "description": f"{labels.get(table, table)} #{row_id}: {changes}"})
            entry = allowed.setdefault(table, {})
            entry["update"] = sorted(set(entry.get("update", [])) | set(expect))
            entry.setdefault("rows", set()).add(row_id)
        added: dict[str, Counter[tuple[tuple[str, Any], ...]]] = {}
        for table, values in prediction.inserts:
            if table not in labels:
                raise PredictionError(f"the prediction inserts into table {table!r}, which {spec.world} does not have")
            added.setdefault(table, Counter())[tuple(sorted(values.items()))] += 1
        for table in sorted(added):
            for n, (content, count) in enumerate(added[table].items(), 1):
                what = f"{count} new {labels.get(table, table)} row{'s' if count > 1 else ''}"
                checks.append({"id": f"{table}_added_{n}", "type": "rows_added", "table": table,
                               "where": dict(content), "count": count,
                               "description": f"{what} with the predicted values"})
            allowed.setdefault(table, {})["insert"] = sum(added[table].values())
        for table, row_id in sorted(prediction.deletes):
            before(table, row_id)
            checks.append({"id": f"{table}_{row_id}_removed", "type": "rows_removed", "table": table,
                           "where": {"id": row_id}, "description": f"{labels.get(table, table)} #{row_id} is deleted"})
            entry = allowed.setdefault(table, {})
            entry["delete"] = True
            entry.setdefault("rows", set()).add(row_id)
        for entry in allowed.values():
            if "rows" in entry:
                entry["rows"] = sorted(entry["rows"])
        checks.append({"id": "no_other_changes", "type": "diff_within",
                       "allowed": {t: dict(sorted(allowed[t].items())) for t in sorted(allowed)},
                       "description": "nothing changes beyond the predicted rows"})
        return checks
    finally:
        conn.close()
