"""Precondition messages with `{expression}` holes, filled in over the predicted rows as the generated
app fills them (the message code of `workflows.py`): each value written as the pages write it
(money in its currency, dates in words, a row by its label).
"""

from __future__ import annotations

from factory.errors import ExpressionError, PredictionError
from factory.expr.syntax import Attr, Node
from factory.expr.template import Hole, display_kind, split_template
from factory.expr.typecheck import Scope, check
from factory.predict.interpreter import Interpreter
from factory.spec.labels import currency_of, value_label


def render_message(template: str, scope: Scope, interpreter: Interpreter) -> str:
    """A precondition message with its `{expression}` holes filled, each value as the app writes it."""
    out: list[str] = []
    for part in split_template(template):
        if isinstance(part, str):
            out.append(part)
            continue
        out.append(_hole_text(part, scope, interpreter))
    return "".join(out)


def _hole_text(hole: Hole, scope: Scope, interpreter: Interpreter) -> str:
    try:
        typ = check(hole.source, hole.node, scope)
    except ExpressionError as exc:
        raise PredictionError(f"cannot interpret the message value {{{hole.source}}}: {exc}") from exc
    value = interpreter.value(hole.node)
    kind = display_kind(typ)
    if kind == "ref":
        return "" if value is None else interpreter.label(value.entity, interpreter.rows.get(value.entity, value.id))
    return value_label(None if kind == "text" else kind, value, _currency(hole.node, interpreter) if kind == "money" else None)


def _currency(node: Node, interpreter: Interpreter) -> str | None:
    """The currency of an amount read from a money field (`fine.amount`): the field's, or its row's."""
    if not (isinstance(node, Attr) and node.obj.type is not None and node.obj.type.kind == "ref"):
        return None
    entity = interpreter.rows.entities[node.obj.type.entity or ""]
    f = next((x for x in [*entity.fields, *entity.computed] if x.name == node.name), None)
    if f is None or not (f.currency or f.currency_field):
        return None
    ref = interpreter.value(node.obj)
    row = interpreter.rows.get(ref.entity, ref.id) if ref is not None else None
    return currency_of(f, row)


__all__ = ["render_message"]
