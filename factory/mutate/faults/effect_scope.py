"""Faults in where an effect applies (app/backend/workflows.py): its condition, its rows, its row.

Conditional, bulk and related-row effects compile to an `if <when>:`, a `for <row> in <rows>:` and a
`get_row(...)` through a reference; each fault here is a slip in one of those, while the effect itself
still runs and writes what it should:

    condition_dropped      `if ctx.today > loan.due_on:` → `if True:` (a late fee on every return)
    condition_negated      the condition inverted (the fee on on-time returns only)
    bulk_first_row_only    the loop stops after its first row (`….all()` → `….all()[:1]`)
    bulk_where_ignored     the loop's `.where(...)` is gone: every row of the entity is changed
    related_row_wrong      `get_row(session, Copy, loan.copy_id)` → `get_row(session, Copy, loan.id)`: the
                           related row is looked up by the wrong id, as after a copy-paste slip
"""

from __future__ import annotations

import ast
import random
from typing import Any

from factory.mutate.faults.code import routed
from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView, splice
from factory.mutate.mutations.pysource import (
    WORKFLOWS_PY,
    char_span,
    compiles,
    effect_condition,
    effect_line,
    effect_loop,
    negation,
    node_text,
    parse_line,
)


def _write(view: WorldView, text: str) -> None:
    compiles(WORKFLOWS_PY, text)
    view.write(WORKFLOWS_PY, text)


def _sites(view: WorldView, wanted: str) -> list[Target]:
    """Every effect of a routed workflow that has `wanted` ("when", "for_each" or "path")."""
    found = []
    for workflow in routed(view):
        for index, effect in enumerate(workflow.effects):
            has = {"when": effect.when is not None, "for_each": effect.for_each is not None,
                   "path": effect.kind in ("set", "delete") and "." in (effect.target or "")}[wanted]
            if has:
                found.append(Target(f"{workflow.name} effect {index + 1} `{effect.source}`", (workflow, index)))
    return found


# ---------------------------------------------------------------- condition_dropped / condition_negated


def _condition_targets(view: WorldView) -> list[Target]:
    return _sites(view, "when")


def _condition_dropped(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, index = target.ref
    text = view.read(WORKFLOWS_PY)
    test = effect_condition(text, workflow, index).test
    _write(view, splice(text, *char_span(text, test), "True"))
    effect = workflow.effects[index]
    return Applied(f"{workflow.name}: effect `{effect.source}` applies whether or not `{effect.when}` holds "
                   f"({WORKFLOWS_PY})", (WORKFLOWS_PY,))


def _condition_negated(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, index = target.ref
    text = view.read(WORKFLOWS_PY)
    test = effect_condition(text, workflow, index).test
    inverted = negation(text, test)
    _write(view, splice(text, *char_span(text, test), inverted))
    effect = workflow.effects[index]
    return Applied(f"{workflow.name}: effect `{effect.source}` applies exactly when `{effect.when}` does not hold "
                   f"(`if {inverted}:`) ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


# ---------------------------------------------------------------- bulk_first_row_only / bulk_where_ignored


def _bulk_targets(view: WorldView) -> list[Target]:
    return _sites(view, "for_each")


def _first_row_only(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, index = target.ref
    text = view.read(WORKFLOWS_PY)
    rows = effect_loop(text, workflow, index).iter
    old = node_text(text, rows)
    _write(view, splice(text, *char_span(text, rows), f"{old}[:1]"))
    return Applied(f"{workflow.name}: effect `{workflow.effects[index].source}` changes only the first row it "
                   f"selects ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


def _where_call(rows: ast.expr) -> ast.Call:
    """The `<select>.where(<condition>)` call inside a bulk effect's row query."""
    found = [n for n in ast.walk(rows) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "where"]
    if len(found) != 1:
        raise MutationError(f"{WORKFLOWS_PY}: expected one .where(...) in the rows `{ast.unparse(rows)[:120]}`")
    return found[0]


def _where_targets(view: WorldView) -> list[Target]:
    from factory.expr.syntax import parse_rows  # only a selector with a `where` can lose it

    return [t for t in _bulk_targets(view)
            if parse_rows(t.ref[0].effects[t.ref[1]].for_each).where is not None]


def _where_ignored(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, index = target.ref
    text = view.read(WORKFLOWS_PY)
    call = _where_call(effect_loop(text, workflow, index).iter)
    assert isinstance(call.func, ast.Attribute)
    selected = node_text(text, call.func.value)
    _write(view, splice(text, *char_span(text, call), selected))
    effect = workflow.effects[index]
    return Applied(f"{workflow.name}: effect `{effect.source}` ignores its where and changes every row of the "
                   f"entity ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


# ---------------------------------------------------------------- related_row_wrong


def _related_targets(view: WorldView) -> list[Target]:
    return _sites(view, "path")


def _lookup(statement: ast.stmt) -> ast.Call:
    """The outermost `get_row(session, Model, <row>.<reference>_id)` naming the row a set or delete touches."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Attribute):
        row: Any = statement.targets[0].value
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and statement.value.args:
        row = statement.value.args[0]  # session.delete(<row>)
    else:
        row = None
    if not (isinstance(row, ast.Call) and isinstance(row.func, ast.Name) and row.func.id == "get_row" and len(row.args) == 3
            and isinstance(row.args[2], ast.Attribute) and row.args[2].attr.endswith("_id")):
        raise MutationError(f"{WORKFLOWS_PY}: `{ast.unparse(statement)[:120]}` does not reach its row through get_row")
    return row


def _related_wrong(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, index = target.ref
    line = effect_line(view, workflow, index)
    key = _lookup(parse_line(line.line, line.where())).args[2]
    assert isinstance(key, ast.Attribute)
    start, end = char_span(line.line, key)
    wrong = f"{node_text(line.line, key.value)}.id"
    _write(view, line.replaced(splice(line.line, start, end, wrong)))
    effect = workflow.effects[index]
    return Applied(f"{workflow.name}: effect `{effect.source}` looks its row up by `{wrong}` instead of "
                   f"`{node_text(line.line, key)}` ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


MUTATIONS = (
    Mutation("condition_dropped", "backend", _condition_targets, _condition_dropped,
             "a conditional effect applies whether or not its `when` holds"),
    Mutation("condition_negated", "backend", _condition_targets, _condition_negated,
             "a conditional effect applies exactly when its `when` does not hold"),
    Mutation("bulk_first_row_only", "backend", _bulk_targets, _first_row_only,
             "a bulk effect changes only the first row it selects"),
    Mutation("bulk_where_ignored", "backend", _where_targets, _where_ignored,
             "a bulk effect ignores its where and changes every row of the entity"),
    Mutation("related_row_wrong", "backend", _related_targets, _related_wrong,
             "an effect on a related row looks the row up by the wrong id (`loan.id` for `loan.copy_id`)"),
)
