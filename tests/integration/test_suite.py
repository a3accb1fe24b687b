"""`factory suite` end to end: seeds/mock.yaml built in a process of its own (the quickest build the
world command offers: a few task drafts, no browser), beside a seed that fails its check, in two
lanes; the rows come from the built world's files, the failed build is a row, and the exit code says
a world failed to build. About two minutes on 2 cores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factory.cli import main
from factory.world.manifest import read_manifest

REPO = Path(__file__).resolve().parents[2]


def test_the_suite_builds_mock_and_reports_a_broken_seed_as_a_row(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("world: broken\ntitle: Broken\n")  # no entities: refused by the checker in a second
    output = tmp_path / "bench" / "suite.json"
    code = main(["suite", "--seeds", str(REPO / "seeds" / "mock.yaml"), str(broken), "--out", str(tmp_path / "worlds"),
                 "--output", str(output), "--lanes", "2", "--tasks", "12", "--no-ui"])
    assert code == 1  # a world failed to build
    data = json.loads(output.read_text())
    assert data["lanes"] == 2 and data["flags"] == ["--fresh", "--tasks", "12", "--no-ui"] and len(data["commit"]) == 40
    mock, failed = data["worlds"]  # in the order the seeds were given
    manifest = read_manifest(tmp_path / "worlds" / "mock" / "manifest.json")
    assert mock["world"] == "mock" and mock["seed"] == "seeds/mock.yaml" and mock["error"] is None
    assert (mock["claims_passed"], mock["claims_total"]) == (manifest.claims.passed, manifest.claims.total)
    assert mock["claims_passed"] == mock["claims_total"] > 0 and mock["http_5xx"] == 0
    assert (mock["tasks_proposed"], mock["tasks_accepted"]) == (manifest.tasks.drafted, manifest.tasks.accepted)
    assert manifest.tasks.spread is not None and mock["multi_action_share"] == manifest.tasks.spread.multi_action_share
    assert mock["lint_hits"] == 0 and mock["build_seconds"] > 0
    # a quick build is no accepted world: the browser claims were skipped and the corpus is small
    assert {"claims", "tasks"} <= set(mock["failed"]) and "build" not in mock["failed"]
    assert failed["world"] == "broken" and failed["error"].startswith("exit code 2: ")
    assert "build" in failed["failed"] and Path(failed["log"]).is_file()
    err = capsys.readouterr().err
    assert "totals: 2 worlds, 1 built, 0 accepted" in err and "✗ broken: ✗ build: exit code 2" in err
