"""Derived values for the interpreter: computed fields worked out from a row, row lookups that find
nothing, and precondition messages with `{expression}` holes, each as the generated app does it
(`backend/derived.py`, `find_row`, the message code of `workflows.py`) but from the seed's sources.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from factory.errors import ExpressionError, PredictionError
from factory.expr.syntax import Attr, Node, parse
from factory.expr.template import Hole, display_kind, split_template
from factory.expr.typecheck import INT, Schema, Scope, Type, check, field_type
from factory.spec.labels import currency_of, value_label
from factory.spec.model import EntitySpec, FieldSpec, Spec

if TYPE_CHECKING:
    from factory.predict.interpreter import Interpreter


class LookupRefused(PredictionError):
    """A row lookup found no row: the app refuses the call (409) with this message and changes nothing."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


LOOKUP_CODE = "lookup"  # the precondition id a refused lookup answers with (`find_row`)


def spec_schema(spec: Spec) -> Schema:
    """The expression schema of a spec: every stored field, and computed fields marked as such."""
    schema: Schema = {}
    for e in spec.entities:
        schema[e.name] = {"id": INT, **{f.name: field_type(f.type, f.ref, f.values) for f in e.fields}}
        for f in e.computed:
            base = field_type(f.type, f.ref, f.values)
            schema[e.name][f.name] = Type(base.kind, base.entity, base.values, computed=True)
    return schema


_NODES: dict[tuple[int, str, str], Node] = {}  # (id of the spec, entity, field) → checked expression


def computed_node(spec: Spec, entity: EntitySpec, f: FieldSpec) -> Node:
    """The checked expression of a computed field (cached per spec)."""
    key = (id(spec), entity.name, f.name)
    if key not in _NODES:
        names = {"id": INT, entity.name: Type("ref", entity=entity.name),
                 **{x.name: field_type(x.type, x.ref, x.values) for x in entity.fields}}
        source = f.compute or ""
        try:
            node = parse(source)
            check(source, node, Scope(spec_schema(spec), names))
        except ExpressionError as exc:
            raise PredictionError(f"cannot interpret the computed field {entity.name}.{f.name}: {exc}") from exc
        if len(_NODES) > 512:  # bounded: specs come and go in a long run
            _NODES.clear()
        _NODES[key] = node
    return _NODES[key]


def row_env(entity: EntitySpec, row: dict[str, Any]) -> dict[str, Any]:
    """What a computed field's expression names, bound for one row: its fields, `id`, and the row."""
    from factory.predict.overlay import Ref

    env: dict[str, Any] = {"id": row["id"], entity.name: Ref(entity.name, row["id"])}
    for f in entity.fields:
        raw = row.get(f.column)
        env[f.name] = Ref(f.ref, raw) if f.type == "reference" and f.ref and raw is not None else raw
    return env


def computed_value(interpreter: Interpreter, entity_name: str, row: dict[str, Any], name: str) -> Any:
    """A computed field of one row, worked out over the predicted rows (the app's `<field>_of_<entity>`)."""
    from factory.predict.interpreter import Interpreter

    entity = interpreter.rows.entities[entity_name]
    f = entity.computed_named(name)
    if f is None:
        raise PredictionError(f"entity {entity_name} has no computed field {name!r}")
    node = computed_node(interpreter.rows.spec, entity, f)
    inner = Interpreter(interpreter.rows, row_env(entity, row), interpreter.today, f.compute or "")
    return inner.value(node, field_type(f.type, f.ref, f.values))


def sorted_rows(entity: EntitySpec, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows in their entity's list order, then by id, as SQLite orders them (NULL first going up)."""
    ordered = sorted(rows, key=lambda r: r["id"])
    column = entity.default_sort.lstrip("-")
    if column == "id":
        return list(reversed(ordered)) if entity.default_sort.startswith("-") else ordered
    # a stable sort on the column keeps ties in id order, whichever way the column goes
    return sorted(ordered, key=lambda r: (r.get(column) is not None, _sortable(r.get(column))),
                  reverse=entity.default_sort.startswith("-"))


def _sortable(value: Any) -> Any:
    if value is None:
        return 0
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


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


__all__ = ["LOOKUP_CODE", "LookupRefused", "computed_node", "computed_value", "render_message", "row_env",
           "sorted_rows", "spec_schema"]
