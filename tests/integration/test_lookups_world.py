"""The lookups fixture (computed fields, row lookups, messages with values, currencies) builds into
a world whose claims pass the bar, with claims of each construct among them, and the derived fault
suite's faults are killed by those claims."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from factory.cli import main
from factory.mutate.run import inject, targets
from factory.verify.run import verify_world
from factory.world.manifest import read_manifest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "lookups.yaml"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("worlds")
    assert main(["world", str(FIXTURE), "--out", str(out), "--no-tasks"]) == 0
    return out / "lookups"


@pytest.mark.slow
def test_the_lookups_world_passes_the_claims_bar(world: Path) -> None:
    manifest = read_manifest(world / "manifest.json")
    assert manifest.claims.total >= 200 and manifest.claims.browser
    assert manifest.claims.passed / manifest.claims.total >= 0.99, manifest.claims
    kinds = {c["kind"] for c in json.loads((world / "claims.json").read_text())["claims"]}
    assert {"computed_value", "computed_fresh", "wf_lookup", "currency_label", "wf_precondition"} <= kinds
    described = " ".join(c["description"] for c in json.loads((world / "claims.json").read_text())["claims"])
    assert "“A hold is placed on or before Jun 15, 2026, not Jun 16, 2026.”" in described  # a message with values


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["computed_off_by_one", "lookup_ignores_where", "message_value_lost",
                                  "currency_symbol_wrong"])
def test_each_derived_fault_is_killed(world: Path, tmp_path: Path, kind: str) -> None:
    copy = tmp_path / "lookups"
    shutil.copytree(world, copy, ignore=shutil.ignore_patterns("run"))
    names = targets(copy, kind)
    target = next(n for n in names if any(word in n for word in ("queue_position", "lookup 1 ", "place_hold.pre3", "$")))
    inject(copy, kind, 0, target=target, suite="derived")
    report = verify_world(copy, ui=False)
    assert report.passed < report.total, f"{kind} at {target} survived every claim"
