"""Golden trajectories as strips of screenshots: each chosen task's golden UI trajectory replayed in
Chromium by the UI gate's solver, a JPEG of the page after every action.

The trajectory is the one the UI gate and the oracle replay, rebuilt from the task record
(`factory.agents.oracle.golden_steps`) on the task's initial state (the seed database with its
setup patch, a private copy per task). The solver offers every action to a hook first
(`before_action`); the hook photographs the page as the previous action left it, and the page as
the last action left it is taken when the solver returns. Nothing the replay does is written to
the world.
"""

from __future__ import annotations

import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from episodes.dbfiles import apply_patch
from factory import progress
from factory.agents.oracle import golden_steps
from factory.review.model import Frame
from factory.runtime.lanes import Lane, run_lanes
from factory.spec.model import Spec
from factory.tasks.ui_gate.recorder import Run
from factory.tasks.ui_gate.solver import VIEWPORT, checkpoint, solve
from factory.tasks.ui_gate.trajectory import UiStep
from factory.world.layout import World

log = logging.getLogger(__name__)

TIMEOUT_MS = 15_000  # per step, as the UI gate's second try: a busy machine must not fail a replay
JPEG_QUALITY = 45


@dataclass(frozen=True)
class _Job:
    task_id: str
    user: str
    password: str
    steps: list[UiStep]
    db: Path


@dataclass(frozen=True)
class Strip:
    """One replayed trajectory: its frames, whether the replay went through, and the solver's message."""

    task_id: str
    ok: bool
    message: str
    frames: list[Frame]


def _caption(action: dict[str, Any]) -> str:
    value = f" = {action['value']}" if action.get("value") not in (None, "") else ""
    return f"after #{action['n']} {action['action']} {action['target']}{value}"


class _Camera:
    """Takes the page after each action of one replay, once per action."""

    def __init__(self, page: Page, out: Path, task_id: str) -> None:
        self.page, self.out, self.task_id = page, out, task_id
        self.frames: list[Frame] = []

    def take(self, actions: list[dict[str, Any]]) -> None:
        if not actions or (self.frames and self.frames[-1].n == len(actions)):
            return
        n = len(actions)
        site = f"strips/{self.task_id}/{n}.jpg"
        try:
            (self.out / site).parent.mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(self.out / site), type="jpeg", quality=JPEG_QUALITY)
        except PlaywrightError:
            return  # a page that went away cannot be photographed; the solver says what failed
        self.frames.append(Frame(n=n, image=site, caption=_caption(actions[-1])))

    def before(self, run: Run) -> None:
        """The solver's hook: the page as the last recorded action left it."""
        self.take(run.actions)


def _replay(lane: Lane, spec: Spec, job: _Job, out: Path) -> Strip:
    server = lane.server
    server.use_db(job.db)
    context = lane.browser().new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        camera = _Camera(page, out, job.task_id)
        trajectory = solve(page, server.url, spec, job.user, job.password, job.steps, None, TIMEOUT_MS,
                           before_action=camera.before)
        camera.take(trajectory.actions)
    finally:
        context.close()
        server.use_db(lane.db)
        checkpoint(job.db)
    if not trajectory.ok:
        log.warning("review: the golden trajectory of %s failed in the browser: %s", job.task_id, trajectory.message)
    return Strip(job.task_id, trajectory.ok, trajectory.message, camera.frames)


def replay_strips(world: World, records: list[dict[str, Any]], task_ids: list[str], out: Path,
                  workers: int = 2) -> dict[str, Strip]:
    """The strip of every task in `task_ids` (JPEGs under `out/strips/<task id>/`), by task id."""
    if not task_ids:
        return {}
    spec = world.spec
    passwords = {u.username: u.password for u in spec.users}
    by_id = {str(r["id"]): r for r in records}
    with tempfile.TemporaryDirectory(prefix="review-strips-") as tmp:
        jobs = []
        for i, task_id in enumerate(task_ids):
            record = by_id[task_id]
            initial = apply_patch(world.seed_db, str((record.get("setup") or {}).get("patch", "")), Path(tmp) / f"{i}.db")
            user = str(record["metadata"]["acting_user"])
            jobs.append(_Job(task_id, user, passwords[user], golden_steps(spec, record, initial), initial))
        with progress.task("replay golden trajectories for their strips", total=len(jobs)) as advance:
            strips = run_lanes(world.root, jobs, lambda lane, job: _replay(lane, spec, job, out), lanes=workers,
                               work=Path(tmp) / "lanes", start_db=world.seed_db, name="review-strips",
                               on_result=lambda _job, _strip: advance(1))
    return {s.task_id: s for s in strips}


__all__ = ["Strip", "replay_strips"]
