"""Renders checked expressions as readable Python for the generated backend.

Two contexts: object code (parameters are loaded rows, values are Python values) and SQL code
inside queries (the query's row variable becomes SQLAlchemy columns of its model).
Money is stored in integer cents, so a number literal next to money is written in cents.
"""

from __future__ import annotations

from dataclasses import dataclass

from factory.expr.syntax import Attr, Binary, Call, Literal, Name, Node, Query, Unary
from factory.expr.typecheck import MONEY, Type, is_numeric_literal

_COMPARE = {"==", "!=", "<", "<=", ">", ">="}


def cents(node: Node) -> int:
    """The cents value of a numeric literal written in major units."""
    if isinstance(node, Unary):
        return -cents(node.operand)
    assert isinstance(node, Literal)
    return round(float(node.value) * 100)


def mentions(node: Node | None, var: str) -> bool:
    """Whether `node` uses the name `var`."""
    if node is None:
        return False
    if isinstance(node, Name):
        return node.id == var
    if isinstance(node, Attr):
        return mentions(node.obj, var)
    if isinstance(node, Unary):
        return mentions(node.operand, var)
    if isinstance(node, Binary):
        return mentions(node.left, var) or mentions(node.right, var)
    if isinstance(node, Call):
        return any(mentions(a, var) for a in node.args)
    if isinstance(node, Query):
        return mentions(node.where, var) or mentions(node.value, var)
    return False


@dataclass
class PyGen:
    """Code generator; `names` maps expression names to Python code, `models` entity → class."""

    names: dict[str, str]
    models: dict[str, str]
    session: str = "session"
    ctx: str = "ctx"

    # ---- object context -------------------------------------------------------------
    def expr(self, node: Node, want: Type | None = None) -> str:
        """Python code computing `node`; `want` coerces number literals assigned to money."""
        if want is not None and want.kind == "money" and is_numeric_literal(node):
            return str(cents(node))
        return getattr(self, f"_{type(node).__name__.lower()}")(node)

    def _literal(self, node: Literal) -> str:
        return repr(node.value)

    def _name(self, node: Name) -> str:
        return self.names[node.id]

    def _attr(self, node: Attr) -> str:
        base = self.expr(node.obj)
        if node.type.kind == "ref":
            return f"_load({self.session}, {self.models[node.type.entity]}, {base}.{node.name}_id)"
        return f"{base}.{node.name}"

    def _unary(self, node: Unary) -> str:
        if node.op == "not":
            return f"(not {self.expr(node.operand)})"
        return f"(-{self.expr(node.operand)})"

    def _operands(self, node: Binary) -> tuple[str, str]:
        # A number next to money is an amount (cents) for + - and comparisons, but a plain
        # factor for * / %: `price * 2`, `deposit / 10`.
        scale = node.op not in ("*", "/", "%")
        left_t, right_t = node.left.type, node.right.type
        left = self.expr(node.left, MONEY if scale and right_t.kind == "money" else None)
        right = self.expr(node.right, MONEY if scale and left_t.kind == "money" else None)
        return left, right

    def _binary(self, node: Binary) -> str:
        op = node.op
        if op in ("and", "or"):
            return f"({self.expr(node.left)} {op} {self.expr(node.right)})"
        if op in ("==", "!=") and "null" in (node.left.type.kind, node.right.type.kind):
            other = node.right if node.left.type.kind == "null" else node.left
            return f"({self.expr(other)} {'is' if op == '==' else 'is not'} None)"
        if op in ("==", "!=") and node.left.type.kind == "ref":
            same = f"_same({self.expr(node.left)}, {self.expr(node.right)})"
            return same if op == "==" else f"(not {same})"
        left, right = self._operands(node)
        if op == "-" and node.left.type.kind in ("date", "datetime") and node.right.type.kind == node.left.type.kind:
            return f"({left} - {right}).days"
        if op == "/" and node.type.kind in ("int", "money"):
            return f"({left} // {right})"
        return f"({left} {op} {right})"

    def _call(self, node: Call) -> str:
        args = [self.expr(a) for a in node.args]
        fn = node.fn
        if fn == "today":
            return f"{self.ctx}.today"
        if fn == "now":
            return f"{self.ctx}.now"
        if fn == "days":
            return f"timedelta(days={args[0]})"
        if fn == "lower":
            return f"({args[0]} or '').lower()"
        if fn == "len":
            return f"len({args[0]} or '')"
        if fn == "text":
            kind = node.args[0].type.kind
            helper = {"money": "_money_text", "ref": "_label"}.get(kind, "_text")
            return f"{helper}({args[0]})"
        if fn in ("min", "max"):
            want = MONEY if node.type.kind == "money" else None
            return f"{fn}({self.expr(node.args[0], want)}, {self.expr(node.args[1], want)})"
        if fn == "rand_int":
            return f"{self.ctx}.rng.randint({args[0]}, {args[1]})"
        if fn == "rand_money":
            lo, hi = (self.expr(a, MONEY) for a in node.args)
            return f"{self.ctx}.rng.randint({lo}, {hi})"
        if fn == "rand_choice":
            return f"{self.ctx}.rng.choice([{', '.join(args)}])"
        raise AssertionError(f"unchecked function {fn}")

    def _query(self, node: Query) -> str:
        model = self.models[node.entity]
        where = f".where({self.sql(node.where, node.var, model)})" if node.where is not None else ""
        if node.fn == "rows":
            return f"{self.session}.exec(select({model}){where}.order_by({model}.id)).all()"
        if node.fn == "sum":
            assert node.value is not None
            value = self.sql(node.value, node.var, model)
            return f"_scalar({self.session}, select(func.coalesce(func.sum({value}), 0)).select_from({model}){where})"
        count = f"_scalar({self.session}, select(func.count()).select_from({model}){where})"
        return count if node.fn == "count" else f"({count} > 0)"

    # ---- SQL context ------------------------------------------------------------------
    def sql(self, node: Node, var: str, model: str) -> str:
        """SQLAlchemy code for `node` where `var` is a row of `model`."""
        if not mentions(node, var):
            code = self.expr(node)
            return f"_id({code})" if node.type.kind == "ref" else code
        if isinstance(node, Name):
            return f"{model}.id"
        if isinstance(node, Attr):
            suffix = "_id" if node.type.kind == "ref" else ""
            return f"{model}.{node.name}{suffix}"
        if isinstance(node, Unary):
            inner = self.sql(node.operand, var, model)
            return f"not_({inner})" if node.op == "not" else f"(-{inner})"
        if isinstance(node, Call):
            inner = self.sql(node.args[0], var, model)
            if node.fn == "lower":
                return f"func.lower({inner})"
            if node.fn == "len":
                return f"func.length({inner})"
            raise AssertionError(f"{node.fn}() of a query column")  # typecheck keeps these out
        assert isinstance(node, Binary)
        op = node.op
        if op in ("and", "or"):
            return f"{op}_({self.sql(node.left, var, model)}, {self.sql(node.right, var, model)})"
        if op in ("==", "!=") and "null" in (node.left.type.kind, node.right.type.kind):
            other = node.right if node.left.type.kind == "null" else node.left
            return f"{self.sql(other, var, model)}.{'is_' if op == '==' else 'is_not'}(None)"
        left = self._sql_operand(node.left, node.right, var, model)
        right = self._sql_operand(node.right, node.left, var, model)
        return f"({left} {op} {right})"

    def _sql_operand(self, node: Node, other: Node, var: str, model: str) -> str:
        if other.type.kind == "money" and is_numeric_literal(node):
            return str(cents(node))
        return self.sql(node, var, model)
