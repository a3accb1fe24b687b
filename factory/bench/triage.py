"""Rollout triage's cost (`make bench`): the time to class 1,000 rollouts, beside the per-task cost
of the golden evidence it classes them against, on a domain world with a task corpus (only read:
the agents and the golden runs play on a served copy, and no report is written into it).

The rollouts are measured, not made up: the golden steps and the flawed agent (one seeded mistake
per task) play up to `TASKS` tasks through the episode server; that batch, cycled to 1,000
rollouts, is classed (classify only: the golden runs are gathered once per task beforehand and
reported as their own figure, since they grow with the tasks, not with the rollouts). The figure
is therefore extrapolated from a measured batch, and says so in its `note`.
"""

from __future__ import annotations

import statistics
import time
from itertools import cycle, islice
from pathlib import Path
from typing import Any

from factory.agents.flawed import read_tasks, run_flawed, run_golden_steps
from factory.rollouts.classify import MODEL, Classifier
from factory.rollouts.served import serve_world
from factory.rollouts.triage import events_reader, gather, read_numbered
from factory.world.layout import World

TRIAGE_WORLDS = ["echobank"]
TASKS = 60  # tasks played per world (the first ones of its corpus)
PER_FIGURE = 1000


def _figure(name: str, unit: str, value: float, machine: str, **about: Any) -> dict[str, Any]:
    return {"name": name, "unit": unit, "median": round(value, 3), "min": round(value, 3), "max": round(value, 3),
            "n": 1, "machine": machine, **about}


def triage_figures(worlds: dict[str, Path], tmp: Path, machine: str) -> list[dict[str, Any]]:
    """The figures of every world of `TRIAGE_WORLDS` found in `worlds`."""
    out: list[dict[str, Any]] = []
    for name in TRIAGE_WORLDS:
        if name in worlds:
            out += triage_world_figures(worlds[name], tmp / "triage" / name, machine)
    return out


def triage_world_figures(world: Path, scratch: Path, machine: str, tasks: int = TASKS) -> list[dict[str, Any]]:
    name = World(world).spec.world
    chosen = list(read_tasks(world))[:tasks]
    rollouts = scratch / "rollouts.jsonl"
    with serve_world(world, scratch / "agents", rollouts=rollouts) as served:
        run_golden_steps(served.eval_url, served.token, world, chosen)
        run_flawed(served.eval_url, served.token, world, chosen, seed=0)
    numbered, _ = read_numbered(rollouts)
    classifier = Classifier(World(world).spec, events_reader(rollouts))
    started = time.perf_counter()
    contexts = gather(world, read_tasks(world), chosen, scratch / "evidence", classifier)
    evidence = time.perf_counter() - started
    batch = list(islice(cycle(numbered), PER_FIGURE))
    samples = []
    decisions = []
    for _ in range(3):
        started = time.perf_counter()
        decisions = [classifier.classify(r, contexts[r.task_id], line) for line, r in batch]
        samples.append(time.perf_counter() - started)
    seeded = [d for d in decisions[: len(numbered)] if d.seeded_cause and d.failed]
    recovered = [d for d in seeded if d.defect == MODEL and d.cause == d.seeded_cause]
    note = (f"classify only, {PER_FIGURE} rollouts cycled from a measured batch of {len(numbered)} (golden steps and "
            f"the flawed agent on {len(chosen)} tasks); golden evidence gathered beforehand, once per task")
    return [
        {**_figure(f"triage_classify_seconds_per_1000.{name}", "s", statistics.median(samples), machine, note=note),
         "min": round(min(samples), 3), "max": round(max(samples), 3), "n": len(samples)},
        _figure(f"triage_evidence_seconds_per_task.{name}", "s", evidence / max(len(contexts), 1), machine,
                note=f"the golden steps re-run over HTTP on a served copy, {len(contexts)} tasks"),
        _figure(f"triage_seeded_causes_recovered.{name}", "ratio", len(recovered) / max(len(seeded), 1), machine,
                note=f"{len(recovered)} of the flawed agent's {len(seeded)} failed rollouts classed as model defects "
                     "with their seeded cause"),
    ]


__all__ = ["triage_figures", "triage_world_figures"]
