"""A draft's golden trajectory as UI steps for the scripted solver (see `ui_solver`), and its
READ answer as the app's pages show it.

A READ becomes a `find` that answers from the page: the entity's list page with the question's
conditions set through the filter widgets, then, by the question's op, the answer row opened and
the asked field read (lookup), the stated total read (count), the list sorted by the field and
the top row read (superlative), or the field's column added up (sum). A WRITE becomes one
`workflow` step per golden call; a READ_WRITE finds its row first, then acts on it.

`answer_texts` says how the expected answer of a READ reads: as the app's pages render it (the
same formatting rules as the frontend's `format.js`) and as a person or the database writes it.
The UI gate's repair only ever adds the former to a reward, so an alias is always a true rendering
of the expected value, derived from the database, never text copied from a page.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factory.compiler.frontend import _value_kind
from factory.errors import TaskError
from factory.predict.rows import Row, UserView
from factory.spec.labels import currency_of, money_label
from factory.spec.model import Spec
from factory.spec.naming import identifier
from factory.tasks.draft import Draft
from factory.tasks.gates import answer_text
from factory.tasks.language.asks import Question
from factory.tasks.language.resolve import answer, field_value
from factory.tasks.ui_gate.trajectory import UiStep
from verifiers.normalize import normalize_text

# Intl.DateTimeFormat("en-US", {month: "short"}): the app's dates read "Jun 15, 2026".
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _filters(world: UserView, q: Question, user_id: int) -> dict[str, Any]:
    ent = world.entity(q.entity)
    offered = {f.field for f in ent.filters}
    out: dict[str, Any] = {}
    for c in q.conds:
        if c.field not in offered:
            continue
        low = field_value(world, q.entity, c.field, c.value, user_id)
        out[c.field] = (low, field_value(world, q.entity, c.field, c.upper, user_id)) if c.upper else low
    return out


def _find(world: UserView, q: Question, user_id: int, open_id: int | None, total: int | None,
          read: str | None = None) -> UiStep:
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
                  open_id=open_id, expect_total=total, expect_text=expect, read=read,
                  field=q.field if read not in (None, "count") else None)


def ui_steps(spec: Spec, draft: Draft, initial: Path) -> list[UiStep]:
    world = UserView.open(spec, initial)
    try:
        steps: list[UiStep] = []
        for ask_step, step in zip(draft.ask.steps, draft.steps, strict=True):
            if ask_step.pick is not None:
                param, pq = ask_step.pick
                steps.append(_find(world, pq, draft.user_id, step.params[param], None))
            steps.append(UiStep(kind="workflow", workflow=step.workflow, values=dict(step.params)))
        q = draft.ask.question
        if q is not None:  # asked after the actions (act, then report), so answered from their result
            assert draft.answer is not None
            # No expected total or value is handed to the solver: it answers from what it sees.
            if q.op == "lookup":
                steps.append(_find(world, q, draft.user_id, draft.answer.rows[0], None, read="lookup"))
            else:
                steps.append(_find(world, q, draft.user_id, None, None, read=q.op))
        return steps
    finally:
        world.close()


# ---- the expected answer as the pages show it ---------------------------------------------------
@dataclass(frozen=True)
class AnswerTexts:
    """A READ's expected answer, computed again from the database: `shown` as the app's pages
    render it (the detail field, the list cell, the stated total), `written` as a person writes it
    and as the database stores it (the forms a reward's answer check may be written in)."""

    shown: tuple[str, ...]
    written: tuple[str, ...]


def shown_value(world: UserView, entity: str, field: str, raw: Any, row: Row | None = None) -> str:
    """A stored value as the app's `formatValue` prints it in a table cell or on a detail page
    (`row`, when given, says the currency of an amount whose row names it)."""
    f = world.field(entity, field)
    if raw is None or raw == "":
        return ""
    kind = _value_kind(f.widget, f.type)  # the app's own choice of formatter for the field
    if kind == "reference" and f.ref:
        target = world.row(f.ref, raw)
        return world.label(f.ref, target) if target else ""
    if kind == "money":
        return money_label(int(raw), currency_of(f, row))
    if kind in ("date", "datetime"):
        moment = dt.datetime.fromisoformat(str(raw)[:19])
        day = f"{MONTHS[moment.month - 1]} {moment.day}, {moment.year}"
        if kind == "date":
            return day
        return f"{day}, {moment.hour % 12 or 12}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'}"
    if kind == "bool":
        return "Yes" if raw else "No"
    if kind == "enum":
        text = str(raw).replace("_", " ")
        return text[:1].upper() + text[1:]
    if kind == "number":  # a code ("last four digits") as written, a quantity grouped
        return f"{raw:,}" if isinstance(raw, int) and not identifier(f) else str(raw)
    return str(raw)


def _main_field(world: UserView, entity: str, row_id: int, user_id: int) -> str | None:
    """The row's main field (the first of its label's fields) as shown, when no other row the user
    sees shows the same: only then does it name the row as well as its label does."""
    ent = world.entity(entity)
    if not ent.display_fields:
        return None
    name = ent.display_fields[0]
    column = world.field(entity, name).column
    row = world.row(entity, row_id)
    if row is None:
        return None
    mine = normalize_text(shown_value(world, entity, name, row.get(column), row))
    same = [r for r in world.visible(entity, user_id)
            if normalize_text(shown_value(world, entity, name, r.get(column), r)) == mine]
    return shown_value(world, entity, name, row.get(column), row) if mine and len(same) == 1 else None


def answer_texts(spec: Spec, draft: Draft, initial: Path) -> AnswerTexts:
    """The READ draft's answer over `initial`, as shown and as written (see `AnswerTexts`)."""
    q = draft.ask.question
    if q is None:
        raise TaskError(f"draft {draft.key} asks no question: only a READ has an answer to show")
    world = UserView.open(spec, initial)
    try:
        found = answer(world, q, draft.user_id)
        written = [t for t in (answer_text(found), *found.aliases, str(found.value)) if t]
        if q.op == "lookup":
            assert q.field is not None
            row = world.row(q.entity, found.rows[0])
            assert row is not None
            raw = row.get(world.field(q.entity, q.field).column)
            shown = [shown_value(world, q.entity, q.field, raw, row)]
            written.append(str(raw))
        elif q.op in ("max", "min"):
            row = world.row(q.entity, found.rows[0])
            assert row is not None
            shown = [world.label(q.entity, row)]
            main = _main_field(world, q.entity, found.rows[0], draft.user_id)
            shown += [main] if main else []
        elif found.kind == "money":
            shown = [money_label(round(float(found.value) * 100), found.currency)]
        else:
            shown = [f"{int(found.value):,}"]
    finally:
        world.close()
    return AnswerTexts(tuple(dict.fromkeys(t for t in shown if t)), tuple(dict.fromkeys(written)))
