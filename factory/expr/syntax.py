"""Tokeniser, AST and recursive-descent parser of the expression language."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from factory.errors import ExpressionError

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<number>\d+(?:\.\d+)?)
    | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<op>==|!=|<=|>=|[<>+\-*/%(),.])
    )""",
    re.VERBOSE,
)
KEYWORDS = {"and", "or", "not", "in", "where", "for", "true", "false", "null"}
QUERY_FUNCTIONS = {"count", "exists", "sum", "first"}


@dataclass
class Token:
    kind: str  # number | string | name | op | keyword | end
    text: str
    pos: int


def tokenize(source: str) -> list[Token]:
    """Split source into tokens; an unknown character is an error naming its column."""
    tokens: list[Token] = []
    pos = 0
    while pos < len(source):
        if source[pos:].strip() == "":
            break
        match = _TOKEN.match(source, pos)
        if not match or match.end() == pos:
            col = len(source) - len(source[pos:].lstrip())
            raise ExpressionError(source, f"unexpected character {source[col]!r}", col)
        kind = match.lastgroup or "op"
        text = match.group(kind)
        start = match.start(kind)
        if kind == "name" and text in KEYWORDS:
            kind = "keyword"
        tokens.append(Token(kind, text, start))
        pos = match.end()
    tokens.append(Token("end", "", len(source)))
    return tokens


@dataclass
class Node:
    """Base AST node; `type` is filled in by the type checker."""

    pos: int
    type: Any = field(default=None, init=False, compare=False)


@dataclass
class Literal(Node):
    value: Any  # int, float, str, bool or None


@dataclass
class Name(Node):
    id: str


@dataclass
class Attr(Node):
    obj: Node
    name: str


@dataclass
class Unary(Node):
    op: str  # '-' or 'not'
    operand: Node


@dataclass
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass
class Call(Node):
    fn: str
    args: list[Node]


@dataclass
class Query(Node):
    """`count(x in e where c)`, `exists(...)`, `sum(x.f for x in e where c)`, a row lookup
    `first(x in e where c[, 'message when none'])`, or a bare `x in e`."""

    fn: str  # count | exists | sum | first | rows
    var: str
    entity: str
    where: Node | None
    value: Node | None = None  # sum only
    message: str | None = None  # first only: the refusal when no row matches


_BINARY_LEVELS: list[set[str]] = [
    {"or"},
    {"and"},
    {"==", "!=", "<", "<=", ">", ">="},
    {"+", "-"},
    {"*", "/", "%"},
]


class Parser:
    """Recursive descent over the token list; one instance per source string."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = tokenize(source)
        self.i = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def fail(self, message: str, token: Token | None = None) -> ExpressionError:
        token = token or self.tok
        return ExpressionError(self.source, message, token.pos)

    def take(self, text: str) -> Token:
        if self.tok.text != text or self.tok.kind == "string":
            found = self.tok.text or "end of expression"
            raise self.fail(f"expected {text!r} but found {found!r}")
        token = self.tok
        self.i += 1
        return token

    def accept(self, text: str) -> bool:
        if self.tok.text == text and self.tok.kind in ("op", "keyword"):
            self.i += 1
            return True
        return False

    def parse(self) -> Node:
        node = self.expr()
        if self.tok.kind != "end":
            raise self.fail(f"unexpected {self.tok.text!r}")
        return node

    def parse_rows(self) -> Query:
        """A storyline `for_each`: `x in entity [where cond]`."""
        query = self.query_tail("rows", self.tok.pos, None)
        if self.tok.kind != "end":
            raise self.fail(f"unexpected {self.tok.text!r}")
        return query

    def expr(self, level: int = 0) -> Node:
        if level == len(_BINARY_LEVELS):
            return self.unary()
        # `not` binds looser than comparisons, tighter than `and`
        if level == 2 and self.tok.text == "not" and self.tok.kind == "keyword":
            pos = self.tok.pos
            self.i += 1
            return Unary(pos, "not", self.expr(level))
        left = self.expr(level + 1)
        while self.tok.text in _BINARY_LEVELS[level] and self.tok.kind in ("op", "keyword"):
            op = self.tok
            self.i += 1
            right = self.expr(level + 1)
            left = Binary(op.pos, op.text, left, right)
            if level == 2 and self.tok.text in _BINARY_LEVELS[2]:
                raise self.fail("comparisons cannot be chained; join them with 'and'")
        return left

    def unary(self) -> Node:
        if self.tok.text == "-" and self.tok.kind == "op":
            pos = self.tok.pos
            self.i += 1
            return Unary(pos, "-", self.unary())
        return self.postfix()

    def postfix(self) -> Node:
        node = self.primary()
        while self.accept("."):
            if self.tok.kind != "name":
                raise self.fail("expected a field name after '.'")
            node = Attr(self.tok.pos, node, self.tok.text)
            self.i += 1
        return node

    def primary(self) -> Node:
        tok = self.tok
        if tok.kind == "number":
            self.i += 1
            return Literal(tok.pos, float(tok.text) if "." in tok.text else int(tok.text))
        if tok.kind == "string":
            self.i += 1
            body = tok.text[1:-1]
            return Literal(tok.pos, re.sub(r"\\(.)", r"\1", body))
        if tok.kind == "keyword" and tok.text in ("true", "false", "null"):
            self.i += 1
            return Literal(tok.pos, {"true": True, "false": False, "null": None}[tok.text])
        if tok.kind == "name":
            self.i += 1
            if self.accept("("):
                return self.call(tok)
            return Name(tok.pos, tok.text)
        if self.accept("("):
            node = self.expr()
            self.take(")")
            return node
        raise self.fail(f"expected a value but found {tok.text or 'end of expression'!r}")

    def call(self, name: Token) -> Node:
        if name.text in QUERY_FUNCTIONS:
            value = None
            if name.text == "sum":
                value = self.expr()
                self.take("for")
            query = self.query_tail(name.text, name.pos, value)
            if name.text == "first" and self.accept(","):
                if self.tok.kind != "string":
                    raise self.fail("expected the message a lookup that finds no row answers with, in quotes")
                query.message = re.sub(r"\\(.)", r"\1", self.tok.text[1:-1])
                self.i += 1
            self.take(")")
            return query
        args: list[Node] = []
        if not self.accept(")"):
            args.append(self.expr())
            while self.accept(","):
                args.append(self.expr())
            self.take(")")
        return Call(name.pos, name.text, args)

    def query_tail(self, fn: str, pos: int, value: Node | None) -> Query:
        if self.tok.kind != "name":
            raise self.fail("expected 'var in entity'")
        var = self.tok.text
        self.i += 1
        self.take("in")
        if self.tok.kind != "name":
            raise self.fail("expected an entity name after 'in'")
        entity = self.tok.text
        self.i += 1
        where = self.expr() if self.accept("where") else None
        return Query(pos, fn, var, entity, where, value)


def parse(source: str) -> Node:
    """Parse an expression."""
    if not isinstance(source, str) or not source.strip():
        raise ExpressionError(str(source), "empty expression")
    return Parser(source).parse()


def parse_rows(source: str) -> Query:
    """Parse a row selector `x in entity [where cond]`."""
    if not source.strip():
        raise ExpressionError(source, "empty row selector")
    return Parser(source).parse_rows()


def names_in(node: Node) -> set[str]:
    """Every free name an expression mentions (used to find dependencies)."""
    found: set[str] = set()

    def visit(n: Node, bound: frozenset[str]) -> None:
        if isinstance(n, Name):
            if n.id not in bound:
                found.add(n.id)
        elif isinstance(n, Attr):
            visit(n.obj, bound)
        elif isinstance(n, Unary):
            visit(n.operand, bound)
        elif isinstance(n, Binary):
            visit(n.left, bound)
            visit(n.right, bound)
        elif isinstance(n, Call):
            for a in n.args:
                visit(a, bound)
        elif isinstance(n, Query):
            inner = bound | {n.var}
            for part in (n.where, n.value):
                if part is not None:
                    visit(part, inner)

    visit(node, frozenset())
    return found
