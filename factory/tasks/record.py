"""Builds the task record written to `tasks/tasks.jsonl` (`TaskRecord`, in `model.py`) from a draft
that passed every gate: its grounding rows, state change, verification query, difficulty and split.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, cast

from factory.predict.rows import UserView
from factory.runtime.patch import make_patch
from factory.spec.model import Spec
from factory.tasks.draft import Draft
from factory.tasks.gates import GateResult, answer_text
from factory.tasks.model import (
    Difficulty,
    Evidence,
    GateRecord,
    Metadata,
    RequiredEntity,
    SetupRecord,
    Split,
    StateChange,
    StepRecord,
    TaskRecord,
    TaskType,
    Trajectory,
)
from factory.tasks.setupgen import Setup
from factory.world.layout import SEED_DB
from verifiers.dbdiff import diff_databases
from verifiers.sqlrender import value_literal


def split_of(task_id: str) -> Split:
    """A stable 80/20 train/test split by the hash of the task id."""
    return "test" if int(hashlib.sha256(task_id.encode()).hexdigest()[:8], 16) % 5 == 0 else "train"


def difficulty_of(actions: int, steps: int) -> Difficulty:
    """Measured, not guessed from the kind: by the UI actions the golden trajectory takes (at
    most 6 easy, at most 12 medium), and at least medium for two golden steps, hard for three."""
    level = 0 if actions <= 6 else 1 if actions <= 12 else 2
    level = max(level, 0 if steps < 2 else 1 if steps == 2 else 2)
    levels: tuple[Difficulty, ...] = ("easy", "medium", "hard")
    return levels[level]


def estimate_actions(spec: Spec, draft: Draft) -> int:
    """UI actions without a trajectory (the UI gate did not run): log in, then per step open the
    form, one per value, submit, confirm; a row found by a superlative first opens its list and
    sorts it; a READ opens the list and reads it."""
    count = 3
    picks = {i for i, s in enumerate(draft.ask.steps) if s.pick is not None}
    for i, step in enumerate(draft.steps):
        workflow = next(w for w in spec.workflows if w.name == step.workflow)
        count += 2 + len(step.params) + (1 if workflow.confirm else 0) + (2 if i in picks else 0)
    return count + (2 if draft.task_type == "read" else 0)


def verification_query(spec: Spec, reward: dict[str, Any]) -> str:
    """SQL a person can run on the final database to see what the reward looks at."""
    out: list[str] = []
    for c in reward["checks"]:
        if c["type"] == "row_matches":
            cols = ", ".join(f'"{k}"' for k in c["expect"])
            where = " AND ".join(f'"{k}" = {value_literal(v)}' for k, v in c["key"].items())
            out.append(f'SELECT {cols} FROM "{c["table"]}" WHERE {where}')
        elif c["type"] in ("rows_added", "rows_removed") and c.get("where"):
            where = " AND ".join(f'"{k}" IS {value_literal(v)}' for k, v in c["where"].items())
            out.append(f'SELECT count(*) FROM "{c["table"]}" WHERE {where}')
        elif c["type"] == "sql":
            out.append(c["query"])
    return ";\n".join(out)


def task_record(spec: Spec, draft: Draft, setup: Setup | None, reward: dict[str, Any] | None,
                gates: list[GateResult], trajectory: dict[str, Any] | None, repairs: list[str],
                golden: Path | None, initial: Path | None, world_dir: Path) -> TaskRecord:
    """The record of an accepted draft (its setup, reward and states are set once it passed)."""
    assert reward is not None and setup is not None and golden is not None and initial is not None
    world = UserView.open(spec, initial)
    try:
        required = []
        for r in draft.required:
            row = world.row(r["entity"], r["id"])
            required.append(RequiredEntity(entity=r["entity"], id=r["id"],
                                           label=world.label(r["entity"], row) if row else None))
        evidence = [Evidence(entity=r["entity"], id=r["id"], row=world.row(r["entity"], r["id"]))
                    for r in draft.required[:5]]
    finally:
        world.close()
    user = next(u for u in spec.users if u.username == draft.user)
    diff = diff_databases(initial, golden)
    actions = len(trajectory["actions"]) if trajectory else estimate_actions(spec, draft)
    return TaskRecord(
        id=draft.key,
        goal=draft.goal,
        # A draft's type is a plain str; the strict model checks it is one of the three.
        task_type=cast(TaskType, draft.task_type),
        difficulty=difficulty_of(actions, len(draft.steps)),
        estimated_actions=actions,
        category=draft.category,
        reference_answer=answer_text(draft.answer),
        reference_state_change=StateChange(summary=diff.summary(), sql=make_patch(initial, golden)),
        verification_query=verification_query(spec, reward),
        metadata=Metadata(
            starting_url="/",
            acting_user_id=user.id,
            acting_user=user.username,
            required_entities=required,
            grounding_evidence=evidence,
            capabilities=draft.capabilities,
            phrasing=draft.form,
        ),
        db_file=SEED_DB,
        setup=SetupRecord.model_validate(setup.to_json()),
        golden_steps=[StepRecord(workflow=s.workflow, params=s.params) for s in draft.steps],
        reward=reward,
        gates=[GateRecord.model_validate(g.to_json()) for g in gates],
        trajectory=None if trajectory is None else Trajectory.model_validate(trajectory),
        repairs=repairs,
        split=split_of(draft.key),
    )
