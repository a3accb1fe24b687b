"""Faults in compiled workflows: a lost effect, an inverted precondition, a swallowed error message."""

from __future__ import annotations

import ast
import random
import re
from typing import Any

from factory.mutate.mutations.base import (
    Applied,
    Mutation,
    MutationError,
    Target,
    WorldView,
    match_once,
    replace_once,
    span_between,
    splice,
)
from factory.world.layout import BACKEND

WORKFLOWS = f"{BACKEND}/workflows.py"
APP = f"{BACKEND}/app.py"

# Comparison operator → its negation, so the inverted check holds exactly where the original failed.
_FLIP = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">",
         "is": "is not", "is not": "is", "in": "not in", "not in": "in"}


def _routed(view: WorldView) -> list[Any]:
    """Workflows an agent can call: system workflows have no route, so a fault there is unobservable."""
    return [w for w in view.spec.workflows if not w.system]


def _body(text: str, workflow: str) -> tuple[int, int]:
    """Offsets of one workflow function, from its `def` to its `return created`."""
    return span_between(text, f"\ndef {workflow}(session: Session, ctx: Ctx,", "\n    return created\n",
                        f"{WORKFLOWS} ({workflow})")


# ---------------------------------------------------------------- break_effect


def _effect_targets(view: WorldView) -> list[Target]:
    return [Target(f"{w.name} effect {i}: {e.source}", (w, i - 1)) for w in _routed(view)
            for i, e in enumerate(w.effects, 1)]


def _effect_block(effect: Any) -> str:
    return f"    # {effect.source}\n" + "".join(f"    {line}\n" for line in effect.python)


def _break_effect(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, index = target.ref
    effect = workflow.effects[index]
    text = view.read(WORKFLOWS)
    start, end = _body(text, workflow.name)
    body = text[start:end]
    block = _effect_block(effect)
    # Two identical effects in one workflow are possible; hit the occurrence this effect is.
    nth = sum(1 for e in workflow.effects[:index] if _effect_block(e) == block)
    at = -1
    for _ in range(nth + 1):
        at = body.find(block, at + 1)
        if at < 0:
            raise MutationError(f"{WORKFLOWS}: the code of effect `{effect.source}` of {workflow.name} was not found")
    if effect.kind == "create":
        # The row is built but never added to the session: the workflow answers 200 and nothing is stored.
        broken = replace_once(block, "    session.add(row)\n", "", f"{WORKFLOWS} ({workflow.name})")
        what = "builds its row but never adds it to the session"
    else:
        broken = f"    # {effect.source}\n"  # the statement is gone, its comment stays, as in a half-done edit
        what = "is no longer applied"
    body = body[:at] + broken + body[at + len(block):]
    view.write(WORKFLOWS, splice(text, start, end, body))
    return Applied(f"{workflow.name}: effect `{effect.source}` {what} ({WORKFLOWS})", (WORKFLOWS,))


# ---------------------------------------------------------------- invert_precondition


def _check_targets(view: WorldView) -> list[Target]:
    return [Target(f"{c.id}: {c.source}", (w, c)) for w in _routed(view) for c in w.preconditions]


def _invert(python: str) -> str:
    """The refusal condition with the check's outermost comparison flipped; without one, the check negated."""
    raw = python.encode()  # ast offsets count UTF-8 bytes
    tree = ast.parse(python, mode="eval")
    compare = next((n for n in ast.walk(tree) if isinstance(n, ast.Compare)), None)
    if compare is None:
        return python  # `if not X:` becomes `if X:`
    first = compare.comparators[0]
    if compare.left.end_lineno != 1 or first.lineno != 1:
        raise MutationError(f"precondition {python!r} spans several lines; cannot locate its operator")
    lo, hi = int(compare.left.end_col_offset or 0), first.col_offset
    between = raw[lo:hi].decode()  # the operator, maybe wrapped in closing/opening parentheses
    op = re.search(r"==|!=|<=|>=|<|>|is\s+not|not\s+in|is|in", between)
    if op is None or between[:op.start()].strip(" )") or between[op.end():].strip(" ("):
        raise MutationError(f"precondition {python!r}: unexpected operator text {between!r}")
    flipped = between[:op.start()] + _FLIP[" ".join(op.group().split())] + between[op.end():]
    return "not " + (raw[:lo] + flipped.encode() + raw[hi:]).decode()


def _invert_precondition(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, check = target.ref
    text = view.read(WORKFLOWS)
    start, end = _body(text, workflow.name)
    inverted = _invert(check.python)
    body = replace_once(text[start:end], f"    if not {check.python}:\n", f"    if {inverted}:\n",
                        f"{WORKFLOWS} ({check.id})")
    view.write(WORKFLOWS, splice(text, start, end, body))
    return Applied(f"{check.id}: the check `{check.source}` is inverted (the code refuses when `{inverted}`), so "
                   f"valid calls are refused and invalid ones accepted ({WORKFLOWS})", (WORKFLOWS,))


# ---------------------------------------------------------------- swallow_error_message

_EVERY_ERROR = "every error response"


def _message_targets(view: WorldView) -> list[Target]:
    checks = [Target(f"{c.id} message", c) for w in _routed(view) for c in w.preconditions]
    return [*checks, Target(_EVERY_ERROR, None)] if checks else []


def _swallow_error_message(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    if target.ref is None:
        text = view.read(APP)
        view.write(APP, replace_once(text, 'body = {"detail": exc.message}', 'body = {"detail": ""}', APP))
        return Applied(f"every AppError answers with an empty detail: the handler drops exc.message ({APP})", (APP,))
    check = target.ref
    text = view.read(WORKFLOWS)
    match = match_once(rf"raise PreconditionFailed\((.+), {re.escape(repr(check.id))}\)$", text, WORKFLOWS)
    view.write(WORKFLOWS, splice(text, match.start(1), match.end(1), "''"))
    return Applied(f"{check.id} fails with an empty message instead of {check.message!r} ({WORKFLOWS})",
                   (WORKFLOWS,))


MUTATIONS = (
    Mutation("break_effect", "backend", _effect_targets, _break_effect),
    Mutation("invert_precondition", "backend", _check_targets, _invert_precondition),
    Mutation("swallow_error_message", "backend", _message_targets, _swallow_error_message),
)
