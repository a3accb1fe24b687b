"""Renders checked expressions as readable Python for the generated backend.

Two contexts: object code (parameters are loaded rows, values are Python values) and SQL code
inside queries (the query's row variable becomes SQLAlchemy columns of its model, through sqlmodel's
`col()` so the generated code type-checks). Money is stored in integer cents, so a number literal
next to money is written in cents.

The code reads as a person would write it: parentheses only where Python's precedence needs them,
and a negation pushed inward (`not (a > 0)` is written `a <= 0`, `not (not x)` is `x`) wherever the
rewritten form is exactly equivalent (comparisons of ints, strings and dates, `is None`, De Morgan
in a boolean context). Helpers come from the generated runtime's public API (`row_id`, `same_row`,
`load_row`, `get_row`, `query_value`, `value_text`, `money_text`, `label_of`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from factory.expr.syntax import Attr, Binary, Call, Literal, Name, Node, Query, Unary
from factory.expr.typecheck import MONEY, Type, is_numeric_literal

_COMPARE = {"==", "!=", "<", "<=", ">", ">="}
# a comparison's negation: exact for the totally ordered values the language has (ints, cents,
# strings, dates); an operand that is None raises TypeError in both forms alike
_FLIP = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}

# Python's precedence levels, lowest first: an operand is parenthesised only below what its place needs
OR, AND, NOT, CMP, ADD, MUL, NEG, ATOM = range(1, 9)
_LEVEL = {"or": OR, "and": AND, "+": ADD, "-": ADD, "*": MUL, "/": MUL, "%": MUL, **dict.fromkeys(_COMPARE, CMP)}


@dataclass(frozen=True)
class Code:
    """A piece of Python and the precedence of its outermost operator."""

    text: str
    level: int = ATOM

    def at(self, level: int) -> str:
        """The code as an operand of a place that needs at least `level`."""
        return self.text if self.level >= level else f"({self.text})"


def py_str(value: str) -> str:
    """A string literal as `ruff format` writes it: double quotes unless that needs more escapes."""
    text = repr(value)
    if text.startswith("'") and '"' not in value:
        return '"' + text[1:-1].replace("\\'", "'") + '"'
    return text


def cents(node: Node) -> int:
    """The cents value of a numeric literal written in major units."""
    if isinstance(node, Unary):
        return -cents(node.operand)
    assert isinstance(node, Literal)
    return round(float(node.value) * 100)


def computed_function(entity: str, name: str) -> str:
    """The generated function working out a computed field (`backend/derived.py`): `queue_position_of_hold`."""
    return f"{name}_of_{entity}"


def lookup_message(node: Query) -> str:
    """What a row lookup that finds nothing answers (409): the seed's message, or one naming the entity."""
    return node.message or f"No matching {node.entity.replace('_', ' ')} was found."


def _number(value: int) -> Code:
    return Code(str(value), NEG if value < 0 else ATOM)


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


def _null_test(node: Binary) -> Node | None:
    """The tested operand of `x == null` / `x != null`, else None."""
    if node.op in ("==", "!=") and "null" in (node.left.type.kind, node.right.type.kind):
        return node.right if node.left.type.kind == "null" else node.left
    return None


def _bool_literal(node: Binary) -> Literal | None:
    """The `true`/`false` operand of a comparison, else None."""
    for side in (node.left, node.right):
        if isinstance(side, Literal) and isinstance(side.value, bool):
            return side
    return None


@dataclass
class PyGen:
    """Code generator; `names` maps expression names to Python code, `models` entity → class.

    `optional` holds the (entity, field) pairs of fields that may be empty and `optional_names` the
    names that may be None (optional parameters). A value that may be None is passed through
    `present()` where Python would fail on None anyway (arithmetic, ordering), so the code says so and
    type-checks; a reference is loaded with `load_row` (None for an empty or dangling id) where its row
    is a value, and with `get_row` (which raises, as reading a field of None did) where a field of it is read.
    """

    names: dict[str, str]
    models: dict[str, str]
    optional: set[tuple[str, str]] = field(default_factory=set)
    optional_names: set[str] = field(default_factory=set)
    session: str = "session"
    ctx: str = "ctx"
    # entity → its list order as columns (`-` for descending), the order a row lookup takes the first row in
    orders: dict[str, list[str]] = field(default_factory=dict)
    # names that stand for a reference whose id has code of its own (a computed field's `row.book_id`)
    ref_ids: dict[str, str] = field(default_factory=dict)

    def maybe_none(self, node: Node) -> bool:
        """Whether the code of `node` may give None (typed `X | None`)."""
        if isinstance(node, Literal):
            return node.value is None
        if isinstance(node, Name):
            return node.id in self.optional_names
        if isinstance(node, Attr):
            owner = node.obj.type.entity if node.obj.type is not None else None
            return node.type.kind == "ref" or (owner, node.name) in self.optional
        return False

    def present(self, node: Node, want: Type | None = None) -> Code:
        """The code of `node` as an operand Python fails on when it is None: `present(x)` when it may be."""
        code = self.code(node, want)
        return Code(f"present({code.text})") if self.maybe_none(node) else code

    # ---- object context -------------------------------------------------------------
    def expr(self, node: Node, want: Type | None = None) -> str:
        """Python code computing `node`; `want` coerces number literals assigned to money."""
        return self.code(node, want).text

    def refusal(self, node: Node) -> str:
        """Python code that holds exactly when the condition `node` does not (simplified `not node`)."""
        return self.negated(node).text

    def code(self, node: Node, want: Type | None = None) -> Code:
        if want is not None and want.kind == "money" and is_numeric_literal(node):
            return _number(cents(node))
        if isinstance(node, Literal):
            return Code(py_str(node.value) if isinstance(node.value, str) else repr(node.value))
        if isinstance(node, Name):
            return Code(self.names[node.id])
        if isinstance(node, Attr):
            return self._attr(node)
        if isinstance(node, Unary):
            if node.op == "not":
                return self.negated(node.operand)
            return Code(f"-{self.code(node.operand).at(ATOM)}", NEG)
        if isinstance(node, Binary):
            return self._binary(node)
        if isinstance(node, Call):
            return self._call(node)
        assert isinstance(node, Query)
        return self._query(node)

    def negated(self, node: Node) -> Code:
        """`not node`, with the negation pushed inward where that is exactly equivalent."""
        if isinstance(node, Unary) and node.op == "not":
            return self.code(node.operand)
        if isinstance(node, Binary):
            if node.op in ("and", "or"):  # De Morgan: the operands are bools, so truth and value agree
                return self._join("or" if node.op == "and" else "and", self.negated(node.left), self.negated(node.right))
            if node.op in _COMPARE:
                return self._compare(node, _FLIP[node.op])
        if isinstance(node, Query) and node.fn == "exists":
            return Code(f"{self._count(node)} == 0", CMP)
        return Code(f"not {self.code(node).at(NOT)}", NOT)

    def row(self, node: Node) -> str:
        """The code of a row that must be there (a field of it is read, or it acts): a reference by `get_row`."""
        if isinstance(node, Attr) and node.type.kind == "ref":
            return f"get_row({self.session}, {self.models[node.type.entity]}, {self.row(node.obj)}.{node.name}_id)"
        return self.present(node).at(ATOM)

    def _attr(self, node: Attr) -> Code:
        base = self.row(node.obj)
        if node.type.computed:  # no column: worked out from the row, as the API's read does
            return Code(f"{computed_function(node.obj.type.entity, node.name)}({self.session}, {base})")
        if node.type.kind == "ref":
            return Code(f"load_row({self.session}, {self.models[node.type.entity]}, {base}.{node.name}_id)")
        return Code(f"{base}.{node.name}")

    def _operands(self, node: Binary) -> tuple[Code, Code]:
        # A number next to money is an amount (cents) for + - and comparisons, but a plain
        # factor for * / %: `price * 2`, `deposit / 10`.
        scale = node.op not in ("*", "/", "%")
        left_t, right_t = node.left.type, node.right.type
        # == and != compare None like any value; every other operator fails on it
        operand = self.code if node.op in ("==", "!=") else self.present
        left = operand(node.left, MONEY if scale and right_t.kind == "money" else None)
        right = operand(node.right, MONEY if scale and left_t.kind == "money" else None)
        return left, right

    def _join(self, op: str, left: Code, right: Code) -> Code:
        level = _LEVEL[op]
        return Code(f"{left.at(level)} {op} {right.at(level)}", level)

    def _compare(self, node: Binary, op: str) -> Code:
        """The comparison of `node`'s operands with `op` (its own operator, or the flipped one)."""
        tested = _null_test(node)
        if tested is not None:
            return Code(f"{self.code(tested).at(CMP + 1)} {'is' if op == '==' else 'is not'} None", CMP)
        if node.left.type.kind == "ref":
            same = f"same_row({self.expr(node.left)}, {self.expr(node.right)})"
            return Code(same) if op == "==" else Code(f"not {same}", NOT)
        flag = _bool_literal(node)
        if flag is not None:  # `x is False`: exact for a bool column's True, False or None, as `== False` is
            value = node.right if flag is node.left else node.left
            return Code(f"{self.code(value).at(CMP + 1)} {'is' if op == '==' else 'is not'} {flag.value!r}", CMP)
        left, right = self._operands(node)
        return Code(f"{left.at(CMP + 1)} {op} {right.at(CMP + 1)}", CMP)

    def _binary(self, node: Binary) -> Code:
        op = node.op
        if op in ("and", "or"):
            return self._join(op, self.code(node.left), self.code(node.right))
        if op in _COMPARE:
            return self._compare(node, op)
        left, right = self._operands(node)
        if op == "-" and node.left.type.kind in ("date", "datetime") and node.right.type.kind == node.left.type.kind:
            return Code(f"({left.at(ADD)} - {right.at(ADD + 1)}).days")
        if op == "/" and node.type.kind in ("int", "money"):
            op = "//"
        level = _LEVEL[node.op]
        return Code(f"{left.at(level)} {op} {right.at(level + 1)}", level)

    def _call(self, node: Call) -> Code:
        args = [self.expr(a) for a in node.args]
        fn = node.fn
        if fn == "today":
            return Code(f"{self.ctx}.today")
        if fn == "now":
            return Code(f"{self.ctx}.now")
        if fn == "days":
            return Code(f"timedelta(days={args[0]})")
        if fn == "lower":
            return Code(f'({self.code(node.args[0]).at(OR + 1)} or "").lower()')
        if fn == "len":
            return Code(f'len({self.code(node.args[0]).at(OR + 1)} or "")')
        if fn == "text":
            kind = node.args[0].type.kind
            helper = {"money": "money_text", "ref": "label_of"}.get(kind, "value_text")
            return Code(f"{helper}({args[0]})")
        if fn in ("min", "max"):
            want = MONEY if node.type.kind == "money" else None
            return Code(f"{fn}({self.expr(node.args[0], want)}, {self.expr(node.args[1], want)})")
        if fn == "rand_int":
            return Code(f"{self.ctx}.rng.randint({args[0]}, {args[1]})")
        if fn == "rand_money":
            lo, hi = (self.expr(a, MONEY) for a in node.args)
            return Code(f"{self.ctx}.rng.randint({lo}, {hi})")
        if fn == "rand_choice":
            return Code(f"{self.ctx}.rng.choice([{', '.join(args)}])")
        raise AssertionError(f"unchecked function {fn}")

    def _where(self, node: Query, model: str) -> str:
        return f".where({self.sql(node.where, node.var, model)})" if node.where is not None else ""

    def _count(self, node: Query) -> str:
        model = self.models[node.entity]
        return f"query_value({self.session}, select(func.count()).select_from({model}){self._where(node, model)})"

    def _query(self, node: Query) -> Code:
        model = self.models[node.entity]
        where = self._where(node, model)
        if node.fn == "rows":
            return Code(f"{self.session}.exec(select({model}){where}.order_by(col({model}.id))).all()")
        if node.fn == "first":
            columns = self.orders.get(node.entity, [])
            order = [f"col({model}.{c.lstrip('-')}).desc()" if c.startswith("-") else f"col({model}.{c})" for c in columns]
            if not any(c.lstrip("-") == "id" for c in columns):  # ties go to the oldest row
                order.append(f"col({model}.id)")
            return Code(f"find_row({self.session}, select({model}){where}.order_by({', '.join(order)}), "
                        f"{py_str(lookup_message(node))})")
        if node.fn == "sum":
            assert node.value is not None
            value = self.sql(node.value, node.var, model)
            return Code(f"query_value({self.session}, select(func.coalesce(func.sum({value}), 0)).select_from({model}){where})")
        count = self._count(node)
        return Code(count) if node.fn == "count" else Code(f"{count} > 0", CMP)

    # ---- SQL context ------------------------------------------------------------------
    def sql(self, node: Node, var: str, model: str) -> str:
        """SQLAlchemy code for `node` where `var` is a row of `model`."""
        return self._sql(node, var, model).text

    def _sql(self, node: Node, var: str, model: str) -> Code:
        if isinstance(node, Name) and node.id in self.ref_ids:
            return Code(self.ref_ids[node.id])
        if not mentions(node, var):
            code = self.code(node)
            return Code(f"row_id({code.text})") if node.type.kind == "ref" else code
        if isinstance(node, Name):
            return Code(f"col({model}.id)")
        if isinstance(node, Attr):
            suffix = "_id" if node.type.kind == "ref" else ""
            return Code(f"col({model}.{node.name}{suffix})")
        if isinstance(node, Unary):
            if node.op == "not":
                return self._sql_negated(node.operand, var, model)
            return Code(f"-{self._sql(node.operand, var, model).at(ATOM)}", NEG)
        if isinstance(node, Call):
            inner = self.sql(node.args[0], var, model)
            if node.fn == "lower":
                return Code(f"func.lower({inner})")
            if node.fn == "len":
                return Code(f"func.length({inner})")
            raise AssertionError(f"{node.fn}() of a query column")  # typecheck keeps these out
        assert isinstance(node, Binary)
        if node.op in ("and", "or"):
            return Code(f"{node.op}_({self.sql(node.left, var, model)}, {self.sql(node.right, var, model)})")
        if node.op in _COMPARE:
            return self._sql_compare(node, node.op, var, model)
        level = _LEVEL[node.op]
        left = self._sql_operand(node.left, node.right, var, model)
        right = self._sql_operand(node.right, node.left, var, model)
        return Code(f"{left.at(level)} {node.op} {right.at(level + 1)}", level)

    def _sql_negated(self, node: Node, var: str, model: str) -> Code:
        """SQL `NOT node`, pushed inward: exact in SQL's three-valued logic too (NOT (a = b) is a <> b, NULL alike)."""
        if not mentions(node, var):
            return self.negated(node)
        if isinstance(node, Unary) and node.op == "not":
            return self._sql(node.operand, var, model)
        if isinstance(node, Binary) and node.op in ("and", "or"):
            other = "or" if node.op == "and" else "and"
            return Code(f"{other}_({self._sql_negated(node.left, var, model).text}, "
                        f"{self._sql_negated(node.right, var, model).text})")
        if isinstance(node, Binary) and node.op in _COMPARE:
            return self._sql_compare(node, _FLIP[node.op], var, model)
        return Code(f"not_({self.sql(node, var, model)})")

    def _sql_compare(self, node: Binary, op: str, var: str, model: str) -> Code:
        tested = _null_test(node)
        if tested is not None:
            return Code(f"{self._sql(tested, var, model).at(ATOM)}.{'is_' if op == '==' else 'is_not'}(None)")
        left = self._sql_operand(node.left, node.right, var, model)
        right = self._sql_operand(node.right, node.left, var, model)
        return Code(f"{left.at(CMP + 1)} {op} {right.at(CMP + 1)}", CMP)

    def _sql_operand(self, node: Node, other: Node, var: str, model: str) -> Code:
        if other.type.kind == "money" and is_numeric_literal(node):
            return _number(cents(node))
        if isinstance(node, Literal) and isinstance(node.value, bool):
            return Code(f"{str(node.value).lower()}()")  # SQLAlchemy's true()/false(): the same SQL as `== True`
        return self._sql(node, var, model)
