"""The repairer on the built mock world with the real verifier: a fix that exposes a hidden fault is
kept together with the fixer after it, and a revert restores the fix's files and nothing else.

The decision logic's corners (superseded steps, refusals inside a chain, reverts of long chains)
are in tests/unit/test_repair_decisions.py, on a tiny world with a fake verifier.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import git
import pytest

from factory.prove.graph import run_stage_one
from factory.prove.repair import KEPT_OUTCOMES, repair_round
from factory.prove.triage import Cluster, Triage, write_triage
from factory.verify.model import VerifyReport
from factory.verify.run import verify_world
from factory.world.layout import TRIAGE, VERIFICATION
from factory.world.manifest import read_manifest

REPO = Path(__file__).resolve().parents[2]
MASKED_CHECK = "        if False and not same_row("  # the invariant checker passes every row


@pytest.fixture(scope="module")
def proven_mock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mock world after stage one (claims compiled and locked, all passing), built once."""
    state = run_stage_one(str(REPO / "seeds" / "mock.yaml"), str(tmp_path_factory.mktemp("proven")), ui=False)
    return Path(state["world"])


@pytest.fixture()
def world(proven_mock: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "worlds" / "mock"
    shutil.copytree(proven_mock, copy, ignore=shutil.ignore_patterns("run"))
    return copy


def _mask_invariant_and_misplace_a_note(world: Path) -> None:
    """The observed defect: invariants.py edited to pass everything, and a note of the seed data
    moved into a notebook of another owner (which breaks the invariant, and a notebook filter)."""
    checker = world / "app" / "backend" / "invariants.py"
    text = checker.read_text()
    assert "        if not same_row(" in text
    checker.write_text(text.replace("        if not same_row(", MASKED_CHECK, 1))
    with sqlite3.connect(world / "data" / "seed.db") as conn:
        other = conn.execute("SELECT id FROM notebook WHERE owner_id != (SELECT owner_id FROM note WHERE id = 1)").fetchone()[0]
        conn.execute("UPDATE note SET notebook_id = ? WHERE id = 1", (other,))


def _misplaced_notes(world: Path) -> list[tuple[int]]:
    with sqlite3.connect(world / "data" / "seed.db") as conn:
        return conn.execute("SELECT n.id FROM note n JOIN notebook b ON b.id = n.notebook_id "
                            "WHERE b.owner_id != n.owner_id").fetchall()


def _outcomes(state: dict[str, Any]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for r in state["repairs"]:
        found.setdefault(r["fixer"], set()).add(r["outcome"])
    return found


def test_loop_fixes_an_edited_invariant_checker_and_a_data_fault(world: Path) -> None:
    """The reported world: invariants.py edited to pass every row, plus a note in another owner's
    notebook. The loop ends with both fixed and both repairs kept, nothing reverted, and the triage
    report in the history. (Whether the backend fix lowers the rate on its way depends on whether
    the verifier runs the app's checker; the escalation itself is pinned down by the next test.)"""
    _mask_invariant_and_misplace_a_note(world)
    state = run_stage_one(world=str(world), ui=False, target=1.0)  # one failing claim of ~100 passes the default 0.95
    first, last = state["history"][0], state["history"][-1]
    assert first["passed"] < first["total"]
    assert last["passed"] == last["total"], (state["history"], state["repairs"])
    outcomes = _outcomes(dict(state))
    assert outcomes["regenerate_backend"] <= KEPT_OUTCOMES and outcomes["regenerate_data"] <= KEPT_OUTCOMES, state["repairs"]
    assert "reverted" not in {o for found in outcomes.values() for o in found}
    assert MASKED_CHECK not in (world / "app" / "backend" / "invariants.py").read_text()
    assert _misplaced_notes(world) == []
    repo = git.Repo(world)
    assert not any(str(c.message).startswith("revert") for c in repo.iter_commits())
    assert TRIAGE in repo.git.ls_files("reports").split()  # committed by the loop, after the round


def _witness(world: Path, claim_id: str) -> int:
    """The note a workflow claim calls the workflow on (the compiler picks it from the seed data)."""
    claims = json.loads((world / "claims.json").read_text())["claims"]
    claim = next(c for c in claims if c["id"] == claim_id)
    note: int = claim["getter"]["steps"][-1]["body"]["note"]
    return note


def _listed(world: Path, claim_id: str) -> int:
    """The first row a list claim expects (the compiler picks them from the seed data)."""
    claims = json.loads((world / "claims.json").read_text())["claims"]
    first: int = next(c for c in claims if c["id"] == claim_id)["predicate"]["ids"][0]
    return first


def test_loop_keeps_a_backend_fix_that_exposes_a_data_fault(world: Path) -> None:
    """The defect's shape with the real verifier: a hand edit in the generated backend (archive_note
    checks "pinned" before "active") hides a data fault (the pinned note the "Unpin first" claim
    archives was made archived); the same fault also shifts a status filter, which triage sends to
    the backend fixer. Restoring workflows.py exposes the fault, so the pass rate falls; the
    repairer goes on to the data fixer instead of reverting, and the loop ends with all claims
    passing, both repairs kept and the reports in the history."""
    workflows = world / "app" / "backend" / "workflows.py"
    active = ('    if note.status != "active":\n'
              '        raise PreconditionFailed("Only active notes can be archived.", "archive_note.pre1")\n')
    pinned = ("    if note.pinned:\n"
              '        raise PreconditionFailed("Unpin the note before archiving it.", "archive_note.pre2")\n')
    text = workflows.read_text()
    assert active + pinned in text
    workflows.write_text(text.replace(active + pinned, pinned + active))
    witness = _witness(world, "behaviour:archive_note.pre2")
    with sqlite3.connect(world / "data" / "seed.db") as conn:
        assert conn.execute("SELECT status, pinned FROM note WHERE id = ?", (witness,)).fetchone() == ("active", 1)
        conn.execute("UPDATE note SET status = 'archived' WHERE id = ?", (witness,))
        # and a note the status filter's claim lists flipped to the other status, so the fault shifts
        # that filter whichever user's note the compiler took as the witness
        conn.execute("UPDATE note SET status = CASE status WHEN 'archived' THEN 'active' ELSE 'archived' END "
                     "WHERE id = ?", (_listed(world, "list:note:filter:status"),))

    state = run_stage_one(world=str(world), ui=False, target=1.0)

    first, last = state["history"][0], state["history"][-1]
    assert first["passed"] < first["total"], (state["history"], state["repairs"])
    assert last["passed"] == last["total"], (state["history"], state["repairs"])
    first_round = [(r["fixer"], r["outcome"], r["escalated_from"]) for r in state["repairs"] if r["round"] == 1]
    assert first_round[:2] == [("regenerate_backend", "kept-with-next", ""),
                               ("regenerate_data", "kept", "regenerate_backend")], state["repairs"]
    backend = state["repairs"][0]
    assert backend["after"] < backend["before"]  # on its own, the backend fix did lower the rate
    assert active + pinned in workflows.read_text()
    with sqlite3.connect(world / "data" / "seed.db") as conn:
        assert conn.execute("SELECT status FROM note WHERE id = ?", (witness,)).fetchone() == ("active",)
    repo = git.Repo(world)
    log = [str(c.message) for c in repo.iter_commits()]
    assert any(m.startswith("repair(regenerate_data): round 1") for m in log)
    assert not any(m.startswith("revert") for m in log)
    assert {TRIAGE, "reports/repairs.jsonl"} <= set(repo.git.ls_files("reports").split())


def test_revert_restores_the_fix_alone_and_keeps_the_reports(world: Path) -> None:
    """A fixer with nothing after it in the escalation order (`rederive_spec`, stood in for by one
    that corrupts the seed data) lowers the pass rate: it is reverted by a commit of its own that
    restores data/seed.db, and reports/triage.json, written but not yet committed, survives."""
    digest = read_manifest(world / "manifest.json").claims_sha256

    def verify() -> VerifyReport:
        return verify_world(world, ui=False, expected_sha256=digest)

    def corrupt_data(target: Path) -> list[str]:
        with sqlite3.connect(target / "data" / "seed.db") as conn:
            conn.execute("UPDATE note SET status = 'lost' WHERE id IN (2, 3)")  # an enum violation
        return ["data/seed.db"]

    report = VerifyReport.model_validate_json((world / VERIFICATION).read_text())
    triage = Triage(world="mock", failed=1, clusters=[Cluster(
        id="db:drift:note", layer="db", signature="drift", fixer="rederive_spec", needs_llm=False,
        claims=["state:plan:note"], suspected_files=["data/seed.db"], example="")])
    write_triage(world, triage)
    triage_text = (world / TRIAGE).read_text()
    seed_digest = hashlib.sha256((world / "data" / "seed.db").read_bytes()).hexdigest()
    repo = git.Repo(world)
    start = repo.head.commit.hexsha

    records, final = repair_round(world, 1, triage, report, verify, extra={"rederive_spec": corrupt_data})

    assert [(r.fixer, r.outcome) for r in records] == [("rederive_spec", "reverted")]
    assert records[0].after is not None and records[0].after < records[0].before == 1.0
    assert final.rate == report.rate
    assert hashlib.sha256((world / "data" / "seed.db").read_bytes()).hexdigest() == seed_digest
    assert (world / TRIAGE).read_text() == triage_text
    assert (world / VERIFICATION).is_file() and (world / "reports" / "repairs.jsonl").is_file()
    assert str(repo.head.commit.message).startswith("revert(rederive_spec): round 1")
    assert str(repo.commit("HEAD~1").message).startswith("repair(rederive_spec): round 1")
    assert repo.commit("HEAD~2").hexsha == start
    assert repo.git.diff(start, "HEAD", "--name-only") == ""  # the world's files are as they were
    assert repo.git.show("--name-only", "--format=", "HEAD").split() == ["data/seed.db"]


def test_the_same_repairs_give_the_same_commits(proven_mock: Path, tmp_path: Path) -> None:
    """Every commit of a world is dated at its frozen today and holds no wall-clock timing, so the
    same defect repaired twice, seconds apart, leaves identical histories (hash for hash)."""
    heads = []
    for copy in ("a", "b"):
        world = tmp_path / copy / "mock"
        shutil.copytree(proven_mock, world, ignore=shutil.ignore_patterns("run"))
        _mask_invariant_and_misplace_a_note(world)
        state = run_stage_one(world=str(world), ui=False, target=1.0)
        assert state["history"][-1]["passed"] == state["history"][-1]["total"]
        repo = git.Repo(world)
        tree = dict(line.split("\t")[::-1] for line in repo.git.ls_tree("-r", "HEAD").splitlines())
        heads.append((repo.head.commit.hexsha, tree,
                      [str(c.message).splitlines()[0] for c in repo.iter_commits()]))
    differing = sorted(path for path in heads[0][1].keys() | heads[1][1].keys() if heads[0][1].get(path) != heads[1][1].get(path))
    assert differing == []
    assert heads[0][2] == heads[1][2] and heads[0][0] == heads[1][0]
