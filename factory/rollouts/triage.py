"""`make triage WORLD=... ROLLOUTS=file.jsonl`: every rollout of a file classed, defects repaired,
the affected rollouts classed again, and a report written into the world.

1. Read: every line of the rollouts file (`episodes.rollouts.read_rollouts`); a malformed line is
   reported by its number and skipped, a rollout for a task the world does not have is named
   and not classed (nothing is guessed), the rest is kept.
2. Evidence: the world is served (a copy, `served.serve_world`) and each task with rollouts has
   its golden steps re-run over HTTP on a fresh episode (`golden.run_golden`); its reference
   change is rebuilt from its record (the setup patch, then the recorded change, on the seed).
3. Classify (`classify.Classifier`): world, task or model defect, with the cause and evidence.
4. Repair (unless `repair=False`): world defects are one stage-one job; then every task with a
   task defect has its reward written again and re-gated, and every task hit by a world defect is
   re-gated with its own (`repair`). The repaired world is served again: the golden runs of the
   affected tasks are re-run and the affected rollouts replayed (their HTTP calls on a fresh
   episode with the rollout's noise seed; the old episode's state is gone), or, for the oracle's
   browser runs, played again by the oracle in Chromium with their own noise seed, and classed again.
5. Report: `reports/rollout_triage.json` and `.md` (`report.TriageReport`).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from episodes.rollouts import Rollout, read_rollouts
from factory.agents.flawed import Harness, read_tasks
from factory.agents.oracle import AGENT as ORACLE_AGENT
from factory.agents.oracle import play_again
from factory.llm.ask import open_llm
from factory.llm.keep import add_usage
from factory.progress import say
from factory.rollouts.classify import NONE, TASK, WORLD, Classifier, Decision, TaskContext
from factory.rollouts.golden import replay, replayable, run_golden
from factory.rollouts.judge import second_opinions
from factory.rollouts.repair import TaskJob, regate, repair_world
from factory.rollouts.report import TriageReport
from factory.rollouts.served import serve_world
from factory.runtime.patch import apply_patch
from factory.tasks.reward.gen import DEFAULT_POLICY
from factory.world.history import commit_all
from factory.world.layout import World
from verifiers import diff_databases

Numbered = list[tuple[int, Rollout]]


def read_numbered(path: Path) -> tuple[Numbered, list[dict[str, Any]]]:
    """Every valid record with its line number, and each malformed line's number and reason."""
    records, errors = read_rollouts(path)
    bad = {e.number for e in errors}
    numbers = [n for n, line in enumerate(Path(path).read_text().splitlines(), start=1)
               if line.strip() and n not in bad]
    return list(zip(numbers, records, strict=True)), [{"line": e.number, "reason": e.reason} for e in errors]


def events_reader(rollouts_file: Path) -> Any:
    """A rollout's server events, from the side file its record names (relative to the rollouts file)."""
    def read(rollout: Rollout) -> list[dict[str, Any]]:
        if not rollout.events_file:
            return []
        path = (rollouts_file.parent / rollout.events_file).resolve()
        try:
            found = json.loads(path.read_text())
        except (OSError, ValueError):
            return []
        events = found.get("events", []) if isinstance(found, dict) else []
        return [e for e in events if isinstance(e, dict)]
    return read


def reference_diff(world: Path, task: dict[str, Any], work: Path) -> tuple[dict[str, Any], Path]:
    """The change the task was accepted with (its record's reference SQL on its initial state),
    as a diff; and the initial state."""
    seed = World(world).seed_db
    initial = apply_patch(seed, str(task["setup"]["patch"]), work / "initial" / f"{task['id']}.db")
    expected = apply_patch(initial, str(task["reference_state_change"]["sql"]), work / "expected" / f"{task['id']}.db")
    return diff_databases(initial, expected).to_json(), initial


def gather(world: Path, tasks: dict[str, dict[str, Any]], ids: Iterable[str], scratch: Path,
           classifier: Classifier) -> dict[str, TaskContext]:
    """Each task's context: reference change, initial state, and its golden run on a served copy."""
    wanted = sorted(set(ids))
    contexts: dict[str, TaskContext] = {}
    if not wanted:
        return contexts
    with serve_world(world, scratch / "served") as served, Harness(served.eval_url, served.token) as harness:
        for task_id in wanted:
            task = tasks[task_id]
            reference, initial = reference_diff(world, task, scratch)
            ctx = TaskContext(task, reference, initial, run_golden(harness, task))
            ctx.verdict = classifier.judge_golden(ctx)
            contexts[task_id] = ctx
    return contexts


def triage_rollouts(world: Path, rollouts: Path, repair: bool = True, ui: bool = True, policy: str = DEFAULT_POLICY,
                    sandbox: str = "bwrap", write: bool = True) -> TriageReport:
    """Class every rollout of `rollouts` for `world`; with `repair`, hand the world and task
    defects to the repairers and class the affected rollouts again. Writes the report (unless
    `write` is false) and returns it."""
    world = Path(world).resolve()
    rollouts = Path(rollouts).resolve()
    spec = World(world).spec
    report = TriageReport(world=spec.world, rollouts_file=str(rollouts), repair_tried=repair)
    numbered, report.malformed = read_numbered(rollouts)
    tasks = read_tasks(world)
    known: Numbered = []
    for line, r in numbered:
        reason = ""
        if r.world != spec.world:
            reason = f"the rollout is of world {r.world!r}, not {spec.world!r}"
        elif r.task_id not in tasks:
            reason = f"no task {r.task_id!r} in {World(world).tasks_file.name}"
        if reason:
            report.unknown.append({"line": line, "task_id": r.task_id, "episode_id": r.episode_id, "agent": r.agent,
                                   "reason": reason})
        else:
            known.append((line, r))
    for m in report.malformed:
        say(f"triage: {rollouts.name}:{m['line']}: malformed, skipped ({m['reason']})")
    for u in report.unknown:
        say(f"triage: {rollouts.name}:{u['line']}: {u['reason']}; not classed")
    classifier = Classifier(spec, events_reader(rollouts))
    with tempfile.TemporaryDirectory(prefix="rollout-triage-") as tmp:
        scratch = Path(tmp)
        started = time.perf_counter()
        contexts = gather(world, tasks, (r.task_id for _, r in known), scratch / "before", classifier)
        report.seconds["evidence"] = round(time.perf_counter() - started, 3)
        report.golden = {k: {**c.golden.to_json(), "verdict": None if c.verdict is None else
                             {"class": c.verdict.defect, "cause": c.verdict.cause, "why": c.verdict.why}}
                         for k, c in contexts.items()}
        started = time.perf_counter()
        report.decisions = [classifier.classify(r, contexts[r.task_id], line) for line, r in known]
        report.seconds["classify"] = round(time.perf_counter() - started, 3)
        # with a model: a second opinion on READ answers scored 0, which can only flag them for review
        llm = open_llm()
        report.judge = second_opinions(report.decisions, {line: r.answer for line, r in known}, tasks, llm)
        if llm is not None and write:
            add_usage(world, llm.ledger)
        if report.judge is not None:
            say(f"triage: the judge read {report.judge['asked']} READ answer(s) scored 0 and flagged "
                f"{len(report.judge['flagged'])} for review (rewards unchanged)")
        counts = report.counts()
        say(f"triage: {len(known)} rollouts, {sum(d.failed for d in report.decisions)} failed: "
            + ", ".join(f"{c} {n}" for c, n in counts.items()))
        if repair:
            started = time.perf_counter()
            _repair(world, report, known, tasks, ui, policy, sandbox, scratch)
            report.seconds["repair"] = round(time.perf_counter() - started, 3)
    if write:
        report.write(world)
        if repair and (report.world_job is not None or report.task_jobs):
            commit_all(world, f"rollout triage: {len(report.decisions)} rollouts classed, "
                              f"{len(report.open_defects())} defect(s) still open")
    return report


def _repair(world: Path, report: TriageReport, known: Numbered, tasks: dict[str, dict[str, Any]], ui: bool,
            policy: str, sandbox: str, scratch: Path) -> None:
    flagged = report.flagged()
    world_tasks = sorted({d.task_id for d in flagged if d.defect == WORLD})
    task_causes = {d.task_id: d.cause for d in flagged if d.defect == TASK and d.task_id not in world_tasks}
    if not world_tasks and not task_causes:
        say("triage: no world or task defect to repair")
        return
    if world_tasks:
        say(f"triage: world defects in {len(world_tasks)} task(s): the stage-one loop repairs the world")
        job = repair_world(world, world_tasks, ui)
        report.world_job = job.to_json()
        say(f"triage: stage one: {job.rounds} round(s), kept {', '.join(job.kept) or 'nothing'}"
            + (f"; {job.error}" if job.error else ""))
    jobs = [TaskJob(t, "world defect", regenerate=False) for t in world_tasks]
    jobs += [TaskJob(t, cause, regenerate=True) for t, cause in sorted(task_causes.items())]
    say(f"triage: stage two re-gates {len(jobs)} task(s) ({len(task_causes)} with their reward written again)")
    regate(world, jobs, scratch / "regate", policy, sandbox)
    report.task_jobs = [j.to_json() for j in jobs]
    for j in jobs:
        say(f"triage: {j.task_id}: {j.outcome}{': ' + j.note if j.note else ''}")
    # the affected rollouts, classed again on the repaired world
    affected = set(world_tasks) | set(task_causes)
    tasks.update({k: v for k, v in read_tasks(world).items() if k in affected})
    classifier = Classifier(World(world).spec)
    again: list[Decision] = []
    with serve_world(world, scratch / "after" / "served") as served, Harness(served.eval_url, served.token) as harness:
        contexts: dict[str, TaskContext] = {}
        for task_id in sorted(affected):
            reference, initial = reference_diff(world, tasks[task_id], scratch / "after")
            ctx = TaskContext(tasks[task_id], reference, initial, run_golden(harness, tasks[task_id]))
            ctx.verdict = classifier.judge_golden(ctx)
            contexts[task_id] = ctx
        # the oracle's browser runs cannot be replayed as HTTP calls, but the oracle can play them
        # again (its trajectory is the golden one), each with its own noise seed
        oracle_runs = [(line, r) for line, r in known if r.task_id in affected and not replayable(r)
                       and r.agent == ORACLE_AGENT]
        played = dict(zip((line for line, _ in oracle_runs),
                          play_again(world, served.eval_url, served.token,
                                     [(r.task_id, r.noise_seed) for _, r in oracle_runs]), strict=True))
        for line, rollout in known:
            if rollout.task_id not in affected:
                continue
            ctx = contexts[rollout.task_id]
            if replayable(rollout):
                again.append(classifier.classify(replay(harness, rollout), ctx, line))
                report.after_how[line] = "replayed"
            elif line in played:
                again.append(classifier.classify(played[line], ctx, line))
                report.after_how[line] = "played again by the oracle"
            else:
                verdict = ctx.verdict
                again.append(Decision(line, rollout.task_id, rollout.episode_id, rollout.agent, None, verdict is None,
                                      verdict.defect if verdict else NONE, verdict.cause if verdict else "resolved",
                                      verdict.why if verdict else "the golden run passes now; the rollout's own "
                                      "actions are not HTTP calls and cannot be replayed",
                                      verdict.evidence if verdict else {}, rollout.seeded_cause))
                report.after_how[line] = "golden re-run only"
    report.after = again
    counts = report.counts(again)
    say(f"triage: after repair, {sum(d.passed for d in again)}/{len(again)} affected rollouts pass; "
        + ", ".join(f"{c} {n}" for c, n in counts.items()))


__all__ = ["events_reader", "gather", "read_numbered", "reference_diff", "triage_rollouts"]
