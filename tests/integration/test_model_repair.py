"""The repairer's model policy on the built mock world, through the scripted fake endpoint (real
HTTP, the real SDK): a fault in a template itself, which re-generating the app only writes again,
is fixed by the model's patch; the patch, its rationale and its outcome reach the repair log, the
git history and the review site's history.

The template fault is made by injecting a fault of the independent suite into the world and having
the backend renderer write the same faulty file (so `regenerate_backend` finds nothing to change,
as it would with a defect in the template). The world is verified once (round 0); each test runs
stage one's triage and repair nodes on a copy, as the graph runs them. The patch's corner cases (refusals, regressions,
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

from factory.claims.compile import compile_claims, write_claims
from factory.mutate.run import inject
from factory.prove import nodes, repair
from factory.prove.nodes import LoopState
from factory.review.history import read_history, read_model_patches
from factory.verify.model import VerifyReport
from factory.verify.run import verify_world
from factory.world.history import commit_all
from factory.world.layout import LLM_USAGE, REPAIRS, TRIAGE, VERIFICATION

WORKFLOWS = "app/backend/workflows.py"


@pytest.fixture(scope="module")
def verified_fault(mock_world: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, str]:
    """A copy of the mock world with a negated precondition, its claims compiled and verified once
    (round 0 of stage one); the diff that undoes the fault (what a good model would answer), the
    file as generated before the fault, and the claims' digest."""
    world = tmp_path_factory.mktemp("fault") / "mock"
    shutil.copytree(mock_world, world, ignore=shutil.ignore_patterns("run"))
    good = (world / WORKFLOWS).read_text()
    inject(world, "precondition_negated", 1, suite="independent")
    assert (world / WORKFLOWS).read_text() != good
    undo = git.Repo(world).git.diff("HEAD", "HEAD~1", "--", WORKFLOWS) + "\n"
    digest = write_claims(world, compile_claims(world))
    report = verify_world(world, ui=False, expected_sha256=digest)
    assert 0 < report.passed < report.total
    commit_all(world, "verify: round 0")
    return world, undo, good, digest


@pytest.fixture()
def faulty(verified_fault: tuple[Path, str, str, str], tmp_path: Path,
           monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str, str, LoopState]:
    """The verified faulty world, copied, with a backend template that writes the fault too (so
    `regenerate_backend` finds nothing to change); and the stage-one state after its round 0."""
    source, undo, good, digest = verified_fault
    world = tmp_path / "worlds" / "mock"
    shutil.copytree(source, world)
    bad = (world / WORKFLOWS).read_text()
    render = repair.render_backend

    def template_with_the_fault(spec: Any, out: Path, digest: str) -> None:
        render(spec, out, digest)
        (out / WORKFLOWS.removeprefix("app/")).write_text(bad)

    monkeypatch.setattr(repair, "render_backend", template_with_the_fault)
    state: LoopState = {"world": str(world), "ui": False, "claims_sha256": digest, "round": 0, "repairs": []}
    return world, undo, good, state


def _round(state: LoopState) -> tuple[dict[str, Any], VerifyReport]:
    """Stage one's triage and repair nodes, as the graph runs them after a failed verification."""
    nodes.triage_node(state)
    out = nodes.repair(state)
    return out, VerifyReport.model_validate_json((Path(state["world"]) / VERIFICATION).read_text())


def test_a_model_patch_fixes_a_template_fault(faulty: tuple[Path, str, str, LoopState], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    world, undo, good, state = faulty
    rationale = "The refusal condition of archive_note.pre1 is negated; the template wrote `==` for `!=`."
    with FakeOpenAI([Scripted({"rationale": rationale, "diff": undo}, usage=(900, 80))]) as fake:
        for key, value in fake.env(FACTORY_LLM_CACHE=str(tmp_path / "cache")).items():
            monkeypatch.setenv(key, value)
        out, after = _round(state)
    assert after.passed == after.total and out["progress_made"]
    outcomes = [(r["fixer"], r["outcome"]) for r in out["repairs"]]
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

    usage = json.loads((world / LLM_USAGE).read_text())  # what the world cost, committed with the round's reports
    assert (usage["calls"], usage["prompt_tokens"], usage["completion_tokens"]) == (1, 900, 80)
    assert list(usage["by_purpose"]) == ["repair.patch"]

    commits, _ = read_history(world)
    shown = next(c for c in commits if c.sha == patched.hexsha)
    assert shown.repair_note.startswith("kept: pass rate") and rationale in shown.body
    [view] = read_model_patches(world)
    assert (view.outcome, view.rationale, view.clusters) == ("kept", rationale, model[0]["clusters"])


def test_with_no_model_the_repairer_is_as_before(faulty: tuple[Path, str, str, LoopState],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """No FACTORY_LLM_MODEL (a reachable endpoint and a key lying around change nothing): the
    template fault is reported as the fixers' no-ops, nothing is asked, the log reads as it always did."""
    world, _, good, state = faulty
    with FakeOpenAI([]) as fake:
        monkeypatch.delenv("FACTORY_LLM_MODEL", raising=False)
        monkeypatch.delenv("FACTORY_LLM_CONFIG", raising=False)
        monkeypatch.setenv("FACTORY_LLM_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-lying-around")
        out, after = _round(state)
    assert fake.count == 0
    assert after.passed < after.total and not out["progress_made"]
    assert [(r["fixer"], r["outcome"]) for r in out["repairs"]] == [("regenerate_backend", "no-op"),
                                                                    ("rederive_spec", "no-op")]
    assert "model" not in json.loads((world / TRIAGE).read_text())["clusters"][0]
    keys = {"round", "fixer", "clusters", "files", "outcome", "before", "after", "note", "escalated_from"}
    assert all(set(json.loads(line)) == keys for line in (world / REPAIRS).read_text().splitlines())
    assert (world / WORKFLOWS).read_text() != good
    assert not (world / LLM_USAGE).exists()


def test_a_patch_that_fixes_the_fault_but_breaks_another_claim_is_reverted(
        faulty: tuple[Path, str, str, LoopState], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real verifier judges the patch: it fixes the negated check but rewords another refusal,
    which a passing claim pins down; the whole patch is reverted, the fault stays for a person."""
    world, _, good, state = faulty
    bad = (world / WORKFLOWS).read_text()
    repo = git.Repo(world)
    (world / WORKFLOWS).write_text(good.replace('"The note is already in that notebook."', '"Already there."'))
    greedy = repo.git.diff("--", WORKFLOWS) + "\n"
    repo.git.checkout("HEAD", "--", WORKFLOWS)
    with FakeOpenAI([Scripted({"rationale": "un-negate the check; shorter message", "diff": greedy})]) as fake:
        for key, value in fake.env(FACTORY_LLM_CACHE=str(tmp_path / "cache")).items():
            monkeypatch.setenv(key, value)
        out, _ = _round(state)
    model = [r for r in out["repairs"] if r["fixer"] == "model_patch"]
    # the other clusters (the same fault seen by other claims) are asked in turn; the script has nothing more
    assert [r["outcome"] for r in model] == ["reverted"] + ["no-reply"] * (fake.count - 1) and fake.count == 4
    assert not out["progress_made"]
    assert model[0]["note"].startswith("regression: 1 claim(s) that passed now fail (behaviour:move_note.pre1")
    assert model[0]["after"] > model[0]["before"]  # more claims pass in all: a regression all the same
    assert (world / WORKFLOWS).read_text() == bad
    subjects = [str(c.message).splitlines()[0] for c in repo.iter_commits(max_count=3)]
    assert subjects[0].startswith("repair: round 1") and subjects[1].startswith("revert(model_patch): round 1, regression")
    assert not repo.is_dirty(untracked_files=True)
