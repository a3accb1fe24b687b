"""Message templates: text with `{expression}` holes, as a precondition's message writes values.

`"Over the {limit} meals limit"` splits into the text around each hole and the parsed expression in
it; `{{` and `}}` stand for literal braces. The app, the effect interpreter and the claims all fill a
template from the same parts, each value written as the app's pages write it (`display_kind`).
"""

from __future__ import annotations

from dataclasses import dataclass

from factory.errors import ExpressionError
from factory.expr.syntax import Node, parse
from factory.expr.typecheck import Type


@dataclass
class Hole:
    """One `{expression}` of a template: its source, where it starts, and its parsed expression."""

    source: str
    pos: int
    node: Node


Part = str | Hole


def has_holes(template: str) -> bool:
    """Whether a message holds any `{expression}` (a message without one is plain text, as before)."""
    return "{" in template.replace("{{", "")


def split_template(template: str) -> list[Part]:
    """The literal text and parsed holes of a template, in order; ExpressionError names the column."""
    parts: list[Part] = []
    text: list[str] = []
    i = 0
    while i < len(template):
        ch = template[i]
        if ch in "{}" and template[i:i + 2] in ("{{", "}}"):
            text.append(ch)
            i += 2
            continue
        if ch == "}":
            raise ExpressionError(template, "a '}' without its '{' (write '}}' for a brace)", i)
        if ch != "{":
            text.append(ch)
            i += 1
            continue
        end = template.find("}", i + 1)
        if end < 0:
            raise ExpressionError(template, "a '{' without its '}' (write '{{' for a brace)", i)
        source = template[i + 1:end]
        if not source.strip():
            raise ExpressionError(template, "an empty '{}': put an expression inside, e.g. {limit}", i)
        try:
            node = parse(source)
        except ExpressionError as exc:
            raise ExpressionError(template, f"in {{{source}}}: {exc.message}", i + 1 + (exc.column or 0)) from exc
        if text:
            parts.append("".join(text))
            text = []
        parts.append(Hole(source, i, node))
        i = end + 1
    if text:
        parts.append("".join(text))
    return parts


def display_kind(typ: Type) -> str:
    """How the app writes a value of this type in a message: the kind its label functions take."""
    if typ.kind == "str" and typ.values:
        return "enum"
    return {"money": "money", "date": "date", "datetime": "datetime", "bool": "bool", "ref": "ref"}.get(typ.kind, "text")


__all__ = ["Hole", "Part", "display_kind", "has_holes", "split_template"]
