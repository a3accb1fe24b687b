"""`factory bench --only`: a section measured on its own replaces its figures by name and keeps the
rest of bench/results.json; an unknown section is refused before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factory.bench.run import _merged, _read, run_benchmarks
from factory.cli import main


def test_new_figures_replace_old_ones_by_name_and_the_rest_is_kept(tmp_path: Path) -> None:
    output = tmp_path / "results.json"
    earlier = [{"name": "build_seconds.mock", "median": 9.0}, {"name": "fault_kill_rate.echobank", "median": 0.9},
               {"name": "bundle_bytes.echobank", "median": 5.0}]
    output.write_text(json.dumps({"schema_version": 1, "results": earlier}))
    fresh = [{"name": "fault_kill_rate.echobank", "median": 1.0}, {"name": "fault_kill_rate.echomail", "median": 1.0}]
    merged = _merged(_read(output), fresh)
    assert [(r["name"], r["median"]) for r in merged] == [
        ("build_seconds.mock", 9.0), ("fault_kill_rate.echobank", 1.0), ("bundle_bytes.echobank", 5.0),
        ("fault_kill_rate.echomail", 1.0)]
    # no earlier file, or an unreadable one: the new figures alone
    output.write_text("{not json")
    assert _read(output) == [] and _merged(_read(output), fresh) == fresh
    assert _read(tmp_path / "missing.json") == []


def test_an_unknown_section_is_refused_before_anything_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="no bench section faultz"):
        run_benchmarks(None, tmp_path / "r.json", only=["faultz"])
    assert main(["bench", "--only", "faults,faultz", "--output", str(tmp_path / "r.json")]) != 0
    assert "faultz" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()
