"""Faults in compiled workflows: a lost effect, an inverted precondition, a swallowed error message."""

from __future__ import annotations

import ast
import random
from typing import Any

from factory.mutate.mutations.base import (
    Applied,
    Mutation,
    MutationError,
    Target,
    WorldView,
    replace_once,
    splice,
)
from factory.mutate.mutations.pysource import check_lines, effect_statements, line_span, negation
from factory.world.layout import BACKEND

WORKFLOWS = f"{BACKEND}/workflows.py"
APP = f"{BACKEND}/app.py"


def _routed(view: WorldView) -> list[Any]:
    """Workflows an agent can call: system workflows have no route, so a fault there is unobservable."""
    return [w for w in view.spec.workflows if not w.system]


# ---------------------------------------------------------------- break_effect


def _effect_targets(view: WorldView) -> list[Target]:
    return [Target(f"{w.name} effect {i}: {e.source}", (w, i - 1)) for w in _routed(view)
            for i, e in enumerate(w.effects, 1)]


def _break_effect(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, index = target.ref
    effect = workflow.effects[index]
    text = view.read(WORKFLOWS)
    statements = effect_statements(text, workflow, index)
    if effect.kind == "create":
        # The row is built but never added to the session, nor reported as created (an unsaved row has no
        # id to report): the workflow answers 200 and nothing is stored.
        gone: list[ast.stmt] = [s for s in statements if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                and isinstance(s.value.func, ast.Attribute) and s.value.func.attr in ("add", "append")]
        if len(gone) != 2:
            raise MutationError(f"{WORKFLOWS} ({workflow.name}): effect `{effect.source}` lacks its session.add(...) "
                                "and created...append(...)")
        what = "builds its row but never adds it to the session"
    else:
        gone = statements  # the statements are gone, their comment stays, as in a half-done edit
        what = "is no longer applied"
    for statement in reversed(gone):  # from the last, so the earlier offsets stay valid
        text = splice(text, *line_span(text, statement), "")
    view.write(WORKFLOWS, text)
    return Applied(f"{workflow.name}: effect `{effect.source}` {what} ({WORKFLOWS})", (WORKFLOWS,))


# ---------------------------------------------------------------- invert_precondition


def _check_targets(view: WorldView) -> list[Target]:
    return [Target(f"{c.id}: {c.source}", (w, c)) for w in _routed(view) for c in w.preconditions]


def _invert_precondition(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, check = target.ref
    text = view.read(WORKFLOWS)
    lines = check_lines(text, workflow, check)
    inverted = negation(text, lines.test)
    view.write(WORKFLOWS, splice(text, *lines.test_span, inverted))
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
    workflow = next(w for w in view.spec.workflows if check in w.preconditions)
    view.write(WORKFLOWS, splice(text, *check_lines(text, workflow, check).message_span, '""'))
    return Applied(f"{check.id} fails with an empty message instead of {check.message!r} ({WORKFLOWS})",
                   (WORKFLOWS,))


MUTATIONS = (
    Mutation("break_effect", "backend", _effect_targets, _break_effect),
    Mutation("invert_precondition", "backend", _check_targets, _invert_precondition),
    Mutation("swallow_error_message", "backend", _message_targets, _swallow_error_message),
)
