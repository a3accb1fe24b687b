"""Faults in workflow preconditions (app/backend/workflows.py): checks lost, negated, shifted or mislabelled.

    precondition_removed    the `if <refusal>: raise PreconditionFailed(...)` pair is gone
    precondition_negated    `if amount <= 0:` → `if amount > 0:` (refuses exactly the valid calls)
    boundary_operator       one comparison's strictness flipped (`>` → `>=`, `<=` → `<`)
    boundary_literal        a limit written in the seed moved by one unit, widening what passes
                            (`amount > 2500000` → `> 2500001`, `days(365)` → `days(366)`, `len(x) < 2` → `< 1`)

The generated `if` tests the refusal: the seed's condition negated (`if amount > 2500000:` for
`amount <= 25000`), so a change that lets more calls pass makes the refusal hold less often.
    message_swapped         two preconditions of one workflow answer with each other's message
"""

from __future__ import annotations

import ast
import itertools
import random
import re
from typing import Any

from factory.mutate.faults.code import routed
from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView, splice
from factory.mutate.mutations.pysource import (
    WORKFLOWS_PY,
    char_span,
    check_lines,
    compiles,
    negation,
    operator_span,
    parents,
    workflow_span,
)

_STRICTNESS = {ast.Lt: ("<", "<="), ast.LtE: ("<=", "<"), ast.Gt: (">", ">="), ast.GtE: (">=", ">")}
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")


def _checks(view: WorldView) -> list[tuple[Any, Any]]:
    return [(w, c) for w in routed(view) for c in w.preconditions]


def _refusal(view: WorldView, workflow: Any, check: Any) -> tuple[str, ast.expr]:
    """workflows.py and the refusal condition of the check, parsed from it."""
    text = view.read(WORKFLOWS_PY)
    return text, check_lines(text, workflow, check).test


def _write(view: WorldView, text: str) -> None:
    compiles(WORKFLOWS_PY, text)
    view.write(WORKFLOWS_PY, text)


# ---------------------------------------------------------------- precondition_removed


def _check_targets(view: WorldView) -> list[Target]:
    return [Target(f"{c.id}: {c.source}", (w, c)) for w, c in _checks(view)]


def _removed(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, check = target.ref
    text = view.read(WORKFLOWS_PY)
    lines = check_lines(text, workflow, check)
    _write(view, splice(text, lines.start, lines.end, ""))
    return Applied(f"{check.id}: the check `{check.source}` is gone, so {workflow.name} runs its effects "
                   f"where it should answer {check.message!r} ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


# ---------------------------------------------------------------- precondition_negated


def _negated(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, check = target.ref
    text = view.read(WORKFLOWS_PY)
    lines = check_lines(text, workflow, check)
    flipped = negation(text, lines.test)
    _write(view, splice(text, *lines.test_span, flipped))
    return Applied(f"{check.id}: the refusal condition is negated (`if {flipped}:`), so `{check.source}` refuses the "
                   f"calls it should let through and lets the others through ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


# ---------------------------------------------------------------- boundary_operator


def _ordered_compares(test: ast.expr) -> list[ast.Compare]:
    """Single-operator ordering comparisons of a refusal, in a fixed (breadth-first) order."""
    return [n for n in ast.walk(test) if isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in _STRICTNESS]


def _operator_targets(view: WorldView) -> list[Target]:
    found = []
    text = view.read(WORKFLOWS_PY)
    for workflow, check in _checks(view):
        compares = _ordered_compares(check_lines(text, workflow, check).test)
        for i, compare in enumerate(compares):
            old, new = _STRICTNESS[type(compare.ops[0])]
            suffix = f" #{i + 1}" if len(compares) > 1 else ""
            found.append(Target(f"{check.id}{suffix}: `{old}` → `{new}` in {check.source}", (workflow, check, i)))
    return found


def _operator(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, check, index = target.ref
    text, test = _refusal(view, workflow, check)
    compares = _ordered_compares(test)
    if index >= len(compares):
        raise MutationError(f"{check.id}: the check has no comparison #{index + 1}")
    compare = compares[index]
    old, new = _STRICTNESS[type(compare.ops[0])]
    start, end = operator_span(text, compare.left, compare.comparators[0], r"<=|>=|<|>")
    _write(view, splice(text, start, end, new))
    # the refusal holds at the boundary value when it gets the `=`: the check then refuses that value
    return Applied(f"{check.id}: `{old}` became `{new}` in the refusal of `{check.source}`, so the boundary value "
                   f"is {'refused' if len(new) > len(old) else 'accepted'} ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


# ---------------------------------------------------------------- boundary_literal


def _seed_numbers(source: str) -> set[float]:
    return {float(n) for n in _NUMBER.findall(source)}


def _limits(check: Any, test: ast.expr) -> list[ast.Constant]:
    """A refusal's integer literals that the seed wrote (money ones appear in cents here, in major units there)."""
    numbers = _seed_numbers(check.source)
    return [n for n in ast.walk(test) if isinstance(n, ast.Constant) and type(n.value) is int
            and (float(n.value) in numbers or n.value / 100 in numbers)]


def _int(literal: ast.Constant) -> int:
    if not isinstance(literal.value, int):
        raise MutationError(f"{literal.value!r} is not an integer limit")
    return literal.value


def _widening(test: ast.expr, literal: ast.Constant) -> int:
    """+1 or -1: the change of the literal that lets more calls pass the check, whose refusal is `test`.

    Climbs from the literal to its comparison: a subtraction's right operand and a `not` reverse the
    direction; on the right of `<`/`<=` (left of `>`/`>=`) a larger limit makes the comparison hold more
    often, and the refusal holding less often is what lets more calls pass.
    """
    up = parents(test)
    sign, side = -1, 0  # -1: `test` refuses, so a change that makes it hold less often widens the check
    node: ast.AST = literal
    while node in up:
        parent = up[node]
        if not side and isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Sub) and node is parent.right:
            sign = -sign
        elif isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            sign = -sign  # `not (x < 7)` holds when x >= 7: every `not` above reverses the direction
        elif not side and isinstance(parent, ast.Compare) and len(parent.ops) == 1:
            op, right = type(parent.ops[0]), node is not parent.left
            side = 1 if op in (ast.Lt, ast.LtE) else -1 if op in (ast.Gt, ast.GtE) else 1
            side = side if right or op not in _STRICTNESS else -side
        node = parent
    return sign * (side or 1)


def _literal_targets(view: WorldView) -> list[Target]:
    found = []
    text = view.read(WORKFLOWS_PY)
    for workflow, check in _checks(view):
        test = check_lines(text, workflow, check).test
        limits = _limits(check, test)
        for i, literal in enumerate(limits):
            value = _int(literal)
            shown = f"{value} → {value + _widening(test, literal)}"
            suffix = f" #{i + 1}" if len(limits) > 1 else ""
            found.append(Target(f"{check.id}{suffix}: {shown} in {check.source}", (workflow, check, i)))
    return found


def _literal(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, check, index = target.ref
    text, test = _refusal(view, workflow, check)
    limits = _limits(check, test)
    if index >= len(limits):
        raise MutationError(f"{check.id}: the check has no limit #{index + 1}")
    literal = limits[index]
    value, delta = _int(literal), _widening(test, literal)
    start, end = char_span(text, literal)
    _write(view, splice(text, start, end, str(value + delta)))
    unit = "day" if "days=" in text[max(0, start - 5):start] else "unit"
    return Applied(f"{check.id}: the limit {value} of `{check.source}` moved by one {unit} to "
                   f"{value + delta}, so one more value passes ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


# ---------------------------------------------------------------- message_swapped


def _pair_targets(view: WorldView) -> list[Target]:
    found = []
    for workflow in routed(view):
        checks = workflow.preconditions
        for a, b in itertools.pairwise(checks):
            if a.message != b.message:
                found.append(Target(f"{a.id} ↔ {b.id}", (workflow, a, b)))
    return found


def _swapped(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, a, b = target.ref
    text = view.read(WORKFLOWS_PY)
    first, second = check_lines(text, workflow, a), check_lines(text, workflow, b)
    if first.message_span[0] > second.message_span[0]:
        raise MutationError(f"{WORKFLOWS_PY}: {a.id} comes after {b.id}; the generated code changed shape")
    # the later span first, so the earlier offsets stay valid
    text = splice(text, *second.message_span, first.message)
    text = splice(text, *first.message_span, second.message)
    workflow_span(text, workflow.name)  # still one function of that name
    _write(view, text)
    return Applied(f"{workflow.name}: {a.id} answers {b.message!r} and {b.id} answers {a.message!r} "
                   f"({WORKFLOWS_PY})", (WORKFLOWS_PY,))


MUTATIONS = (
    Mutation("precondition_removed", "backend", _check_targets, _removed,
             "a precondition's check and its refusal are gone"),
    Mutation("precondition_negated", "backend", _check_targets, _negated,
             "a precondition refuses exactly the calls it should accept (`if amount <= 0` → `if amount > 0`)"),
    Mutation("boundary_operator", "backend", _operator_targets, _operator,
             "one comparison of a precondition changes strictness (`>` ↔ `>=`, `<` ↔ `<=`)"),
    Mutation("boundary_literal", "backend", _literal_targets, _literal,
             "a limit of a precondition moves by one unit (cent, day, character) so one more value passes"),
    Mutation("message_swapped", "backend", _pair_targets, _swapped,
             "two preconditions of a workflow answer with each other's message"),
)
