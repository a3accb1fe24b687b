"""The oracle: each task's golden UI trajectory replayed in Chromium through the episode server.

For every task it asks the evaluator for an episode (clean, or noisy with a seed), opens the
episode's launch URL in a fresh browser context (the launch signs the task's user in: no login
page), replays the task's golden trajectory with the UI gate's solver (`solve(signed_in=True)`),
and finishes the episode (`POST /episodes/{id}/finish`, agent "oracle") with its actions, their
times and, for a READ, the answer it read off the page; the server grades it and writes the rollout.

The trajectory is the one the UI gate replays, rebuilt from the task record alone: the
instruction parsed back into what it asks (`phrasing.parse`, as reward-gen does), the golden
steps, and the task's initial state (the seed with its setup patch). Nothing here knows the
expected answer: a READ is answered with what the page shows.

In a noisy episode, every perturbation (`[data-noise]`, see `episodes.noise`) is dismissed by its
own button before each action, and again whenever one shows up while an action waits
(a Playwright locator handler); each dismissal is an action of the rollout (`dismiss`).

    rollouts = run_oracle(world, "http://127.0.0.1:8001", token, noise_seed=7)

A task whose episode cannot be played (an unknown workflow, a server that went away) raises after
the other tasks finished; a replay that fails in the browser is still finished, and its rollout's
reward says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from episodes.client import EvaluatorClient
from episodes.dbfiles import apply_patch
from episodes.rollouts import Action, Rollout
from factory.predict.rows import UserView
from factory.runtime.lanes import BrowserLane, run_browser_lanes
from factory.runtime.step import Step
from factory.spec.model import Spec
from factory.tasks.draft import Draft
from factory.tasks.language.phrasing import parse
from factory.tasks.language.resolve import answer
from factory.tasks.ui_gate.steps import ui_steps
from factory.tasks.ui_gate.trajectory import UiStep
from factory.world.layout import World

if TYPE_CHECKING:  # Playwright is imported by the threads that drive a browser
    from playwright.sync_api import Browser, Page

    from factory.tasks.ui_gate.recorder import Run

log = logging.getLogger(__name__)

AGENT = "oracle"
NOISE = "[data-noise]"
VIEWPORT = {"width": 1100, "height": 800}
DISMISS_MS = 3_000  # per dismissing click (and for its perturbation to go)
TIMEOUT_MS = 20_000  # per action: a noisy episode answers some requests up to a second late, on a busy machine


# ---- the golden trajectory of a task record ------------------------------------------------------
def read_tasks(world: Path) -> list[dict[str, Any]]:
    """The world's task records, in file order."""
    lines = World(world).tasks_file.read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def golden_steps(spec: Spec, record: dict[str, Any], initial: Path) -> list[UiStep]:
    """The task's golden UI trajectory, as the UI gate builds it, from its record and its initial
    state (`initial`: the seed with the task's setup patch)."""
    meta = record["metadata"]
    ask = parse(spec, str(record["goal"]))
    found = None
    if ask.question is not None:  # a lookup opens the row it asks about: the answer's row
        view = UserView.open(spec, initial)
        try:
            found = answer(view, ask.question, int(meta["acting_user_id"]))
        finally:
            view.close()
    draft = Draft(key=str(record["id"]), task_type=str(record["task_type"]), category=str(record["category"]),
                  user=str(meta["acting_user"]), user_id=int(meta["acting_user_id"]), ask=ask, goal=str(record["goal"]),
                  steps=[Step(s["workflow"], dict(s["params"])) for s in record["golden_steps"]], answer=found)
    return ui_steps(spec, draft, initial)


@dataclass(frozen=True)
class OracleJob:
    task_id: str
    user: str
    task_type: str
    steps: list[UiStep]
    noise_seed: int | None


def task_seed(noise_seed: int, task_id: str) -> int:
    """A run's noise seed turned into each task's own (the same task gets the same one in any run
    with that seed, whichever other tasks run beside it)."""
    return int(hashlib.sha256(f"{noise_seed}:{task_id}".encode()).hexdigest()[:15], 16)


def jobs(world: Path, task_ids: list[str] | None = None, noise_seed: int | None = None) -> list[OracleJob]:
    """One job per task (all tasks, or `task_ids` in that order), its golden trajectory rebuilt."""
    layout = World(world)
    records = {str(r["id"]): r for r in read_tasks(world)}
    wanted = list(records) if task_ids is None else task_ids
    missing = [t for t in wanted if t not in records]
    if missing:
        raise KeyError(f"no task {missing[0]!r} in {layout.tasks_file}")
    out: list[OracleJob] = []
    with tempfile.TemporaryDirectory(prefix="oracle-") as tmp:
        for task_id in wanted:
            record = records[task_id]
            initial = apply_patch(layout.seed_db, str(record["setup"].get("patch", "")), Path(tmp) / f"{len(out)}.db")
            seed = None if noise_seed is None else task_seed(noise_seed, task_id)
            out.append(OracleJob(task_id, str(record["metadata"]["acting_user"]), str(record["task_type"]),
                                 golden_steps(layout.spec, record, initial), seed))
    return out


# ---- the evaluator ---------------------------------------------------------------------------------
# ---- noise -------------------------------------------------------------------------------------------
_LIST = """() => Array.from(document.querySelectorAll('[data-noise]'))
  .filter(e => e.getClientRects().length > 0)
  .map((e, order) => ({kind: e.getAttribute('data-noise'), nav: e.getAttribute('data-noise-nav'), order,
              hit: (() => { const b = e.querySelector('[data-noise-dismiss]'); if (!b) return false;
                            const r = b.getBoundingClientRect();
                            const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                            return !!at && b.contains(at); })(),
              role: e.getAttribute('role') || '', modal: e.getAttribute('aria-modal') === 'true',
              z: Number(getComputedStyle(e.closest('[data-noise-backdrop]') || e).zIndex) || 0,
              title: (e.querySelector('.noise-title') || e).textContent.trim().slice(0, 80),
              button: ((e.querySelector('[data-noise-dismiss]') || {}).textContent || '').trim()}))"""


class Dismisser:
    """Dismisses every perturbation on the page, topmost first, by its own first dismissing button,
    recording each as a `dismiss` action of the run (once the solver's run has started).

    Called before each action (the solver's hook) and by a Playwright locator handler while an action
    waits; the click on a dismissing button is itself an action that would call the handler, which
    then does nothing (one dismissal at a time)."""

    def __init__(self, page: Page, timeout_ms: int) -> None:
        self.page, self.timeout_ms = page, timeout_ms
        # a dismissal runs inside the action's own wait: one button covered by another prompt must
        # not use up that action's whole time before the next round tries the one on top
        self._click_ms = min(timeout_ms, DISMISS_MS)
        self.run: Run | None = None
        self.count = 0
        self._busy = False

    def before(self, run: Run) -> None:
        """The solver's hook: called before every action."""
        self.run = run
        self.dismiss()

    def dismiss(self) -> None:
        from playwright.sync_api import Error as PlaywrightError

        if self._busy:
            return
        self._busy = True
        try:
            self._dismiss()
        except PlaywrightError:
            if not self.page.is_closed():  # a handler that fires as the page closes has nothing to do
                raise
        finally:
            self._busy = False

    def _dismiss(self) -> None:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import expect

        for _ in range(8):  # a dismissal can reveal nothing new but a perturbation that just appeared
            shown: list[dict[str, Any]] = self.page.evaluate(_LIST)
            if not shown:
                return
            # topmost first: a button the pointer reaches, then modal over the rest, higher z, later in
            # the page (two modal prompts of one z stack in the order they were shown)
            for box in sorted(shown, key=lambda b: (not b["hit"], not b["modal"], -b["z"], -b["order"])):
                one = self.page.locator(f'[data-noise="{box["kind"]}"][data-noise-nav="{box["nav"]}"]')
                try:
                    one.locator("[data-noise-dismiss]").first.click(timeout=self._click_ms)
                    expect(one).to_have_count(0, timeout=self._click_ms)
                except (PlaywrightError, AssertionError):
                    # gone by itself (a toast's timeout), or covered by one that appeared since (a new
                    # modal): list what is shown again, topmost first
                    break
                self.count += 1
                if self.run is not None:
                    self.run.record("dismiss", f'{box["role"]} "{box["title"]}" (data-noise={box["kind"]})',
                                    box["button"] or "×")
        # still shown after eight rounds: the next action fails on it and says what covered it


def watch_noise(page: Page, timeout_ms: int) -> Dismisser:
    """A dismisser for `page`, also run while any action waits: a perturbation showing up in the
    middle of an action is dismissed at once (a Playwright locator handler on the first of them:
    two at once must not make the handler's locator ambiguous)."""
    dismisser = Dismisser(page, timeout_ms)
    page.add_locator_handler(page.locator(NOISE).first, lambda _box: dismisser.dismiss(), no_wait_after=True)
    return dismisser


# ---- one task -----------------------------------------------------------------------------------------
def play(browser: Browser, evaluator: EvaluatorClient, spec: Spec, job: OracleJob,
         timeout_ms: int = TIMEOUT_MS) -> Rollout:
    """One task's episode: created, joined through its launch URL, replayed, finished."""
    from factory.tasks.ui_gate.solver import solve

    started = time.monotonic()
    episode = evaluator.create(job.task_id, noise_seed=job.noise_seed)
    clock: Callable[[], float] = lambda: time.monotonic() - started  # noqa: E731
    parts = urlsplit(str(episode["launch_url"]))
    base_url = f"{parts.scheme}://{parts.netloc}"
    context = browser.new_context(viewport={"width": VIEWPORT["width"], "height": VIEWPORT["height"]})
    try:
        page = context.new_page()
        page.set_default_timeout(timeout_ms)
        page.goto(str(episode["launch_url"]))  # the 303 signs the user in and lands on the starting page
        launched = Action(t=round(clock(), 3), kind="navigate", target="launch_url",
                          url=urlsplit(page.url).path or "/")
        before = None
        if job.noise_seed is not None:
            before = watch_noise(page, timeout_ms).before
        trajectory = solve(page, base_url, spec, job.user, "", job.steps, None, timeout_ms, signed_in=True,
                           before_action=before, clock=clock)
    finally:
        context.close()
    if not trajectory.ok:
        log.warning("oracle: %s (noise seed %s) failed in the browser: %s", job.task_id, job.noise_seed,
                    trajectory.message)
    actions = [launched, *(_action(a) for a in trajectory.actions)]
    reply = trajectory.answer if job.task_type == "read" else None
    return evaluator.finish(str(episode["episode_id"]), AGENT, actions, reply)


def _action(recorded: dict[str, Any]) -> Action:
    value = recorded.get("value")
    return Action(t=max(0.0, float(recorded.get("t", 0.0))), kind=str(recorded["action"]), target=recorded.get("target"),
                  value=value, url=recorded.get("url"))


# ---- many tasks -----------------------------------------------------------------------------------------
def run_oracle(world: Path, evaluator_url: str, token: str, task_ids: list[str] | None = None,
               noise_seed: int | None = None, workers: int = 2, timeout_ms: int = TIMEOUT_MS,
               progress: Callable[[Rollout], None] | None = None) -> list[Rollout]:
    """Every task of `world` (or `task_ids`) played by the oracle on the episode server at
    `evaluator_url`, clean or noisy (each task's seed derived from `noise_seed`, `task_seed`), in
    `workers` threads each with its own Chromium; the rollout records in task order."""
    return _play_all(world, evaluator_url, token, jobs(world, task_ids, noise_seed), workers, timeout_ms, progress)


def play_again(world: Path, evaluator_url: str, token: str, runs: list[tuple[str, int | None]], workers: int = 2,
               timeout_ms: int = TIMEOUT_MS) -> list[Rollout]:
    """The oracle's earlier runs played again, each `(task id, noise seed)` with that exact seed (a
    rollout record's own, not one derived from a run's): triage does this after a repair, since
    the oracle's browser actions cannot be replayed as HTTP calls. The records in `runs`' order."""
    if not runs:
        return []
    ids = sorted({task_id for task_id, _ in runs})
    built = {job.task_id: job for job in jobs(world, ids)}
    todo = [dataclasses.replace(built[task_id], noise_seed=seed) for task_id, seed in runs]
    return _play_all(world, evaluator_url, token, todo, workers, timeout_ms, None)


def _play_all(world: Path, evaluator_url: str, token: str, todo: list[OracleJob], workers: int, timeout_ms: int,
              progress: Callable[[Rollout], None] | None) -> list[Rollout]:
    spec = World(world).spec

    def handle(lane: BrowserLane, job: OracleJob) -> Rollout:
        evaluator = lane.resource("evaluator", lambda: _Evaluator(evaluator_url, token)).client
        return play(lane.browser(), evaluator, spec, job, timeout_ms)

    def done(_job: OracleJob, rollout: Rollout) -> None:
        if progress is not None:
            progress(rollout)

    return run_browser_lanes(todo, handle, lanes=workers, name="oracle", on_result=done)


class _Evaluator:
    """A lane's evaluator client, disconnected when the lane ends."""

    def __init__(self, url: str, token: str) -> None:
        self.client = EvaluatorClient(url, token, timeout=60.0)

    def close(self) -> None:
        self.client.disconnect()


__all__ = ["AGENT", "Dismisser", "OracleJob", "golden_steps", "jobs", "play", "play_again", "read_tasks",
           "run_oracle", "task_seed"]
