"""Defects found in rollouts, handed to the repairers that already exist.

A world defect is a stage-one job: the stage-one loop (`factory.prove.graph.run_stage_one`) runs
on the world as it stands: its claims are compiled (or checked against the seed), verified,
triaged and repaired, each fix a commit kept only when the claims' pass rate does not fall.

A task defect is a stage-two job: the task's draft is rebuilt from its record (the instruction
parsed back as reward-gen parses it, the golden steps, the reference answer resolved again),
its setup replayed and its golden state made through the real backend (`setupgen.run_golden`),
its reward written again by reward-gen in its sandbox (`reward.gen.run_rewardgen`) and every
executed gate run on it (`gates.GateRunner`, then the UI gate: the golden trajectory replayed in
Chromium): only a reward that passes them all replaces the old one in `tasks/tasks.jsonl`.
Tasks hit by a world defect are re-gated the same way after the stage-one repair, with the
reward they have. A task whose gates still fail stays as it is and is
reported open (`make tasks` makes the corpus again).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from episodes.dbfiles import copy_db
from factory.errors import FactoryError, SetupError, TaskError
from factory.predict.rows import UserView
from factory.prove.graph import run_stage_one
from factory.runtime.client import Backend
from factory.runtime.patch import apply_patch
from factory.runtime.step import Step
from factory.spec.model import Spec
from factory.tasks.draft import Draft
from factory.tasks.gates import GateResult, GateRunner, answer_text
from factory.tasks.language.phrasing import ParseError, parse
from factory.tasks.language.resolve import answer
from factory.tasks.model import TaskRecord
from factory.tasks.record import verification_query
from factory.tasks.reward.gen import DEFAULT_POLICY, run_rewardgen
from factory.tasks.setupgen import run_golden
from factory.tasks.triage import weakens
from factory.world.history import commit_all
from factory.world.layout import World

log = logging.getLogger(__name__)


@dataclass
class WorldJob:
    """What the stage-one loop did for the world defects of a rollout triage."""

    tasks: list[str]
    rounds: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    repairs: list[dict[str, Any]] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def changed(self) -> bool:
        return bool(self.kept)

    def to_json(self) -> dict[str, Any]:
        return {"tasks": self.tasks, "rounds": self.rounds, "history": self.history, "kept": self.kept,
                "repairs": self.repairs, "error": self.error}


@dataclass
class TaskJob:
    """A task re-gated: with a reward written again (a task defect) or with its own (after a world
    repair). `outcome` is `repaired` (a new reward passed every gate and was written), `stands`
    (its reward passes every gate on the world as it is now) or `open`."""

    task_id: str
    cause: str
    regenerate: bool
    outcome: str = "open"
    note: str = ""
    gates: list[dict[str, Any]] = field(default_factory=list)
    weakens: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "cause": self.cause, "regenerate": self.regenerate, "outcome": self.outcome,
                "note": self.note, "weakens_old_reward": self.weakens, "gates": self.gates}


def repair_world(world: Path, tasks: list[str], ui: bool) -> WorldJob:
    """The stage-one loop on the world (claims compiled from its seed when it has none)."""
    job = WorldJob(sorted(tasks))
    try:
        state = run_stage_one(world=str(world), ui=ui, target=1.0, max_rounds=3, fresh=True)
    except FactoryError as exc:
        job.error = str(exc)
        return job
    job.rounds = int(state.get("round", 0))
    job.history = list(state.get("history", []))
    job.repairs = [{k: r.get(k) for k in ("round", "fixer", "outcome", "files", "note", "before", "after")}
                   for r in state.get("repairs", [])]
    job.kept = [str(r["fixer"]) for r in state.get("repairs", []) if str(r.get("outcome", "")).startswith("kept")]
    return job


def draft_of(spec: Spec, record: dict[str, Any], initial: Path) -> Draft:
    """The draft behind a task record, as stage two's gates read it: the instruction parsed back
    (as reward-gen parses it) and, for a task with a reference answer, that answer resolved again
    on the initial state."""
    meta = record["metadata"]
    try:
        ask = parse(spec, str(record["goal"]))
    except ParseError as exc:
        raise TaskError(f"the instruction no longer parses: {exc}") from exc
    found = None
    if record.get("reference_answer") is not None:
        if ask.question is None:
            raise TaskError("the task has a reference answer but its instruction asks no question")
        world = UserView.open(spec, initial)
        try:
            found = answer(world, ask.question, int(meta["acting_user_id"]))
        finally:
            world.close()
    return Draft(key=str(record["id"]), task_type=str(record["task_type"]), category=str(record["category"]),
                 user=str(meta["acting_user"]), user_id=int(meta["acting_user_id"]), ask=ask,
                 goal=str(record["goal"]),
                 steps=[Step(s["workflow"], dict(s["params"])) for s in record["golden_steps"]],
                 setup=[Step(s["workflow"], dict(s["params"])) for s in record["setup"]["steps"]],
                 answer=found, form=str(meta.get("phrasing", "generic")), capabilities=list(meta.get("capabilities", [])),
                 required=[{"entity": r["entity"], "id": r["id"]} for r in meta.get("required_entities", [])])


def _read(world: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in World(world).tasks_file.read_text().splitlines() if line.strip()]


def regate(world: Path, jobs: list[TaskJob], work: Path, policy: str = DEFAULT_POLICY,
           sandbox: str = "bwrap") -> list[TaskJob]:
    """Re-gate the tasks of `jobs` on the world as it is now (see the module's docstring); a task
    whose new reward passes every gate is rewritten in tasks.jsonl, and the world committed."""
    spec = World(world).spec
    seed_db = World(world).seed_db
    records = _read(world)
    by_id = {str(r["id"]): r for r in records}
    ready: dict[str, tuple[Draft, Path, Path]] = {}
    with Backend(world, spec, work) as backend:
        for job in jobs:
            record = by_id.get(job.task_id)
            if record is None:
                job.note = "the task is no longer in tasks.jsonl"
                continue
            patch = str(record["setup"]["patch"])
            initial = apply_patch(seed_db, patch, work / "initial" / f"{job.task_id}.db")
            try:
                draft = draft_of(spec, record, initial)
                golden = (run_golden(backend, initial, draft.user, draft.steps, work / "golden" / f"{job.task_id}.db")
                          if draft.steps else initial)
            except (TaskError, SetupError) as exc:
                job.note = f"setup-gen: {exc}"
                continue
            if draft.answer is not None and answer_text(draft.answer) != record.get("reference_answer"):
                job.note = (f"the reference answer is now {answer_text(draft.answer)!r}, not "
                            f"{record.get('reference_answer')!r}")
            ready[job.task_id] = (draft, initial, golden)
        rewards = _rewards(world, [j for j in jobs if j.regenerate and j.task_id in ready], ready, work, policy, sandbox)
        runner = GateRunner(spec, backend, seed_db, work)
        passing: list[tuple[TaskJob, dict[str, Any], list[GateResult]]] = []  # every non-UI gate passed
        try:
            for job in jobs:
                if job.task_id not in ready:
                    continue
                record = by_id[job.task_id]
                reward = rewards.get(job.task_id) if job.regenerate else record["reward"]
                if reward is None:
                    continue
                job.weakens = job.regenerate and weakens(record["reward"], reward)
                draft, initial, golden = ready[job.task_id]
                results = runner.run(draft, reward, initial, golden, str(record["setup"]["patch"]))
                job.gates = [g.to_json() for g in results]
                failed = [g for g in results if not g.passed]
                if failed:
                    job.note = "; ".join(f"{g.name}: {g.detail}" for g in failed)[:600]
                    continue
                passing.append((job, reward, results))
        finally:
            runner.close()
    ui = _ui_gate(world, spec, [(job.task_id, *ready[job.task_id][:2], reward) for job, reward, _ in passing], work)
    for job, reward, results in passing:
        record, verdict = by_id[job.task_id], ui[job.task_id]
        job.gates.append(verdict.to_json())
        if not verdict.passed:
            job.note = f"ui: {verdict.detail}"[:600]
            continue
        if not job.regenerate or reward == record["reward"]:
            job.outcome = "stands"
            job.note = job.note or "every gate passes on the world as it is now, the UI gate included"
            continue
        by_id[job.task_id] = _rewritten(spec, record, reward, [*results, verdict], job)
        job.outcome = "repaired"
    repaired = [j for j in jobs if j.outcome == "repaired"]
    if repaired:
        World(world).tasks_file.write_text("".join(TaskRecord.model_validate(by_id[str(r["id"])]).to_line()
                                                   for r in records))
        commit_all(world, f"rollout triage: {len(repaired)} task reward(s) written again and re-gated "
                          f"({', '.join(j.task_id for j in repaired)})")
    return jobs


def _rewards(world: Path, jobs: list[TaskJob], ready: dict[str, tuple[Draft, Path, Path]], work: Path,
             policy: str, sandbox: str) -> dict[str, dict[str, Any]]:
    """reward-gen, in its sandbox, for the tasks whose reward is written again."""
    if not jobs:
        return {}
    requests = [{"id": j.task_id, "goal": ready[j.task_id][0].goal, "user": ready[j.task_id][0].user,
                 "initial_db": str(ready[j.task_id][1])} for j in jobs]
    results = run_rewardgen(World(world).spec_file, requests, work / "rewardgen", policy, mode=sandbox)
    out: dict[str, dict[str, Any]] = {}
    for job in jobs:
        r = results.get(job.task_id, {"ok": False, "kind": "error", "error": "no result"})
        if r.get("ok"):
            out[job.task_id] = r["reward"]
        else:
            job.note = f"reward-gen ({r.get('kind')}): {r.get('error')}"
    return out


def _ui_gate(world: Path, spec: Spec, runs: list[tuple[str, Draft, Path, dict[str, Any]]],
             work: Path) -> dict[str, GateResult]:
    """The UI gate again, on the world as it is now: each task's golden trajectory replayed in
    Chromium from its initial state, the final database graded with its reward (a READ with the
    answer read off the page), as stage two's gate does."""
    from factory.tasks.ui_gate.solver import run_ui_jobs  # Playwright is only needed here
    from factory.tasks.ui_gate.steps import ui_steps
    from factory.tasks.ui_gate.trajectory import UiJob
    from verifiers.grade import grade

    passwords = {u.username: u.password for u in spec.users}
    jobs = [UiJob(key, copy_db(initial, work / "ui" / f"{key}.db"), draft.user, passwords[draft.user],
                  ui_steps(spec, draft, initial), World(world).trajectories_dir / key)
            for key, draft, initial, _ in runs]
    trajectories = run_ui_jobs(world, spec, jobs, workers=2)
    out: dict[str, GateResult] = {}
    for (key, draft, initial, reward), job in zip(runs, jobs, strict=True):
        t = trajectories[key]
        if not t.ok:
            out[key] = GateResult("ui", False, f"the solver failed: {t.message}")
            continue
        shown = t.answer if draft.task_type == "read" else answer_text(draft.answer)
        g = grade(reward, initial, job.db, shown)
        out[key] = GateResult("ui", g.score == 1.0, f"re-run by rollout triage: {g.explanation}", g.score)
    return out


def _rewritten(spec: Spec, record: dict[str, Any], reward: dict[str, Any], results: list[GateResult],
               job: TaskJob) -> dict[str, Any]:
    """The task's record with its new reward and the gates it passed, the UI gate re-run among them."""
    note = f"rollout triage: the reward was written again ({job.cause}) and passed every gate"
    return {**record, "reward": reward, "gates": [g.to_json() for g in results],
            "verification_query": verification_query(spec, reward), "repairs": [*record.get("repairs", []), note]}


__all__ = ["TaskJob", "WorldJob", "draft_of", "regate", "repair_world"]
