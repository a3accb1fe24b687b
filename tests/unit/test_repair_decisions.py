"""The repairer's decisions on a tiny git world: escalation after a fix that lowers the pass rate,
reverts that restore only the fixes' files, refusals, and what each record says.

The world here is a handful of text files standing for the layers, and the verifier is a function
of those files (so it judges the world as it stands, as the real one does, only in milliseconds).
The end-to-end scenario on a built world with the real verifier is in
tests/integration/test_repair_escalation.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import git
import pytest

from factory.prove.repair import (
    ESCALATION,
    KEPT_OUTCOMES,
    RepairRecord,
    escalation_after,
    repair_round,
)
from factory.prove.triage import Cluster, Triage
from factory.verify.model import ClaimResult, VerifyReport
from factory.world.history import commit_all
from factory.world.layout import REPAIRS

Fixer = Callable[[Path], list[str]]
TRIAGE_TEXT = '{"clusters": "as the triager wrote them"}\n'


def _write(world: Path, name: str, text: str) -> list[str]:
    path = world / name
    if path.is_file() and path.read_text() == text:
        return []
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return [name]


def _fixers(**overrides: Fixer) -> dict[str, Fixer]:
    """Stand-ins for the four fixers: each puts its layer's file in the generated ("good") state."""
    fixers: dict[str, Fixer] = {
        "regenerate_backend": lambda w: _write(w, "app/backend.txt", "good"),
        "regenerate_data": lambda w: _write(w, "data/seed.txt", "good"),
        "regenerate_frontend": lambda w: _write(w, "app/frontend.txt", "good"),
        "rederive_spec": lambda w: [],
    }
    fixers.update(overrides)
    return fixers


def _verify(world: Path) -> Callable[[], VerifyReport]:
    """Ten claims over the layer files, shaped like the observed defect: the list claim needs good
    data; the invariant claim passes when the data is good or when the backend's checker was edited
    to pass everything ("masking"); the frontend claim needs a good frontend."""
    def read(name: str) -> str:
        path = world / name
        return path.read_text() if path.is_file() else "missing"

    def run() -> VerifyReport:
        backend, data, frontend = read("app/backend.txt"), read("data/seed.txt"), read("app/frontend.txt")
        checks = {
            "list:note": data == "good",
            "state:invariant:own_notebook": data == "good" or backend == "masking",
            "page:home": frontend == "good",
            "behaviour:broken": backend != "broken",
        }
        checks.update({f"route:ok{i}": True for i in range(6)})
        results = [ClaimResult(id=cid, layer="backend", kind="x", passed=ok, message="", seconds=0.0)
                   for cid, ok in checks.items()]
        return VerifyReport(world="tiny", claims_sha256="0" * 64, total=len(results),
                            passed=sum(r.passed for r in results), seconds=0.0, results=results)
    return run


@pytest.fixture()
def world(tmp_path: Path) -> Path:
    """The defect's world: a backend whose invariant checker passes everything, and bad data."""
    w = tmp_path / "tiny"
    w.mkdir()
    git.Repo.init(w)
    _write(w, "app/backend.txt", "masking")
    _write(w, "data/seed.txt", "bad")
    _write(w, "app/frontend.txt", "good")
    _write(w, "claims.json", '{"claims": ["c1", "c2"]}\n')
    _write(w, "reports/verification.json", "{}\n")
    commit_all(w, "world")
    # As the loop leaves it: the triager's report is written but not yet committed.
    _write(w, "reports/triage.json", TRIAGE_TEXT)
    return w


def _triage(*fixers: str) -> Triage:
    return Triage(world="tiny", failed=len(fixers), clusters=[
        Cluster(id=f"layer:sig:{name}", layer="backend", signature="sig", fixer=name, needs_llm=False,
                claims=["list:note"], suspected_files=[], example="") for name in fixers])


def _round(world: Path, *fixers: str, extra: dict[str, Fixer] | None = None) -> tuple[list[RepairRecord], VerifyReport]:
    verify = _verify(world)
    return repair_round(world, 1, _triage(*fixers), verify(), verify, extra=_fixers(**(extra or {})))


def _messages(world: Path) -> list[str]:
    return [str(c.message) for c in git.Repo(world).iter_commits()]


def test_escalation_order() -> None:
    assert ESCALATION == ("regenerate_backend", "regenerate_data", "regenerate_frontend", "rederive_spec")
    assert escalation_after("regenerate_backend") == ("regenerate_data", "regenerate_frontend", "rederive_spec")
    assert escalation_after("regenerate_data") == ("regenerate_backend", "regenerate_frontend", "rederive_spec")
    assert escalation_after("regenerate_frontend") == ("regenerate_backend", "regenerate_data", "rederive_spec")
    assert escalation_after("rederive_spec") == ()  # it already re-derived every layer
    assert escalation_after("an_llm_patch") == ESCALATION


def test_fix_that_exposes_a_hidden_fault_is_kept_with_the_next_fixer(world: Path) -> None:
    """The observed defect: the backend fix un-masks the data fault (0.9 → 0.8); the data fixer
    after it brings the world to 1.0, and both are kept."""
    records, final = _round(world, "regenerate_backend")
    by = {r.fixer: r for r in records}
    assert by["regenerate_backend"].outcome == "kept-with-next"
    assert (by["regenerate_backend"].before, by["regenerate_backend"].after) == (0.9, 0.8)
    assert "kept with regenerate_data" in by["regenerate_backend"].note
    assert by["regenerate_data"].outcome == "kept"
    assert by["regenerate_data"].escalated_from == "regenerate_backend"
    assert final.rate == 1.0
    assert (world / "app/backend.txt").read_text() == "good"
    assert (world / "data/seed.txt").read_text() == "good"
    # the chain stopped once the rate was back: the frontend and spec fixers were not needed
    assert [r.fixer for r in records if r.escalated_from] == ["regenerate_data"]
    assert not any(m.startswith("revert") for m in _messages(world))
    assert any(r.outcome in KEPT_OUTCOMES for r in records)


def test_chain_that_never_gets_back_is_reverted_whole_and_keeps_the_reports(world: Path) -> None:
    """Every fixer after the backend makes things worse still: the whole chain is reverted, in a
    commit of its own, and the reports (committed or not) are untouched."""
    start = git.Repo(world).head.commit.hexsha
    backend_before = (world / "app/backend.txt").read_text()
    records, final = _round(world, "regenerate_backend", extra={
        "regenerate_data": lambda w: _write(w, "data/seed.txt", "worse"),
        "regenerate_frontend": lambda w: _write(w, "app/frontend.txt", "worse") + _write(w, "app/new.txt", "x"),
    })
    applied = [r for r in records if r.files]
    assert [r.fixer for r in applied] == ["regenerate_backend", "regenerate_data", "regenerate_frontend"]
    assert {r.outcome for r in applied} == {"reverted"}
    assert "so the chain was reverted" in applied[0].note
    assert final.rate == 0.9
    assert (world / "app/backend.txt").read_text() == backend_before
    assert (world / "data/seed.txt").read_text() == "bad"
    assert (world / "app/frontend.txt").read_text() == "good"
    assert not (world / "app/new.txt").exists()  # a file the chain created is removed again
    assert (world / "reports/triage.json").read_text() == TRIAGE_TEXT
    assert (world / "reports/verification.json").read_text() == "{}\n"
    repo = git.Repo(world)
    assert str(repo.head.commit.message).startswith("revert(regenerate_backend+regenerate_data+regenerate_frontend)")
    assert repo.commit("HEAD~4").hexsha == start  # three attempts, then their revert: all in the history
    assert not repo.git.diff(start, "HEAD", "--name-only")  # and the revert is complete
    assert "reports/triage.json" not in repo.git.ls_files()  # the repairer committed none of the reports


def test_harmful_fix_with_nothing_after_it_is_reverted(world: Path) -> None:
    """`rederive_spec` is last in the order: when it lowers the rate nothing is tried after it."""
    start = git.Repo(world).head.commit.hexsha
    records, final = _round(world, "rederive_spec", extra={
        "rederive_spec": lambda w: _write(w, "app/backend.txt", "broken"),
        "regenerate_backend": lambda w: pytest.fail("nothing comes after rederive_spec"),
    })
    assert [(r.fixer, r.outcome) for r in records] == [("rederive_spec", "reverted")]
    assert records[0].note.startswith("pass rate fell from 0.900 to 0.700; escalation (nothing after it)")
    assert (world / "app/backend.txt").read_text() == "masking"
    assert final.rate == 0.9
    assert git.Repo(world).commit("HEAD~2").hexsha == start
    assert (world / "reports/triage.json").read_text() == TRIAGE_TEXT
    logged = [json.loads(line) for line in (world / REPAIRS).read_text().splitlines()]
    assert [(r["fixer"], r["outcome"]) for r in logged] == [("rederive_spec", "reverted")]


def test_fix_undone_by_a_later_step_is_superseded_not_kept(world: Path) -> None:
    """A fixer outside the order breaks a sound backend; regenerating the backend simply puts it
    back. The chain is back at its rate, but nothing of the first fix remains, and the record says so."""
    _write(world, "app/backend.txt", "good")
    _write(world, "data/seed.txt", "good")
    commit_all(world, "a sound world")
    records, final = _round(world, "break_it", extra={"break_it": lambda w: _write(w, "app/backend.txt", "broken")})
    by = {r.fixer: r for r in records}
    assert (by["break_it"].before, by["break_it"].after) == (1.0, 0.9)
    assert by["break_it"].outcome == "superseded"
    assert "put back by a later step" in by["break_it"].note
    assert by["regenerate_backend"].outcome == "kept"
    assert by["regenerate_backend"].escalated_from == "break_it"
    assert final.rate == 1.0


def test_escalation_step_touching_the_claims_is_refused_and_the_chain_goes_on(world: Path) -> None:
    claims = (world / "claims.json").read_text()

    def data_and_claims(w: Path) -> list[str]:
        (w / "claims.json").write_text('{"claims": []}\n')  # not reported: still caught
        return _write(w, "data/seed.txt", "good")

    records, final = _round(world, "regenerate_backend", extra={
        "regenerate_data": data_and_claims,
        "regenerate_frontend": lambda w: _write(w, "data/seed.txt", "good"),
    })
    by = {r.fixer: r for r in records}
    assert by["regenerate_data"].outcome == "refused"
    assert "claims.json" in by["regenerate_data"].files
    assert (world / "claims.json").read_text() == claims
    assert by["regenerate_frontend"].outcome == "kept"
    assert by["regenerate_backend"].outcome == "kept-with-next"
    assert final.rate == 1.0
    assert not any("claims.json" in git.Repo(world).git.show("--name-only", "--format=", c.hexsha)
                   for c in git.Repo(world).iter_commits("HEAD~2..HEAD"))


def test_fix_that_does_not_lower_the_rate_is_kept_alone(world: Path) -> None:
    records, final = _round(world, "regenerate_data")
    assert [(r.fixer, r.outcome) for r in records] == [("regenerate_data", "kept"), ("rederive_spec", "no-op")]
    assert final.rate == 1.0
    assert str(git.Repo(world).head.commit.message).startswith("repair(regenerate_data)")
    # the repair commit holds the fix's file alone, not the uncommitted triage report
    assert git.Repo(world).git.show("--name-only", "--format=", "HEAD").split() == ["data/seed.txt"]
