"""The review site's parts without a browser: charts and the ERD as SVG, the reward in words, the
claims' evidence and the task sample, the history's pass rates from a toy repository."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import git
import pytest

from factory.review.charts import BAR_W, count_chart, rate_chart
from factory.review.collect import _diff, anchor
from factory.review.corpus import sample
from factory.review.erd import depths, erd_svg
from factory.review.history import read_history
from factory.review.model import Bar
from factory.review.words import check_words, mode_words
from factory.spec.model import Spec

REPO = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


def _svg(text: str) -> ET.Element:
    return ET.fromstring(text)  # well-formed XML, or this raises


def test_rate_chart_draws_each_share_to_scale() -> None:
    root = _svg(rate_chart("claims per layer", [Bar(label="backend", value=3, total=4), Bar(label="db", value=0, total=2)]))
    passed = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "bar-pass"]
    assert [int(r.get("width", "0")) for r in passed] == [round(BAR_W * 0.75)]  # db's 0 of 2 draws no green bar
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "3/4 (75.0%)" in texts and "0/2 (0.0%)" in texts and "claims per layer" in texts


def test_count_chart_scales_to_the_largest_and_escapes_labels() -> None:
    root = _svg(count_chart("tasks <by> type", [Bar(label="read & write", value=2), Bar(label="write", value=4)]))
    widths = [int(r.get("width", "0")) for r in root.iter(f"{SVG}rect")]
    assert widths == [BAR_W // 2, BAR_W]
    assert "read & write" in [t.text for t in root.iter(f"{SVG}text")]
    assert rate_chart("x", []) == rate_chart("x", [])  # deterministic, and an empty chart says so
    assert "nothing recorded" in rate_chart("x", [])


def _mock_spec() -> Spec:
    from factory.builder.build import build_spec
    from factory.seed.loader import load_seed

    return build_spec(load_seed(REPO / "seeds" / "mock.yaml"))


def test_erd_has_a_box_per_entity_and_an_arrow_per_reference() -> None:
    spec = _mock_spec()
    root = _svg(erd_svg(spec))
    boxes = [g.get("id") for g in root.iter(f"{SVG}g") if g.get("class") == "erd-entity"]
    assert boxes == [f"erd-{e.name}" for e in spec.entities]
    references = [(e.name, f.ref) for e in spec.entities for f in e.fields if f.ref]
    assert len([p for p in root.iter(f"{SVG}path") if p.get("class") == "erd-edge"]) == len(references) > 0
    levels = depths(spec)
    assert all(levels[source] > levels[target] for source, target in references if source != target)
    assert erd_svg(spec) == erd_svg(spec)


def test_reward_in_words_names_every_check() -> None:
    assert mode_words({"mode": "checklist"}).startswith("checklist")
    assert check_words({"id": "a", "type": "row_matches", "table": "account", "key": {"id": 16},
                        "expect": {"balance": 541099}}) == "a: the account row with id = 16 has balance = 541099"
    assert "at most 2 inserts" in check_words({"id": "d", "type": "diff_within", "allowed": {"transaction": {"insert": 2}}})
    assert "nothing in the database changes" in check_words({"id": "n", "type": "diff_within", "allowed": {}})
    assert check_words({"id": "q", "type": "answer", "kind": "number", "expected": 1}) == "q: the answer asserts the number 1"
    assert check_words({"id": "z", "type": "future_kind", "x": 1}) == 'z: future_kind: {"x": 1}'


def test_anchors_are_unique_and_safe() -> None:
    taken: set[str] = set()
    assert anchor("claim", "ui:page:home", taken) == "claim-ui-page-home"
    assert anchor("claim", "ui.page.home", taken) == "claim-ui-page-home-2"


def test_a_database_diff_reads_as_changed_rows() -> None:
    raw = {"tables": {"account": {"columns": ["id", "balance"], "key_columns": ["id"], "schema": "same",
                                  "inserted": [{"id": 9, "balance": 5}], "deleted": [],
                                  "updated": [{"key": [1], "changed": ["balance"], "before": {"id": 1, "balance": 10},
                                               "after": {"id": 1, "balance": None}}]}}}
    [table] = _diff(raw)
    assert [(r.change, r.key, r.before, r.after) for r in table.rows] == [
        ("inserted", "id=9", None, ["9", "5"]), ("updated", "1", ["1", "10"], ["1", "NULL"])]


def test_the_strip_sample_is_seeded_and_covers_every_type() -> None:
    records = [{"id": f"t{i:02d}", "task_type": ("read", "write", "read_write")[i % 3]} for i in range(30)]
    chosen = sample(records, 6, seed=3)
    assert chosen == sample(records, 6, seed=3) and len(chosen) == 6
    assert chosen == sorted(chosen)  # in file order
    assert {records[int(i[1:])]["task_type"] for i in chosen} == {"read", "write", "read_write"}
    assert sample(records, None, 0) == [r["id"] for r in records]
    assert sample(records, 6, seed=4) != chosen


def test_history_reads_the_pass_rate_before_and_after_each_commit(tmp_path: Path) -> None:
    repo = git.Repo.init(tmp_path, initial_branch="main")
    (tmp_path / "reports").mkdir()
    actor = git.Actor("t", "t@example.org")

    def commit(message: str, passed: int | None) -> None:
        if passed is not None:
            (tmp_path / "reports" / "verification.json").write_text(json.dumps({"passed": passed, "total": 4}))
        (tmp_path / "app.txt").write_text(message)
        repo.git.add(A=True)
        repo.index.commit(message, author=actor, committer=actor)

    commit("builder: spec", None)
    commit("verify: round 0: 2/4 claims passed", 2)
    commit("repair(regenerate_backend): round 1, 1 file(s) for x", None)
    commit("verify: round 1: 4/4 claims passed", 4)
    commits, rounds = read_history(tmp_path)
    assert [c.subject.split(":")[0] for c in commits] == ["builder", "verify", "repair(regenerate_backend)", "verify"]
    assert [(c.rate_before, c.rate_after) for c in commits] == [(None, None), (None, 0.5), (0.5, 0.5), (0.5, 1.0)]
    assert [(b.label.split(" (")[0], b.value, b.total) for b in rounds] == [("round 0", 2, 4), ("round 1", 4, 4)]
    assert "+repair(regenerate_backend)" in commits[2].diff


def test_history_of_a_folder_that_is_no_repository(tmp_path: Path) -> None:
    from factory.review.errors import ReviewError

    with pytest.raises(ReviewError, match="not a git repository"):
        read_history(tmp_path)


def test_mutation_and_red_team_figures(tmp_path: Path) -> None:
    from factory.review.collect import mutation_figure, redteam_figure
    from factory.review.errors import ReviewError
    from factory.world.layout import World

    world = World(tmp_path)
    assert mutation_figure(world) is None and redteam_figure(None) is None
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "mutation.json").write_text(json.dumps({
        "suite": "independent", "kill_rate": 0.5, "repair_rate": 1.0, "faults": [{}, {}],
        "by_kind": {"row_deleted": {"layer": "db", "faults": 2, "killed": 1, "repaired": 1}},
        "by_layer": {"db": {"layer": "db", "faults": 2, "killed": 1, "repaired": 1}}}))
    figure = mutation_figure(world)
    assert figure is not None and figure.rows == [["row_deleted", "db", "2", "1", "1"]]
    assert figure.summary == "independent suite: 2 faults, kill rate 50.0%, repair rate 100.0%"
    assert "1/2 (50.0%)" in figure.chart
    result = tmp_path / "rt.json"
    result.write_text(json.dumps({"tasks": 3, "seed": 0, "probes": 5, "false_positive_count": 1, "counts": [
        {"kind": "schema:view", "probes": 5, "graded_0": 4, "false_positives": 1, "errors": 0, "equivalent": 0,
         "not_applicable": 0, "tasks": 3}]}))
    red = redteam_figure(result)
    assert red is not None and red.rows == [["schema:view", "5", "4", "1", "0", "0", "0"]]
    assert red.summary == "5 probes over 3 tasks (seed 0): 1 false positive"
    result.write_text("[]")
    with pytest.raises(ReviewError, match="not a red-team result"):
        redteam_figure(result)
