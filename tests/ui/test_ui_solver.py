"""The UI-feasibility solver on real built worlds: golden trajectories driven through Chromium, checked in SQLite.

Values are looked up in the seed database the way a task generator would pick them; every
expected count is computed with SQL, never copied from the page the solver reads.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from factory.runtime.server import AppServer, fresh_db
from factory.spec.model import Spec
from factory.tasks.ui_gate.solver import run_ui_jobs, solve
from factory.tasks.ui_gate.trajectory import Trajectory, TrajectoryError, UiJob, UiStep

ALICE = ("alice", "alice-pass")


def _spec(world: Path) -> Spec:
    return Spec.model_validate_json((world / "spec.json").read_text())


def _rows(db: Path, sql: str, *args: object) -> list[tuple]:
    # mode=ro, as a grader opens the database: it must see the app's committed writes.
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute(sql, args).fetchall()


def _active_note(db: Path, owner: int = 1) -> int:
    return _rows(db, "SELECT id FROM note WHERE owner_id = ? AND status = 'active' AND pinned = 0 ORDER BY id", owner)[0][0]


def _check_actions(trajectory: Trajectory, shots: Path) -> None:
    """Every action says where the page was after it; every named screenshot is a small JPEG on disk."""
    assert [a["n"] for a in trajectory.actions] == list(range(1, len(trajectory.actions) + 1))
    assert trajectory.actions[0]["action"] == "login"
    for action in trajectory.actions:
        assert action["url"].startswith("/"), action
        if action["screenshot"]:
            picture = shots / action["screenshot"]
            assert picture.read_bytes()[:3] == b"\xff\xd8\xff" and picture.stat().st_size < 200_000
    json.dumps(trajectory.to_json())  # a verified demonstration is stored as JSON


@pytest.fixture()
def solved(page: Page, mock_server: AppServer, mock_world: Path, tmp_path: Path) -> Any:
    """`solved(steps)` runs the steps as alice on the test's own server and database."""
    def run(steps: list[UiStep], user: tuple[str, str] = ALICE, timeout_ms: int = 5000) -> Trajectory:
        return solve(page, mock_server.url, _spec(mock_world), user[0], user[1], steps, tmp_path / "shots",
                     timeout_ms=timeout_ms)
    return run


def test_workflow_from_the_nav_form_writes_the_row(solved: Any, mock_server: AppServer, tmp_path: Path) -> None:
    notebook = _rows(mock_server.db, "SELECT id FROM notebook WHERE owner_id = 1 ORDER BY id")[0][0]
    step = UiStep(kind="workflow", workflow="write_note",
                  values={"notebook": notebook, "title": "Buy oat milk", "body": "and bread", "priority": 4})
    trajectory = solved([step])
    assert trajectory.ok, trajectory.message
    assert trajectory.message == "Note saved."
    assert _rows(mock_server.db, "SELECT owner_id, notebook_id, priority, status FROM note WHERE title = 'Buy oat milk'") \
        == [(1, notebook, 4, "active")]
    kinds = [(a["action"], a["target"]) for a in trajectory.actions]
    assert ("click", 'link "Write a note" (nav-action-write_note)') in kinds
    assert ("select", 'label "Notebook"') in kinds and ("fill", 'label "Priority"') in kinds
    assert trajectory.actions[-1]["value"] == "Note saved." and trajectory.actions[-1]["screenshot"]
    assert trajectory.actions[1]["url"] == "/actions/write-note"
    _check_actions(trajectory, tmp_path / "shots")


def test_confirm_modal_workflow_from_the_subject_row(solved: Any, mock_server: AppServer, tmp_path: Path) -> None:
    note = _active_note(mock_server.db)
    trajectory = solved([UiStep(kind="workflow", workflow="archive_note", values={"note": note},
                                expect_text=["Archived"])])
    assert trajectory.ok, trajectory.message
    assert _rows(mock_server.db, "SELECT status, updated_on FROM note WHERE id = ?", note) == [("archived", "2026-06-15")]
    steps = [(a["action"], a["url"]) for a in trajectory.actions]
    assert steps[1] == ("goto", f"/notes/{note}")
    assert steps[2] == ("click", f"/actions/archive-note?note={note}")  # the row's action button
    assert steps[3] == ("click", f"/actions/archive-note?note={note}")  # submitting opens the dialog
    assert steps[4] == ("confirm", f"/notes/{note}")  # confirming is answered by a toast back on the row
    assert trajectory.actions[-1]["url"] == f"/notes/{note}"  # which now reads Archived
    _check_actions(trajectory, tmp_path / "shots")


def test_a_failing_precondition_returns_the_toast_and_stops(solved: Any, mock_server: AppServer, tmp_path: Path) -> None:
    archived = _rows(mock_server.db, "SELECT id FROM note WHERE owner_id = 1 AND status = 'archived' ORDER BY id")[0][0]
    other = _active_note(mock_server.db)
    trajectory = solved([UiStep(kind="workflow", workflow="archive_note", values={"note": archived}),
                         UiStep(kind="workflow", workflow="archive_note", values={"note": other})])
    assert not trajectory.ok
    assert trajectory.message == "Only active notes can be archived."
    last = trajectory.actions[-1]
    assert (last["action"], last["value"]) == ("read", "Only active notes can be archived.")
    assert last["screenshot"] and (tmp_path / "shots" / last["screenshot"]).is_file()
    assert _rows(mock_server.db, "SELECT status FROM note WHERE id = ?", other) == [("active",)]  # never reached


def test_find_with_filters_and_search_checks_the_total_and_opens_the_row(solved: Any, mock_server: AppServer,
                                                                          tmp_path: Path) -> None:
    db = mock_server.db
    matching = _rows(db, "SELECT id, title FROM note WHERE owner_id = 1 AND status = 'active' AND updated_on "
                         "BETWEEN '2026-04-01' AND '2026-06-30' ORDER BY id")
    word = matching[0][1].split()[-1]
    searched = _rows(db, "SELECT count(*) FROM note WHERE owner_id = 1 AND title LIKE ?", f"%{word}%")[0][0]
    trajectory = solved([
        UiStep(kind="find", entity="note", filters={"status": "active", "updated_on": ("2026-04-01", "2026-06-30")},
               expect_total=len(matching), open_id=matching[-1][0], expect_text=[matching[-1][1]]),
        UiStep(kind="find", entity="note", search=word, expect_total=searched),
    ])
    assert trajectory.ok, trajectory.message
    filters = [a for a in trajectory.actions if a["action"] == "filter"]
    assert [f["value"] for f in filters] == ["active", "2026-04-01", "2026-06-30"]
    assert filters[-1]["url"] == "/notes?status=active&updated_on_min=2026-04-01&updated_on_max=2026-06-30"
    reads = [a["value"] for a in trajectory.actions if a["target"] == 'navigation "Pagination"']
    assert reads[0].endswith(f"of {len(matching)}") and reads[1].endswith(f"of {searched}")
    assert any(a["action"] == "open" and a["url"] == f"/notes/{matching[-1][0]}" for a in trajectory.actions)
    assert sum(1 for a in trajectory.actions if a["screenshot"]) == 2  # one at the end of each step
    _check_actions(trajectory, tmp_path / "shots")


def test_find_with_a_wrong_total_fails_fast(solved: Any, mock_server: AppServer, tmp_path: Path) -> None:
    pinned = _rows(mock_server.db, "SELECT count(*) FROM note WHERE owner_id = 1 AND pinned = 1")[0][0]
    trajectory = solved([UiStep(kind="find", entity="note", filters={"pinned": True}, expect_total=pinned + 1)])
    assert not trajectory.ok
    assert f"shows {pinned} matching rows" in trajectory.message and f"expected {pinned + 1}" in trajectory.message
    assert trajectory.actions[-1]["screenshot"]
    _check_actions(trajectory, tmp_path / "shots")


def test_a_missing_text_and_a_wrong_password_are_failures_not_errors(solved: Any) -> None:
    missing = solved([UiStep(kind="find", entity="notebook", expect_text=["No such notebook anywhere"])],
                     timeout_ms=1500)
    assert not missing.ok and 'text "No such notebook anywhere"' in missing.message
    refused = solved([UiStep(kind="find", entity="note")], user=("alice", "wrong"))
    assert not refused.ok and refused.message == "login as alice failed: Invalid username or password"
    assert [a["action"] for a in refused.actions] == ["login"]


def test_a_malformed_trajectory_raises(solved: Any) -> None:
    with pytest.raises(TrajectoryError, match="no workflow 'launch_rocket'"):
        solved([UiStep(kind="workflow", workflow="launch_rocket")])
    with pytest.raises(TrajectoryError, match="no filter on 'colour'"):
        solved([UiStep(kind="find", entity="note", filters={"colour": "red"})])


def test_steps_round_trip_through_json() -> None:
    step = UiStep(kind="find", entity="note", filters={"updated_on": ("2026-04-01", None), "pinned": True},
                  search="milk", open_id=3, expect_total=2, expect_text=["Milk"])
    assert UiStep.from_json(json.loads(json.dumps(step.to_json()))) == step


@pytest.fixture()
def nested(worlds: Any, tmp_path: Path) -> Iterator[tuple[AppServer, Spec]]:
    world = worlds.get("capabilities/nested_filters.yaml")
    with AppServer(world, fresh_db(world, tmp_path / "app.db")) as server:
        yield server, _spec(world)


def test_find_with_nested_filters_a_money_range_and_paging(page: Page, nested: tuple[AppServer, Spec]) -> None:
    server, spec = nested
    category, subcategory, brand = _rows(server.db, "SELECT category, subcategory, brand FROM product "
                                                    "GROUP BY 1, 2, 3 ORDER BY count(*) DESC")[0]
    chosen = _rows(server.db, "SELECT id FROM product WHERE category = ? AND subcategory = ? AND brand = ? "
                              "AND price BETWEEN 5000 AND 150000 ORDER BY id", category, subcategory, brand)
    last = _rows(server.db, "SELECT max(id) FROM product WHERE category = ?", category)[0][0]
    steps = [UiStep(kind="find", entity="product", expect_total=len(chosen),
                    filters={"brand": brand, "subcategory": subcategory, "category": category, "price": (5000, 150000)}),
             UiStep(kind="find", entity="product", filters={"category": category}, open_id=last)]
    trajectory = solve(page, server.url, spec, "sam", "sam-pass", steps, None)
    assert trajectory.ok, trajectory.message
    # Parents are chosen before their children, whatever order the step lists them in.
    chosen_order = [a["target"].split('"')[1] for a in trajectory.actions if a["action"] == "filter"]
    assert chosen_order[:4] == ["Category", "Min price", "Max price", "Subcategory"] and chosen_order[4] == "Brand"
    assert trajectory.actions[-1]["url"] == f"/products/{last}"
    assert all(a["screenshot"] is None for a in trajectory.actions)  # no shots directory, no pictures


def _jobs(world: Path, root: Path, note: int, notebook: int) -> list[UiJob]:
    archive = [UiStep(kind="workflow", workflow="archive_note", values={"note": note})]
    write = [UiStep(kind="workflow", workflow="write_note", values={"notebook": notebook, "title": "Lane note"}),
             UiStep(kind="find", entity="note", search="Lane note", expect_total=1)]
    return [UiJob(key=key, db=fresh_db(world, root / key / "task.db"), username="alice", password="alice-pass",
                  steps=steps, shots=root / key / "shots")
            for key, steps in (("archive", archive), ("write", write))]


def _stable(trajectory: Trajectory) -> dict[str, Any]:
    return trajectory.to_json()


def test_run_ui_jobs_keeps_each_change_in_its_own_database(mock_world: Path, tmp_path: Path) -> None:
    seed = mock_world / "data" / "seed.db"
    note, notebook = _active_note(seed), _rows(seed, "SELECT id FROM notebook WHERE owner_id = 1 ORDER BY id")[0][0]
    jobs = _jobs(mock_world, tmp_path / "two", note, notebook)
    seen: list[tuple[int, int]] = []
    results = run_ui_jobs(mock_world, _spec(mock_world), jobs, workers=2, progress=lambda d, t: seen.append((d, t)))
    assert list(results) == ["archive", "write"] and sorted(seen) == [(1, 2), (2, 2)]
    assert all(t.ok for t in results.values()), {k: t.message for k, t in results.items()}
    archive_db, write_db = jobs[0].db, jobs[1].db
    for db in (archive_db, write_db):
        # The final state sits in the database file itself: no write-ahead log is left to lose.
        assert not Path(f"{db}-wal").exists()
        alone = tmp_path / "alone" / db.parent.name / "copy.db"
        alone.parent.mkdir(parents=True)
        shutil.copyfile(db, alone)
        expected = "archived" if db == archive_db else "active"
        assert _rows(alone, "SELECT status FROM note WHERE id = ?", note) == [(expected,)]
    assert _rows(archive_db, "SELECT count(*) FROM note WHERE title = 'Lane note'") == [(0,)]
    assert _rows(write_db, "SELECT count(*) FROM note WHERE title = 'Lane note'") == [(1,)]
    for job in jobs:
        assert all((job.shots / a["screenshot"]).is_file() for a in results[job.key].actions if a["screenshot"])

    # One lane gives the same trajectories as two: nothing depends on the worker count or the port.
    again = run_ui_jobs(mock_world, _spec(mock_world), _jobs(mock_world, tmp_path / "one", note, notebook), workers=1)
    assert {k: _stable(t) for k, t in again.items()} == {k: _stable(t) for k, t in results.items()}


def test_run_ui_jobs_takes_the_step_timeout(mock_world: Path, tmp_path: Path) -> None:
    """The UI gate's one replay of a failed trajectory has a longer timeout: the timeout reaches the
    solver (1 ms fails a step that the default passes, on fresh copies of the same state)."""
    seed = mock_world / "data" / "seed.db"
    note, notebook = _active_note(seed), _rows(seed, "SELECT id FROM notebook WHERE owner_id = 1 ORDER BY id")[0][0]
    hurried = run_ui_jobs(mock_world, _spec(mock_world), _jobs(mock_world, tmp_path / "hurried", note, notebook),
                          workers=1, timeout_ms=1)
    assert not any(t.ok for t in hurried.values()) and all("1ms" in t.message for t in hurried.values()), \
        {k: t.message for k, t in hurried.items()}
    patient = run_ui_jobs(mock_world, _spec(mock_world), _jobs(mock_world, tmp_path / "patient", note, notebook),
                          workers=1, timeout_ms=15_000)
    assert all(t.ok for t in patient.values()), {k: t.message for k, t in patient.items()}
