"""Read a world's task corpus (`tasks/tasks.jsonl`, `tasks/trajectories/`) into the review's task views.

Each task: its instruction, the reward program in words (`words`), the gates it passed and the
counterfactuals executed against it, the reference answer or state change, the setup, the golden
trajectory's recorded actions, and the recorded final frame (replaced by a full strip when
`strips` replays the trajectory).
"""

from __future__ import annotations

import json
import random
from typing import Any

from factory.review.collect import Files, anchor
from factory.review.errors import ReviewError
from factory.review.model import ActionView, Frame, GateView, TaskView
from factory.review.words import check_words, mode_words
from factory.world.layout import World

READ_ONLY = "read-only"  # the workflow filter's value for a task that runs no workflow (a question)


def read_records(world: World) -> list[dict[str, Any]]:
    """The task records in file order (none when the world has no corpus yet)."""
    if not world.tasks_file.is_file():
        return []
    records = []
    for n, line in enumerate(world.tasks_file.read_text().splitlines(), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except ValueError as exc:
                raise ReviewError(f"{world.tasks_file}:{n}: not a JSON task record: {exc}") from exc
    return records


def _gate(g: dict[str, Any]) -> GateView:
    score = g.get("score")
    return GateView(name=str(g["name"]), passed=bool(g["passed"]), score=None if score is None else float(score),
                    detail=str(g.get("detail", "")))


def _recorded_frames(world: World, record: dict[str, Any], files: Files) -> list[Frame]:
    """The pictures the UI gate kept (the last action of each step), copied into the site."""
    frames = []
    for a in (record.get("trajectory") or {}).get("actions", []):
        name = a.get("screenshot")
        source = world.trajectories_dir / str(record["id"]) / str(name)
        if name and source.is_file():
            site = f"strips/{record['id']}/recorded-{name}"
            files[site] = source
            frames.append(Frame(n=int(a["n"]), image=site, caption=f"after #{a['n']} {a['action']} {a['target']}"))
    return frames


def task_view(world: World, record: dict[str, Any], taken: set[str], files: Files) -> TaskView:
    """One record as the site shows it."""
    workflows = [str(s["workflow"]) for s in record.get("golden_steps", [])]
    gates = [_gate(g) for g in record.get("gates", [])]
    reward = record.get("reward") or {}
    change = record.get("reference_state_change") or {}
    answer = record.get("reference_answer")
    trajectory = record.get("trajectory") or {}
    return TaskView(
        id=str(record["id"]), anchor=anchor("task", str(record["id"]), taken), task_type=str(record["task_type"]),
        workflow=" ".join(dict.fromkeys(workflows)) or READ_ONLY, category=str(record.get("category", "")),
        difficulty=str(record.get("difficulty", "")), split=str(record.get("split", "")),
        user=str(record.get("metadata", {}).get("acting_user", "")), goal=str(record["goal"]),
        reward_mode=mode_words(reward), reward_words=[check_words(c) for c in reward.get("checks", [])],
        gates=[g for g in gates if not g.name.startswith("counterfactual:")],
        counterfactuals=[g for g in gates if g.name.startswith("counterfactual:")],
        reference_answer=None if answer is None else str(answer),
        state_change=str(change.get("summary", "")), state_sql=str(change.get("sql", "")),
        setup=str((record.get("setup") or {}).get("how", "")),
        actions=[ActionView(n=int(a["n"]), action=str(a["action"]), target=str(a.get("target", "")),
                            value=None if a.get("value") is None else str(a["value"]), url=str(a.get("url", "")))
                 for a in trajectory.get("actions", [])],
        frames=_recorded_frames(world, record, files))


def read_tasks(world: World) -> tuple[list[TaskView], list[dict[str, Any]], Files]:
    """Every task view in file order, the raw records (the strips replay them) and the pictures to copy."""
    records = read_records(world)
    taken: set[str] = set()
    files: Files = {}
    return [task_view(world, r, taken, files) for r in records], records, files


def sample(records: list[dict[str, Any]], count: int | None, seed: int) -> list[str]:
    """The ids of the tasks whose strips are replayed: all (`count` None), or `count` of them drawn
    with `seed`, taking the task types in turn so that each type is shown; in file order."""
    ids = [str(r["id"]) for r in records]
    if count is None or count >= len(ids):
        return ids
    by_type: dict[str, list[str]] = {}
    for r in records:
        by_type.setdefault(str(r["task_type"]), []).append(str(r["id"]))
    rng = random.Random(seed)
    pools = [rng.sample(by_type[t], len(by_type[t])) for t in sorted(by_type)]
    chosen: list[str] = []
    while len(chosen) < count:
        for pool in pools:
            if pool and len(chosen) < count:
                chosen.append(pool.pop())
    wanted = set(chosen)
    return [i for i in ids if i in wanted]


__all__ = ["READ_ONLY", "read_records", "read_tasks", "sample", "task_view"]
