"""The task record written to `tasks/tasks.jsonl`: Echoverse's fields plus ours.

Echoverse-compatible: id, goal, task_type, difficulty, estimated_actions, category,
reference_answer, reference_state_change, verification_query, metadata{starting_url,
acting_user_id, required_entities, grounding_evidence}, db_file. Ours: setup (steps and the
replayable patch), golden_steps (the API calls), reward (the program `verifiers` grades), gates
(every executed gate with its score), trajectory (the verified UI demonstration), split.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from factory.runtime.patch import make_patch
from factory.spec.model import Spec
from factory.tasks.gates import GateResult, answer_text
from factory.tasks.propose.proposer import Draft
from factory.tasks.rows import World
from factory.tasks.setupgen import Setup
from verifiers.dbdiff import diff_databases


def split_of(task_id: str) -> str:
    """A stable 80/20 train/test split by the hash of the task id."""
    return "test" if int(hashlib.sha256(task_id.encode()).hexdigest()[:8], 16) % 5 == 0 else "train"


def difficulty_of(actions: int, draft: Draft) -> str:
    level = 0 if actions <= 6 else 1 if actions <= 12 else 2
    if draft.task_type == "read_write" or len(draft.steps) > 1:
        level = min(2, level + 1)
    return ("easy", "medium", "hard")[level]


def _estimate(spec: Spec, draft: Draft) -> int:
    """UI actions without a trajectory: log in, open the form, one per value, submit, confirm."""
    count = 3
    for step in draft.steps:
        workflow = next(w for w in spec.workflows if w.name == step.workflow)
        count += 2 + len(step.params) + (1 if workflow.confirm else 0)
    return count + (2 if draft.task_type == "read" else 0)


def verification_query(spec: Spec, reward: dict[str, Any]) -> str:
    """SQL a person can run on the final database to see what the reward looks at."""
    out: list[str] = []
    for c in reward["checks"]:
        if c["type"] == "row_matches":
            cols = ", ".join(f'"{k}"' for k in c["expect"])
            where = " AND ".join(f'"{k}" = {_lit(v)}' for k, v in c["key"].items())
            out.append(f'SELECT {cols} FROM "{c["table"]}" WHERE {where}')
        elif c["type"] in ("rows_added", "rows_removed") and c.get("where"):
            where = " AND ".join(f'"{k}" IS {_lit(v)}' for k, v in c["where"].items())
            out.append(f'SELECT count(*) FROM "{c["table"]}" WHERE {where}')
        elif c["type"] == "sql":
            out.append(c["query"])
    return ";\n".join(out)


def _lit(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def task_record(spec: Spec, draft: Draft, setup: Setup | None, reward: dict[str, Any] | None,
                gates: list[GateResult], trajectory: dict[str, Any] | None, repairs: list[str],
                golden: Path | None, initial: Path | None, world_dir: Path) -> dict[str, Any]:
    assert reward is not None and setup is not None and golden is not None and initial is not None
    world = World.open(spec, initial)
    try:
        required = []
        for r in draft.required:
            row = world.row(r["entity"], r["id"])
            required.append({"entity": r["entity"], "id": r["id"],
                             "label": world.label(r["entity"], row) if row else None})
        evidence = [{"entity": r["entity"], "id": r["id"], "row": world.row(r["entity"], r["id"])}
                    for r in draft.required[:5]]
    finally:
        world.close()
    user = next(u for u in spec.users if u.username == draft.user)
    diff = diff_databases(initial, golden)
    actions = len(trajectory["actions"]) if trajectory else _estimate(spec, draft)
    record: dict[str, Any] = {
        "id": draft.key,
        "goal": draft.goal,
        "task_type": draft.task_type,
        "difficulty": difficulty_of(actions, draft),
        "estimated_actions": actions,
        "category": draft.category,
        "reference_answer": answer_text(draft.answer),
        "reference_state_change": {"summary": diff.summary(), "sql": make_patch(initial, golden)},
        "verification_query": verification_query(spec, reward),
        "metadata": {
            "starting_url": "/",
            "acting_user_id": user.id,
            "acting_user": user.username,
            "required_entities": required,
            "grounding_evidence": evidence,
            "capabilities": draft.capabilities,
            "phrasing": draft.form,
        },
        "db_file": "data/seed.db",
        "setup": setup.to_json(),
        "golden_steps": [{"workflow": s.workflow, "params": s.params} for s in draft.steps],
        "reward": reward,
        "gates": [g.to_json() for g in gates],
        "trajectory": trajectory,
        "repairs": repairs,
        "split": split_of(draft.key),
    }
    return record
