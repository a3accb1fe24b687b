"""Rollout triage end to end on the mock world with its task corpus, through real episode servers.

- the flawed agent's failures are all model defects, each with its seeded cause recovered; the
  golden steps played over HTTP pass and are not flagged; a malformed line and a rollout for an
  unknown task are named, not fatal; the same seed makes the same mistakes;
- in a copy with a fault injected by `factory/mutate/mutations` (archive_note loses its status
  effect) and a reward made wrong on purpose, the golden rollouts of the affected tasks are world
  and task defects; `triage` with repair runs the stage-one loop and stage two's reward-gen and
  gates, and the same rollouts, replayed, pass.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git
import pytest

from episodes.rollouts import Rollout
from factory.agents.flawed import KINDS, read_tasks, run_flawed, run_golden_steps
from factory.agents.oracle import run_oracle
from factory.cli import main
from factory.mutate.run import inject
from factory.rollouts.report import REPORT_JSON, REPORT_MD, TriageReport
from factory.rollouts.served import serve_world
from factory.rollouts.triage import triage_rollouts
from factory.world.history import commit_all

BROKEN_EFFECT = "archive_note effect 1: note.status = 'archived'"
ORACLE_NOISE = 3


def _copy(world: Path, where: Path) -> Path:
    target = where / world.name
    shutil.copytree(world, target, ignore=shutil.ignore_patterns("run", "reports"))
    return target


def _append_bad_lines(rollouts: Path, sample: Rollout) -> tuple[int, int]:
    """A malformed line and a rollout for a task the world does not have; their line numbers."""
    lines = rollouts.read_text().splitlines()
    unknown = sample.model_copy(update={"task_id": "mock-write-no-such-task-001"}).model_dump_json(by_alias=True)
    lines += ['{"world": "mock", "task_id": "mock-read-count-001", "agent": ', unknown]
    rollouts.write_text("\n".join(lines) + "\n")
    return len(lines) - 1, len(lines)


@dataclass
class Played:
    world: Path
    rollouts: Path
    golden: list[Rollout]
    flawed: list[Rollout]
    again: list[Rollout]  # the flawed agent with its default choice, twice with one seed
    twice: list[Rollout]
    bad_lines: tuple[int, int]
    report: TriageReport


@pytest.fixture(scope="module")
def played(mock_tasks_world: Path, tmp_path_factory: pytest.TempPathFactory) -> Played:
    tmp = tmp_path_factory.mktemp("rollouts")
    world = _copy(mock_tasks_world, tmp)  # the triage report is written into the world
    rollouts = tmp / "rollouts.jsonl"
    with serve_world(world, tmp / "served", rollouts=rollouts) as served:
        golden = run_golden_steps(served.eval_url, served.token, world)
        flawed = run_flawed(served.eval_url, served.token, world, None, seed=0, kinds=KINDS)
        some = list(read_tasks(world))[:6]
        again = run_flawed(served.eval_url, served.token, world, some, seed=7)
        twice = run_flawed(served.eval_url, served.token, world, some, seed=7)
    bad = _append_bad_lines(rollouts, golden[0])
    report = triage_rollouts(world, rollouts, repair=False)
    return Played(world, rollouts, golden, flawed, again, twice, bad, report)


def test_every_flawed_failure_is_a_model_defect_with_its_seeded_cause(played: Played) -> None:
    decisions = [d for d in played.report.decisions if d.agent == "flawed"]
    failed = [d for d in decisions if d.failed]
    assert len(failed) >= 30 and all(d.seeded_cause for d in failed)
    wrong = [(d.line, d.task_id, d.seeded_cause, d.defect, d.cause, d.why) for d in failed
             if (d.defect, d.cause) != ("model", d.seeded_cause)]
    assert wrong == []
    assert set(Counter(d.cause for d in failed)) == set(KINDS)  # every kind made and recovered
    data = played.report.to_json()
    assert data["calibration"]["recovered"] == data["calibration"]["failed"] == len(failed)
    assert data["counts"]["world"] == data["counts"]["task"] == 0
    examples = data["examples"]["model:wrong_row"]
    assert examples and examples[0]["evidence"]["findings"][0]["kind"] == "row"


def test_golden_rollouts_pass_and_are_not_flagged(played: Played) -> None:
    assert played.golden and all(r.reward == 1.0 for r in played.golden)
    golden = [d for d in played.report.decisions if d.agent == "golden"]
    assert len(golden) == len(played.golden)
    assert {(d.defect, d.cause) for d in golden} == {("none", "passed")}
    assert all(v["verdict"] is None and v["reward"] == 1.0 for v in played.report.golden.values())


def test_a_malformed_line_and_an_unknown_task_are_named_not_fatal(played: Played) -> None:
    malformed, unknown = played.bad_lines
    data = json.loads((played.world / REPORT_JSON).read_text())
    assert [m["line"] for m in data["malformed"]] == [malformed]
    assert [(u["line"], u["task_id"]) for u in data["unknown_tasks"]] == [(unknown, "mock-write-no-such-task-001")]
    assert data["rollouts"] == len(played.golden) + len(played.flawed) + len(played.again) + len(played.twice)
    text = (played.world / REPORT_MD).read_text()
    assert f"line {malformed}:" in text and "mock-write-no-such-task-001" in text


def test_the_same_seed_makes_the_same_mistakes(played: Played) -> None:
    def mistakes(rollouts: list[Rollout]) -> list[tuple[Any, ...]]:
        return [(r.task_id, r.seeded_cause, r.gave_up, r.answer,
                 [(a.kind, a.target, json.dumps(a.value, sort_keys=True)) for a in r.actions]) for r in rollouts]

    assert mistakes(played.again) == mistakes(played.twice)
    assert len({r.seeded_cause for r in played.again}) >= 2  # the seed picks among the kinds a task admits


def test_a_noisy_rollout_is_replayed_with_its_own_noise(played: Played, tmp_path: Path) -> None:
    """A replay after repair plays the rollout's calls on an episode with the rollout's noise seed,
    so a noisy episode's late answers come again; a clean rollout is replayed clean."""
    from factory.agents.flawed import Harness
    from factory.rollouts.golden import replay

    write = next(r for r in played.golden if any(a.kind == "http" for a in r.actions))
    noisy = write.model_copy(update={"noise_seed": 11})
    with serve_world(played.world, tmp_path / "served") as served, Harness(served.eval_url, served.token) as harness:
        again_noisy, again_clean = replay(harness, noisy), replay(harness, write)
    assert (again_noisy.noise_seed, again_clean.noise_seed) == (11, None)
    assert again_noisy.reward == again_clean.reward == write.reward == 1.0


def test_the_cli_classes_without_repair(played: Played, tmp_path: Path) -> None:
    assert main(["triage", str(played.world), str(played.rollouts), "--no-repair"]) == 0
    data = json.loads((played.world / REPORT_JSON).read_text())
    assert data["repair_tried"] is False and data["counts"] == played.report.counts()
    assert main(["triage", str(played.world), str(tmp_path / "missing.jsonl"), "--no-repair"]) == 2


# ---------------------------------------------------------------- injected defects, repaired ----

@dataclass
class Repaired:
    world: Path
    original: dict[str, dict[str, Any]]  # the tasks as stage two accepted them
    broken_reward: str  # the task whose reward was made wrong
    archive_tasks: set[str]  # the tasks whose golden steps call the broken workflow
    golden: list[Rollout]
    oracle: list[Rollout]
    report: TriageReport


def _break_a_reward(world: Path, skip: set[str]) -> str:
    """One write task's reward made wrong on purpose: a row check expects another value."""
    path = world / "tasks" / "tasks.jsonl"
    tasks = [json.loads(line) for line in path.read_text().splitlines()]
    chosen = ""
    for task in tasks:
        check = next((c for c in task["reward"]["checks"] if c["type"] == "row_matches"), None)
        if chosen or task["id"] in skip or task["task_type"] != "write" or check is None:
            continue
        column, value = next(iter(check["expect"].items()))
        check["expect"][column] = value + 1 if isinstance(value, int) else f"{value}x"
        chosen = task["id"]
    assert chosen, "no write task with a row check to break"
    path.write_text("".join(json.dumps(t, sort_keys=True) + "\n" for t in tasks))
    assert commit_all(world, f"test: the reward of {chosen} made wrong on purpose")
    return chosen


@pytest.fixture(scope="module")
def repaired(mock_tasks_world: Path, tmp_path_factory: pytest.TempPathFactory) -> Repaired:
    tmp = tmp_path_factory.mktemp("faulty")
    world = _copy(mock_tasks_world, tmp / "worlds")
    original = read_tasks(world)
    archive = {t for t, r in original.items() if any(s["workflow"] == "archive_note" for s in r["golden_steps"])}
    assert archive, "the corpus has no task that archives a note"
    fault = inject(world, "break_effect", 0, target=BROKEN_EFFECT)
    assert fault.files == ("app/backend/workflows.py",)
    broken = _break_a_reward(world, archive)
    rollouts = tmp / "rollouts.jsonl"
    with serve_world(world, tmp / "served", rollouts=rollouts) as served:
        golden = run_golden_steps(served.eval_url, served.token, world)
        run_flawed(served.eval_url, served.token, world, None, seed=1)
        # the oracle in Chromium, noisy: its browser actions cannot be replayed over HTTP
        oracle = run_oracle(world, served.eval_url, served.token, sorted(archive | {broken}), noise_seed=ORACLE_NOISE)
    report = triage_rollouts(world, rollouts, repair=True, ui=False)
    return Repaired(world, original, broken, archive, golden, oracle, report)


def test_golden_rollouts_of_tasks_the_fault_hits_are_world_defects(repaired: Repaired) -> None:
    failing = {r.task_id for r in repaired.golden if r.reward != 1.0}
    assert failing == repaired.archive_tasks | {repaired.broken_reward}
    golden = {d.task_id: d for d in repaired.report.decisions if d.agent == "golden"}
    for task in repaired.archive_tasks:
        assert (golden[task].defect, golden[task].cause) == ("world", "golden_diverged"), golden[task].why
        assert "status" in golden[task].evidence["reference_diff"]
        assert "status" not in golden[task].evidence["golden_diff"]
    others = {d.task_id for d in repaired.report.flagged() if d.defect == "world"}
    assert others == repaired.archive_tasks  # no other task is blamed on the world


def test_a_wrong_reward_is_a_task_defect(repaired: Repaired) -> None:
    d = next(d for d in repaired.report.decisions if d.agent == "golden" and d.task_id == repaired.broken_reward)
    assert (d.defect, d.cause) == ("task", "reward_disagrees"), d.why
    assert d.evidence["rollout_diff"] == d.evidence["golden_diff"] == d.evidence["reference_diff"]
    flagged_task = {x.task_id for x in repaired.report.flagged() if x.defect == "task"}
    assert flagged_task == {repaired.broken_reward}


def test_stage_one_repairs_the_world(repaired: Repaired) -> None:
    job = repaired.report.world_job
    assert job is not None and job["tasks"] == sorted(repaired.archive_tasks)
    assert "regenerate_backend" in job["kept"], (job["error"], job)
    assert job["history"][-1]["passed"] == job["history"][-1]["total"]
    workflows = (repaired.world / "app" / "backend" / "workflows.py").read_text()
    assert 'note.status = "archived"' in workflows
    messages = [str(c.message) for c in git.Repo(repaired.world).iter_commits()]
    assert any(m.startswith("repair(regenerate_backend)") for m in messages)
    regated = {j["task_id"]: j for j in repaired.report.task_jobs if j["cause"] == "world defect"}
    assert set(regated) == repaired.archive_tasks and {j["outcome"] for j in regated.values()} == {"stands"}
    assert all(any(g["name"] == "ui" and g["passed"] for g in j["gates"]) for j in regated.values())


def test_stage_two_repairs_the_reward(repaired: Repaired) -> None:
    job = next(j for j in repaired.report.task_jobs if j["task_id"] == repaired.broken_reward)
    assert (job["regenerate"], job["outcome"]) == (True, "repaired"), job
    assert all(g["passed"] for g in job["gates"])
    assert {"initial", "golden", "determinism", "ui"} <= {g["name"] for g in job["gates"]}
    ui = next(g for g in job["gates"] if g["name"] == "ui")
    assert ui["detail"].startswith("re-run by rollout triage"), ui  # replayed in Chromium, not carried over
    now = read_tasks(repaired.world)[repaired.broken_reward]
    assert now["reward"] == repaired.original[repaired.broken_reward]["reward"]  # what reward-gen wrote at first
    assert now["repairs"][-1].startswith("rollout triage: the reward was written again")


def test_after_repair_the_same_rollouts_pass(repaired: Repaired) -> None:
    after = repaired.report.after
    affected = repaired.archive_tasks | {repaired.broken_reward}
    golden = [d for d in after if d.agent == "golden"]
    assert {d.task_id for d in golden} == affected
    assert all(d.passed and d.reward == 1.0 for d in golden), [(d.task_id, d.reward, d.why) for d in golden]
    assert all(repaired.report.after_how[d.line] == "replayed" for d in after if d.agent != "oracle")
    flawed = [d for d in after if d.agent == "flawed" and d.failed]
    assert all((d.defect, d.cause) == ("model", d.seeded_cause) for d in flawed), [(d.task_id, d.cause) for d in flawed]
    data = json.loads((repaired.world / REPORT_JSON).read_text())
    assert data["open"] == [] and data["after_repair"]["counts"]["world"] == data["after_repair"]["counts"]["task"] == 0
    assert git.Repo(repaired.world).head.commit.message.startswith("rollout triage:")
    assert not git.Repo(repaired.world).is_dirty(untracked_files=True)


def test_the_oracles_browser_runs_are_played_again_with_their_own_noise(repaired: Repaired) -> None:
    """The oracle's rollouts of the broken tasks fail before the repair (its actions are clicks, not
    HTTP calls), are classed like the golden steps' and, after it, are played again by the oracle
    in Chromium with each rollout's own noise seed, and pass."""
    assert {r.task_id for r in repaired.oracle if r.reward != 1.0} == repaired.archive_tasks | {repaired.broken_reward}
    assert all(r.noise_seed is not None and r.actions[-1].kind != "http" for r in repaired.oracle)
    before = {d.task_id: d for d in repaired.report.decisions if d.agent == "oracle"}
    assert {t: before[t].defect for t in repaired.archive_tasks} == dict.fromkeys(repaired.archive_tasks, "world")
    assert before[repaired.broken_reward].defect == "task"
    after = [d for d in repaired.report.after if d.agent == "oracle"]
    assert {d.task_id for d in after} == set(before)
    assert all(repaired.report.after_how[d.line] == "played again by the oracle" for d in after)
    assert all(d.passed and d.reward == 1.0 for d in after), [(d.task_id, d.reward, d.why) for d in after]
