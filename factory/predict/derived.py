"""Derived values for the interpreter: computed fields' expressions and the names they read, row
lookups that find nothing, list order, each as the generated app does it (`backend/derived.py`,
`find_row`) but from the seed's sources. The interpreter works computed values out
(`interpreter.computed_value`); `messages.py` fills in precondition messages.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from factory.errors import ExpressionError, PredictionError
from factory.expr.syntax import Node, parse
from factory.expr.typecheck import INT, Schema, Scope, Type, check, field_type
from factory.predict.overlay import Ref
from factory.spec.model import EntitySpec, FieldSpec, Spec


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
    env: dict[str, Any] = {"id": row["id"], entity.name: Ref(entity.name, row["id"])}
    for f in entity.fields:
        raw = row.get(f.column)
        env[f.name] = Ref(f.ref, raw) if f.type == "reference" and f.ref and raw is not None else raw
    return env


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


__all__ = ["LOOKUP_CODE", "LookupRefused", "computed_node", "row_env", "sorted_rows", "spec_schema"]
