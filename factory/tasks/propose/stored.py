"""Where a run stores its parameters, and the times of day the world keeps there.

A run's value is drawn to look like the values the world already holds in the field it lands in
(`values.py`: amounts, counts, gaps between two moments). This module reads which fields those are
(`stored_in`) and gives a moment the time of day such rows have (`times_like_stored`): a show
postponed keeps its 7:30 PM, a class moves to a time classes start at, never the fixed morning
hours a draw without the world would give.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from factory.predict.rows import UserView
from factory.spec.model import Spec, WorkflowSpec

MIN_ROWS = 3  # fewer stored times than this say nothing of when such things happen


def stored_in(workflow: WorkflowSpec, param: str) -> list[tuple[str, str]]:
    """The (entity, field) pairs a run stores `param` in, as it is: `set x.estimate = estimate`,
    or a created row's field given the parameter."""
    out = [(e.entity, e.field) for e in workflow.effects if e.kind == "set" and e.field and e.to == param]
    out += [(e.entity, fname) for e in workflow.effects if e.kind == "create" and e.values
            for fname, source in e.values.items() if source == param]
    return out


def times_like_stored(spec: Spec, world: UserView, workflow: WorkflowSpec, values: dict[str, Any],
                      rng: random.Random) -> dict[str, str]:
    """Datetime parameter → its value at a time of day the world's rows hold in the field it is
    stored in: the row the run acts on keeps its own time (a show postponed to another day still
    starts at 7:30 PM), else one of the times other rows hold there; the day is kept."""
    params = {p.name: p for p in workflow.params}
    subject = params.get(workflow.subject or "")
    acted = world.row(subject.ref, values[subject.name]) if subject and subject.ref and subject.name in values else None
    out: dict[str, str] = {}
    for p in workflow.params:
        if p.type != "datetime" or p.name not in values:
            continue
        for entity, fname in stored_in(workflow, p.name):
            column = spec.entity(entity).field_named(fname).column
            own = acted.get(column) if acted is not None and subject is not None and subject.ref == entity else None
            times = [] if own else sorted({_clock(v) for r in world.rows(entity) for v in [r.get(column)] if v})
            if not own and len(times) < MIN_ROWS:
                continue
            clock = _clock(own) if own else rng.choice(times)
            day = dt.datetime.fromisoformat(str(values[p.name])).date()
            out[p.name] = f"{day.isoformat()}T{clock}"
            break
    return out


def _clock(value: Any) -> str:
    """The time of day of a stored datetime, as HH:MM:SS."""
    return dt.datetime.fromisoformat(str(value)).strftime("%H:%M:%S")
