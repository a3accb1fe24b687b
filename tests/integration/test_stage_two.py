"""Stage two on the mock world: a gated task corpus, and the gates catching bad rewards.

Real parts throughout: the app on loopback, reward-gen in its sandboxed process, SQLite files,
and (for the corpus) the UI gate in Chromium.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from episodes.dbfiles import copy_db
from factory.runtime.client import Backend
from factory.runtime.patch import apply_patch
from factory.spec.model import Spec
from factory.tasks.gates import GateRunner
from factory.tasks.graph import run_stage_two
from factory.tasks.propose.proposer import Draft, Proposer
from factory.tasks.reward.gen import run_rewardgen
from factory.tasks.setupgen import build_setup, run_golden
from factory.tasks.triage import triage

GATES = {"initial", "golden", "determinism", "ui"}


@pytest.fixture(scope="module")
def corpus(mock_world: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    world = tmp_path_factory.mktemp("stage2") / "mock"
    shutil.copytree(mock_world, world)
    run_stage_two(world, total=24, ui=True, workers=2)
    return world


def _records(world: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (world / "tasks" / "tasks.jsonl").read_text().splitlines()]


def test_corpus_records_have_every_field_and_passed_every_gate(corpus: Path) -> None:
    records = _records(corpus)
    report = json.loads((corpus / "tasks" / "report.json").read_text())
    assert len(records) == report["accepted"] >= 0.9 * report["drafted"]
    assert "seconds" not in report  # wall-clock time is kept in run/, out of the world's committed files
    assert json.loads((corpus / "run" / "tasks-timings.json").read_text())["seconds"] > 0
    for r in records:
        for key in ("id", "goal", "task_type", "difficulty", "estimated_actions", "category",
                    "reference_answer", "reference_state_change", "verification_query", "metadata",
                    "db_file", "setup", "reward", "gates", "trajectory", "split"):
            assert key in r, (r["id"], key)
        assert {"starting_url", "acting_user_id", "required_entities", "grounding_evidence"} <= set(r["metadata"])
        names = {g["name"].split(":")[0] for g in r["gates"]}
        assert names >= GATES and "counterfactual" in names, r["id"]
        assert all(g["passed"] for g in r["gates"]), r["id"]
        # Instructions name rows the way a user would, never by database id.
        assert " id " not in r["goal"].lower()
        shots = [a["screenshot"] for a in r["trajectory"]["actions"] if a.get("screenshot")]
        assert shots and all((corpus / "tasks" / "trajectories" / r["id"] / s).is_file() for s in shots)
    types = {r["task_type"] for r in records}
    assert types == {"read", "write", "read_write"}
    spec = Spec.model_validate_json((corpus / "spec.json").read_text())
    covered = {s["workflow"] for r in records for s in r["golden_steps"]}
    assert {w.name for w in spec.workflows if not w.system} <= covered
    manifest = json.loads((corpus / "manifest.json").read_text())
    assert manifest["tasks"]["accepted"] == len(records)
    assert manifest["tasks"]["by_type"]["read"] == sum(r["task_type"] == "read" for r in records)


def test_every_record_meets_the_shipped_task_record_schema(corpus: Path) -> None:
    """Each line of a real tasks.jsonl validates against docs/task-record.schema.json (jsonschema),
    and reads into the strict model and back to the same bytes."""
    import jsonschema

    from factory.tasks.model import SCHEMA_PATH, TaskRecord

    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    lines = (corpus / "tasks" / "tasks.jsonl").read_text().splitlines(keepends=True)
    assert lines
    for line in lines:
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(json.loads(line))]
        assert not errors, errors
        assert TaskRecord.model_validate_json(line).to_line() == line


def test_every_accepted_reward_grades_its_own_golden_and_initial(corpus: Path, tmp_path: Path) -> None:
    """Replay each record the way a user of the corpus would: patch the seed, grade."""
    from factory.runtime.patch import apply_patch
    from verifiers.grade import grade

    for r in _records(corpus):
        initial = apply_patch(corpus / r["db_file"], r["setup"]["patch"], tmp_path / f"{r['id']}.db")
        assert grade(r["reward"], initial, initial, None).score == 0.0
        if r["task_type"] == "read":
            assert grade(r["reward"], initial, initial, r["reference_answer"]).score == 1.0


# ---------------------------------------------------------------- targeted gate tests ----------

@pytest.fixture(scope="module")
def parts(mock_world: Path, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    work = tmp_path_factory.mktemp("parts")
    spec = Spec.model_validate_json((mock_world / "spec.json").read_text())
    seed_db = mock_world / "data" / "seed.db"
    with Backend(mock_world, spec, work) as backend:
        proposer = Proposer(spec, seed_db)
        runner = GateRunner(spec, backend, seed_db, work)
        yield spec, seed_db, backend, proposer, runner, work
        runner.close()
        proposer.close()


def _write_draft(proposer: Proposer, workflow: str) -> Draft:
    wf = next(w for w in proposer.spec.workflows if w.name == workflow)
    for attempt in range(20):
        draft = proposer._write(wf, 1 + 3 * attempt)  # attempts ≡ 1 (mod 3): generic phrasing, no setup
        if draft is not None and not draft.setup:
            return draft
    raise AssertionError(f"no draft for {workflow}")


def _reward(spec_path: Path, draft: Draft, initial: Path, work: Path, policy: str | None = None,
            policy_path: Path | None = None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"policy": policy, "policy_path": policy_path} if policy else {}
    result = run_rewardgen(spec_path, [{"id": draft.key, "goal": draft.goal, "user": draft.user,
                                        "initial_db": str(initial)}], work / "sandbox", **kwargs)
    return result[draft.key]


def test_reward_gen_that_reads_setup_artifacts_is_caught(parts, mock_world: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _spec, seed_db, backend, proposer, _runner, _work = parts
    draft = _write_draft(proposer, "move_note")
    golden = run_golden(backend, seed_db, draft.user, draft.steps, tmp_path / "golden" / "g.db")
    evil = tmp_path / "policies"
    evil.mkdir()
    (evil / "peek_policy.py").write_text(
        "from pathlib import Path\n"
        "def peek(instruction, spec, db):\n"
        f"    Path({str(golden)!r}).read_bytes()  # the golden state: forbidden\n"
        "    return {}\n"
        "def browse(instruction, spec, db):\n"
        f"    import os; os.listdir({str(golden.parent)!r})\n"
        "    return {}\n")
    for name in ("peek", "browse"):
        result = _reward(mock_world / "spec.json", draft, seed_db, tmp_path / name, f"peek_policy:{name}", evil)
        assert result["ok"] is False and result["kind"] == "isolation", result
        assert str(golden.parent) in result["error"]
        assert triage(result["kind"], result["error"]).layer == "reward"
    honest = _reward(mock_world / "spec.json", draft, seed_db, tmp_path / "honest")
    assert honest["ok"] is True, honest


def test_reward_that_passes_on_the_initial_state_is_rejected(parts, mock_world: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _spec, seed_db, backend, proposer, runner, _work = parts
    draft = _write_draft(proposer, "archive_note")
    golden = run_golden(backend, seed_db, draft.user, draft.steps, tmp_path / "golden.db")
    good = _reward(mock_world / "spec.json", draft, seed_db, tmp_path)["reward"]
    gates = {g.name: g for g in runner.run(draft, good, seed_db, golden, "")}
    assert all(g.passed for g in gates.values()), gates
    # A reward that only forbids unrelated changes is already satisfied before the agent acts.
    lax = {"schema_version": 1, "checks": [c for c in good["checks"] if c["type"] == "diff_within"]}
    gates = {g.name: g for g in runner.run(draft, lax, seed_db, golden, "")}
    assert gates["initial"].passed is False and gates["initial"].score == 1.0
    assert triage("gate:initial", gates["initial"].detail).layer == "reward"


def test_reward_that_ignores_collateral_damage_fails_the_counterfactual_gate(parts, mock_world: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _spec, seed_db, backend, proposer, runner, _work = parts
    draft = _write_draft(proposer, "set_reminder")
    golden = run_golden(backend, seed_db, draft.user, draft.steps, tmp_path / "golden.db")
    good = _reward(mock_world / "spec.json", draft, seed_db, tmp_path)["reward"]
    blind = {"schema_version": 1, "checks": [c for c in good["checks"] if c["type"] != "diff_within"]}
    gates = {g.name: g for g in runner.run(draft, blind, seed_db, golden, "")}
    assert gates["golden"].passed and gates["initial"].passed
    extra = gates["counterfactual:extra_change"]
    assert extra.passed is False and extra.score == 1.0
    assert gates["counterfactual:wrong_target"].passed  # the row checks still catch this one
    full = {g.name: g for g in runner.run(draft, good, seed_db, golden, "")}
    assert full["counterfactual:extra_change"].passed and full["counterfactual:extra_change"].score == 0.0


def test_ambiguous_instruction_is_repaired_or_discarded(parts, mock_world: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Two notes share a title; the seed phrasing names the note by title: reward-gen refuses to
    guess, triage blames the task text, and repairs go on (on that same database) until the
    instruction resolves, or the draft is discarded with its reason."""
    from factory.tasks.nodes import Attempt, _repair

    spec, seed_db, _backend, proposer, _runner, _work = parts
    draft = _write_draft(proposer, "archive_note")
    note_id = draft.steps[0].params["note"]
    initial = copy_db(seed_db, tmp_path / "dup.db")
    conn = sqlite3.connect(initial)
    title, owner = conn.execute("SELECT title, owner_id FROM note WHERE id = ?", (note_id,)).fetchone()
    other = conn.execute("SELECT id FROM note WHERE owner_id = ? AND id != ? ORDER BY id", (owner, note_id)).fetchone()[0]
    conn.execute("UPDATE note SET title = ? WHERE id = ?", (title, other))
    conn.commit()
    conn.close()
    ambiguous = f"Archive my note titled {title}."
    draft.goal, draft.form = ambiguous, "intent:archive"
    result = _reward(mock_world / "spec.json", draft, initial, tmp_path / "r0")
    assert result["ok"] is False and result["kind"] == "ambiguous", result
    attempt = Attempt(draft, failure=triage(result["kind"], result["error"]))
    assert attempt.failure is not None and attempt.failure.layer == "task"
    for round_no in range(1, 4):
        if not _repair(attempt, proposer, spec):
            break  # discarded: the failure and its reason stay with the attempt
        result = _reward(mock_world / "spec.json", attempt.draft, initial, tmp_path / f"r{round_no}")
        if result["ok"]:
            break
        attempt.failure = triage(result["kind"], result["error"])
    assert attempt.repairs, "a task-text failure is always tried again"
    if result["ok"]:
        assert attempt.draft.goal != ambiguous
    else:
        assert attempt.failure is not None and attempt.failure.message


def test_interrupted_stage_two_resumes_and_gives_the_same_corpus(
        mock_world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run stopped inside the gates resumes from its checkpoint and writes byte-identical
    tasks to an uninterrupted run (same seed, same corpus)."""
    from factory.tasks import nodes as stage

    straight = tmp_path / "a" / "mock"
    shutil.copytree(mock_world, straight)
    run_stage_two(straight, total=12, ui=False)

    resumed = tmp_path / "b" / "mock"
    shutil.copytree(mock_world, resumed)
    real_gate = stage.gate_node

    def crash(state: Any) -> Any:
        raise RuntimeError("power cut during the gates")

    monkeypatch.setattr(stage, "gate_node", crash)
    with pytest.raises(RuntimeError, match="power cut"):
        run_stage_two(resumed, total=12, ui=False)
    assert not (resumed / "tasks" / "tasks.jsonl").exists()
    monkeypatch.setattr(stage, "gate_node", real_gate)
    result = run_stage_two(resumed, total=12, ui=False, fresh=False)
    assert result.accepted > 0
    assert (resumed / "tasks" / "tasks.jsonl").read_bytes() == (straight / "tasks" / "tasks.jsonl").read_bytes()


def test_cli_tasks_reruns_stage_two_and_reports_a_summary_line(mock_world: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    world = tmp_path / "mock"
    shutil.copytree(mock_world, world)
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "factory", "tasks", str(world), "--no-ui", "--tasks", "8"],
                          cwd=repo, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    manifest = json.loads((world / "manifest.json").read_text())
    line = f"tasks: {manifest['tasks']['accepted']}/{manifest['tasks']['drafted']} accepted"
    assert line in done.stderr
    assert "tasks" in manifest["stages"] and manifest["gates"]["golden_passed"] == manifest["tasks"]["accepted"]
    missing = subprocess.run([sys.executable, "-m", "factory", "tasks", str(tmp_path / "nope")],
                             cwd=repo, capture_output=True, text=True, timeout=60, check=False)
    assert missing.returncode == 2 and "nope" in missing.stderr


def test_a_new_row_that_reuses_a_deleted_rows_id_is_graded_as_the_backend_leaves_it(tmp_path: Path) -> None:
    """Forget the newest loan, then borrow: SQLite gives the new loan the freed id, so a row diff
    sees one changed row. The prediction must say so, or the golden gate fails (it did once)."""
    from factory.predict.effects import predict, reward_checks
    from factory.runtime.step import Step
    from factory.world.assemble import build_world
    from verifiers.grade import grade

    sink = Path(__file__).resolve().parents[1] / "fixtures" / "kitchen_sink.yaml"
    world = build_world(sink, tmp_path / "worlds").path
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    seed_db = world / "data" / "seed.db"
    conn = sqlite3.connect(seed_db)
    newest, borrower = conn.execute("SELECT id, borrower_id FROM loan ORDER BY id DESC LIMIT 1").fetchone()
    conn.close()
    proposer = Proposer(spec, seed_db)
    user = next(u for u in spec.users if u.id == borrower)
    borrow = next(w for w in spec.workflows if w.name == "borrow")
    forget = Step("forget_loan", {"loan": newest})
    for _ in range(30):
        step = proposer._fill(borrow, user)
        if step is not None and not predict(spec, seed_db, user.id, [forget, step]).failed:
            break
    else:
        pytest.skip("no feasible borrow for the newest loan's borrower")
    proposer.close()
    prediction = predict(spec, seed_db, user.id, [forget, step])
    assert ("loan", newest) in prediction.updates and not prediction.deletes
    reward = {"schema_version": 1, "checks": reward_checks(spec, seed_db, prediction)}
    with Backend(world, spec, tmp_path / "work") as backend:
        golden = run_golden(backend, seed_db, user.username, [forget, step], tmp_path / "golden.db")
    assert grade(reward, seed_db, golden).score == 1.0
    assert grade(reward, seed_db, seed_db).score == 0.0


@pytest.mark.parametrize("seed", ["capabilities/datepickers.yaml", "capabilities/nested_filters.yaml", "echostay.yaml"])
def test_proposer_grounds_a_task_for_every_workflow(worlds: Any, seed: str) -> None:
    """Date ranges inside date ranges, past dates, hosts acting on public listings: every
    workflow a user can run gets at least one feasible, grounded draft, and every draft's text
    parses back with the spec alone."""
    from factory.tasks.language.phrasing import parse
    from factory.tasks.propose.proposer import Plan

    world = worlds.get(seed)
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    proposer = Proposer(spec, world / "data" / "seed.db")
    drafts = proposer.propose(Plan.for_total(120))
    proposer.close()
    covered = {s.workflow for d in drafts for s in d.steps}
    assert {w.name for w in spec.workflows if not w.system and w.params} <= covered, proposer.skipped[:5]
    for d in drafts:
        assert parse(spec, d.goal).kind == d.task_type, d.goal


@pytest.mark.parametrize("seed", ["capabilities/datepickers.yaml", "mock.yaml"])
def test_instructions_name_rows_exactly_as_the_app_labels_them(worlds: Any, seed: str, tmp_path: Path) -> None:
    """The proposer's labels (and reward-gen's resolution) must be the app's own `label`, for
    every entity and every visible row (datetimes, money, references included)."""
    import httpx

    from factory.predict.rows import UserView
    from factory.runtime.server import AppServer, fresh_db

    world_dir = worlds.get(seed)
    spec = Spec.model_validate_json((world_dir / "spec.json").read_text())
    user = spec.users[0]
    world = UserView.open(spec, world_dir / "data" / "seed.db")
    compared = 0
    with AppServer(world_dir, fresh_db(world_dir, tmp_path / "app.db")) as server:
        client = httpx.Client(base_url=server.url, timeout=30)
        assert client.post("/api/auth/login", json={"username": user.username, "password": user.password}).status_code == 200
        for ent in spec.entities:
            if ent.builtin or "list" not in ent.operations:
                continue
            page = 1
            while True:
                body = client.get(f"/api/{ent.path}", params={"page": page, "page_size": 100}).json()
                for item in body["items"]:
                    assert world.label(ent.name, world.row(ent.name, item["id"])) == item["label"], (ent.name, item["id"])
                    compared += 1
                if page * 100 >= body["total"]:
                    break
                page += 1
        client.close()
    world.close()
    assert compared >= 8  # every visible row of every listed entity was compared


def test_a_task_can_act_on_a_row_its_setup_creates(parts, mock_world: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A note written by the setup, then archived by the task: the row is absent from the seed,
    named by its label in the instruction, and the task passes every gate."""
    _spec, seed_db, backend, proposer, runner, _work = parts
    wf = next(w for w in proposer.spec.workflows if w.name == "archive_note")
    seed_ids = {r["id"] for r in proposer.world.rows("note")}
    draft = None
    for attempt in range(5, 120, 6):  # attempts ≡ 5 (mod 6) try a row made by a setup first
        candidate = proposer._write(wf, attempt)
        if candidate is not None and candidate.setup and candidate.steps[0].params["note"] not in seed_ids:
            draft = candidate
            break
    assert draft is not None, "no draft acts on a row its setup creates"
    assert [s.workflow for s in draft.setup] == ["write_note"]
    setup = build_setup(backend, seed_db, draft.user, draft.setup, tmp_path / "setup")
    initial = apply_patch(seed_db, setup.patch, tmp_path / "initial.db")
    golden = run_golden(backend, initial, draft.user, draft.steps, tmp_path / "golden.db")
    with sqlite3.connect(initial) as conn:
        assert conn.execute("SELECT title FROM note WHERE id = ?", (draft.steps[0].params["note"],)).fetchone()
    result = _reward(mock_world / "spec.json", draft, initial, tmp_path)
    assert result["ok"], result
    gates = runner.run(draft, result["reward"], initial, golden, setup.patch)
    assert all(g.passed for g in gates), [g for g in gates if not g.passed]
