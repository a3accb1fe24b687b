"""`make suite`'s rows, read from what a build leaves on disk: a small world directory written here
(manifest, verification reports in the world's git history, tasks.jsonl, spec.json), its figures,
the acceptance criteria it misses, bench/suite.json, and the summary `make bench` copies from it."""

from __future__ import annotations

import io
import json
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import git
from rich.console import Console

from factory.bench.run import _write, last_suite
from factory.bench.suite import SuiteReport, read_suite, suite_summary, world_name, write_suite
from factory.bench.suite_figures import BuildRecord, claim_5xx, collect
from factory.bench.suite_table import suite_lines, suite_table
from factory.world.manifest import ClaimsSummary, Manifest, TasksSpread, TasksSummary, write_manifest

MINI_SPEC = Path(__file__).resolve().parents[1] / "fixtures" / "mini_spec.json"
USER_WORKFLOWS = ["archive_note", "plan_trip", "set_reminder", "write_note"]  # mini_spec's, system ones aside


def _request(status: int) -> dict[str, Any]:
    return {"method": "POST", "path": "/api/workflows/archive_note", "user": "alice", "status": status, "body": None}


def _claim(claim_id: str, passed: bool, requests: Sequence[dict[str, Any]] = (), console: Sequence[str] = (),
           log: Sequence[str] = ()) -> dict[str, Any]:
    return {"id": claim_id, "layer": "backend", "kind": "behaviour", "passed": passed, "message": "",
            "evidence": {"requests": list(requests), "sql_rows": None, "db_diff": None, "screenshot": None,
                         "console_errors": list(console), "server_log": list(log), "error": None}}


def _report(results: list[dict[str, Any]]) -> str:
    return json.dumps({"schema_version": 1, "world": "mini", "claims_sha256": "0" * 64, "total": len(results),
                       "passed": sum(r["passed"] for r in results), "results": results}, indent=1)


def _task(n: int, goal: str, task_type: str, steps: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """A task record as tasks.jsonl holds it (every field `TaskRecord` requires)."""
    return {"id": f"mini-{task_type}-{n:03d}", "goal": goal, "task_type": task_type, "difficulty": "easy",
            "estimated_actions": 3, "category": steps[0][0] if steps else "lookup",
            "reference_answer": None if steps else "1",
            "reference_state_change": {"summary": "no changes", "sql": ""}, "verification_query": "",
            "metadata": {"starting_url": "/", "acting_user_id": 1, "acting_user": "alice", "required_entities": [],
                         "grounding_evidence": [], "capabilities": [], "phrasing": "generic"},
            "db_file": "data/seed.db", "setup": {"steps": [], "patch": "", "patch_sha256": "", "how": "none"},
            "golden_steps": [{"workflow": w, "params": p} for w, p in steps], "reward": {}, "gates": [],
            "trajectory": None, "repairs": [], "split": "train"}


TASKS = [
    _task(1, "Write a note called \"Groceries\" in my notebook \"Home\".", "write", [("write_note", {"title": "Groceries"})]),
    _task(2, "Archive my note \"Groceries\" and set a reminder on \"Taxes\".", "write",
          [("archive_note", {"id": 1}), ("set_reminder", {"id": 2})]),
    _task(3, "Archive my note from 2026-06-01.", "write", [("archive_note", {"id": 3})]),  # an ISO date: a lint hit
    _task(4, "How many notes do I have?", "read", []),
]


def _spread(uncovered: list[str], share: float) -> TasksSpread:
    return TasksSpread(workflows={}, entities={}, difficulty={}, steps={}, registers={}, evenness={}, writes=3,
                       multi_action=1, mixed_workflows=1, multi_action_share=share, uncovered_workflows=uncovered,
                       near_duplicates_removed=0)


def _world(root: Path, spread: TasksSpread | None, accepted: int = 4) -> Path:
    """A world directory as a build leaves it: two verification rounds committed (the first saw 5xx
    responses, the repair fixed them), the manifest, the spec and a task corpus."""
    root.mkdir(parents=True)
    shutil.copy(MINI_SPEC, root / "spec.json")
    (root / "reports").mkdir()
    repo = git.Repo.init(root)
    actor = git.Actor("factory", "factory@localhost")
    round0 = [_claim("behaviour:archive_note", False, requests=[_request(200), _request(500)]),
              _claim("ui:workflow_archive_note", False, console=[
                  "Failed to load resource: the server responded with a status of 502 (Bad Gateway) (/api/notes)"],
                  log=["ERROR:    Exception in ASGI application", "Traceback (most recent call last):"]),
              _claim("route:health", True, requests=[_request(200)])]
    for results, message in ((round0, "verify: round 0"),
                             ([_claim(r["id"], True, requests=[_request(200)]) for r in round0], "verify: round 1")):
        (root / "reports" / "verification.json").write_text(_report(results))
        repo.index.add(["reports/verification.json"])
        repo.index.commit(message, author=actor, committer=actor)
    (root / "tasks").mkdir()
    (root / "tasks" / "tasks.jsonl").write_text("".join(json.dumps(t, sort_keys=True) + "\n" for t in TASKS))
    manifest = Manifest(world="mini", title="Mini", factory_version="0", seed_sha256="", spec_sha256="",
                        seed_db_sha256="", stages=["builder", "claims", "tasks"], counts={}, users=2, entities=2,
                        workflows=5, pages=0, routes=0, storyline={},
                        claims=ClaimsSummary(total=3, passed=3, rounds=1, browser=True, complete=True),
                        tasks=TasksSummary(drafted=6, accepted=accepted, spread=spread))
    write_manifest(root / "manifest.json", manifest)
    return root


def _record(world: Path, exit_code: int = 0, started: float = 0.0, log: Path | None = None) -> BuildRecord:
    return BuildRecord(seed="seeds/mini.yaml", world=world.name, path=str(world), command=["factory", "world"],
                       started=started, seconds=12.34, exit_code=exit_code, log=str(log or world / "build.log"))


def test_a_world_row_is_read_from_its_files(tmp_path: Path) -> None:
    row = collect(_record(_world(tmp_path / "mini", _spread(["plan_trip"], 0.333))))
    assert (row.claims_passed, row.claims_total, row.claims_complete, row.repair_rounds) == (3, 3, True, 1)
    # both committed rounds are read: the 500 of round 0 counts once, the browser claim's 502 once
    # (console and server log saw the same response)
    assert (row.http_5xx, row.http_5xx_claims, row.verification_rounds) == (
        2, ["behaviour:archive_note", "ui:workflow_archive_note"], 2)
    assert (row.tasks_proposed, row.tasks_accepted) == (6, 4)
    assert (row.uncovered_workflows, row.multi_action_share) == (["plan_trip"], 0.333)
    assert row.lint_hits == 1 and row.lint_by_rule == {"iso_date": 1}
    assert row.lint_examples[0].startswith("iso_date: Archive my note from 2026-06-01.")
    assert row.build_seconds == 12.3 and row.error is None
    assert list(row.failed) == ["5xx", "tasks", "uncovered", "lint"] and not row.accepted
    assert row.failed["tasks"] == "4 accepted < 150" and row.failed["uncovered"] == "plan_trip"


def test_an_older_manifest_without_a_spread_gets_it_from_the_tasks(tmp_path: Path) -> None:
    row = collect(_record(_world(tmp_path / "mini", None)))
    # three writes, one of which takes two distinct actions; plan_trip is run by no task
    assert row.multi_action_share == 0.333
    assert row.uncovered_workflows == ["plan_trip"]
    assert set(USER_WORKFLOWS) - {"plan_trip"} <= {s["workflow"] for t in TASKS for s in t["golden_steps"]}


def test_a_world_that_meets_every_criterion_is_accepted(tmp_path: Path) -> None:
    world = _world(tmp_path / "mini", _spread([], 0.5), accepted=150)
    # the last round's report alone, no 5xx; goals the lint passes
    shutil.rmtree(world / ".git")
    (world / "reports" / "verification.json").write_text(_report([_claim("route:health", True, [_request(200)])]))
    tasks = [t for t in TASKS if "2026" not in t["goal"]]
    (world / "tasks" / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    row = collect(_record(world))
    assert row.http_5xx == 0 and row.verification_rounds == 1 and row.lint_hits == 0
    assert row.failed == {} and row.accepted


def test_a_failed_build_is_a_row_with_its_error(tmp_path: Path) -> None:
    log = tmp_path / "broken.log"
    log.write_text("  · building ...\nerror: seeds/broken.yaml:3: entities: a list is required\n")
    row = collect(_record(tmp_path / "broken", exit_code=2, log=log))
    assert row.error == "exit code 2: seeds/broken.yaml:3: entities: a list is required"
    assert row.claims_total is None and row.tasks_accepted is None
    assert next(iter(row.failed)) == "build" and not row.accepted
    # an earlier world left in place by a build that failed before assembling: not this build's figures
    world = _world(tmp_path / "mini", _spread([], 0.5))
    stale = collect(_record(world, exit_code=2, started=time.time() + 60, log=log))
    assert stale.claims_total is None and stale.error is not None and stale.error.startswith("exit code 2")


def test_5xx_counts_each_response_once_per_claim() -> None:
    evidence = {"requests": [_request(503), _request(200)], "console_errors": ["status of 503 (x)"],
                "server_log": ['INFO: 127.0.0.1 - "POST /api/x HTTP/1.1" 503 Service Unavailable',
                               "ERROR:    Exception in ASGI application"]}
    assert claim_5xx(evidence) == 2  # the log saw two (an access line and a traceback): the most seen
    assert claim_5xx({"requests": [_request(422)], "console_errors": ["status of 404"], "server_log": []}) == 0


def test_the_suite_file_and_what_make_bench_copies_from_it(tmp_path: Path) -> None:
    rows = [collect(_record(_world(tmp_path / "mini", _spread([], 0.5), accepted=150))),
            collect(_record(tmp_path / "broken", exit_code=1, log=tmp_path / "missing.log"))]
    report = SuiteReport(commit="a" * 40, dirty=False, time="2026-01-01T00:00:00+00:00", lanes=2,
                         flags=["--fresh"], seconds=20.0, worlds=rows)
    output = tmp_path / "bench" / "suite.json"
    write_suite(report, output)
    text = output.read_text()
    assert list(json.loads(text)) == sorted(json.loads(text))  # keys in a fixed order
    assert read_suite(output) == report
    write_suite(read_suite(output), output)
    assert output.read_text() == text
    summary = suite_summary(report)
    assert summary["commit"] == "a" * 40 and summary["accepted"] == 0
    assert summary["worlds"]["broken"]["error"] == "exit code 1: no log"
    assert summary["worlds"]["mini"]["failed"] == ["5xx", "lint"]
    # `make bench` records it beside its figures; without a suite file it keeps what it recorded
    results = tmp_path / "bench" / "results.json"
    console = Console(file=io.StringIO())
    _write(results, [{"name": "build_seconds.mock", "median": 1.0}], last_suite(results, console))
    assert json.loads(results.read_text())["suite"] == summary
    output.unlink()
    assert last_suite(results, console) == summary
    assert last_suite(tmp_path / "elsewhere" / "results.json", console) is None
    # the table marks what each world missed
    shown = Console(width=80, record=True, file=io.StringIO())
    shown.print(suite_table(report))
    for line in suite_lines(report):
        shown.print(line)
    text = shown.export_text()
    assert "✗ build: exit code 1: no log" in text and "✗ 5xx: 2 responses" in text
    assert "totals: 2 worlds, 1 built, 0 accepted" in text


def test_a_world_is_named_by_its_seed(tmp_path: Path) -> None:
    seed = tmp_path / "x.yaml"
    seed.write_text("world: harbor\ntitle: Harbor\n")
    assert world_name(seed) == "harbor"
    seed.write_text("world: [unclosed\n")
    assert world_name(seed) == "x"
