"""The UI gate of stage two: each golden trajectory replayed in Chromium by the scripted solver,
and its verdict. The final database must grade 1; a READ is graded with the answer the solver read
off the page. A READ that fails on its answer alone is repaired by widening its answer check with
the expected value as the app renders it (recomputed from the task's initial database, never
copied from the page), or rejected with the reason."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from episodes.dbfiles import copy_db
from factory import progress
from factory.runtime.client import Backend
from factory.spec.model import Spec
from factory.tasks.attempt import Attempt
from factory.tasks.gates import GateResult, GateRunner, answer_text
from factory.tasks.triage import Failure, added_aliases, triage, weakens, with_aliases
from factory.world.layout import World
from verifiers.normalize import normalize_text

Progress = Callable[[str], None]
RETRY_TIMEOUT_MS = 15_000  # per step, for the one replay of a trajectory that failed


def ui_gate(attempts: list[Attempt], world: Path, spec: Spec, work: Path, workers: int, say: Progress) -> None:
    """UI feasibility: the scripted solver replays each golden trajectory in Chromium."""
    from factory.tasks.ui_gate.solver import run_ui_jobs  # Playwright is only needed here
    from factory.tasks.ui_gate.steps import ui_steps
    from factory.tasks.ui_gate.trajectory import UiJob

    passwords = {u.username: u.password for u in spec.users}
    jobs = []
    for a in attempts:
        assert a.initial is not None
        db = copy_db(a.initial, work / "ui" / f"{a.draft.key}.db")
        jobs.append(UiJob(a.draft.key, db, a.draft.user, passwords[a.draft.user],
                          ui_steps(spec, a.draft, a.initial), World(world).trajectories_dir / a.draft.key))
    shots = World(world).trajectories_dir
    if shots.exists():
        shutil.rmtree(shots)
    say(f"ui: replaying {len(jobs)} golden trajectories in Chromium ({workers} workers)")
    with progress.task("replay golden trajectories", total=len(jobs)) as advance:
        trajectories = run_ui_jobs(world, spec, jobs, workers=workers, progress=lambda _done, _total: advance(1))
    # A busy machine can make a step outlast its timeout; the corpus must not depend on the load, so
    # every failed replay runs once more, alone, from a fresh initial state and with a longer timeout
    # (a task that truly fails fails again, the same way on a quiet machine as on a busy one).
    again = [(a, job) for a, job in zip(attempts, jobs, strict=True) if not trajectories[job.key].ok]
    if again:
        say(f"ui: replaying {len(again)} failed trajectories once more, one at a time")
        for a, job in again:
            assert a.initial is not None
            copy_db(a.initial, job.db)
        trajectories.update(run_ui_jobs(world, spec, [job for _, job in again], workers=1, timeout_ms=RETRY_TIMEOUT_MS))
    ui_verdicts([(a, job.db, trajectories[job.key].to_json()) for a, job in zip(attempts, jobs, strict=True)],
                 world, spec, work, say)


def ui_verdicts(runs: list[tuple[Attempt, Path, dict[str, Any]]], world: Path, spec: Spec, work: Path,
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
        runner = GateRunner(spec, backend, World(world).seed_db, work / "ui-repair")
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
    # Imported here, as in `ui_gate`: Playwright is only needed by the UI gate.
    from factory.tasks.ui_gate.steps import answer_texts
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
