"""Diversity of a world's task corpus: near-duplicates found and dropped, and the spread of what is
left over workflows, entities, difficulty, golden steps and instruction registers (issue 15, point 6).

A near-duplicate asks for the same thing as an earlier task in other words: the same workflows on
the same rows with the same values, free text aside (four waivers of one fine, each with another
reason, are one task), or the same question (asked by another user too, unless its answer is the
asker's own: "my …", or rows not everyone sees). The first of each kind is kept. The spread is
computed from the task records (`TaskRecord`) and kept in the world's manifest (`TasksSpread`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from factory.spec.model import Spec
from factory.tasks.draft import Draft
from factory.tasks.language.errands import ALL_PURPOSES
from factory.tasks.model import TaskRecord
from factory.world.manifest import TasksSpread

NearKey = tuple[Any, ...]


def near_key(spec: Spec, draft: Draft) -> NearKey:
    """What a draft asks, with the words and free-text values left out."""
    q = draft.ask.question
    question = None if q is None else (q.op, q.entity, q.field, q.target, q.conds)
    picks = tuple(s.pick for s in draft.ask.steps)
    steps = []
    for step in draft.steps:
        workflow = next(w for w in spec.workflows if w.name == step.workflow)
        free = {p.name for p in workflow.params if not p.ref and p.type in ("string", "text") and not p.values}
        steps.append((step.workflow, tuple(sorted((k, repr(v)) for k, v in step.params.items() if k not in free))))
    # a question's answer is the asker's own where it speaks of them ("my …") or asks of rows not
    # everyone sees (a manager counts their team's requests); "How many branches are in London?"
    # is one question whoever asks it, in whatever words
    private = q is not None and spec.entity(q.entity).visibility != "public"
    mine = draft.task_type == "read" and (private or bool(_PERSONAL.search(draft.goal)))
    return (draft.task_type, draft.user_id if mine else None, question, picks, tuple(sorted(steps)))


def split_near_duplicates(spec: Spec, drafts: Iterable[Draft], seen: set[NearKey] | None = None
                          ) -> tuple[list[Draft], list[Draft]]:
    """(kept, dropped): each draft whose near key an earlier one (or `seen`) has is dropped."""
    seen = set() if seen is None else seen
    kept: list[Draft] = []
    dropped: list[Draft] = []
    for draft in drafts:
        key = near_key(spec, draft)
        (dropped if key in seen else kept).append(draft)
        seen.add(key)
    return kept, dropped


# Words that make a goal mean something else for each user who says it.
_PERSONAL = re.compile(r"\b(?:my|I|me|mine|I'm|I've)\b")


def register(record: TaskRecord) -> str:
    """The instruction's register: errand (purpose first), seed (the seed's own phrasing),
    question, polite ("Please …"), request ("Could you …?") or terse."""
    goal = record.goal
    if any(goal.startswith(p + " ") for p in ALL_PURPOSES):
        return "errand"
    if record.metadata.phrasing.startswith("intent:"):
        return "seed"
    if goal.endswith("?") and not goal.startswith("Could you "):
        return "question"
    if goal.startswith("Please "):
        return "polite"
    if goal.startswith("Could you "):
        return "request"
    return "terse"


def distinct_actions(record: TaskRecord) -> int:
    """How many different actions the golden run takes (a workflow on its rows and values)."""
    return len({(s.workflow, repr(sorted(s.params.items()))) for s in record.golden_steps})


def evenness(counts: Counter[str]) -> float:
    """Normalised entropy of a distribution: 1.0 when every kind has as many tasks, 0.0 for one kind."""
    total = sum(counts.values())
    if len(counts) < 2 or not total:
        return 0.0
    entropy = -sum(c / total * math.log(c / total) for c in counts.values() if c)
    return round(entropy / math.log(len(counts)), 3)


def spread(spec: Spec, records: list[TaskRecord], near_duplicates: int) -> TasksSpread:
    """The spread of the accepted tasks over workflows, entities, difficulty, steps and registers."""
    workflows: Counter[str] = Counter()
    entities: Counter[str] = Counter()
    for r in records:
        workflows.update({s.workflow for s in r.golden_steps} or {f"read:{r.category}"})
        entities.update({e.entity for e in r.metadata.required_entities})
    writes = [r for r in records if r.task_type != "read"]
    multi = sum(1 for r in writes if distinct_actions(r) >= 2)
    mixed = sum(1 for r in writes if len({s.workflow for s in r.golden_steps}) >= 2)
    dims: dict[str, Counter[str]] = {
        "workflows": workflows, "entities": entities,
        "difficulty": Counter(r.difficulty for r in records),
        "steps": Counter(str(len(r.golden_steps)) for r in records),
        "registers": Counter(register(r) for r in records),
    }
    covered = {w.name for w in spec.workflows if not w.system and w.params}
    return TasksSpread(
        workflows=dict(sorted(workflows.items())), entities=dict(sorted(entities.items())),
        difficulty=dict(sorted(dims["difficulty"].items())), steps=dict(sorted(dims["steps"].items())),
        registers=dict(sorted(dims["registers"].items())),
        evenness={k: evenness(v) for k, v in sorted(dims.items())},
        multi_action=multi, mixed_workflows=mixed, writes=len(writes),
        multi_action_share=round(multi / len(writes), 3) if writes else 0.0,
        uncovered_workflows=sorted(covered - set(workflows)),
        near_duplicates_removed=near_duplicates,
    )


def spread_lines(s: TasksSpread) -> list[str]:
    """The spread as stage two's summary prints it."""
    def top(counts: dict[str, int], n: int = 4) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n])

    return [
        f"depth: {s.multi_action}/{s.writes} writes and read-writes take two or more distinct actions "
        f"({100 * s.multi_action_share:.0f}%; {s.mixed_workflows} mix two workflows); steps: {top(s.steps)}",
        f"spread: difficulty {top(s.difficulty)}; registers {top(s.registers, 6)}; "
        f"{len(s.workflows)} workflows (top {top(s.workflows, 3)}); evenness "
        + ", ".join(f"{k} {v:.2f}" for k, v in s.evenness.items()),
        f"diversity: {s.near_duplicates_removed} near-duplicates removed; uncovered workflows: "
        + (", ".join(s.uncovered_workflows) or "none"),
    ]
