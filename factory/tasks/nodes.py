"""Stage two end to end: propose → setup → reward-gen (isolated) → gates → triage/repair → UI gate →
world hand-over → tasks.jsonl.

Runs on a proven world. One app server (rebound per episode by control token) serves setup-gen,
the golden runs and the counterfactuals; reward-gen runs in its own sandboxed process; the UI gate
runs scripted Chromium sessions. Failures are triaged to the layer at fault and repaired (the
instruction rephrased, the setup or the whole draft regenerated, the reward regenerated unless
that would weaken it). Failures at the world layer (the app disagrees with its spec) are handed to
the stage-one repairer (`handover.py`); when it keeps a repair, every draft still standing is gated
again on the repaired app. What still fails is discarded with its reason in `tasks/report.json`.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from episodes.dbfiles import copy_db
from factory.errors import SetupError, TaskError
from factory.llm.ask import open_llm
from factory.llm.keep import add_usage
from factory.progress import say
from factory.runtime.client import Backend
from factory.runtime.patch import apply_patch
from factory.spec.model import Spec
from factory.tasks.attempt import Attempt, dump_attempts, load_attempts
from factory.tasks.coverage import write_coverage
from factory.tasks.diversity import split_near_duplicates, spread, spread_lines
from factory.tasks.gates import GateRunner
from factory.tasks.handover import WorldFailure, hand_over, kept_repairs, records_json
from factory.tasks.propose.proposer import Draft, Plan, Proposer
from factory.tasks.propose.rewording import reword_drafts
from factory.tasks.record import task_record
from factory.tasks.reward.gen import DEFAULT_POLICY, run_rewardgen
from factory.tasks.setupgen import build_setup, run_golden
from factory.tasks.top_up import distinct, top_up
from factory.tasks.triage import triage, weakens
from factory.tasks.ui_gate.gate import ui_gate
from factory.world.history import commit_all
from factory.world.layout import World
from factory.world.manifest import MANIFEST_VERSION, TasksByType, TasksSummary, read_manifest, write_manifest

log = logging.getLogger(__name__)
MAX_ROUNDS = 3  # task-level repair rounds per pass over the drafts
MAX_WORLD_ROUNDS = 2  # hand-overs to the stage-one repairer


@dataclass
class StageTwoResult:
    drafted: int
    accepted: int
    by_type: dict[str, int]
    rounds: int
    seconds: float
    gates: dict[str, int]

    @property
    def rate(self) -> float:
        return self.accepted / self.drafted if self.drafted else 0.0

    def summary(self) -> str:
        return f"tasks: {self.accepted}/{self.drafted} accepted ({100 * self.rate:.1f}%)"


class TaskState(BaseModel):
    """What the stage-two graph carries between nodes (and checkpoints); the drafts themselves
    live in `run/tasks/attempts.json`, rewritten by every node."""

    # A misspelt key in the start state (`run_stage_two`) is an error; the fields' defaults are the
    # values a node sees before any node has set them.
    model_config = ConfigDict(extra="forbid")

    world: str = Field(description="The world's directory (absolute).")
    total: int = Field(190, description="How many drafts the proposer makes.")
    ui: bool = Field(True, description="Whether the UI gate runs (Chromium).")
    workers: int = Field(2, description="Parallel browser sessions of the UI gate.")
    policy: str = Field(DEFAULT_POLICY, description="The reward-gen policy module.")
    round: int = Field(0, description="Task-level repair rounds so far.")
    round_base: int = Field(0, description="`round` when the current pass began (a world repair starts a new pass).")
    world_round: int = Field(0, description="Hand-overs to the stage-one repairer so far.")
    world_repairs: list[dict[str, Any]] = Field(default_factory=list, description="What the stage-one repairer did.")
    pending: list[str] = Field(default_factory=list, description="The drafts the next nodes work on.")
    failed: list[str] = Field(default_factory=list, description="The drafts the last gates failed.")
    started: float | None = Field(None, description="When the proposer ran (epoch seconds).")
    status: str = Field("", description="The summary line, once written.")
    rewardgen_sandbox: str = Field("bwrap", description="Where reward-gen runs: `bwrap` (Linux namespaces) or "
                                                      "`unsafe` (--unsafe-sandbox).")


def _work(state: TaskState) -> Path:
    return World(state.world).tasks_work


def _spec(state: TaskState) -> Spec:
    return World(state.world).spec


def _load(state: TaskState) -> list[Attempt]:
    return load_attempts((_work(state) / "attempts.json").read_text())


def _save(state: TaskState, attempts: list[Attempt]) -> None:
    path = _work(state) / "attempts.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(dump_attempts(attempts))
    tmp.replace(path)  # atomic: an interrupted node leaves the previous node's file intact


def _options(backend: Backend, seed_db: Path, work: Path) -> Callable[[str, str, str], list[int]]:
    cache: dict[tuple[str, str, str], list[int]] = {}
    db = copy_db(seed_db, work / "options.db")  # only read (options are GET requests)

    def options(user: str, workflow: str, param: str) -> list[int]:
        key = (user, workflow, param)
        if key not in cache:
            cache[key] = backend.options(db, user, workflow, param)
        return cache[key]

    return options


# ---------------------------------------------------------------- graph nodes -----------------

def propose_node(state: TaskState) -> dict[str, Any]:
    """Proposer: drafts grounded in the seed database (a fresh working folder)."""
    world = Path(state.world)
    work = _work(state)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    spec = _spec(state)
    stale = [w.name for w in spec.workflows for e in w.effects
             if not w.system and e.to is None and e.values is None and e.target is None]
    if stale:
        raise TaskError(f"{world}: the spec predates stage two (workflow {stale[0]} keeps no effect "
                        f"expressions); rebuild the world: make world SEED={world / 'seed.yaml'}")
    seed_db = World(world).seed_db
    with Backend(world, spec, work) as backend:
        proposer = Proposer(spec, seed_db, _options(backend, seed_db, work))
        drafts, near = distinct(spec, proposer, proposer.propose(Plan.for_total(state.total)))
        drafts, near = top_up(spec, proposer, drafts, near, state.total)
        llm = open_llm()
        # with a model: the texts said again, each kept only if it passes the deterministic texts' gates
        reworded = reword_drafts(proposer, drafts, llm)
        found: dict[str, Any] = {"unusable_intent_phrasings": proposer.unusable_intents(), "near_duplicates": near,
                                 "skipped": sorted(Counter(s.split(":")[0] for s in proposer.skipped).items()),
                                 # the words of each kind's first skips: why a workflow got no task
                                 "skipped_examples": _examples(proposer.skipped)}
        if llm is not None:
            found["model_phrasings"] = reworded.to_json()
        (work / "proposer.json").write_text(json.dumps(found, sort_keys=True))
        proposer.close()
    say(f"proposer: {len(drafts)} drafts ({_mix(drafts)})")
    if llm is not None:
        add_usage(world, llm.ledger)
        say(f"proposer: the model reworded {reworded.kept} of {reworded.asked} texts ({reworded.offered} offered, "
            f"{len(reworded.dropped)} failed a gate); {llm.ledger.summary()}")
    attempts = [Attempt(d) for d in drafts]
    _save(state, attempts)
    return {"round": 0, "pending": [d.key for d in drafts], "failed": [], "started": time.time()}


def setup_node(state: TaskState) -> dict[str, Any]:
    """setup-gen: each pending draft's initial state (a replayed patch) and golden state."""
    world = Path(state.world)
    attempts = _load(state)
    pending = set(state.pending)
    with Backend(world, _spec(state), _work(state)) as backend:
        _prepare([a for a in attempts if a.draft.key in pending], backend, World(world).seed_db, _work(state))
    _save(state, attempts)
    return {}


def reward_node(state: TaskState) -> dict[str, Any]:
    """reward-gen, in its sandboxed process, for every pending draft whose setup stands."""
    attempts = _load(state)
    pending = set(state.pending)
    _rewards([a for a in attempts if a.draft.key in pending], Path(state.world), _work(state),
             state.policy, state.round, state.rewardgen_sandbox)
    _save(state, attempts)
    return {}


def gate_node(state: TaskState) -> dict[str, Any]:
    """The executed gates (all but the UI one) for every pending draft."""
    world = Path(state.world)
    attempts = _load(state)
    pending = [a for a in attempts if a.draft.key in set(state.pending)]
    spec = _spec(state)
    with Backend(world, spec, _work(state)) as backend:
        runner = GateRunner(spec, backend, World(world).seed_db, _work(state))
        for a in pending:
            if a.failure is None:
                _gate(a, runner)
        runner.close()
    failed = [a.draft.key for a in pending if a.failure is not None]
    say(f"gates: round {state.round}: {len(pending) - len(failed)}/{len(pending)} drafts pass")
    _save(state, attempts)
    return {"failed": failed}


def route_after_gates(state: TaskState) -> str:
    """Repair while something failed and the round budget lasts; then the UI gate."""
    spent = state.round - state.round_base
    return "repair" if state.failed and spent < MAX_ROUNDS else "ui"


def repair_node(state: TaskState) -> dict[str, Any]:
    """Repair each failed draft for its layer; the repaired ones run every gate again."""
    world = Path(state.world)
    spec = _spec(state)
    attempts = _load(state)
    failed = set(state.failed)
    round_no = state.round + 1
    proposer = Proposer(spec, World(world).seed_db)
    repaired = []
    for a in attempts:
        if a.draft.key in failed:
            # Seeded per draft and round: a resumed run regenerates exactly the same drafts.
            proposer.rng.seed(f"{spec.random_seed}:repair:{a.draft.key}:{round_no}")
            if _repair(a, proposer, spec):
                repaired.append(a.draft.key)
    proposer.close()
    say(f"repair: round {round_no}: {len(repaired)} of {len(failed)} failed drafts repaired")
    _save(state, attempts)
    return {"round": round_no, "pending": repaired, "failed": []}


def route_after_repair(state: TaskState) -> str:
    return "setup" if state.pending else "ui"


def ui_node(state: TaskState) -> dict[str, Any]:
    """UI feasibility for every draft that passed the other gates."""
    attempts = _load(state)
    if state.ui:
        world = Path(state.world)
        ui_gate([a for a in attempts if a.failure is None], world, _spec(state), _work(state),
                 state.workers, say)
    _save(state, attempts)
    return {}


def world_node(state: TaskState) -> dict[str, Any]:
    """Hand the world-layer failures to the stage-one repairer. When it keeps a repair the app has
    changed under every draft, so all that stand, and those that failed for the world, go through
    setup-gen, reward-gen and every gate again."""
    attempts = _load(state)
    failing = [a for a in attempts if a.failure is not None and a.failure.layer == "world"]
    round_no = state.world_round + 1
    if not failing or round_no > MAX_WORLD_ROUNDS:
        return {"pending": []}
    world = Path(state.world)
    failures = [WorldFailure(a.draft.key, a.draft.steps[0].workflow if a.draft.steps else None,
                             a.failure.kind, a.failure.message) for a in failing if a.failure is not None]
    say(f"world: handing {len(failures)} world-layer failures to the stage-one repairer")
    records = hand_over(world, failures, round_no, state.ui)
    kept = kept_repairs(records)
    outcome = ", ".join(f"{r.fixer} {r.outcome}" for r in records) or "no fixer applies"
    for a in failing:
        a.repairs.append(f"world defect handed to the stage-one repairer (round {round_no}): {outcome}")
    for r in records:
        say(f"world: round {round_no}: {r.fixer} → {r.outcome} ({len(r.files)} files){': ' + r.note if r.note else ''}")
    history = [*state.world_repairs, *records_json(records)]
    pending = [a.draft.key for a in attempts if kept and (a.failure is None or a.failure.layer == "world")]
    _save(state, attempts)
    return {"world_round": round_no, "world_repairs": history, "pending": pending, "failed": [],
            "round_base": state.round}


def route_after_world(state: TaskState) -> str:
    return "setup" if state.pending else "write"


def write_node(state: TaskState) -> dict[str, Any]:
    """Write `tasks/`, the manifest and the summary line; commit."""
    world = Path(state.world)
    attempts = _load(state)
    meta = json.loads((_work(state) / "proposer.json").read_text())
    seconds = 0.0 if state.started is None else time.time() - state.started
    result = _write(world, _spec(state), attempts, state.round, seconds, meta, state.ui,
                    state.world_repairs, state.rewardgen_sandbox)
    shutil.rmtree(_work(state), ignore_errors=True)
    say(result.summary())
    return {"status": result.summary()}


def read_result(world: Path) -> StageTwoResult:
    report = json.loads(World(world).tasks_report.read_text())
    manifest = read_manifest(World(world).manifest_file)
    timings = World(world).tasks_timings
    seconds = float(json.loads(timings.read_text())["seconds"]) if timings.is_file() else 0.0
    return StageTwoResult(report["drafted"], report["accepted"], report["by_type"], report["rounds"],
                          seconds, dict(manifest.gates))


def _examples(skipped: list[str], per_kind: int = 2) -> dict[str, list[str]]:
    """The first `per_kind` skip messages of each kind ("write approve_leave: …"), whole."""
    out: dict[str, list[str]] = {}
    for text in skipped:
        kept = out.setdefault(text.split(":")[0], [])
        if len(kept) < per_kind and text not in kept:
            kept.append(text[:300])
    return dict(sorted(out.items()))


def _mix(drafts: list[Draft]) -> str:
    counts = Counter(d.task_type for d in drafts)
    return ", ".join(f"{k} {counts[k]}" for k in ("read", "write", "read_write"))


# ---------------------------------------------------------------- pipeline steps --------------

def _prepare(attempts: list[Attempt], backend: Backend, seed_db: Path, work: Path) -> None:
    """setup-gen: the initial state (patch replayed on the seed) and the golden state."""
    for a in attempts:
        d = a.draft
        a.failure, a.gates, a.reward = None, [], None
        try:
            a.setup = build_setup(backend, seed_db, d.user, d.setup, work / "setup")
            a.initial = (apply_patch(seed_db, a.setup.patch, work / "initial" / f"{d.key}.db")
                         if a.setup.patch else seed_db)
            a.golden = (run_golden(backend, a.initial, d.user, d.steps, work / "golden" / f"{d.key}.db")
                        if d.steps else a.initial)
        except SetupError as exc:
            a.failure = triage("setup", str(exc))


def _rewards(attempts: list[Attempt], world: Path, work: Path, policy: str, round_no: int,
             sandbox: str = "bwrap") -> None:
    """reward-gen, in its sandboxed process, for every draft whose setup stands."""
    jobs = [{"id": a.draft.key, "goal": a.draft.goal, "user": a.draft.user, "initial_db": str(a.initial)}
            for a in attempts if a.failure is None]
    if not jobs:
        return
    results = run_rewardgen(World(world).spec_file, jobs, work / f"rewardgen-{round_no}", policy, mode=sandbox)
    for a in attempts:
        if a.failure is not None:
            continue
        r = results[a.draft.key]
        if r["ok"]:
            if a.previous_reward is not None and weakens(a.previous_reward, r["reward"]):
                a.failure = triage("weakening", "the regenerated reward asks for less; refused")
            else:
                a.reward = r["reward"]
        else:
            a.failure = triage(r["kind"], r["error"])


def _gate(a: Attempt, runner: GateRunner) -> None:
    assert a.reward is not None and a.initial is not None and a.golden is not None and a.setup is not None
    a.gates = runner.run(a.draft, a.reward, a.initial, a.golden, a.setup.patch)
    bad = [g for g in a.gates if not g.passed]
    if bad:
        a.failure = triage("gate:" + bad[0].name, "; ".join(f"{g.name}: {g.detail}" for g in bad)[:600])


def _repair(a: Attempt, proposer: Proposer, spec: Spec) -> bool:
    """Apply the repair the failure's layer calls for; False when there is none left to try."""
    assert a.failure is not None
    layer, why = a.failure.layer, f"({a.failure.kind}): {a.failure.message[:120]}"
    if layer == "task" and proposer.rephrase(a.draft):
        a.repairs.append(f"rephrased {why}")
        return True
    if layer == "reward" and a.previous_reward is None and a.reward is not None:
        # Regenerate the reward (setup and golden state stay); one that asks for less is refused.
        a.previous_reward = a.reward
        a.repairs.append(f"regenerated the reward {why}")
        return True
    if layer in ("task", "setup"):
        fresh = proposer.regenerate(a.draft)
        if fresh is not None:
            a.repairs.append(f"regenerated the draft {why}")
            fresh.key = a.draft.key
            a.draft, a.previous_reward = fresh, None
            return True
    return False


def _write(world: Path, spec: Spec, attempts: list[Attempt], rounds: int, seconds: float,
           meta: dict[str, Any], ui: bool, world_repairs: list[dict[str, Any]],
           sandbox: str = "bwrap") -> StageTwoResult:
    out = World(world).tasks_dir
    out.mkdir(exist_ok=True)
    accepted = [a for a in attempts if a.failure is None]
    # Repairs regenerate drafts: one may have become a near-duplicate of another accepted one.
    kept, late = split_near_duplicates(spec, [a.draft for a in accepted])
    accepted = [a for a in accepted if any(a.draft is d for d in kept)]
    records = [task_record(spec, a.draft, a.setup, a.reward, a.gates, a.trajectory, a.repairs, a.golden,
                           a.initial, world) for a in accepted]
    World(world).tasks_file.write_text("".join(r.to_line() for r in records))
    gates: Counter[str] = Counter()
    for a in accepted:
        for g in a.gates:
            gates[g.name.split(":")[0] + "_passed"] += 1
    by_type = Counter(a.draft.task_type for a in accepted)
    counterfactuals: dict[str, dict[str, int]] = {}
    for a in accepted:
        for g in a.gates:
            if g.name.startswith("counterfactual:"):
                entry = counterfactuals.setdefault(g.name.split(":", 1)[1], {"executed": 0, "not_applicable": 0})
                entry["not_applicable" if g.score is None else "executed"] += 1
    report = {
        "drafted": len(attempts), "accepted": len(accepted), "rounds": rounds,
        "ui_gate": ui,
        "by_type": {k: by_type.get(k, 0) for k in ("read", "write", "read_write")},
        "by_category": dict(sorted(Counter(a.draft.category for a in accepted).items())),
        "repaired": sum(1 for a in accepted if a.repairs),
        "with_setup": sum(1 for a in accepted if a.draft.setup),
        "counterfactuals": dict(sorted(counterfactuals.items())),
        "discarded": [{"id": a.draft.key, "goal": a.draft.goal, "layer": a.failure.layer,
                       "kind": a.failure.kind, "reason": a.failure.message, "repairs": a.repairs}
                      for a in attempts if a.failure is not None],
        "world_defects": [{"id": a.draft.key, "kind": a.failure.kind, "reason": a.failure.message,
                           "handed_over": [r for r in a.repairs if r.startswith("world defect")]}
                          for a in attempts if a.failure is not None and a.failure.layer == "world"],
        "world_repairs": world_repairs,
        "unusable_intent_phrasings": meta["unusable_intent_phrasings"],
        "proposer_skipped": meta["skipped"],
        "proposer_skipped_examples": meta.get("skipped_examples", {}),
        "rewardgen_sandbox": sandbox,
        "near_duplicates": {"proposed": meta.get("near_duplicates", []), "accepted": [d.key for d in late]},
    }
    World(world).tasks_report.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    covered = write_coverage(world, spec)  # tasks/coverage.json and reports/coverage.txt
    gaps = covered.gaps()
    uncovered = {r.workflow: r.reasons for r in covered.rows if r.kind == "workflow" and r.tasks == 0}
    if uncovered:  # report.json says why each workflow got no task, in words a seed author can act on
        report["uncovered_workflows"] = uncovered
        World(world).tasks_report.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
        for name, why in uncovered.items():
            say(f"no task for workflow {name}: {why[0] if why else 'no reason recorded'}")
    if gaps:
        say(f"coverage: {len(gaps)} workflow(s)/precondition(s) without a task or a claim, see reports/coverage.txt")
    # wall-clock time stays out of the committed report (the same seed gives the same bytes)
    World(world).tasks_timings.parent.mkdir(parents=True, exist_ok=True)
    World(world).tasks_timings.write_text(json.dumps({"seconds": round(seconds, 1)}) + "\n")
    manifest = read_manifest(World(world).manifest_file)
    corpus = spread(spec, records, len(meta.get("near_duplicates", [])) + len(late))
    manifest.tasks = TasksSummary(drafted=len(attempts), accepted=len(accepted),
                                  by_type=TasksByType(**report["by_type"]), spread=corpus)
    manifest.schema_version = MANIFEST_VERSION
    for line in spread_lines(corpus):
        say(line)
    manifest.gates = dict(sorted(gates.items()))
    manifest.rewardgen_sandbox = sandbox
    if "tasks" not in manifest.stages:
        manifest.stages.append("tasks")
    write_manifest(World(world).manifest_file, manifest)
    result = StageTwoResult(len(attempts), len(accepted), report["by_type"], rounds, seconds, dict(gates))
    commit_all(world, f"tasks: {result.summary()[7:]} in {rounds} repair round(s)")
    return result


__all__ = ["StageTwoResult", "TaskState", "read_result"]
