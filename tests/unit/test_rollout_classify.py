"""Rollout triage's decisions on hand-made evidence (no server): the diff algebra, each world and
task defect the classifier names, the model causes it recovers, the reading of a rollouts file
(malformed lines by number), the report's counts, the schema as shipped, and the flawed agent's
choices."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from episodes.rollouts import EventCounts, Rollout
from factory.agents.flawed import KINDS, applicable, wrong_answer
from factory.rollouts import diffs
from factory.rollouts.classify import MODEL, NONE, TASK, WORLD, Classifier, TaskContext
from factory.rollouts.golden import GoldenRun, StepRun
from factory.rollouts.record import SCHEMA_PATH, render_schema
from factory.rollouts.report import TriageReport
from factory.rollouts.triage import read_numbered
from factory.world.layout import World
from verifiers import diff_databases


def test_the_shipped_rollout_schema_is_the_codes() -> None:
    assert SCHEMA_PATH.read_text() == render_schema(), "run `make schema` to regenerate docs/rollout-record.schema.json"
    schema = json.loads(SCHEMA_PATH.read_text())
    assert {"world", "task_id", "episode_id", "agent"} <= set(schema["required"])
    assert schema["$id"].endswith("/rollout-record.schema.json")


# ---------------------------------------------------------------- evidence made by hand --------

@pytest.fixture()
def initial(mock_world: Path, tmp_path: Path) -> Path:
    target = tmp_path / "initial.db"
    shutil.copyfile(World(mock_world).seed_db, target)
    return target


def _diff(initial: Path, sql: str, tmp: Path, name: str) -> dict[str, Any]:
    target = tmp / f"{name}.db"
    shutil.copyfile(initial, target)
    with sqlite3.connect(target) as conn:
        conn.executescript(sql)
    conn.close()
    return dict(diff_databases(initial, target).to_json())


def _rollout(task_id: str, diff: dict[str, Any] | None, reward: float, answer: str | None = None,
             agent: str = "test", gave_up: bool = False, actions: int = 1, server_errors: int = 0,
             seeded: str | None = None) -> Rollout:
    return Rollout.model_validate({
        "world": "mock", "task_id": task_id, "episode_id": f"ep-{task_id}-{agent}", "agent": agent,
        "actions": [{"t": 0.1 * i, "kind": "http", "target": "POST /api/workflows/x", "value": {}} for i in range(actions)],
        "answer": answer, "gave_up": gave_up, "reward": reward, "final_diff": diff,
        "events": {"requests": actions, "4xx": 0, "5xx": server_errors, "exceptions": 0}, "seeded_cause": seeded})


def _task(task_id: str, steps: list[dict[str, Any]], user: int = 1, username: str = "alice",
          required: list[dict[str, Any]] | None = None, answer: str | None = None) -> dict[str, Any]:
    return {"id": task_id, "task_type": "read" if answer is not None else "write", "goal": "...", "golden_steps": steps,
            "reference_answer": answer,
            "metadata": {"acting_user_id": user, "acting_user": username, "required_entities": required or []}}


def _context(task: dict[str, Any], initial: Path, reference: dict[str, Any], golden: dict[str, Any],
             reward: float = 1.0, statuses: list[int] | None = None, changed: list[bool] | None = None) -> TaskContext:
    steps = [StepRun(s["workflow"], s["params"], (statuses or [200] * len(task["golden_steps"]))[i], "",
                     (changed or [True] * len(task["golden_steps"]))[i]) for i, s in enumerate(task["golden_steps"])]
    record = _rollout(task["id"], golden, reward, task.get("reference_answer"), agent="triage-golden")
    return TaskContext(task, reference, initial, GoldenRun(task["id"], steps, record))


ARCHIVE_2 = "UPDATE note SET status = 'archived', updated_on = '2026-06-15' WHERE id = 2;"
ARCHIVE_5 = "UPDATE note SET status = 'archived', updated_on = '2026-06-15' WHERE id = 5;"
NOTE_IN = "INSERT INTO note (owner_id, notebook_id, title, body, status, pinned, priority, updated_on) " \
          "VALUES (1, {notebook}, '{title}', NULL, 'active', 0, 3, '2026-06-15');"


def _archive(initial: Path, tmp: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    task = _task("t-archive", [{"workflow": "archive_note", "params": {"note": 2}}],
                 required=[{"entity": "note", "id": 2, "label": "Before would water both institution"}])
    return task, _diff(initial, ARCHIVE_2, tmp, "golden")


# ---------------------------------------------------------------- diffs -----------------------

def test_diffs_compare_change_by_change(initial: Path, tmp_path: Path) -> None:
    golden = _diff(initial, ARCHIVE_2, tmp_path, "g")
    refs = {"note": {"notebook_id": "notebook", "owner_id": "user"}}
    assert diffs.same_changes(golden, _diff(initial, ARCHIVE_2, tmp_path, "g2"))
    assert not diffs.same_changes(golden, _diff(initial, ARCHIVE_5, tmp_path, "other"))
    [row] = diffs.compare(golden, _diff(initial, ARCHIVE_5, tmp_path, "other"), refs)
    assert (row.kind, row.golden, row.rollout) == ("row", 2, 5)
    [value] = diffs.compare(golden, _diff(initial, ARCHIVE_2.replace("06-15", "06-16"), tmp_path, "value"), refs)
    assert (value.kind, value.column, value.golden, value.rollout) == ("value", "updated_on", "2026-06-15", "2026-06-16")
    # a column of the right row the golden run left alone, set to something else: another value
    touched = _diff(initial, ARCHIVE_2 + "UPDATE note SET priority = priority + 1 WHERE id = 2;", tmp_path, "touched")
    [extra_value] = diffs.compare(golden, touched, refs)
    assert (extra_value.kind, extra_value.column) == ("value", "priority")
    both = _diff(initial, ARCHIVE_2 + ARCHIVE_5, tmp_path, "both")
    assert [f.kind for f in diffs.compare(both, golden, refs)] == ["missing"]
    assert [f.kind for f in diffs.compare(golden, both, refs)] == ["extra"]
    elsewhere = tmp_path / "elsewhere.db"  # note 2 in notebook 3, whatever the generated data made it
    shutil.copyfile(initial, elsewhere)
    with sqlite3.connect(elsewhere) as conn:
        conn.execute("UPDATE note SET notebook_id = 3 WHERE id = 2")
    conn.close()
    moved = _diff(elsewhere, "UPDATE note SET notebook_id = 1 WHERE id = 2;", tmp_path, "moved")
    [ref] = diffs.compare(moved, _diff(elsewhere, "UPDATE note SET notebook_id = 2, title = 'x' WHERE id = 2;",
                                       tmp_path, "moved2"), refs)[:1]
    assert (ref.kind, ref.column, ref.ref, ref.golden, ref.rollout) == ("row", "notebook_id", "notebook", 1, 2)
    new = _diff(initial, NOTE_IN.format(notebook=1, title="A"), tmp_path, "new")
    kinds = [(f.kind, f.column) for f in diffs.compare(new, _diff(initial, NOTE_IN.format(notebook=2, title="B"),
                                                                   tmp_path, "new2"), refs)]
    assert kinds == [("row", "notebook_id"), ("value", "title")]
    assert diffs.summary(golden) == "note: 1 updated (status, updated_on)" and diffs.summary(None) == "no changes"


# ---------------------------------------------------------------- the classifier --------------

@pytest.fixture()
def classifier(mock_world: Path) -> Classifier:
    return Classifier(World(mock_world).spec)


def test_model_causes_are_recovered_from_the_diff_and_the_answer(classifier: Classifier, initial: Path,
                                                                 tmp_path: Path) -> None:
    task, golden = _archive(initial, tmp_path)
    ctx = _context(task, initial, golden, golden)
    assert classifier.judge_golden(ctx) is None
    cases = {
        "wrong_row": _rollout("t-archive", _diff(initial, ARCHIVE_5, tmp_path, "r"), 0.0),
        "wrong_value": _rollout("t-archive", _diff(initial, ARCHIVE_2.replace("06-15", "06-20"), tmp_path, "v"), 0.0),
        "skipped_step": _rollout("t-archive", _diff(initial, "", tmp_path, "s"), 0.0, actions=2),
        "gave_up": _rollout("t-archive", _diff(initial, "", tmp_path, "n"), 0.0, gave_up=True, actions=0),
        "extra_change": _rollout("t-archive", _diff(initial, ARCHIVE_2 + ARCHIVE_5, tmp_path, "e"), 0.0),
    }
    for cause, rollout in cases.items():
        d = classifier.classify(rollout, ctx, 1)
        assert (d.defect, d.cause) == (MODEL, cause), (cause, d.why, d.evidence)
    passed = classifier.classify(_rollout("t-archive", golden, 1.0), ctx, 1)
    assert (passed.defect, passed.cause, passed.passed) == (NONE, "passed", True)
    read = _task("t-read", [], answer="green")
    none = _diff(initial, "", tmp_path, "none")
    rctx = _context(read, initial, none, none)
    assert classifier.classify(_rollout("t-read", none, 0.0, "blue"), rctx, 1).cause == "wrong_answer"
    assert classifier.classify(_rollout("t-read", none, 0.0, None, gave_up=True, actions=0), rctx, 1).cause == "gave_up"
    # the reference answer and the golden state, yet reward 0: the reward is at fault, not the model
    right = classifier.classify(_rollout("t-read", none, 0.0, " Green "), rctx, 1)
    assert (right.defect, right.cause) == (TASK, "reward_disagrees")


def test_world_defects_from_events_and_from_the_golden_run(classifier: Classifier, initial: Path, tmp_path: Path) -> None:
    task, golden = _archive(initial, tmp_path)
    ok = _context(task, initial, golden, golden)
    crashed = classifier.classify(_rollout("t-archive", None, 0.0, server_errors=1), ok, 3)
    assert (crashed.defect, crashed.cause, crashed.line) == (WORLD, "server_error", 3)
    assert crashed.evidence["events"]["5xx"] == 1
    # the workflow answers 200 and changes nothing: a control that does nothing
    nothing = _diff(initial, "", tmp_path, "nothing")
    noop = _context(task, initial, golden, nothing, reward=0.0, changed=[False])
    noop.verdict = classifier.judge_golden(noop)
    assert noop.verdict is not None and (noop.verdict.defect, noop.verdict.cause) == (WORLD, "control_noop")
    flawed = classifier.classify(_rollout("t-archive", nothing, 0.0, seeded="skipped_step"), noop, 4)
    assert (flawed.defect, flawed.cause) == (WORLD, "control_noop")  # the world explains it first
    # the effect half done: the golden run no longer makes the reference change
    half = _context(task, initial, golden, _diff(initial, "UPDATE note SET updated_on = '2026-06-15' WHERE id = 2;",
                                                 tmp_path, "half"), reward=0.0)
    verdict = classifier.judge_golden(half)
    assert verdict is not None and (verdict.defect, verdict.cause) == (WORLD, "golden_diverged")
    assert verdict.evidence["findings"]
    # refused although the spec allows it (note 2 is alice's, active, not pinned)
    refused = _context(task, initial, golden, nothing, reward=0.0, statuses=[409])
    verdict = classifier.judge_golden(refused)
    assert verdict is not None and (verdict.defect, verdict.cause) == (WORLD, "golden_refused")


def test_task_defects(classifier: Classifier, initial: Path, tmp_path: Path) -> None:
    # infeasible: note 3 is already archived; the spec refuses to archive it as well
    task = _task("t-infeasible", [{"workflow": "archive_note", "params": {"note": 3}}])
    nothing = _diff(initial, "", tmp_path, "nothing")
    ctx = _context(task, initial, nothing, nothing, reward=0.0, statuses=[409])
    verdict = classifier.judge_golden(ctx)
    assert verdict is not None and (verdict.defect, verdict.cause) == (TASK, "infeasible"), verdict
    assert "active" in verdict.why
    # the golden change, graded 0: the reward disagrees with the evidence
    archive, golden = _archive(initial, tmp_path)
    wrong = _context(archive, initial, golden, golden, reward=0.0)
    verdict = classifier.judge_golden(wrong)
    assert verdict is not None and (verdict.defect, verdict.cause) == (TASK, "reward_disagrees")
    # graded 1 while missing what was asked: the reward is too lenient
    ok = _context(archive, initial, golden, golden)
    lenient = classifier.classify(_rollout("t-archive", nothing, 1.0), ok, 1)
    assert (lenient.defect, lenient.cause, lenient.passed) == (TASK, "reward_lenient", True)


def test_an_instruction_two_rows_fit_is_a_task_defect(classifier: Classifier, initial: Path, tmp_path: Path) -> None:
    with sqlite3.connect(initial) as conn:
        label = conn.execute("SELECT title FROM notebook WHERE id = 1").fetchone()[0]
    conn.close()
    task = _task("t-write", [{"workflow": "write_note", "params": {"notebook": 1, "title": "A", "priority": 3}}],
                 required=[{"entity": "notebook", "id": 1, "label": label}])
    golden = _diff(initial, NOTE_IN.format(notebook=1, title="A"), tmp_path, "golden")
    other = _rollout("t-write", _diff(initial, NOTE_IN.format(notebook=2, title="A"), tmp_path, "other"), 0.0)
    assert classifier.classify(other, _context(task, initial, golden, golden), 1).cause == "wrong_row"
    twin = tmp_path / "twin.db"
    shutil.copyfile(initial, twin)
    with sqlite3.connect(twin) as conn:  # alice's other notebook now has the same title
        conn.execute("UPDATE notebook SET title = ? WHERE id = 2", (label,))
    conn.close()
    d = classifier.classify(other, _context(task, twin, golden, golden), 1)
    assert (d.defect, d.cause) == (TASK, "ambiguous"), d.why
    assert "#1 and #2" in d.evidence["rows"]


# ---------------------------------------------------------------- reading and reporting -------

def test_malformed_lines_are_named_by_number_and_skipped(tmp_path: Path) -> None:
    good = _rollout("t1", None, 1.0).model_dump_json(by_alias=True)
    path = tmp_path / "rollouts.jsonl"
    path.write_text("\n".join([good, "", "{not json", json.dumps({"world": "mock"}), good.replace('"t1"', '"t2"'),
                               json.dumps({**json.loads(good), "reward": 3})]) + "\n")
    numbered, malformed = read_numbered(path)
    assert [(n, r.task_id) for n, r in numbered] == [(1, "t1"), (5, "t2")]
    assert [m["line"] for m in malformed] == [3, 4, 6]
    assert "reward" in malformed[2]["reason"]


def test_the_report_counts_classes_causes_and_seeded_causes(classifier: Classifier, initial: Path, tmp_path: Path) -> None:
    task, golden = _archive(initial, tmp_path)
    ctx = _context(task, initial, golden, golden)
    rows = [_rollout("t-archive", _diff(initial, ARCHIVE_5, tmp_path, "r"), 0.0, seeded="wrong_row"),
            _rollout("t-archive", _diff(initial, "", tmp_path, "s"), 0.0, seeded="wrong_value"),
            _rollout("t-archive", golden, 1.0, agent="golden"),
            _rollout("t-archive", None, 0.0, server_errors=2)]
    report = TriageReport("mock", "r.jsonl", [classifier.classify(r, ctx, i) for i, r in enumerate(rows, 1)],
                          malformed=[{"line": 9, "reason": "line: Invalid JSON"}],
                          unknown=[{"line": 10, "task_id": "nope", "episode_id": "e", "agent": "a", "reason": "no task"}])
    data = report.to_json()
    assert data["counts"] == {"world": 1, "task": 0, "model": 2}
    assert data["by_cause"]["model"] == {"skipped_step": 1, "wrong_row": 1}
    cal = data["calibration"]
    assert (cal["seeded"], cal["failed"], cal["recovered"]) == (2, 2, 1)
    assert cal["mismatches"] == [{"line": 2, "task_id": "t-archive", "seeded": "wrong_value", "found": "model:skipped_step"}]
    assert data["open"] == [{"task_id": "t-archive", "line": 4, "class": "world", "cause": "server_error"}]
    text = report.markdown()
    assert "line 9: line: Invalid JSON" in text and "task `nope`" in text and "| model defect | 2 |" in text
    out_json, out_md = report.write(tmp_path / "world")
    assert json.loads(out_json.read_text())["counts"] == data["counts"] and out_md.read_text() == text


# ---------------------------------------------------------------- the flawed agent's choices --

def test_wrong_answers_keep_the_reference_shape() -> None:
    assert wrong_answer("3") == "4"
    assert wrong_answer("$1,234.50") == "$1,235.87"
    assert wrong_answer("yes") == "no"
    assert wrong_answer("green") == "not green"


def test_the_mistakes_a_task_admits(mock_world: Path) -> None:
    spec = World(mock_world).spec
    write = _task("w", [{"workflow": "write_note", "params": {"notebook": 1, "title": "A", "priority": 3}}])
    assert applicable(spec, write) == ["wrong_row", "wrong_value", "skipped_step", "gave_up"]
    archive = _task("a", [{"workflow": "archive_note", "params": {"note": 2}}])
    assert applicable(spec, archive) == ["wrong_row", "skipped_step", "gave_up"]
    assert applicable(spec, _task("r", [], answer="2")) == ["wrong_answer", "gave_up"]
    assert set(KINDS) == {"wrong_row", "wrong_value", "skipped_step", "wrong_answer", "gave_up"}
    assert EventCounts.model_validate({"5xx": 1}).server_errors == 1
