"""Faults in derived values: one kind per construct, each as a slip in the generated code looks.

    computed_off_by_one     a computed field's function returns one more (`return count(...)` → `return (count(...)) + 1`),
                            a date one day later (app/backend/derived.py)
    lookup_ignores_where    a row lookup takes the first row of its entity, whatever its condition
                            (`find_row(session, select(Copy).where(...).order_by(...))` loses `.where(...)`)
    message_value_lost      a precondition message drops a value it names (`label_text("money", limit)` →
                            `label_text("money", None)`: "Over the  limit")
    currency_symbol_wrong   amounts in a currency of their own are written with the dollar sign (runtime.py)

A world without computed fields, lookups, messages with values or currencies offers none of these
kinds a target. They form the `derived` suite of `factory.mutate.run`, beside the classic and the
independent suites.
"""

from __future__ import annotations

import ast
import random
from typing import Any

from factory.expr.pycode import computed_function
from factory.mutate.faults.code import MOMENTS, NUMERIC, RUNTIME_PY, routed
from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView, splice
from factory.mutate.mutations.pysource import (
    WORKFLOWS_PY,
    char_span,
    check_lines,
    compiles,
    function_def,
    node_text,
    parse_module,
)
from factory.world.layout import BACKEND

DERIVED_PY = f"{BACKEND}/derived.py"


def _write(view: WorldView, rel: str, text: str) -> None:
    compiles(rel, text)
    view.write(rel, text)


# ---------------------------------------------------------------- computed_off_by_one


def _computed_targets(view: WorldView) -> list[Target]:
    return [Target(f"{e.name}.{f.name} computed one off", (e, f)) for e in view.spec.entities for f in e.computed
            if f.type in NUMERIC + MOMENTS]


def _computed_off(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    entity, field = target.ref
    text = view.read(DERIVED_PY)
    name = computed_function(entity.name, field.name)
    function = function_def(text, name, f"{DERIVED_PY} ({name})")
    returned = function.body[-1]
    if not (isinstance(returned, ast.Return) and returned.value is not None):
        raise MutationError(f"{DERIVED_PY}: {name} does not end in `return <value>`; the generated code changed shape")
    old = node_text(text, returned.value)
    new = f"({old}) + 1" if field.type in NUMERIC else f"({old}) + timedelta(days=1)"
    if field.type not in NUMERIC and "from datetime import timedelta" not in text:
        raise MutationError(f"{DERIVED_PY}: timedelta is not imported; the generated code changed shape")
    _write(view, DERIVED_PY, splice(text, *char_span(text, returned.value), new))
    return Applied(f"{entity.name}.{field.name} is computed one {'unit' if field.type in NUMERIC else 'day'} off "
                   f"(`{name}` returns `{new[:80]}`) ({DERIVED_PY})", (DERIVED_PY,))


# ---------------------------------------------------------------- lookup_ignores_where


def _lookups(text: str, where: str) -> list[ast.Call]:
    """Every `find_row(session, select(M).where(...)...)` call whose query has a `.where`."""
    found = []
    for node in ast.walk(parse_module(text, where)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "find_row"
                and len(node.args) == 3 and _where_call(node.args[1]) is not None):
            found.append(node)
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _where_call(chain: ast.expr) -> ast.Call | None:
    """The `.where(...)` call in a `select(M).where(...).order_by(...)` chain."""
    node: ast.expr = chain
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "where":
            return node
        node = node.func.value
    return None


def _lookup_targets(view: WorldView) -> list[Target]:
    out = []
    for rel in (WORKFLOWS_PY, DERIVED_PY):
        if not (view.root / rel).is_file():
            continue
        text = view.read(rel)
        for index, call in enumerate(_lookups(text, rel)):
            message = call.args[2].value if isinstance(call.args[2], ast.Constant) else None
            message = message if isinstance(message, str) else "?"
            out.append(Target(f"lookup {index + 1} of {rel.rsplit('/', 1)[-1]} ({message})", (rel, index)))
    return out


def _lookup_ignores(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    rel, index = target.ref
    text = view.read(rel)
    calls = _lookups(text, rel)
    if index >= len(calls):
        raise MutationError(f"{rel}: lookup {index + 1} is not there; the generated code changed shape")
    where = _where_call(calls[index].args[1])
    assert where is not None and isinstance(where.func, ast.Attribute)
    start = char_span(text, where.func.value)[1]  # just after `select(M)`
    end = char_span(text, where)[1]               # through `.where(...)`
    dropped = text[start:end].strip()
    _write(view, rel, splice(text, start, end, ""))
    return Applied(f"{target.name}: the lookup takes the first row of its entity, ignoring `{dropped[:80]}` ({rel})", (rel,))


# ---------------------------------------------------------------- message_value_lost


def _valued_checks(view: WorldView) -> list[tuple[Any, Any]]:
    return [(w, c) for w in routed(view) for c in w.preconditions if c.message_py]


def _message_targets(view: WorldView) -> list[Target]:
    return [Target(f"{c.id} message loses its first value", (w, c)) for w, c in _valued_checks(view)]


def _message_lost(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, check = target.ref
    text = view.read(WORKFLOWS_PY)
    lines = check_lines(text, workflow, check)
    raised = parse_module(text, WORKFLOWS_PY)
    calls = _value_calls_in(raised, lines.message_span, text)
    if not calls:
        raise MutationError(f"{WORKFLOWS_PY} ({check.id}): the message holds no value; the generated code changed shape")
    value = calls[0].args[-1]
    old = node_text(text, value)
    _write(view, WORKFLOWS_PY, splice(text, *char_span(text, value), "None"))
    return Applied(f"{check.id}: its message no longer writes `{old[:60]}` ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


def _value_calls_in(module: ast.Module, span: tuple[int, int], text: str) -> list[ast.Call]:
    """The value calls (`label_text`, `label_of`) inside the message whose characters are `span`."""
    inside = []
    for call in ast.walk(module):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("label_text", "label_of"):
            start, end = char_span(text, call)
            if span[0] <= start and end <= span[1] and call.args:
                inside.append(call)
    return sorted(inside, key=lambda n: (n.lineno, n.col_offset))


# ---------------------------------------------------------------- currency_symbol_wrong


_SYMBOL = "CURRENCY_SYMBOLS.get(currency, '$')"


def _currency_targets(view: WorldView) -> list[Target]:
    used = sorted({f.currency or f"per-row ({f.currency_field})" for e in view.spec.entities for f in [*e.fields, *e.computed]
                   if f.currency or f.currency_field})
    return [Target(f"amounts in {', '.join(used)} written with $")] if used else []


def _currency_wrong(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    text = view.read(RUNTIME_PY)
    if text.count(_SYMBOL) != 1:
        raise MutationError(f"{RUNTIME_PY}: anchor {_SYMBOL!r} not found once; the generated code changed shape")
    _write(view, RUNTIME_PY, text.replace(_SYMBOL, "'$'"))
    return Applied(f"{target.name}: currency_text ignores the currency ({RUNTIME_PY})", (RUNTIME_PY,))


MUTATIONS = [
    Mutation("computed_off_by_one", "backend", _computed_targets, _computed_off,
             "a computed field's function returns one unit (or day) more than its expression"),
    Mutation("lookup_ignores_where", "backend", _lookup_targets, _lookup_ignores,
             "a row lookup drops its condition and takes the first row of its entity"),
    Mutation("message_value_lost", "backend", _message_targets, _message_lost,
             "a precondition message no longer writes one of its values"),
    Mutation("currency_symbol_wrong", "backend", _currency_targets, _currency_wrong,
             "amounts in another currency are written with the dollar sign"),
]
ORDER: tuple[str, ...] = tuple(m.kind for m in MUTATIONS)
SUITE: dict[str, Mutation] = {m.kind: m for m in MUTATIONS}

__all__ = ["ORDER", "SUITE"]
