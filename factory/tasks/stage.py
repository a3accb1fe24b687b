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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from factory.errors import TaskError
from factory.manifest import TasksByType, TasksSummary, read_manifest, write_manifest
from factory.repair import commit_all
from factory.spec.model import Spec
from factory.tasks.codec import draft_json, draft_of, steps_json
from factory.tasks.codec import steps_of as codec_steps
from factory.tasks.gates import GateResult, GateRunner, answer_text
from factory.tasks.handover import WorldFailure, hand_over, records_json
from factory.tasks.proposer import Draft, Plan, Proposer
from factory.tasks.record import task_record
from factory.tasks.rewardgen import DEFAULT_POLICY, run_rewardgen
from factory.tasks.sandbox import require_sandbox
from factory.tasks.setupgen import (
    Backend,
    Setup,
    SetupError,
    apply_patch,
    build_setup,
    copy_db,
    run_golden,
)
from factory.tasks.triage import Failure, added_aliases, triage, weakens, with_aliases
from verifiers.normalize import normalize_text

log = logging.getLogger(__name__)
Progress = Callable[[str], None]
MAX_ROUNDS = 3  # task-level repair rounds per pass over the drafts
MAX_WORLD_ROUNDS = 2  # hand-overs to the stage-one repairer


@dataclass
class Attempt:
    """A draft's current state in the pipeline."""

    draft: Draft
    setup: Setup | None = None
    initial: Path | None = None
    golden: Path | None = None
    reward: dict[str, Any] | None = None
    gates: list[GateResult] = field(default_factory=list)
    failure: Failure | None = None
    repairs: list[str] = field(default_factory=list)
    trajectory: dict[str, Any] | None = None
    previous_reward: dict[str, Any] | None = None  # set while a regenerated reward is awaited

    def to_json(self) -> dict[str, Any]:
        return {"draft": draft_json(self.draft),
                "setup": None if self.setup is None else {"steps": steps_json(self.setup.steps),
                                                          "patch": self.setup.patch},
                "initial": None if self.initial is None else str(self.initial),
                "golden": None if self.golden is None else str(self.golden),
                "reward": self.reward, "gates": [g.to_json() for g in self.gates],
                "failure": None if self.failure is None else asdict(self.failure),
                "repairs": self.repairs, "trajectory": self.trajectory,
                "previous_reward": self.previous_reward}

    @classmethod
    def of(cls, data: dict[str, Any]) -> Attempt:
        setup = data["setup"]
        return cls(draft_of(data["draft"]),
                   None if setup is None else Setup(codec_steps(setup["steps"]), setup["patch"]),
                   None if data["initial"] is None else Path(data["initial"]),
                   None if data["golden"] is None else Path(data["golden"]),
                   data["reward"],
                   [GateResult(g["name"], g["passed"], g["detail"], g["score"]) for g in data["gates"]],
                   None if data["failure"] is None else Failure(**data["failure"]),
                   list(data["repairs"]), data["trajectory"], data.get("previous_reward"))


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


class TaskState(TypedDict, total=False):
    """What the stage-two graph carries between nodes (and checkpoints); the drafts themselves
    live in `run/tasks/attempts.json`, rewritten by every node."""

    world: str
    total: int
    ui: bool
    workers: int
    policy: str
    round: int
    round_base: int  # `round` when the current pass began (a world repair starts a new pass)
    world_round: int
    world_repairs: list[dict[str, Any]]
    pending: list[str]
    failed: list[str]
    started: float
    status: str
    rewardgen_sandbox: str  # "bwrap" (Linux namespaces) or "unsafe" (--unsafe-sandbox)


_say: Progress = lambda message: log.info(message)


def set_reporter(say: Progress) -> None:
    global _say
    _say = say


def _work(state: TaskState) -> Path:
    return Path(state["world"]) / "run" / "tasks"


def _spec(state: TaskState) -> Spec:
    return Spec.model_validate_json((Path(state["world"]) / "spec.json").read_text())


def _load(state: TaskState) -> list[Attempt]:
    return [Attempt.of(a) for a in json.loads((_work(state) / "attempts.json").read_text())]


def _save(state: TaskState, attempts: list[Attempt]) -> None:
    path = _work(state) / "attempts.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps([a.to_json() for a in attempts], sort_keys=True))
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
    world = Path(state["world"])
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
    seed_db = world / "data" / "seed.db"
    with Backend(world, spec, work) as backend:
        proposer = Proposer(spec, seed_db, _options(backend, seed_db, work))
        drafts = proposer.propose(Plan.for_total(state.get("total", 190)))
        (work / "proposer.json").write_text(json.dumps(
            {"unusable_intent_phrasings": proposer.unusable_intents(),
             "skipped": sorted(Counter(s.split(":")[0] for s in proposer.skipped).items())}, sort_keys=True))
        proposer.close()
    _say(f"proposer: {len(drafts)} drafts ({_mix(drafts)})")
    attempts = [Attempt(d) for d in drafts]
    _save(state, attempts)
    return {"round": 0, "pending": [d.key for d in drafts], "failed": [], "started": time.time()}


def setup_node(state: TaskState) -> dict[str, Any]:
    """setup-gen: each pending draft's initial state (a replayed patch) and golden state."""
    world = Path(state["world"])
    attempts = _load(state)
    pending = set(state["pending"])
    with Backend(world, _spec(state), _work(state)) as backend:
        _prepare([a for a in attempts if a.draft.key in pending], backend, world / "data" / "seed.db", _work(state))
    _save(state, attempts)
    return {}


def reward_node(state: TaskState) -> dict[str, Any]:
    """reward-gen, in its sandboxed process, for every pending draft whose setup stands."""
    attempts = _load(state)
    pending = set(state["pending"])
    _rewards([a for a in attempts if a.draft.key in pending], Path(state["world"]), _work(state),
             state.get("policy", DEFAULT_POLICY), state.get("round", 0), state.get("rewardgen_sandbox", "bwrap"))
    _save(state, attempts)
    return {}


def gate_node(state: TaskState) -> dict[str, Any]:
    """The executed gates (all but the UI one) for every pending draft."""
    world = Path(state["world"])
    attempts = _load(state)
    pending = [a for a in attempts if a.draft.key in set(state["pending"])]
    spec = _spec(state)
    with Backend(world, spec, _work(state)) as backend:
        runner = GateRunner(spec, backend, world / "data" / "seed.db", _work(state))
        for a in pending:
            if a.failure is None:
                _gate(a, runner)
        runner.close()
    failed = [a.draft.key for a in pending if a.failure is not None]
    _say(f"gates: round {state.get('round', 0)}: {len(pending) - len(failed)}/{len(pending)} drafts pass")
    _save(state, attempts)
    return {"failed": failed}


def route_after_gates(state: TaskState) -> str:
    """Repair while something failed and the round budget lasts; then the UI gate."""
    spent = state.get("round", 0) - state.get("round_base", 0)
    return "repair" if state.get("failed") and spent < MAX_ROUNDS else "ui"


def repair_node(state: TaskState) -> dict[str, Any]:
    """Repair each failed draft for its layer; the repaired ones run every gate again."""
    world = Path(state["world"])
    spec = _spec(state)
    attempts = _load(state)
    failed = set(state.get("failed", []))
    round_no = state.get("round", 0) + 1
    proposer = Proposer(spec, world / "data" / "seed.db")
    repaired = []
    for a in attempts:
        if a.draft.key in failed:
            # Seeded per draft and round: a resumed run regenerates exactly the same drafts.
            proposer.rng.seed(f"{spec.random_seed}:repair:{a.draft.key}:{round_no}")
            if _repair(a, proposer, spec):
                repaired.append(a.draft.key)
    proposer.close()
    _say(f"repair: round {round_no}: {len(repaired)} of {len(failed)} failed drafts repaired")
    _save(state, attempts)
    return {"round": round_no, "pending": repaired, "failed": []}


def route_after_repair(state: TaskState) -> str:
    return "setup" if state.get("pending") else "ui"


def ui_node(state: TaskState) -> dict[str, Any]:
    """UI feasibility for every draft that passed the other gates."""
    attempts = _load(state)
    if state.get("ui", True):
        world = Path(state["world"])
        _ui_gate([a for a in attempts if a.failure is None], world, _spec(state), _work(state),
                 state.get("workers", 2), _say)
    _save(state, attempts)
    return {}


def world_node(state: TaskState) -> dict[str, Any]:
    """Hand the world-layer failures to the stage-one repairer. When it keeps a repair the app has
    changed under every draft, so all that stand, and those that failed for the world, go through
    setup-gen, reward-gen and every gate again."""
    attempts = _load(state)
    failing = [a for a in attempts if a.failure is not None and a.failure.layer == "world"]
    round_no = state.get("world_round", 0) + 1
    if not failing or round_no > MAX_WORLD_ROUNDS:
        return {"pending": []}
    world = Path(state["world"])
    failures = [WorldFailure(a.draft.key, a.draft.steps[0].workflow if a.draft.steps else None,
                             a.failure.kind, a.failure.message) for a in failing if a.failure is not None]
    _say(f"world: handing {len(failures)} world-layer failures to the stage-one repairer")
    records = hand_over(world, failures, round_no, state.get("ui", True))
    kept = [r for r in records if r.outcome == "kept"]
    outcome = ", ".join(f"{r.fixer} {r.outcome}" for r in records) or "no fixer applies"
    for a in failing:
        a.repairs.append(f"world defect handed to the stage-one repairer (round {round_no}): {outcome}")
    for r in records:
        _say(f"world: round {round_no}: {r.fixer} → {r.outcome} ({len(r.files)} files){': ' + r.note if r.note else ''}")
    history = [*state.get("world_repairs", []), *records_json(records)]
    pending = [a.draft.key for a in attempts if kept and (a.failure is None or a.failure.layer == "world")]
    _save(state, attempts)
    return {"world_round": round_no, "world_repairs": history, "pending": pending, "failed": [],
            "round_base": state.get("round", 0)}


def route_after_world(state: TaskState) -> str:
    return "setup" if state.get("pending") else "write"


def write_node(state: TaskState) -> dict[str, Any]:
    """Write `tasks/`, the manifest and the summary line; commit."""
    world = Path(state["world"])
    attempts = _load(state)
    meta = json.loads((_work(state) / "proposer.json").read_text())
    result = _write(world, _spec(state), attempts, state.get("round", 0),
                    time.time() - state.get("started", time.time()), meta, state.get("ui", True),
                    state.get("world_repairs", []), state.get("rewardgen_sandbox", "bwrap"))
    shutil.rmtree(_work(state), ignore_errors=True)
    _say(result.summary())
    return {"status": result.summary()}


def run_stage_two(world: Path, total: int = 190, ui: bool = True, workers: int = 2,
                  policy: str = DEFAULT_POLICY, say: Progress | None = None, fresh: bool = True,
                  unsafe_sandbox: bool = False) -> StageTwoResult:
    """Grow and gate the task corpus of a built, proven world; write `tasks/` (through the
    stage-two graph, checkpointed beside the worlds so an interrupted run resumes).

    reward-gen runs in bubblewrap namespaces; where they cannot be made this refuses at once
    (SandboxUnavailableError), unless `unsafe_sandbox` (recorded in the manifest and report).
    A resumed run keeps the sandbox mode it started with."""
    from factory.graph import run_graph_stage_two

    if say is not None:
        set_reporter(say)
    world = world.resolve()
    sandbox = "unsafe" if unsafe_sandbox else "bwrap"
    require_sandbox(sandbox)  # before any work: a machine without namespaces fails in a second
    start: TaskState = {"world": str(world), "total": total, "ui": ui, "workers": workers, "policy": policy,
                        "rewardgen_sandbox": sandbox}
    run_graph_stage_two(start, fresh=fresh)
    return read_result(world)


def read_result(world: Path) -> StageTwoResult:
    report = json.loads((world / "tasks" / "report.json").read_text())
    manifest = read_manifest(world / "manifest.json")
    return StageTwoResult(report["drafted"], report["accepted"], report["by_type"], report["rounds"],
                          report["seconds"], dict(manifest.gates))


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
    results = run_rewardgen(world / "spec.json", jobs, work / f"rewardgen-{round_no}", policy, mode=sandbox)
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


def _ui_gate(attempts: list[Attempt], world: Path, spec: Spec, work: Path, workers: int, say: Progress) -> None:
    """UI feasibility: the scripted solver replays each golden trajectory in Chromium."""
    from factory.tasks.ui_solver import (  # Playwright is only needed here
        UiJob,
        run_ui_jobs,
    )
    from factory.tasks.ui_steps import ui_steps

    passwords = {u.username: u.password for u in spec.users}
    jobs = []
    for a in attempts:
        assert a.initial is not None
        db = copy_db(a.initial, work / "ui" / f"{a.draft.key}.db")
        jobs.append(UiJob(a.draft.key, db, a.draft.user, passwords[a.draft.user],
                          ui_steps(spec, a.draft, a.initial), world / "tasks" / "trajectories" / a.draft.key))
    shots = world / "tasks" / "trajectories"
    if shots.exists():
        shutil.rmtree(shots)
    say(f"ui: replaying {len(jobs)} golden trajectories in Chromium ({workers} workers)")
    trajectories = run_ui_jobs(world, spec, jobs, workers=workers)
    _ui_verdicts([(a, job.db, trajectories[job.key].to_json()) for a, job in zip(attempts, jobs, strict=True)],
                 world, spec, work, say)


def _ui_verdicts(runs: list[tuple[Attempt, Path, dict[str, Any]]], world: Path, spec: Spec, work: Path,
                 say: Progress) -> None:
    """The UI gate's verdict on each run (the attempt, the database the solver left, its
    trajectory): the final database must grade 1, a READ's with the answer read off the page.
    A READ that fails on its answer alone goes to `_repair_ui_answers`."""
    from verifiers.grade import grade

    misread: list[tuple[Attempt, Path]] = []
    for a, final, t in runs:
        a.trajectory = t
        assert a.reward is not None and a.initial is not None
        if not t["ok"]:
            a.gates.append(GateResult("ui", False, f"the solver failed: {t['message']}"))
            a.failure = triage("gate:ui", t["message"])
            continue
        # A READ is graded with the answer the solver read off the page, never the reference one.
        read = a.draft.task_type == "read"
        shown = t.get("answer") if read else answer_text(a.draft.answer)
        g = grade(a.reward, a.initial, final, shown)
        detail = f"answer shown on screen {shown!r}: {g.explanation}" if read else g.explanation
        a.gates.append(GateResult("ui", g.score == 1.0, detail, g.score))
        if g.score == 1.0:
            continue
        if read and all(c.type == "answer" for c in g.checks if not c.passed):
            # Only the answer failed: the task (its question, its answer check) is at fault.
            a.failure = triage("ui:answer", f"the answer shown on screen, {shown!r}, does not grade 1: "
                                            f"{g.explanation}")
            misread.append((a, final))
        else:
            a.failure = triage("gate:ui", g.explanation)
    if misread:
        _repair_ui_answers(misread, world, spec, work, say)


def _repair_ui_answers(misread: list[tuple[Attempt, Path]], world: Path, spec: Spec, work: Path,
                       say: Progress) -> None:
    """Repair READs whose on-screen answer does not grade 1 (each with the database the solver
    left), or reject them with the reason. The non-UI gates run again on a repaired reward, on
    one backend (a READ's gates never call it, but the runner is the same one the gates use)."""
    with Backend(world, spec, work / "ui-repair") as backend:
        runner = GateRunner(spec, backend, world / "data" / "seed.db", work / "ui-repair")
        try:
            repaired = sum(_repair_ui_answer(a, final, spec, runner) for a, final in misread)
        finally:
            runner.close()
    say(f"ui: {len(misread)} on-screen answers did not grade 1; {repaired} repaired, "
        f"{len(misread) - repaired} rejected")


def _repair_ui_answer(a: Attempt, final: Path, spec: Spec, runner: GateRunner) -> bool:
    """Widen the reward's answer check with the expected value as the app's pages render it, when
    the page showed one of those renderings; otherwise leave the failure, with the reason.

    The repair never weakens: the renderings are computed again from the task's initial database
    (`answer_texts`), never copied from the page, and are added only when the reward as generated
    accepts the database's own answer (so they render the value it expects). The amended reward
    must not weaken (`weakens`: every check kept, no alias but those renderings) and pass every non-UI
    gate again, the wrong-answer counterfactual included, before the page's answer is graded with it.
    """
    # Imported here, as in `_ui_gate`: Playwright is only needed by the UI gate.
    from factory.tasks.ui_steps import answer_texts
    from verifiers.grade import grade

    assert a.failure is not None and a.reward is not None and a.initial is not None
    assert a.golden is not None and a.setup is not None and a.trajectory is not None
    shown, failure = a.trajectory.get("answer"), a.failure

    def reject(why: str) -> bool:
        a.failure = Failure(failure.layer, failure.kind, f"{failure.message}; not repaired: {why}"[:900])
        a.repairs.append(f"rejected ({failure.kind}): {why}"[:300])
        return False

    if a.draft.ask.question is None or a.draft.answer is None:
        return reject("the draft asks no question")
    texts = answer_texts(spec, a.draft, a.initial)
    if not any(grade(a.reward, a.initial, a.initial, w).score == 1.0 for w in texts.written):
        return reject(f"the reward accepts none of the database's own answers ({', '.join(texts.written)})")
    if shown is None or normalize_text(shown) not in {normalize_text(t) for t in texts.shown}:
        return reject(f"the page shows {shown!r}, which is not how the app renders the expected value "
                      f"({' or '.join(repr(t) for t in texts.shown)})")
    amended = with_aliases(a.reward, texts.shown)
    if weakens(a.reward, amended, texts.shown):
        return reject("the amended reward would ask for less; refused")
    gates = runner.run(a.draft, amended, a.initial, a.golden, a.setup.patch)
    bad = [g for g in gates if not g.passed]
    if bad:
        return reject("with the renderings accepted, " + "; ".join(f"{g.name}: {g.detail}" for g in bad))
    g = grade(amended, a.initial, final, shown)
    if g.score != 1.0:
        return reject(f"the answer check takes no aliases: {g.explanation}")
    added = added_aliases(a.reward, amended)
    a.repairs.append(f"widened the reward's answer check ({failure.kind}): {failure.message[:160]}; it "
                     f"now also accepts {', '.join(repr(t) for t in added)}, the expected value as "
                     f"the app shows it (from the database)")
    a.reward, a.failure = amended, None
    a.gates = [*gates, GateResult("ui", True, f"answer shown on screen {shown!r}: {g.explanation}", g.score)]
    return True


# ---------------------------------------------------------------- output ----------------------

def _write(world: Path, spec: Spec, attempts: list[Attempt], rounds: int, seconds: float,
           meta: dict[str, Any], ui: bool, world_repairs: list[dict[str, Any]],
           sandbox: str = "bwrap") -> StageTwoResult:
    out = world / "tasks"
    out.mkdir(exist_ok=True)
    accepted = [a for a in attempts if a.failure is None]
    records = [task_record(spec, a.draft, a.setup, a.reward, a.gates, a.trajectory, a.repairs, a.golden,
                           a.initial, world) for a in accepted]
    (out / "tasks.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
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
        "seconds": round(seconds, 1), "ui_gate": ui,
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
        "rewardgen_sandbox": sandbox,
    }
    (out / "report.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    manifest = read_manifest(world / "manifest.json")
    manifest.tasks = TasksSummary(drafted=len(attempts), accepted=len(accepted),
                                  by_type=TasksByType(**report["by_type"]))
    manifest.gates = dict(sorted(gates.items()))
    manifest.rewardgen_sandbox = sandbox
    if "tasks" not in manifest.stages:
        manifest.stages.append("tasks")
    write_manifest(world / "manifest.json", manifest)
    result = StageTwoResult(len(attempts), len(accepted), report["by_type"], rounds, seconds, dict(gates))
    commit_all(world, f"tasks: {result.summary()[7:]} in {rounds} repair round(s)")
    return result


__all__ = ["StageTwoResult", "run_stage_two"]
