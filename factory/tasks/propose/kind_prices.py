"""An amount paid for a kind that the row paid for prices: "take a monthly fee payment for
Riley's membership" is the membership's monthly fee, never an amount drawn at random (€2).

A run that makes a row with an amount and a kind (a payment of kind "monthly fee") names a row
(the membership) that has, itself or through one of its references (its plan), a money field
whose label is that kind ("Monthly fee", "Joining fee"): the amount is that field's value. The
rule reads the seed's enum values and field labels as they are, never a list of kinds.
"""

from __future__ import annotations

from typing import Any

from factory.predict.rows import UserView
from factory.spec.model import EntitySpec, Spec, WorkflowSpec
from factory.tasks.propose.base import fits_param


def _words(text: str) -> str:
    return " ".join(text.replace("_", " ").lower().split())


def _priced(spec: Spec, world: UserView, ent: EntitySpec, row: dict[str, Any], kind: str,
            depth: int = 1) -> int | None:
    """The positive amount `row` (or a row it references, `depth` hops on) holds in a money field
    labelled `kind`; None when it holds none."""
    for f in ent.fields:
        if f.type == "money" and kind in (_words(f.label or f.name), _words(f.name)):
            value = row.get(f.column)
            return value if isinstance(value, int) and value > 0 else None
    if depth:
        for f in ent.fields:
            if f.type == "reference" and f.ref and f.ref != "user" and row.get(f.column) is not None:
                found = world.row(f.ref, row[f.column])
                amount = None if found is None else _priced(spec, world, spec.entity(f.ref), found, kind, depth - 1)
                if amount is not None:
                    return amount
    return None


def kind_prices(spec: Spec, world: UserView, workflow: WorkflowSpec, values: dict[str, Any]) -> dict[str, int]:
    """Money parameter → the amount the named row sets for the kind the run stores beside it."""
    params = {p.name: p for p in workflow.params}
    out: dict[str, int] = {}
    for effect in workflow.effects:
        if effect.kind != "create" or not effect.values:
            continue
        stored = {src: fname for fname, src in effect.values.items() if src in params
                  and (src in values or params[src].default is not None)}
        # a kind left unsaid is the form's default ("Take a payment of …": a monthly fee)
        kinds = [_words(str(values.get(src, params[src].default))) for src in stored if params[src].type == "enum"]
        amounts = [src for src in stored if params[src].type == "money" and src in values]
        if len(kinds) != 1 or not amounts:
            continue
        for src in amounts:
            p = params[src]
            for q in workflow.params:
                row = world.row(q.ref, values[q.name]) if q.ref and q.ref != "user" and q.name in values else None
                amount = None if row is None or q.ref is None else _priced(spec, world, spec.entity(q.ref), row, kinds[0])
                if amount is not None and fits_param(p, amount):
                    out[src] = amount
                    break
    return out


__all__ = ["kind_prices"]
