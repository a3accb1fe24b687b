"""The expression interpreter: one checked expression of a workflow step, evaluated over the
predicted rows with the semantics `factory.expr.pycode` documents (see `factory.predict.effects`).

Outside queries values are Python values and parameters are rows (`Ref`); inside a query's
`where` and `sum` each row is evaluated in SQL's three-valued logic, as the app's SQLAlchemy
query would be.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from factory.errors import PredictionError
from factory.expr.pycode import cents, lookup_message, mentions
from factory.expr.syntax import (
    Attr,
    Binary,
    Call,
    Literal,
    Name,
    Node,
    Query,
    Unary,
)
from factory.expr.typecheck import MONEY, Type, field_type, is_numeric_literal
from factory.predict.derived import LookupRefused, computed_node, row_env, sorted_rows
from factory.predict.overlay import Ref, Rows, ref_id
from factory.predict.rows import money_text
from factory.spec.labels import LABEL_DEPTH, currency_of, value_label

NOW_TIME = dt.time(9, 0)  # the generated app's frozen clock: `today` at 09:00 (app.py.j2 `Clock`)
_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def as_text(value: Any) -> str:
    """A value as the app's `_text` prints it: empty for null, dates as ISO."""
    if value is None:
        return ""
    if isinstance(value, dt.date):  # datetimes too: both print as isoformat
        return value.isoformat()
    return str(value)


class Interpreter:
    """Evaluates one checked expression of a workflow step over the predicted rows."""

    def __init__(self, rows: Rows, env: dict[str, Any], today: dt.date, source: str) -> None:
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
        row = self.rows.get(ref.entity, ref.id) if isinstance(ref, Ref) else None
        if row is None:
            raise self.fail(f"{what} of a missing row")
        return row

    def attr(self, base: Any, node: Attr) -> Any:
        row = self.row_of(base, f".{node.name}")
        if node.name == "id":
            return row["id"]
        if node.type.computed:  # no column: worked out from the row, as the app's read does
            return computed_value(self, base.entity, row, node.name)
        if node.type.kind == "ref":
            # `_load` gives None for a null (or dangling) id, so a reference to nothing is null
            target = row.get(f"{node.name}_id")
            if target is None or not self.rows.get(node.type.entity, target):
                return None
            return Ref(node.type.entity, target)
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
            same = ref_id(self.value(node.left)) == ref_id(self.value(node.right))
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
        return as_text(arg)

    def label(self, entity: str, row: dict[str, Any] | None, depth: int = 0) -> str:
        """The app's `_label`: the display template, money as $1,234.56, references by label."""
        if row is None:
            return ""
        e = self.rows.entities[entity]
        fields = {f.name: f for f in e.fields}

        def fill(match: re.Match[str]) -> str:
            f = fields.get(match.group(1))
            if f is not None and f.type == "reference" and f.ref:
                target = self.rows.get(f.ref, row.get(f.column)) if depth < LABEL_DEPTH else None
                return self.label(f.ref, target, depth + 1) if target is not None else as_text(row.get(f.column))
            raw = row.get(match.group(1))
            return value_label(f.type if f is not None else None, raw, currency_of(f, row))

        return _FIELD.sub(fill, e.display)

    # ---- queries: SQL over every row of the entity ---------------------------------------
    def query(self, node: Query) -> Any:
        outer, self._constants = self._constants, {}
        try:
            return self._query(node)
        finally:
            self._constants = outer

    def select(self, node: Query) -> list[Ref]:
        """The rows a bulk effect's `x in entity where …` selects, in id order (the app orders by id)."""
        outer, self._constants = self._constants, {}
        try:
            return [Ref(node.entity, row_id) for row_id, row in sorted(self.rows.table(node.entity).items())
                    if node.where is None or self.sql(node.where, node.var, row) is True]
        finally:
            self._constants = outer

    def _query(self, node: Query) -> Any:
        matched = [row for row in list(self.rows.table(node.entity).values())
                   if node.where is None or self.sql(node.where, node.var, row) is True]
        if node.fn == "first":  # a row lookup: the first in the entity's list order, or a refusal
            if not matched:
                raise LookupRefused(lookup_message(node))
            return Ref(node.entity, sorted_rows(self.rows.entities[node.entity], matched)[0]["id"])
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
                self._constants[id(node)] = ref_id(self.value(node))
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


def computed_value(interpreter: Interpreter, entity_name: str, row: dict[str, Any], name: str) -> Any:
    """A computed field of one row, worked out over the predicted rows (the app's `<field>_of_<entity>`)."""
    entity = interpreter.rows.entities[entity_name]
    f = entity.computed_named(name)
    if f is None:
        raise PredictionError(f"entity {entity_name} has no computed field {name!r}")
    node = computed_node(interpreter.rows.spec, entity, f)
    inner = Interpreter(interpreter.rows, row_env(entity, row), interpreter.today, f.compute or "")
    return inner.value(node, field_type(f.type, f.ref, f.values))
