"""The UI-feasibility gate's scripted solver: drive a task's golden trajectory through Chromium.

A trajectory is a list of `UiStep`s at the level a task generator thinks in (run a workflow with
API-level values; find rows on a list page). `solve` performs them the way a user would — the
login page, the side navigation, a row's action button, labelled form fields, the filter panel —
and records every action with the page URL after it (path and query only, so a trajectory does
not depend on the server's port) and, when asked, small JPEG screenshots. An agent-level failure
(an error toast, a missing text, a wrong total, a locator that never appears) comes back as
`Trajectory(ok=False)`, and then the last action is the one that failed, with a screenshot. Only
a malformed trajectory (an unknown workflow, parameter, entity or filter) raises.

A `find` step that answers a READ (`UiStep.read`) takes its answer from the page it reached, the
way an agent reads it, and records it as `Trajectory.answer`: a lookup reads the row's detail
page at the asked field's label; a count reads the total the pagination bar states; a
superlative sorts the list by the field's column header and reads the top row's label (the first
alphabetically among rows tied on the shown value); a sum adds up the amounts shown in the field's
column over every page, formatted as the app formats amounts. Test ids only locate elements: the
answer is always the text the page displays. Nothing here knows the expected answer.

`solve` can also start from a page that is already signed in (`signed_in`: an episode's launch URL
signed the user in; no cookie is cleared and the login page is skipped), offer every action to a
hook first (`before_action`: the oracle dismisses noisy mode's perturbations there) and stamp each
recorded action with a clock (`clock`: its `t`). The UI gate uses none of them.

`run_ui_jobs` runs many trajectories in parallel lanes (`factory.runtime.lanes`), each one app
server (rebound to each job's own database copy through its control endpoint) and one Chromium in
its own thread, and leaves each job's final state checkpointed into its database file, readable by
any grader.

Beside this module: the steps and results (`trajectory`), the recorder of one solve (`recorder`),
list pages (`list_page`) and reading a READ's answer off the page (`reads`).
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, ViewportSize, expect

from factory.compiler.frontend import form_href
from factory.runtime.browser import fill_param
from factory.runtime.lanes import Lane, run_lanes
from factory.spec.model import (
    ParamSpec,
    Spec,
    WorkflowSpec,
)
from factory.tasks.ui_gate.list_page import ListWatch, filter_depth, filter_named, open_row, read_total, set_filter, shown_total
from factory.tasks.ui_gate.reads import answer, detail_text, read_field, shown_sum, superlative
from factory.tasks.ui_gate.recorder import Run, url_query
from factory.tasks.ui_gate.trajectory import StepFailed, Trajectory, TrajectoryError, UiJob, UiStep

VIEWPORT: ViewportSize = {"width": 1100, "height": 800}
LOGIN_TARGET = 'label "Username", label "Password", button "Sign in"'
TOAST = re.compile(r"^toast-(success|error)$")


# ---- workflow steps ------------------------------------------------------------------------------
def _shown(param: ParamSpec, value: Any) -> str:
    """The value as the widget takes it (money in major units, booleans as true/false)."""
    if value is None:
        return ""
    if param.widget == "money":
        return f"{int(value) / 100:.2f}"
    if param.widget == "checkbox":
        return "true" if value else "false"
    return str(value)


def _open_form(run: Run, workflow: WorkflowSpec, values: dict[str, Any]) -> bool:
    """Reach the workflow's form like a user; True when the subject came preselected from its row."""
    page, form = run.page, run.page.get_by_test_id(f"form-{workflow.name}")
    subject_id = values.get(workflow.subject) if workflow.subject else None
    entity = run.spec.entity(workflow.subject_entity) if workflow.subject_entity else None
    if subject_id is None or entity is None or entity.builtin:  # no row page to start from: the nav's form
        with run.act("click", f'link "{workflow.label}" (nav-action-{workflow.name})'):
            page.get_by_test_id(f"nav-action-{workflow.name}").click()
            expect(form).to_be_visible(timeout=run.timeout_ms)
        return False
    detail = f"/{entity.path}/{subject_id}"
    with run.act("goto", detail):
        page.goto(run.base_url + detail)
        expect(page.get_by_test_id(f"detail-{entity.name}")).to_be_visible(timeout=run.timeout_ms)
    label = next(p.label for p in workflow.params if p.name == workflow.subject)
    with run.act("click", f'button "{workflow.label}" (action-{workflow.name})'):
        page.get_by_test_id(f"action-{workflow.name}").click()
        expect(form).to_be_visible(timeout=run.timeout_ms)
        # The form preselects the row from `?<subject>=<id>`; this also waits for the options to load.
        expect(page.get_by_label(label, exact=True)).to_have_value(str(subject_id), timeout=run.timeout_ms)
    return True


def _workflow_step(run: Run, step: UiStep) -> None:
    workflow = next((w for w in run.spec.workflows if w.name == step.workflow), None)
    if workflow is None:
        raise TrajectoryError(f"world {run.spec.world} has no workflow {step.workflow!r}")
    unknown = sorted(set(step.values) - {p.name for p in workflow.params})
    if unknown:
        raise TrajectoryError(f"workflow {workflow.name} has no parameter(s) {unknown}")
    if form_href(workflow) is None:
        raise StepFailed(f"workflow {workflow.name} has no form in the UI (a system workflow)")
    page = run.page
    preselected = _open_form(run, workflow, step.values)
    for param in workflow.params:
        if param.name not in step.values or (preselected and param.name == workflow.subject):
            continue
        value = step.values[param.name]
        action = {"checkbox": "check", "select": "select", "reference": "select"}.get(param.widget, "fill")
        with run.act(action, f'label "{param.label}"', _shown(param, value)):
            fill_param(page, param, value)
    toast = page.get_by_test_id(TOAST)
    if toast.count():  # a toast left by an earlier step must not be read as this step's answer
        with run.act("click", 'button "Dismiss notification"'):
            page.get_by_role("button", name="Dismiss notification").click()
            expect(toast).to_have_count(0, timeout=run.timeout_ms)
    # A submitting click's action lasts until its answer shows: the success toast and the return to
    # the subject row happen together, so the URL recorded after it does not depend on timing.
    dialog = page.get_by_role("dialog")
    with run.act("click", f'button "{workflow.label}"'):
        page.get_by_test_id(f"form-{workflow.name}").get_by_role("button", name=workflow.label, exact=True).click()
        # With a confirm step, client-side validation still answers with an error toast instead.
        expect((dialog.or_(toast) if workflow.confirm else toast).first).to_be_visible(timeout=run.timeout_ms)
    if workflow.confirm and dialog.count():
        with run.act("confirm", 'dialog › button "Confirm"'):
            dialog.get_by_role("button", name="Confirm").click()
            expect(toast).to_be_visible(timeout=run.timeout_ms)
    with run.act("read", "toast"):
        run.message = toast.inner_text().strip()
        success = toast.get_attribute("data-testid") == "toast-success"
    run.actions[-1]["value"] = run.message
    if not success:
        raise StepFailed(run.message)
    run.check_texts(step.expect_text)


def _find_step(run: Run, step: UiStep) -> None:
    entity = next((e for e in run.spec.entities if e.name == step.entity), None)
    if entity is None:
        raise TrajectoryError(f"world {run.spec.world} has no entity {step.entity!r}")
    read = read_field(entity, step)
    # Parents first: choosing a parent clears the filters nested under it.
    filters = sorted(((filter_named(entity, name), value) for name, value in step.filters.items()),
                     key=lambda pair: filter_depth(entity, pair[0]))
    page, table = run.page, run.page.get_by_test_id(f"list-{entity.name}")
    watch = ListWatch(run, entity)
    try:
        if entity.nav and not entity.builtin:
            with run.act("click", f'link "{entity.plural}" (nav-{entity.name})'):
                page.get_by_test_id(f"nav-{entity.name}").click()
                expect(table).to_be_visible(timeout=run.timeout_ms)
        else:
            with run.act("goto", f"/{entity.path}"):
                page.goto(f"{run.base_url}/{entity.path}")
                expect(table).to_be_visible(timeout=run.timeout_ms)
        if step.search:
            name = f"Search {entity.plural.lower()}"
            with run.act("search", f'searchbox "{name}"', step.search):
                box = page.get_by_role("searchbox", name=name)
                box.fill(step.search)  # commits after the typing pause (see list_page._set_range on Enter)
                run.wait_url(lambda url: url_query(url).get("q") == step.search)
        for flt, value in filters:
            set_filter(run, entity, flt, value)
        body = watch.settle()
        if step.expect_total is not None:
            read_total(run, entity, int(body["total"]), step.expect_total)
        if step.read == "count":
            answer(run, str(shown_total(run, entity)[0]))
        elif step.read == "sum":
            assert read is not None
            answer(run, shown_sum(run, entity, watch, read))
        elif step.read in ("max", "min"):
            assert read is not None
            answer(run, superlative(run, entity, watch, read, step.read == "max"))
        if step.open_id is not None:
            open_row(run, entity, watch, body, step.open_id)
    finally:
        watch.close()
    run.check_texts(step.expect_text)
    if step.read == "lookup":
        assert read is not None
        answer(run, detail_text(run, entity, read))


def _login(run: Run, username: str, password: str) -> None:
    """`factory.runtime.browser.login`, but a refused sign-in fails at once with the page's own message."""
    page = run.page
    shell, refused = page.get_by_test_id("logout"), page.get_by_test_id("toast-error")
    with run.act("login", LOGIN_TARGET, username):
        page.goto(f"{run.base_url}/login")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Sign in").click()
        expect(shell.or_(refused).first).to_be_visible(timeout=run.timeout_ms)
    if refused.count():
        raise StepFailed(f"login as {username} failed: {refused.inner_text().strip()}")


def _signed_in(run: Run) -> None:
    """The page is already signed in (an episode's launch URL did it): wait for the app shell."""
    with run.act("wait", 'the signed-in app (button "Log out")'):
        expect(run.page.get_by_test_id("logout")).to_be_visible(timeout=run.timeout_ms)


class _HookedRun(Run):
    """A run whose every action is first offered to `before` and whose every record gets `t`,
    the `clock`'s seconds (used by agents replaying a trajectory in an episode, never by the gate)."""

    def __init__(self, page: Page, base_url: str, spec: Spec, shots: Path | None, timeout_ms: int,
                 before: Callable[[Run], None] | None, clock: Callable[[], float] | None) -> None:
        super().__init__(page, base_url, spec, shots, timeout_ms)
        self.before, self.clock = before, clock

    @contextmanager
    def act(self, action: str, target: str, value: str | None = None) -> Iterator[None]:
        with super().act(action, target, value):
            if self.before is not None:
                self.before(self)
            yield

    def record(self, action: str, target: str, value: str | None) -> None:
        super().record(action, target, value)
        if self.clock is not None:
            self.actions[-1]["t"] = round(self.clock(), 3)


# ---- entry points --------------------------------------------------------------------------------
def solve(page: Page, base_url: str, spec: Spec, username: str, password: str, steps: list[UiStep],
          shots: Path | None, timeout_ms: int = 5000, *, signed_in: bool = False,
          before_action: Callable[[Run], None] | None = None, clock: Callable[[], float] | None = None) -> Trajectory:
    """Log in and perform `steps` through the UI; agent-level failures come back as `ok=False`.

    Sets the page's default timeout to `timeout_ms` so that a failing step fails fast, and clears
    the context's cookies so that the trajectory starts, like an agent's, at the login page. With
    `signed_in` the page is already in the app as the user: cookies are kept and there is no login.
    `before_action(run)` runs before every action; `clock()` stamps every recorded action's `t`.
    """
    started = time.perf_counter()
    base_url = base_url.rstrip("/")
    page.set_default_timeout(timeout_ms)
    if not signed_in:
        page.context.clear_cookies()  # the login page shows only to a visitor without a session
    if shots is not None and shots.is_dir():
        for old in shots.glob("*.jpg"):  # a rerun must not leave an earlier run's pictures behind
            if old.stem.isdigit():
                old.unlink()
    run = Run(page, base_url, spec, shots, timeout_ms)
    if before_action is not None or clock is not None:
        run = _HookedRun(page, base_url, spec, shots, timeout_ms, before_action, clock)
    ok = True
    try:
        if signed_in:
            _signed_in(run)
        else:
            _login(run, username, password)
        for step in steps:
            if step.kind == "workflow":
                _workflow_step(run, step)
            elif step.kind == "find":
                _find_step(run, step)
            else:
                raise TrajectoryError(f"unknown step kind {step.kind!r} (workflow or find)")
            run.shoot()
    except StepFailed as exc:
        ok, run.message = False, " ".join(str(exc).split())
        run.shoot()
    except PlaywrightError as exc:  # the page or the browser went away between actions
        ok, run.message = False, f"browser failed on {run.path}: {' '.join(str(exc).split())[:300]}"
        run.shoot()
    return Trajectory(ok=ok, message=run.message, actions=run.actions, seconds=round(time.perf_counter() - started, 3),
                      answer=run.answer)


def checkpoint(db: Path) -> None:
    """Fold a leftover write-ahead log into the database file, so that the file alone holds the state."""
    if not Path(f"{db}-wal").exists():
        return
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()  # the last connection to close also removes the -wal and -shm files


def _run_job(lane: Lane, spec: Spec, job: UiJob, timeout_ms: int) -> Trajectory:
    server, browser = lane.server, lane.browser()  # the lane's Chromium starts with its first job
    server.use_db(job.db)
    context = browser.new_context(viewport=VIEWPORT)  # fresh cookies and storage for every job
    try:
        return solve(context.new_page(), server.url, spec, job.username, job.password, job.steps, job.shots,
                     timeout_ms=timeout_ms)
    finally:
        context.close()  # no request of this job can reach the next job's database
        server.use_db(lane.db)  # disposes the job's engine: SQLite checkpoints and lets go of the file
        checkpoint(job.db)


def run_ui_jobs(world: Path, spec: Spec, jobs: list[UiJob], workers: int = 2,
                progress: Callable[[int, int], None] | None = None, timeout_ms: int = 5000) -> dict[str, Trajectory]:
    """Solve every job in `workers` lanes (one server and one Chromium each), each step failing after
    `timeout_ms`; results in job order."""
    keys = [job.key for job in jobs]
    if len(set(keys)) != len(keys):
        raise TrajectoryError("UI job keys must be unique")
    if not jobs:
        return {}
    done = 0

    def solved(job: UiJob, trajectory: Trajectory) -> None:  # the lanes call it under their lock
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, len(jobs))

    # between jobs a lane's server idles on its private copy of the first job's database
    trajectories = run_lanes(world, jobs, lambda lane, job: _run_job(lane, spec, job, timeout_ms), lanes=workers, work=None,
                             start_db=jobs[0].db, name="ui-lane", on_result=solved)
    return {job.key: trajectory for job, trajectory in zip(jobs, trajectories, strict=True)}
