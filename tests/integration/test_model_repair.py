"""The repairer's model policy on the built mock world, through the scripted fake endpoint (real
HTTP, the real SDK): a fault in a template itself, which re-generating the app only writes again,
is fixed by the model's patch; the patch, its rationale and its outcome reach the repair log, the
git history and the review site's history.

The template fault is made by injecting a fault of the independent suite into the world and having
the backend renderer write the same faulty file (so `regenerate_backend` finds nothing to change,
as it would with a defect in the template). The patch's corner cases (refusals, regressions,
diffs that do not apply) are in tests/unit/test_model_patch.py on a tiny world.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import git
import pytest
from fakes.openai_server import FakeOpenAI, Scripted

from factory.mutate.run import inject
from factory.prove import repair
from factory.prove.graph import run_stage_one
from factory.review.history import read_history, read_model_patches
from factory.world.layout import REPAIRS

WORKFLOWS = "app/backend/workflows.py"


@pytest.fixture()
def faulty(mock_world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str, str]:
    """A copy of the mock world with a negated precondition that the templates write too; and the
    diff that undoes it (what a good model would answer), and the file as generated before the fault."""
    world = tmp_path / "worlds" / "mock"
    shutil.copytree(mock_world, world, ignore=shutil.ignore_patterns("run"))
    good = (world / WORKFLOWS).read_text()
    inject(world, "precondition_negated", 1, suite="independent")
    bad = (world / WORKFLOWS).read_text()
    assert bad != good
    render = repair.render_backend

    def template_with_the_fault(spec: Any, out: Path, digest: str) -> None:
        render(spec, out, digest)
        (out / WORKFLOWS.removeprefix("app/")).write_text(bad)

    monkeypatch.setattr(repair, "render_backend", template_with_the_fault)
    undo = git.Repo(world).git.diff("HEAD", "HEAD~1", "--", WORKFLOWS)
    return world, undo + "\n", good


def test_a_model_patch_fixes_a_template_fault(faulty: tuple[Path, str, str], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    world, undo, good = faulty
    rationale = "The refusal condition of archive_note.pre1 is negated; the template wrote `==` for `!=`."
    with FakeOpenAI([Scripted({"rationale": rationale, "diff": undo}, usage=(900, 80))]) as fake:
        for key, value in fake.env(FACTORY_LLM_CACHE=str(tmp_path / "cache")).items():
            monkeypatch.setenv(key, value)
        state = run_stage_one(world=str(world), ui=False, target=1.0, max_rounds=2)
    first, last = state["history"][0], state["history"][-1]
    assert first["passed"] < first["total"] and last["passed"] == last["total"], state["history"]
    outcomes = [(r["fixer"], r["outcome"]) for r in state["repairs"]]
    assert ("regenerate_backend", "no-op") in outcomes  # the templates cannot fix it
    assert outcomes[-1] == ("model_patch", "kept"), outcomes
    assert fake.count == 1  # one cluster asked; its patch fixed the others too
    question = fake.requests[0]["messages"][1]["content"]
    assert "behaviour:archive_note.pre1" in question and "`app/backend/workflows.py`:" in question
    assert fake.requests[0]["response_format"]["json_schema"]["name"] == "PatchReply"

    repo = git.Repo(world)
    patched = next(c for c in repo.iter_commits() if str(c.message).startswith("repair(model_patch): round 1"))
    assert rationale in str(patched.message)
    assert list(patched.stats.files) == [WORKFLOWS]
    assert (world / WORKFLOWS).read_text() == good
    assert not repo.is_dirty(untracked_files=True)

    log = [json.loads(line) for line in (world / REPAIRS).read_text().splitlines()]
    model = [r for r in log if r["fixer"] == "model_patch"]
    assert [r["outcome"] for r in model] == ["kept"] and model[0]["rationale"] == rationale
    assert model[0]["diff"] == undo and model[0]["files"] == [WORKFLOWS]
    assert all("diff" not in r and "rationale" not in r for r in log if r["fixer"] != "model_patch")

    commits, _ = read_history(world)
    shown = next(c for c in commits if c.sha == patched.hexsha)
    assert shown.repair_note.startswith("kept: pass rate") and rationale in shown.body
    [view] = read_model_patches(world)
    assert (view.outcome, view.rationale, view.clusters) == ("kept", rationale, model[0]["clusters"])


def test_with_no_model_the_repairer_is_as_before(faulty: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """No FACTORY_LLM_MODEL (a reachable endpoint and a key lying around change nothing): the
    template fault is reported as the fixers' no-ops, nothing is asked, the log reads as it always did."""
    world, _, good = faulty
    with FakeOpenAI([]) as fake:
        monkeypatch.delenv("FACTORY_LLM_MODEL", raising=False)
        monkeypatch.delenv("FACTORY_LLM_CONFIG", raising=False)
        monkeypatch.setenv("FACTORY_LLM_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-lying-around")
        state = run_stage_one(world=str(world), ui=False, target=1.0, max_rounds=1)
    assert fake.count == 0
    assert state["history"][-1]["passed"] < state["history"][-1]["total"]
    assert [(r["fixer"], r["outcome"]) for r in state["repairs"]] == [("regenerate_backend", "no-op"),
                                                                      ("rederive_spec", "no-op")]
    keys = {"round", "fixer", "clusters", "files", "outcome", "before", "after", "note", "escalated_from"}
    assert all(set(json.loads(line)) == keys for line in (world / REPAIRS).read_text().splitlines())
    assert (world / WORKFLOWS).read_text() != good
