"""Run the red team on a world: build every probe of every task, grade it, count per kind.

The world is only read: its task states are rebuilt in a temporary work folder (in memory under
/dev/shm when there is room: grading reads whole files, and tmpfs makes that several times
faster), each probe's own file is deleted once graded, and the folder is removed at the end.
Tasks are shared among worker processes; results come back in the corpus's order whatever the
order they finish in, so a run with the same seed gives the same report.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from multiprocessing import get_context
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

from factory.redteam.answers import answer_probes
from factory.redteam.context import StateContext
from factory.redteam.corpus import Case, load_records, prepare, same_state
from factory.redteam.probes import Probe, RedTeamError, select_kinds
from factory.redteam.report import ProbeResult, RedTeamReport, preview
from factory.redteam.states import state_probes
from factory.spec.model import Spec
from factory.world.layout import World
from verifiers.errors import VerifierError
from verifiers.grade import grade

Progress = Callable[[int, int, str], None]
SHM = Path("/dev/shm")


class Worker:
    """Grades every probe of one task at a time; one per process (or one in-process)."""

    def __init__(self, spec_path: Path, cases: list[Case], work: Path, kinds: list[str], seed: int,
                 cross_limit: int | None) -> None:
        self.spec = Spec.model_validate_json(spec_path.read_text())
        self.cases, self.work, self.kinds, self.seed = cases, work, set(kinds), seed
        self.cross_limit = cross_limit

    def run(self, index: int) -> tuple[list[ProbeResult], dict[str, Any] | None]:
        """Every probe of the task at `index`, graded; and a note if its golden state does not
        grade 1 (then its probes still run, but the program is broken before any probe)."""
        case = self.cases[index]
        scratch = self.work / "probes" / str(index)
        scratch.mkdir(parents=True, exist_ok=True)
        try:
            baseline = self._baseline(case)
            ctx = StateContext(case, self.cases, self.spec, scratch, self.seed, self.cross_limit)
            results = self._timed(case, state_probes(ctx, self.kinds))
            results += self._timed(case, answer_probes(case, self.cases, self.spec, self.kinds))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return results, baseline

    def _timed(self, case: Case, probes: Iterator[Probe]) -> list[ProbeResult]:
        """Each probe graded, with the time it took: the generator builds a probe's state when
        asked for the next one, so that is timed too."""
        results: list[ProbeResult] = []
        start = time.perf_counter()
        for probe in probes:
            result = self._grade(case, probe)
            now = time.perf_counter()
            results.append(replace(result, seconds=now - start))
            start = now
        return results

    def _baseline(self, case: Case) -> dict[str, Any] | None:
        """None when the golden state with the reference answer grades 1, else what is wrong."""
        try:
            score = grade(case.record, case.initial, case.golden, case.reference_answer).score
        except VerifierError as exc:
            return {"task": case.id, "problem": f"grading the golden state failed: {exc}"}
        return None if score == 1.0 else {"task": case.id, "problem": f"the golden state grades {score}, not 1"}

    def _grade(self, case: Case, probe: Probe) -> ProbeResult:
        base: dict[str, Any] = {"task": case.id, "task_type": case.task_type, "kind": probe.kind,
                                "name": probe.name, "note": probe.note, "answer": preview(probe.answer)}
        if probe.final is None:
            return ProbeResult(**base, verdict="not_applicable")
        try:
            try:
                result = grade(case.record, case.initial, probe.final, probe.answer)
            except VerifierError as exc:
                return ProbeResult(**base, verdict="error", explanation=str(exc))
            if result.score < 1.0:
                return ProbeResult(**base, verdict="rejected", score=result.score)
            # A state probe that is the golden state in rows and schema, with the reference
            # answer, is a legitimate solution (see probes.Verdict), not a false positive.
            legitimate = (not probe.kind.startswith("answer:") and probe.answer == case.reference_answer
                          and same_state(case.golden, probe.final))
            return ProbeResult(**base, verdict="equivalent" if legitimate else "false_positive",
                               score=result.score, explanation=result.explanation)
        finally:
            if probe.owned:
                for leftover in (probe.final, Path(f"{probe.final}-journal")):
                    leftover.unlink(missing_ok=True)


# One Worker per process, made by the pool's initializer (the cases and spec are sent once).
_WORKER: Worker | None = None


def _start(*args: Any) -> None:
    global _WORKER
    _WORKER = Worker(*args)


def _job(index: int) -> tuple[int, list[ProbeResult], dict[str, Any] | None]:
    assert _WORKER is not None
    results, baseline = _WORKER.run(index)
    return index, results, baseline


def _pool_context() -> BaseContext:
    """spawn, not fork: the parent may hold threads (rich's live display) and open files. But a
    spawned worker imports the parent's main script again, which a script read from stdin
    cannot be: then fork."""
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    return get_context("fork" if main is not None and not Path(main).is_file() else "spawn")


def scratch_root(records: int, db_bytes: int) -> Path | None:
    """/dev/shm when it can hold every rebuilt state twice over, else the system temp folder."""
    try:
        if SHM.is_dir() and shutil.disk_usage(SHM).free > 4 * (records + 8) * max(db_bytes, 1 << 20):
            return SHM
    except OSError:
        pass
    return None


def run_redteam(world: Path, *, tasks: int | None = None, seed: int = 0, kinds: list[str] | None = None,
                skip: list[str] | None = None, workers: int = 2, cross_limit: int | None = None,
                work: Path | None = None, progress: Progress | None = None) -> RedTeamReport:
    """Red-team every task of `world` (the first `tasks`, which are then the only "other tasks"
    the cross and other-answer probes draw on): build and grade every selected probe.

    `kinds` selects probe families or kinds (default: all) and `skip` leaves some out.
    `cross_limit` caps the other tasks whose golden change is tried on each task (a seeded
    sample; None: every other task). `work` is where the copies go (default: a temporary folder,
    removed at the end). `progress(done, total, task_id)` is called as tasks finish.
    """
    world = Path(world).resolve()
    chosen = select_kinds(kinds, skip)
    if tasks is not None and tasks < 1:
        raise RedTeamError(f"--tasks must be at least 1, not {tasks}")
    if cross_limit is not None and cross_limit < 0:
        raise RedTeamError(f"--cross must be at least 0, not {cross_limit}")
    records = load_records(world, tasks)
    spec_path = World(world).spec_file
    if not spec_path.is_file():
        raise RedTeamError(f"{spec_path} does not exist: not a built world")
    start = time.perf_counter()
    root = work or scratch_root(len(records), World(world).seed_db.stat().st_size)
    if root is not None:
        root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="redteam-", dir=root) as tmp:
        cases = prepare(world, records, Path(tmp))
        outcome: dict[int, tuple[list[ProbeResult], dict[str, Any] | None]] = {}
        args = (spec_path, cases, Path(tmp), chosen, seed, cross_limit)
        if workers <= 1 or len(cases) == 1:
            worker = Worker(*args)
            for case in cases:
                outcome[case.index] = worker.run(case.index)
                if progress is not None:
                    progress(len(outcome), len(cases), case.id)
        else:
            pool = ProcessPoolExecutor(min(workers, len(cases)), mp_context=_pool_context(),
                                       initializer=_start, initargs=args)
            try:
                futures = [pool.submit(_job, case.index) for case in cases]
                for future in as_completed(futures):
                    index, results, baseline = future.result()
                    outcome[index] = (results, baseline)
                    if progress is not None:
                        progress(len(outcome), len(cases), cases[index].id)
            finally:
                # Interrupted (Ctrl-C, SIGTERM, a failed task): drop the tasks not started rather
                # than grade them all before the copies can be removed.
                pool.shutdown(wait=True, cancel_futures=True)
    results = [r for index in sorted(outcome) for r in outcome[index][0]]
    broken = [b for index in sorted(outcome) if (b := outcome[index][1]) is not None]
    return RedTeamReport(world=world.name, tasks=len(records), seed=seed, kinds=chosen,
                         seconds=time.perf_counter() - start, results=results, baseline=broken,
                         cross_limit=cross_limit)
