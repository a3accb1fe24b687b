"""Type checker: every name must exist and every operator must get the types it expects."""

from __future__ import annotations

from dataclasses import dataclass, field

from factory.errors import ExpressionError
from factory.expr.syntax import Attr, Binary, Call, Literal, Name, Node, Query, Unary


@dataclass(frozen=True)
class Type:
    """A value's type: scalar kinds, `ref` (with its entity), `null`, and numeric literals."""

    kind: str  # str int money number date datetime duration bool ref null
    entity: str | None = None
    values: tuple[str, ...] | None = None  # enum members, when known
    # a computed field's value (worked out per row on read, no column): not part of the type's
    # identity, but a query's SQL cannot read it
    computed: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        if self.kind == "ref":
            return f"reference to {self.entity}"
        return "enum" if self.values else self.kind


STR, INT, MONEY, NUMBER = Type("str"), Type("int"), Type("money"), Type("number")
DATE, DATETIME, DURATION, BOOL, NULL = Type("date"), Type("datetime"), Type("duration"), Type("bool"), Type("null")

FIELD_TYPES = {"string": STR, "text": STR, "email": STR, "int": INT, "money": MONEY,
               "date": DATE, "datetime": DATETIME, "bool": BOOL}


def field_type(kind: str, to: str | None = None, values: list[str] | None = None) -> Type:
    """The expression type of a seed field or parameter type."""
    if kind == "reference":
        return Type("ref", entity=to)
    if kind == "enum":
        return Type("str", values=tuple(values or ()))
    return FIELD_TYPES[kind]


Schema = dict[str, dict[str, Type]]  # entity → field → type (every entity has `id`)


@dataclass
class Scope:
    """What an expression may name."""

    schema: Schema
    names: dict[str, Type] = field(default_factory=dict)
    random: bool = False  # rand_* functions: storyline only

    def child(self, name: str, typ: Type) -> Scope:
        return Scope(self.schema, {**self.names, name: typ}, self.random)


def is_numeric_literal(node: Node) -> bool:
    """A number written in the source (possibly negated): coerced to cents next to money."""
    if isinstance(node, Unary) and node.op == "-":
        return is_numeric_literal(node.operand)
    return isinstance(node, Literal) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


class Checker:
    """Walks an AST, sets `node.type` everywhere, raises ExpressionError on the first problem."""

    def __init__(self, source: str, scope: Scope) -> None:
        self.source, self.scope = source, scope

    def fail(self, node: Node, message: str) -> ExpressionError:
        return ExpressionError(self.source, message, node.pos)

    def check(self, node: Node, scope: Scope | None = None) -> Type:
        scope = scope or self.scope
        method = getattr(self, f"_{type(node).__name__.lower()}")
        node.type = method(node, scope)
        return node.type

    def _literal(self, node: Literal, scope: Scope) -> Type:
        v = node.value
        if v is None:
            return NULL
        if isinstance(v, bool):
            return BOOL
        if isinstance(v, int):
            return INT
        if isinstance(v, float):
            return NUMBER
        return STR

    def _name(self, node: Name, scope: Scope) -> Type:
        if node.id in scope.names:
            return scope.names[node.id]
        known = ", ".join(sorted(scope.names)) or "nothing"
        raise self.fail(node, f"unknown name {node.id!r} (known: {known})")

    def _attr(self, node: Attr, scope: Scope) -> Type:
        base = self.check(node.obj, scope)
        if base.kind != "ref":
            raise self.fail(node, f"cannot take .{node.name} of a {base}")
        fields = scope.schema[base.entity or ""]
        if node.name not in fields:
            raise self.fail(node, f"entity {base.entity!r} has no field {node.name!r} (fields: {', '.join(sorted(fields))})")
        return fields[node.name]

    def _unary(self, node: Unary, scope: Scope) -> Type:
        inner = self.check(node.operand, scope)
        if node.op == "not":
            if inner != BOOL:
                raise self.fail(node, f"'not' needs a bool, got {inner}")
            return BOOL
        if inner.kind not in ("int", "money", "number"):
            raise self.fail(node, f"cannot negate a {inner}")
        return inner

    def _binary(self, node: Binary, scope: Scope) -> Type:
        left, right = self.check(node.left, scope), self.check(node.right, scope)
        op = node.op
        if op in ("and", "or"):
            if left != BOOL or right != BOOL:
                raise self.fail(node, f"'{op}' needs bools, got {left} and {right}")
            return BOOL
        if op in ("==", "!=", "<", "<=", ">", ">="):
            self._comparable(node, left, right, ordered=op not in ("==", "!="))
            return BOOL
        return self._arith(node, left, right)

    def _comparable(self, node: Binary, left: Type, right: Type, ordered: bool) -> None:
        if NULL in (left, right):
            if ordered:
                raise self.fail(node, "null can only be compared with == or !=")
            return
        lk, rk = self._unify(node, left, right)
        if lk != rk:
            raise self.fail(node, f"cannot compare {left} with {right}")
        if ordered and lk in ("bool", "ref"):
            raise self.fail(node, f"cannot order values of type {left}")
        if lk == "ref" and left.entity != right.entity:
            raise self.fail(node, f"cannot compare {left} with {right}")
        for enum, other in ((left, node.right), (right, node.left)):
            if enum.values and isinstance(other, Literal) and other.value not in enum.values:
                raise self.fail(other, f"{other.value!r} is not one of {', '.join(enum.values)}")

    def _unify(self, node: Binary, left: Type, right: Type) -> tuple[str, str]:
        """Kinds after literal coercion: a number literal next to money is money."""
        lk, rk = left.kind, right.kind
        if lk == "money" and rk in ("int", "number") and is_numeric_literal(node.right):
            rk = "money"
        if rk == "money" and lk in ("int", "number") and is_numeric_literal(node.left):
            lk = "money"
        if {lk, rk} == {"int", "number"}:
            raise self.fail(node, "decimal numbers only make sense next to money")
        return lk, rk

    def _arith(self, node: Binary, left: Type, right: Type) -> Type:
        op = node.op
        lk, rk = left.kind, right.kind
        if op in ("*", "/", "%") and "money" in (lk, rk) and "number" in (lk, rk):
            # amounts are whole cents: scaling by 1.5 would store fractions of a cent
            raise self.fail(node, f"'{op}' of money takes a whole number (money * 3, money / 2), not a decimal")
        if op == "+" and lk == rk == "str":
            return STR
        if op in ("+", "-") and lk in ("date", "datetime") and rk == "duration":
            return left
        if op == "+" and lk == "duration" and rk in ("date", "datetime"):
            return right
        if op == "-" and lk == rk and lk in ("date", "datetime"):
            return INT
        if op in ("*", "/", "%") and lk == "money" and rk == "int":
            return MONEY
        if op == "*" and lk == "int" and rk == "money":
            return MONEY
        if lk in ("int", "money", "number") and rk in ("int", "money", "number"):
            ulk, urk = self._unify(node, left, right)
            if ulk == urk and ulk in ("int", "money"):
                if op == "/" and ulk == "money":
                    return INT  # money / money is a plain ratio, rounded down
                return Type(ulk)
        raise self.fail(node, f"cannot apply '{op}' to {left} and {right}")

    def _call(self, node: Call, scope: Scope) -> Type:
        args = [self.check(a, scope) for a in node.args]
        sig = _SIGNATURES.get(node.fn)
        if sig is None:
            raise self.fail(node, f"unknown function {node.fn}() (known: {', '.join(sorted(_SIGNATURES))})")
        params, result, random_only = sig
        if random_only and not scope.random:
            raise self.fail(node, f"{node.fn}() is only allowed in storyline events")
        if params is not None and len(params) != len(args):
            raise self.fail(node, f"{node.fn}() takes {len(params)} argument(s), got {len(args)}")
        for i, (want, got) in enumerate(zip(params or [], args, strict=False)):  # no params: any arguments, none checked
            if want == "any":
                continue
            ok = got.kind == want or (want == "money" and got.kind in ("int", "number") and is_numeric_literal(node.args[i]))
            if not ok:
                raise self.fail(node.args[i], f"{node.fn}() argument {i + 1} must be {want}, got {got}")
        if node.fn == "rand_choice":
            if not args or any(a != args[0] for a in args):
                raise self.fail(node, "rand_choice() needs one or more values of one type")
            return args[0]
        if node.fn in ("min", "max"):
            lk, rk = self._unify(Binary(node.pos, "+", node.args[0], node.args[1]), args[0], args[1])
            if lk != rk or lk not in ("int", "money", "date"):
                raise self.fail(node, f"{node.fn}() needs two numbers, amounts or dates of one type")
            return Type(lk)
        return result

    def _query(self, node: Query, scope: Scope) -> Type:
        if node.entity not in scope.schema:
            raise self.fail(node, f"unknown entity {node.entity!r}")
        if node.var in scope.names:
            raise self.fail(node, f"query variable {node.var!r} hides a name already in use")
        inner = scope.child(node.var, Type("ref", entity=node.entity))
        if node.where is not None:
            if self.check(node.where, inner) != BOOL:
                raise self.fail(node.where, "a 'where' condition must be a bool")
            self._sql_safe(node.where, node.var)
        if node.fn == "count":
            return INT
        if node.fn == "exists":
            return BOOL
        if node.fn in ("rows", "first"):
            return Type("ref", entity=node.entity)
        assert node.value is not None
        value = self.check(node.value, inner)
        if value.kind not in ("int", "money"):
            raise self.fail(node.value, f"sum() needs numbers or amounts, got {value}")
        self._sql_safe(node.value, node.var)
        return value

    def _sql_safe(self, node: Node, var: str) -> None:
        """Inside a query, the row variable may only be used one field deep (it becomes a column)."""
        if isinstance(node, Attr) and isinstance(node.obj, Attr) and _root(node) == var:
            raise self.fail(node, f"inside a query, use {var}'s fields one field deep ({var}.x, not {var}.x.y)")
        if isinstance(node, Name) and node.id == var:
            return
        if isinstance(node, Attr) and isinstance(node.obj, Name) and node.obj.id == var and node.type.computed:
            raise self.fail(node, f"{var}.{node.name} is a computed field: a query's condition can only read stored "
                                  "fields (state it as a precondition instead)")
        if isinstance(node, Query):
            raise self.fail(node, "queries cannot be nested")
        for child in _children(node):
            self._sql_safe(child, var)


def _root(node: Node) -> str | None:
    while isinstance(node, Attr):
        node = node.obj
    return node.id if isinstance(node, Name) else None


def _children(node: Node) -> list[Node]:
    if isinstance(node, Attr):
        return [node.obj]
    if isinstance(node, Unary):
        return [node.operand]
    if isinstance(node, Binary):
        return [node.left, node.right]
    if isinstance(node, Call):
        return list(node.args)
    return []


# name → (parameter kinds or None for variadic, result, storyline-only)
_SIGNATURES: dict[str, tuple[list[str] | None, Type, bool]] = {
    "today": ([], DATE, False),
    "now": ([], DATETIME, False),
    "days": (["int"], DURATION, False),
    "lower": (["str"], STR, False),
    "len": (["str"], INT, False),
    "text": (["any"], STR, False),
    "min": (["any", "any"], INT, False),
    "max": (["any", "any"], INT, False),
    "rand_int": (["int", "int"], INT, True),
    "rand_money": (["money", "money"], MONEY, True),
    "rand_choice": (None, STR, True),
}


def check(source: str, node: Node, scope: Scope, expect: Type | None = None, nullable: bool = False) -> Type:
    """Type-check `node`; with `expect`, also check it can be assigned to that type."""
    typ = Checker(source, scope).check(node)
    if expect is not None and not assignable(node, typ, expect, nullable):
        raise ExpressionError(source, f"expected {expect} but the expression is {typ}", node.pos)
    if (expect is not None and expect.values and isinstance(node, Literal) and node.value is not None
            and node.value not in expect.values):
        raise ExpressionError(source, f"{node.value!r} is not one of {', '.join(expect.values)}", node.pos)
    return typ


def assignable(node: Node, got: Type, want: Type, nullable: bool) -> bool:
    """Whether a value of type `got` may be stored where `want` is expected."""
    if got == NULL:
        return nullable
    if want.kind == "money" and got.kind in ("int", "number") and is_numeric_literal(node):
        return True
    if want.kind == "ref":
        return got.kind == "ref" and got.entity == want.entity
    return got.kind == want.kind
