"""A draft's golden trajectory as UI steps for the scripted solver (see `ui_solver`).

A READ becomes a `find`: the entity's list page with the question's conditions set through the
filter widgets, the expected total checked, the answer's row opened. A WRITE becomes one
`workflow` step per golden call; a READ_WRITE finds its row first, then acts on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factory.spec.model import Spec
from factory.tasks.phrasing import Question
from factory.tasks.proposer import Draft
from factory.tasks.resolve import field_value
from factory.tasks.rows import World
from factory.tasks.ui_solver import UiStep


def _filters(world: World, q: Question, user_id: int) -> dict[str, Any]:
    ent = world.entity(q.entity)
    offered = {f.field for f in ent.filters}
    out: dict[str, Any] = {}
    for c in q.conds:
        if c.field not in offered:
            continue
        low = field_value(world, q.entity, c.field, c.value, user_id)
        out[c.field] = (low, field_value(world, q.entity, c.field, c.upper, user_id)) if c.upper else low
    return out


def _find(world: World, q: Question, user_id: int, open_id: int | None, total: int | None) -> UiStep:
    ent = world.entity(q.entity)
    search = None
    expect: list[str] = []
    if open_id is not None:
        row = world.row(q.entity, open_id)
        assert row is not None
        expect.append(world.label(q.entity, row))
        if ent.search_fields and not q.conds:
            column = world.field(q.entity, ent.search_fields[0]).column
            search = str(row.get(column) or "") or None
    return UiStep(kind="find", entity=q.entity, filters=_filters(world, q, user_id), search=search,
                  open_id=open_id, expect_total=total, expect_text=expect)


def ui_steps(spec: Spec, draft: Draft, initial: Path) -> list[UiStep]:
    world = World.open(spec, initial)
    try:
        steps: list[UiStep] = []
        q = draft.ask.question
        if q is not None:
            assert draft.answer is not None
            if q.op == "count":
                steps.append(_find(world, q, draft.user_id, None, int(draft.answer.value)))
            elif q.op == "sum":
                steps.append(_find(world, q, draft.user_id, None, len(draft.answer.rows)))
            else:
                steps.append(_find(world, q, draft.user_id, draft.answer.rows[0], None))
            return steps
        for ask_step, step in zip(draft.ask.steps, draft.steps, strict=True):
            if ask_step.pick is not None:
                param, pq = ask_step.pick
                steps.append(_find(world, pq, draft.user_id, step.params[param], None))
            steps.append(UiStep(kind="workflow", workflow=step.workflow, values=dict(step.params)))
        return steps
    finally:
        world.close()
