"""Stage one on the mock world: claims, the repair loop, refused weakening, locks and resumption."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import git
import pytest

from factory.claims.model import ClaimSet
from factory.cli import main
from factory.prove.graph import run_stage_one
from factory.prove.repair import repair_round
from factory.prove.triage import Cluster, Triage
from factory.verify.model import VerifyReport
from factory.verify.run import ClaimsTampered, load_claims
from factory.world.manifest import read_manifest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def proven_mock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mock world after stage one (claims compiled and locked, all passing), built once."""
    worlds = tmp_path_factory.mktemp("proven")
    state = run_stage_one(str(REPO / "seeds" / "mock.yaml"), str(worlds), ui=False)
    return Path(state["world"])


@pytest.fixture()
def world(proven_mock: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "worlds" / "mock"
    shutil.copytree(proven_mock, copy, ignore=shutil.ignore_patterns("run"))
    return copy


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_claims_cover_every_workflow(proven_mock: Path) -> None:
    claims = ClaimSet.model_validate_json((proven_mock / "claims.json").read_text())
    spec = json.loads((proven_mock / "spec.json").read_text())
    for wf in (w for w in spec["workflows"] if not w["system"]):
        behaviour = [c for c in claims.claims if c.id.startswith(f"behaviour:{wf['name']}")]
        assert len(behaviour) >= 3, wf["name"]
        assert any(c.id == f"ui:workflow:{wf['name']}" for c in claims.claims), wf["name"]
    assert {c.layer for c in claims.claims} == {"db", "backend", "frontend"}
    manifest = read_manifest(proven_mock / "manifest.json")
    assert manifest.claims.passed == manifest.claims.total > 80


def test_loop_repairs_injected_faults(world: Path) -> None:
    backend = world / "app" / "backend"
    _edit(backend / "workflows.py", 'raise PreconditionFailed("Only active notes can be archived.", "archive_note.pre1")', "pass")
    # ownership dropped
    _edit(backend / "runtime.py", "    if meta.public:\n        return true()", "    if True:\n        return true()")
    with __import__("sqlite3").connect(world / "data" / "seed.db") as conn:
        conn.execute("UPDATE note SET status = 'lost' WHERE id = 3")  # enum violation in the seed data
    state = run_stage_one(world=str(world), ui=False)
    first, last = state["history"][0], state["history"][-1]
    assert first["passed"] < first["total"]
    assert last["passed"] == last["total"], state["history"]
    assert 1 <= state["round"] <= 3
    kept = {r["fixer"] for r in state["repairs"] if r["outcome"] == "kept"}
    assert {"regenerate_backend", "regenerate_data"} <= kept
    log = [c.message for c in git.Repo(world).iter_commits()]
    assert any(m.startswith("repair(regenerate_backend)") for m in log)
    assert "Only active notes can be archived." in (backend / "workflows.py").read_text()


def test_invariant_claim_catches_inconsistent_history(world: Path) -> None:
    from factory.verify.run import verify_world

    with __import__("sqlite3").connect(world / "data" / "seed.db") as conn:
        other = conn.execute("SELECT id FROM notebook WHERE owner_id != (SELECT owner_id FROM note WHERE id = 1)").fetchone()[0]
        conn.execute("UPDATE note SET notebook_id = ? WHERE id = 1", (other,))  # a note in someone else's notebook
    report = verify_world(world, ui=False, expected_sha256=read_manifest(world / "manifest.json").claims_sha256)
    failed = {r.id: r for r in report.failures()}
    assert "state:invariant:note_in_own_notebook" in failed
    assert failed["state:invariant:note_in_own_notebook"].evidence.sql_rows == [[1]]


def test_weakening_repair_is_refused_and_rolled_back(world: Path) -> None:
    claims_before = (world / "claims.json").read_text()
    report = VerifyReport.model_validate_json((world / "reports" / "verification.json").read_text())

    def weaken(target: Path) -> list[str]:
        data = json.loads((target / "claims.json").read_text())
        data["claims"] = data["claims"][:-5]  # "fixes" failures by dropping claims
        (target / "claims.json").write_text(json.dumps(data))
        return ["claims.json"]

    triage = Triage(world="mock", failed=1, clusters=[Cluster(id="backend:x:y", layer="backend", signature="x", fixer="weaken",
                                                              needs_llm=False, claims=["c"], suspected_files=[], example="")])
    head = git.Repo(world).head.commit.hexsha
    records, _ = repair_round(world, 1, triage, report, lambda: pytest.fail("a refused repair is never verified"),
                              extra={"weaken": weaken})
    assert records[0].fixer == "weaken" and records[0].outcome == "refused"
    assert (world / "claims.json").read_text() == claims_before
    assert git.Repo(world).head.commit.hexsha == head


def test_loop_refuses_tampered_claims(world: Path) -> None:
    data = json.loads((world / "claims.json").read_text())
    data["claims"] = data["claims"][:10]
    (world / "claims.json").write_text(json.dumps(data))
    with pytest.raises(ClaimsTampered):
        load_claims(world, read_manifest(world / "manifest.json").claims_sha256)
    assert main(["prove", str(world), "--no-ui"]) == 2


def _weaken_one_claim(world: Path) -> str:
    """Drop the exact expectation of one effects claim: the claim still passes on a broken app."""
    data = json.loads((world / "claims.json").read_text())
    claim = next(c for c in data["claims"] if c["kind"] == "wf_effects" and c["predicate"].get("expect"))
    claim["predicate"]["expect"] = None
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    (world / "claims.json").write_text(text)
    return text


def test_weakened_claim_with_a_matching_manifest_hash_is_refused(world: Path) -> None:
    from factory.claims.compile import claims_sha256
    from factory.world.manifest import write_manifest

    text = _weaken_one_claim(world)
    manifest = read_manifest(world / "manifest.json")
    manifest.claims_sha256 = claims_sha256(text)  # the "lock" edited to match: it must not matter
    write_manifest(world / "manifest.json", manifest)
    assert main(["prove", str(world), "--no-ui"]) == 2
    assert (world / "claims.json").read_text() == text  # refused, not silently rewritten
    assert main(["prove", str(world), "--no-ui", "--recompile-claims"]) == 0
    restored = ClaimSet.model_validate_json((world / "claims.json").read_text())
    assert all(c.predicate.expect is not None for c in restored.claims if c.kind == "wf_effects")  # type: ignore[union-attr]


def test_no_ui_run_records_its_layers_and_never_a_full_pass(proven_mock: Path) -> None:
    manifest = read_manifest(proven_mock / "manifest.json")
    claims = ClaimSet.model_validate_json((proven_mock / "claims.json").read_text())
    browser = sum(c.getter.type == "ui" for c in claims.claims)
    assert browser > 0 and not manifest.claims.browser
    assert manifest.claims.skipped == browser and manifest.claims.total == len(claims.claims) - browser
    assert manifest.claims.passed == manifest.claims.total and not manifest.claims.complete


_HELD = "held before repair"
_HELD_BEFORE_REPAIR = f"""
import sys, time
import factory.prove.nodes as nodes
def held(state):
    print({_HELD!r}, file=sys.stderr, flush=True)
    time.sleep(600)
nodes.repair = held
from factory.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_kill_9_mid_loop_then_rerun_gives_the_same_result(world: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin" / "mock"
    shutil.copytree(world, twin)
    for target in (world, twin):
        _edit(target / "app" / "backend" / "workflows.py",
              'raise PreconditionFailed("Unpin the note before archiving it.", "archive_note.pre2")', "pass")
    command = [sys.executable, "-m", "factory", "prove", str(world), "--no-ui"]
    # The first run is held at the start of its repair node (triage's checkpoint is on disk by then)
    # and killed there: killing on a log line instead raced a busy machine, where the run could
    # finish its repair before the signal landed and leave nothing to resume.
    held = [sys.executable, "-c", _HELD_BEFORE_REPAIR, "prove", str(world), "--no-ui"]
    process = subprocess.Popen(held, cwd=REPO, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert process.stderr is not None
    for line in process.stderr:
        if _HELD in line:  # the loop is between its first verification and its repair
            process.send_signal(signal.SIGKILL)
            break
    process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL
    claims = read_manifest(world / "manifest.json").claims
    assert claims.passed == claims.total  # not yet rewritten
    rerun = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert "resuming stage one" in rerun.stderr
    straight = subprocess.run([sys.executable, "-m", "factory", "prove", str(twin), "--no-ui"], cwd=REPO,
                              capture_output=True, text=True, timeout=300)
    assert straight.returncode == 0, straight.stderr
    resumed, uninterrupted = read_manifest(world / "manifest.json"), read_manifest(twin / "manifest.json")
    assert resumed.claims == uninterrupted.claims
    assert resumed.claims.passed == resumed.claims.total
