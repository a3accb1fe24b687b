"""Grading speed of a world's tasks, in process, beside the physical floor of the same databases.

For every task the initial state is rebuilt from its setup patch and the golden state from its
reference state change; each pair is graded once to warm the page cache (as a serving process
would be) and then timed. The floor is what any grader must at least do on the same pair: open
both databases and read every table's row count. Figures are split by task type, since a READ
grades an answer over an unchanged copy and a WRITE diffs two states.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from episodes.dbfiles import copy_db
from factory.runtime.patch import apply_patch
from factory.world.layout import World
from verifiers.grade import grade

REPEATS = 3  # the fastest of a few runs: the machine's other work is not the grader's cost


def _floor(initial: Path, final: Path) -> float:
    start = time.perf_counter()
    for path in (initial, final):
        conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)
        try:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()
        finally:
            conn.close()
    return (time.perf_counter() - start) * 1000


def _timed(record: dict[str, Any], initial: Path, final: Path, answer: object) -> tuple[float, float]:
    result = grade(record, initial, final, answer)  # type: ignore[arg-type]  # a record's JSON reference answer
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        grade(record, initial, final, answer)  # type: ignore[arg-type]  # likewise
        samples.append((time.perf_counter() - start) * 1000)
    return min(samples), result.score


def grading_samples(world: Path, work: Path) -> dict[str, list[float]]:
    """Per task type, the grading time (ms) of each task's golden pair; and the floor's."""
    seed = World(world).seed_db
    records = [json.loads(line) for line in World(world).tasks_file.read_text().splitlines()]
    samples: dict[str, list[float]] = {"read": [], "write": [], "floor": [], "not_one": []}
    for i, record in enumerate(records):
        initial = apply_patch(seed, record["setup"]["patch"], work / f"{i}-initial.db")
        if record["task_type"] == "read":
            final = copy_db(initial, work / f"{i}-final.db")  # an episode's own copy, unchanged
        else:
            final = apply_patch(initial, record["reference_state_change"]["sql"], work / f"{i}-final.db")
        ms, score = _timed(record, initial, final, record.get("reference_answer"))
        samples["read" if record["task_type"] == "read" else "write"].append(ms)
        samples["floor"].append(min(_floor(initial, final) for _ in range(REPEATS)))
        if score != 1.0:
            samples["not_one"].append(float(i))
    return samples


def grading_figures(world: Path, work: Path, machine: str) -> list[dict[str, Any]]:
    """`grading_ms.<world>.read|write|all` and `grading_floor_ms.<world>` as bench entries."""
    work.mkdir(parents=True, exist_ok=True)
    samples = grading_samples(world, work)
    out = []
    for name, values in (("read", samples["read"]), ("write", samples["write"]),
                         ("all", samples["read"] + samples["write"])):
        if values:
            out.append(_entry(f"grading_ms.{world.name}.{name}", values, machine))
    out.append(_entry(f"grading_floor_ms.{world.name}", samples["floor"], machine))
    out.append({"name": f"grading_golden_not_one.{world.name}", "unit": "tasks",
                "median": float(len(samples["not_one"])), "min": 0.0, "max": 0.0, "n": 1,
                "machine": machine})
    return out


def _entry(name: str, values: list[float], machine: str) -> dict[str, Any]:
    return {"name": name, "unit": "ms", "median": round(statistics.median(values), 3),
            "min": round(min(values), 3), "max": round(max(values), 3), "n": len(values),
            "machine": machine}
