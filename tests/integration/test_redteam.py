"""The red team on a mock world's task corpus: every probe kind made and graded, a weakened reward
program caught by task id with a non-zero exit, the legitimate-solution rule, and a world that is
never written to.

The corpus is made by stage two on a copy of the session's mock world (no UI gate, to keep it
quick); the red team runs in-process and through `python -m factory redteam`.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from factory.redteam import KINDS, run_redteam
from factory.redteam.report import RedTeamReport
from factory.tasks.graph import run_stage_two

REPO = Path(__file__).resolve().parents[2]
# Kinds that graded 0 on every task before the schema-aware diff (499e98f) and the answer rules
# (8ef40f3, 0ed34de) landed; since then every kind does, which the in-process test asserts.
ZERO_BEFORE = ["rows", "extra", "cross", "sanity", "schema:create_table", "schema:add_column",
               "answer:two_values", "answer:stuffed", "answer:empty", "answer:whitespace", "answer:other_task"]


@pytest.fixture(scope="module")
def corpus(mock_world: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    world = tmp_path_factory.mktemp("redteam") / "mock"
    shutil.copytree(mock_world, world)
    run_stage_two(world, total=24, ui=False)
    return world


@pytest.fixture(scope="module")
def report(corpus: Path) -> RedTeamReport:
    return run_redteam(corpus, seed=0, workers=1)


def _records(world: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (world / "tasks" / "tasks.jsonl").read_text().splitlines()]


def _fingerprint(world: Path) -> dict[str, str]:
    return {str(p.relative_to(world)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(world.rglob("*")) if p.is_file() and ".git" not in p.parts}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "factory", "redteam", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=600, check=False)


def _weakened(corpus: Path, target: Path) -> tuple[Path, set[str]]:
    """A copy of the world whose reward programs lost their diff_within check (where another
    check remains); returns it and the ids of the weakened tasks."""
    world = target / "mock"
    shutil.copytree(corpus, world)
    weakened: set[str] = set()
    lines = []
    for record in _records(world):
        checks = [c for c in record["reward"]["checks"] if c["type"] != "diff_within"]
        if checks and len(checks) < len(record["reward"]["checks"]):
            record["reward"]["checks"] = checks
            weakened.add(record["id"])
        lines.append(json.dumps(record))
    (world / "tasks" / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    return world, weakened


def test_every_probe_kind_is_generated_and_graded(corpus: Path, report: RedTeamReport) -> None:
    counts = {c.kind: c for c in report.counts()}
    assert list(counts) == list(KINDS)
    for kind, c in counts.items():
        assert c.probes >= 1 and c.tasks >= 1, f"{kind} was never graded: {c}"
    graded = [r for r in report.results if r.verdict != "not_applicable"]
    assert all(r.score is not None or r.verdict == "error" for r in graded)
    assert report.errors() == [] and report.baseline == []
    types = {r.task_type for r in graded if r.kind == "extra:update"}
    assert types == {"read", "write", "read_write"}  # a read is probed with changed states too
    # Every question (a read, or an act-then-report errand) got every answer kind that applies to
    # it; a write got none.
    questions = {r["id"] for r in _records(corpus) if r["task_type"] == "read" or r.get("reference_answer") is not None}
    assert {r.task for r in graded if r.kind.startswith("answer:")} == questions
    # Each task is probed with the other tasks' golden changes.
    assert counts["cross:other_golden"].tasks == report.tasks
    assert report.probes == sum(c.probes for c in counts.values()) > 20 * report.tasks


def test_no_probe_gets_through_the_generated_reward_programs(report: RedTeamReport) -> None:
    """Schema objects are state (the schema-aware diff), and hedged, negated, arithmetic, stuffed,
    huge and SQL-like answers assert nothing (the answer rules): no kind has a false positive."""
    assert [(c.kind, c.false_positives) for c in report.counts() if c.false_positives] == []
    assert report.false_positives() == []


def test_a_weakened_reward_program_is_caught_by_task_id(corpus: Path, tmp_path: Path) -> None:
    world, weakened = _weakened(corpus, tmp_path)
    assert weakened
    out = tmp_path / "redteam.json"
    result = _cli(str(world), "--kind", "extra", "--kind", "rows", "--json", str(out), "--workers", "2")
    assert result.returncode == 1, result.stderr
    data = json.loads(out.read_text())
    found = {fp["task"] for fp in data["false_positives"]}
    # Every weakened program lets an unrelated update through; untouched programs do not.
    assert {fp["task"] for fp in data["false_positives"] if fp["kind"] == "extra:update"} == weakened
    assert found <= weakened
    assert data["false_positive_count"] == len(data["false_positives"]) > 0
    for fp in data["false_positives"]:
        assert f"false positive {fp['task']} {fp['kind']}" in result.stderr
    for kind in ("extra:update", "extra:delete", "extra:insert", "rows:other_rows", "rows:duplicate_insert"):
        assert kind in result.stderr  # the per-kind table
    assert f"{data['false_positive_count']} false positives" in result.stderr


def test_cli_exits_zero_and_names_per_kind_counts_when_nothing_gets_through(corpus: Path, tmp_path: Path) -> None:
    before = _fingerprint(corpus)
    args = [a for k in ZERO_BEFORE for a in ("--kind", k)]
    result = _cli(str(corpus), *args, "--tasks", "12", "--json", str(tmp_path / "out.json"))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "red team of mock: 12 tasks" in result.stderr
    for kind in ("schema:create_table", "rows:other_rows", "cross:other_golden", "answer:stuffed"):
        assert kind in result.stderr
    assert ", 0 false positives," in result.stderr and "probes/s" in result.stderr
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["tasks"] == 12 and data["false_positive_count"] == 0
    assert _fingerprint(corpus) == before  # the world is only read


def test_a_probe_equal_to_the_golden_state_is_a_solution_not_a_false_positive(corpus: Path, tmp_path: Path) -> None:
    world = tmp_path / "mock"
    shutil.copytree(corpus, world)
    write = next(r for r in _records(corpus) if r["task_type"] == "write")
    twin = {**write, "id": write["id"] + "-twin"}
    (world / "tasks" / "tasks.jsonl").write_text(json.dumps(write) + "\n" + json.dumps(twin) + "\n")
    report = run_redteam(world, kinds=["cross"], workers=1)
    assert [(r.task, r.name, r.verdict) for r in report.results] == [
        (write["id"], twin["id"], "equivalent"), (twin["id"], write["id"], "equivalent")]
    assert report.probes == 0 and report.false_positives() == []


def test_same_seed_same_report_and_the_world_is_never_a_target(corpus: Path, tmp_path: Path) -> None:
    first = run_redteam(corpus, tasks=8, seed=3, workers=2).to_json()
    second = run_redteam(corpus, tasks=8, seed=3, workers=1).to_json()
    assert first["results"] == second["results"] and first["counts"] == second["counts"]
    inside = _cli(str(corpus), "--tasks", "1", "--json", str(corpus / "reports" / "redteam.json"))
    assert inside.returncode == 2 and "never writes into the world" in inside.stderr
    unknown = _cli(str(corpus), "--kind", "nonsense")
    assert unknown.returncode == 2 and "unknown probe kind 'nonsense'" in unknown.stderr
