"""Stage two hands world defects to the stage-one repairer, then gates every draft again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import git
import pytest

from factory.mutate.run import inject
from factory.prove.graph import run_stage_one
from factory.tasks.graph import run_stage_two
from factory.tasks.handover import WorldFailure, world_triage

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def proven_mock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mock world after stage one (claims compiled, locked and passing)."""
    state = run_stage_one(str(REPO / "seeds" / "mock.yaml"), str(tmp_path_factory.mktemp("proven")), ui=False)
    return Path(state["world"])


def test_world_failures_become_stage_one_clusters_with_fixers(tmp_path: Path) -> None:
    failures = [
        WorldFailure("write-1", "archive_note", "gate:golden", "the golden state is not what the effects predict"),
        WorldFailure("write-2", "archive_note", "gate:golden", "row note 3 differs"),
        WorldFailure("write-3", "move_note", "gate:ui", "no field labelled 'Folder' on /notes/3"),
        WorldFailure("write-4", "move_note", "gate:golden", "status 500 Traceback (most recent call last)"),
        WorldFailure("read-1", None, "gate:determinism", "a second run graded 0.0"),
    ]
    triage = world_triage(tmp_path, failures)
    by_id = {c.id: c for c in triage.clusters}
    assert triage.failed == 5
    assert by_id["backend:task_effect_mismatch:archive_note"].claims == ["task:write-1", "task:write-2"]
    assert by_id["backend:task_effect_mismatch:archive_note"].fixer == "regenerate_backend"
    assert by_id["frontend:task_ui_blocked:move_note"].fixer == "regenerate_frontend"
    assert by_id["backend:task_server_error:move_note"].fixer == "regenerate_backend"  # a 500 is the backend's
    assert by_id["backend:task_nondeterministic:read"].claims == ["task:read-1"]
    assert not any(c.needs_llm for c in triage.clusters)
    unplaced = world_triage(tmp_path, [WorldFailure("w", "x", "gate:odd", "?")]).clusters[0]
    assert unplaced.needs_llm and unplaced.fixer == "regenerate_backend"


def test_a_broken_effect_is_repaired_by_stage_one_and_its_tasks_accepted(proven_mock: Path, tmp_path: Path) -> None:
    world = tmp_path / "worlds" / "mock"
    shutil.copytree(proven_mock, world, ignore=shutil.ignore_patterns("run"))
    fault = inject(world, "break_effect", seed=3)
    broken = fault.target.split()[0]  # "<workflow> effect <n>: …"
    assert (world / "app" / "backend" / "workflows.py").read_text() != \
        (proven_mock / "app" / "backend" / "workflows.py").read_text()

    result = run_stage_two(world, total=24, ui=False)

    report = json.loads((world / "tasks" / "report.json").read_text())
    kept = [r for r in report["world_repairs"] if r["outcome"] == "kept"]
    assert [r["fixer"] for r in kept] == ["regenerate_backend"], report["world_repairs"]
    assert any(broken in c for c in kept[0]["clusters"]), kept[0]
    # the repaired backend is the generated one again, and the repair is its own commit
    assert (world / "app" / "backend" / "workflows.py").read_text() == \
        (proven_mock / "app" / "backend" / "workflows.py").read_text()
    log = [c.message for c in git.Repo(world).iter_commits()]
    assert any(m.startswith("repair(regenerate_backend)") for m in log)
    triage = json.loads((world / "reports" / "task_triage.json").read_text())
    assert any(c["fixer"] == "regenerate_backend" and broken in c["id"] for c in triage["clusters"])
    # the drafts that failed for the world were gated again on the repaired app and accepted
    records = [json.loads(line) for line in (world / "tasks" / "tasks.jsonl").read_text().splitlines()]
    handed = [r for r in records if any(x.startswith("world defect") for x in r["repairs"])]
    # every handed task runs the broken workflow, alone or in an errand (act-then-report, multi-step, …)
    assert handed and all(broken in {s["workflow"] for s in r["golden_steps"]} for r in handed), handed
    assert all(g["passed"] for r in records for g in r["gates"])
    assert report["world_defects"] == []
    assert result.rate >= 0.95


def test_a_form_the_ui_cannot_fill_is_rebuilt_by_stage_one(proven_mock: Path, tmp_path: Path) -> None:
    world = tmp_path / "worlds" / "mock"
    shutil.copytree(proven_mock, world, ignore=shutil.ignore_patterns("run"))
    # a required field: every UI run of the workflow needs it (an optional one may go unused)
    fault = inject(world, "remove_form_field", seed=0, target="write_note form field title")
    assert fault.layer == "frontend"

    run_stage_two(world, total=16, ui=True, workers=2)

    report = json.loads((world / "tasks" / "report.json").read_text())
    kept = [r for r in report["world_repairs"] if r["outcome"] == "kept"]
    assert [r["fixer"] for r in kept] == ["regenerate_frontend"], report["world_repairs"]
    assert any(c.startswith("frontend:task_ui_blocked:") for c in kept[0]["clusters"])
    assert "app/frontend/dist/_app/app.js" in kept[0]["files"]  # the bundle was rebuilt, not only the source
    for rel in fault.files:
        assert (world / rel).read_bytes() == (proven_mock / rel).read_bytes(), rel
    records = [json.loads(line) for line in (world / "tasks" / "tasks.jsonl").read_text().splitlines()]
    handed = [r for r in records if any(x.startswith("world defect") for x in r["repairs"])]
    assert handed and all(g["passed"] for r in handed for g in r["gates"])
    assert all(any(g["name"] == "ui" and g["passed"] for g in r["gates"]) for r in handed)
