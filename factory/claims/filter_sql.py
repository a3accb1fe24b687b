"""The option filter of an older spec, translated: its compiled SQLAlchemy form (`where_py`) as an
SQLite condition.

A spec written before filter sources were kept has only the compiled form; the ownership claims
evaluate it against the seed database with this translation (see `factory.claims.ownership`).
"""

from __future__ import annotations

import ast


class _Untranslatable(Exception):
    """A compiled option filter uses something the translator does not know."""


_COMPARE = {ast.Eq: "=", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}


def compiled_filter_sql(where_py: str, model: str, columns: set[str], user: int, today: str) -> str | None:
    """An SQLite condition equal to a compiled option filter (`(Account.kind != 'credit')`,
    `and_(...)`, `Message.read`, `X.is_(None)`, `_id(ctx.actor)`, and the same written by today's compiler:
    `col(Account.kind) != "credit"`, `row_id(ctx.actor)`, `false()`), or None when it uses anything
    else. Only a spec that kept no seed source for the filter needs this."""

    def sql(node: ast.expr) -> str:
        if isinstance(node, ast.Call):
            fn, args = node.func, node.args
            if isinstance(fn, ast.Name) and fn.id in ("and_", "or_") and args:
                return "(" + f" {fn.id[:-1].upper()} ".join(sql(a) for a in args) + ")"
            if isinstance(fn, ast.Name) and fn.id == "not_" and len(args) == 1:
                return f"(NOT {sql(args[0])})"
            if isinstance(fn, ast.Name) and fn.id in ("_id", "row_id", "col") and len(args) == 1:
                return sql(args[0])  # an id as is; sqlmodel's col() types a column and changes nothing
            if isinstance(fn, ast.Name) and fn.id in ("true", "false") and not args:
                return "1" if fn.id == "true" else "0"
            if (isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) and fn.value.id == "func"
                    and fn.attr in ("lower", "length") and len(args) == 1):
                return f"{fn.attr}({sql(args[0])})"
            if (isinstance(fn, ast.Attribute) and fn.attr in ("is_", "is_not") and len(args) == 1
                    and isinstance(args[0], ast.Constant) and args[0].value is None):
                return f"({sql(fn.value)} IS {'NOT ' if fn.attr == 'is_not' else ''}NULL)"
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            return f"({sql(node.left)} {_COMPARE[type(node.ops[0])]} {sql(node.comparators[0])})"
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            return f"({sql(node.left)} {_ARITH[type(node.op)]} {sql(node.right)})"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"(-{sql(node.operand)})"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == model and node.attr in columns:
                return f'"{node.attr}"'
            if node.value.id == "ctx" and node.attr == "actor":
                return str(user)  # `me` in a row filter: the acting user's id
            if node.value.id == "ctx" and node.attr == "today":
                return f"'{today}'"
        if (isinstance(node, ast.Attribute) and node.attr == "id" and isinstance(node.value, ast.Attribute)
                and isinstance(node.value.value, ast.Name) and node.value.value.id == "ctx" and node.value.attr == "actor"):
            return str(user)
        if isinstance(node, ast.Constant):
            value = node.value
            if value is None:
                return "NULL"
            if isinstance(value, bool):  # before int: SQLAlchemy stores booleans as 0/1
                return "1" if value else "0"
            if isinstance(value, (int, float)):
                return repr(value)
            if isinstance(value, str):
                return "'" + value.replace("'", "''") + "'"
        raise _Untranslatable(ast.dump(node))

    try:
        return sql(ast.parse(where_py, mode="eval").body)
    except (SyntaxError, _Untranslatable):
        return None
