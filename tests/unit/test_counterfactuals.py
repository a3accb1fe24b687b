"""The partial-completion counterfactual below the row: one column of an updated row left undone,
one skippable value of a new row left blank, and the precise reason when neither applies; the
wrong-target counterfactual on a row the form offers when the user's first rows are refused.

Real parts: the mock world's app on loopback (the counterfactual rows are stored by it or patched
from its golden diff), reward-gen in its sandboxed process, SQLite files.
"""

from __future__ import annotations

import copy
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from episodes.dbfiles import copy_db
from factory.runtime.client import Backend
from factory.runtime.patch import make_patch
from factory.spec.model import ParamSpec, Spec
from factory.tasks.gates import GateResult, GateRunner
from factory.tasks.hard_negatives import uses_task_value
from factory.tasks.propose.proposer import Draft, Proposer
from factory.tasks.reward.gen import run_rewardgen
from factory.tasks.setupgen import run_golden
from factory.world.assemble import build_world

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


@dataclass
class Parts:
    """One backend, proposer and gate runner on the mock world, shared by the module."""

    world: Path
    spec: Spec
    seed_db: Path
    backend: Backend
    proposer: Proposer
    runner: GateRunner


@pytest.fixture(scope="module")
def parts(mock_world: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Parts]:
    work = tmp_path_factory.mktemp("cf")
    spec = Spec.model_validate_json((mock_world / "spec.json").read_text())
    seed_db = mock_world / "data" / "seed.db"
    with Backend(mock_world, spec, work) as backend:
        proposer = Proposer(spec, seed_db)
        runner = GateRunner(spec, backend, seed_db, work)
        yield Parts(mock_world, spec, seed_db, backend, proposer, runner)
        runner.close()
        proposer.close()


@pytest.fixture(scope="module")
def offered_parts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Parts]:
    """The mock world with twelve notes a user and an archive form that offers only the active
    notes (the filter the echobank forms put on their rows); a pinned one is offered, but the app
    refuses to archive it."""
    root = tmp_path_factory.mktemp("offered")
    text = (SEEDS / "mock.yaml").read_text()
    archive = "  - name: archive_note\n    label: Archive note\n    subject: note\n    params:\n" \
              "      - {name: note, type: reference, to: note}\n"
    assert archive in text and "seed: {per_user: 6}" in text
    text = text.replace(archive, archive.replace(
        "to: note}", "to: note, where: \"it.status == 'active'\"}"))
    seed = root / "mock.yaml"
    seed.write_text(text.replace("seed: {per_user: 6}", "seed: {per_user: 12}"))
    world = build_world(seed, root / "worlds", frontend=False).path
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    seed_db = world / "data" / "seed.db"
    with Backend(world, spec, root / "work") as backend:
        proposer = Proposer(spec, seed_db)
        runner = GateRunner(spec, backend, seed_db, root / "work")
        yield Parts(world, spec, seed_db, backend, proposer, runner)
        runner.close()
        proposer.close()


def _draft(proposer: Proposer, workflow: str, want: Any = lambda params: True) -> Draft:
    """The first setup-free draft of `workflow` whose golden step parameters satisfy `want`."""
    wf = next(w for w in proposer.spec.workflows if w.name == workflow)
    for attempt in range(40):
        draft = proposer._write(wf, 1 + 2 * attempt)  # odd attempts: generic phrasing
        if draft is not None and not draft.setup and want(draft.steps[0].params):
            return draft
    raise AssertionError(f"no suitable draft for {workflow}")


def _reward(parts: Parts, draft: Draft, initial: Path, work: Path) -> dict[str, Any]:
    """The reward reward-gen writes from the instruction alone."""
    result = run_rewardgen(parts.world / "spec.json", [{"id": draft.key, "goal": draft.goal, "user": draft.user,
                                                        "initial_db": str(initial)}], work / "sandbox")
    assert result[draft.key]["ok"], result[draft.key]
    return result[draft.key]["reward"]


def _gates(parts: Parts, draft: Draft, reward: dict[str, Any], initial: Path, golden: Path) -> dict[str, GateResult]:
    patch = make_patch(parts.seed_db, initial)
    return {g.name: g for g in parts.runner.run(draft, reward, initial, golden, patch)}


def _row(db: Path, table: str, row_id: int) -> dict[str, Any]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return dict(conn.execute(f'SELECT * FROM "{table}" WHERE id = ?', (row_id,)).fetchone())
    finally:
        conn.close()


def _partial_db(parts: Parts, draft: Draft) -> Path:
    return parts.runner.work / "cf" / f"{draft.key}.partial.db"


def test_an_update_of_two_columns_leaves_the_task_given_one_undone(parts: Parts, tmp_path: Path) -> None:
    """move_note sets the note's notebook (the task's value) and its updated_on (the app's date):
    the partial state has the date set and the notebook left where it was. The generated reward
    rejects it; a reward that checks only the date lets it through, and the gate says so."""
    draft = _draft(parts.proposer, "move_note")
    note_id = draft.steps[0].params["note"]
    # An old date on the note, so the move changes two columns whatever the seed drew.
    initial = copy_db(parts.seed_db, tmp_path / "initial.db")
    conn = sqlite3.connect(initial)
    conn.execute("UPDATE note SET updated_on = '2026-01-05' WHERE id = ?", (note_id,))
    conn.commit()
    conn.close()
    golden = run_golden(parts.backend, initial, draft.user, draft.steps, tmp_path / "golden.db")
    before, after = _row(initial, "note", note_id), _row(golden, "note", note_id)
    assert before["notebook_id"] != after["notebook_id"] and before["updated_on"] != after["updated_on"]

    good = _reward(parts, draft, initial, tmp_path / "good")
    gates = _gates(parts, draft, good, initial, golden)
    partial = gates["counterfactual:partial"]
    assert partial.passed and partial.score == 0.0, partial
    assert "notebook_id left at" in partial.detail
    # Exactly one column of the one row left undone, nothing else touched.
    state = _row(_partial_db(parts, draft), "note", note_id)
    assert state == {**after, "notebook_id": before["notebook_id"]}
    assert all(g.passed for g in gates.values()), gates

    # A reward that checks the date but not the notebook: right on initial and golden, blind to
    # the partial state, which only the column-level counterfactual exposes.
    weak = copy.deepcopy(good)
    for check in weak["checks"]:
        if check["type"] == "row_matches":
            check["expect"] = {"updated_on": check["expect"]["updated_on"]}
    gates = _gates(parts, draft, weak, initial, golden)
    assert gates["initial"].passed and gates["golden"].passed
    partial = gates["counterfactual:partial"]
    assert partial.passed is False and partial.score == 1.0, partial


def test_a_new_row_with_a_skippable_value_left_blank_is_the_partial_state(parts: Parts, tmp_path: Path) -> None:
    """write_note with a priority other than the form's default 3: the partial state is the note
    the app stores when the priority is left as prefilled. The generated reward rejects it; one
    that looks for the title and notebook alone does not."""
    draft = _draft(parts.proposer, "write_note", lambda params: params["priority"] != 3)
    initial = copy_db(parts.seed_db, tmp_path / "initial.db")
    golden = run_golden(parts.backend, initial, draft.user, draft.steps, tmp_path / "golden.db")
    good = _reward(parts, draft, initial, tmp_path / "good")
    gates = _gates(parts, draft, good, initial, golden)
    partial = gates["counterfactual:partial"]
    assert partial.passed and partial.score == 0.0, partial
    assert "priority left blank" in partial.detail
    conn = sqlite3.connect(_partial_db(parts, draft))
    new_id = conn.execute("SELECT max(id) FROM note").fetchone()[0]
    conn.close()
    state = _row(_partial_db(parts, draft), "note", new_id)
    assert state["title"] == draft.steps[0].params["title"] and state["priority"] == 3
    assert _row(golden, "note", new_id)["priority"] == draft.steps[0].params["priority"]
    assert all(g.passed for g in gates.values()), gates

    weak = copy.deepcopy(good)
    for check in weak["checks"]:
        if check["type"] == "rows_added":
            check["where"] = {k: v for k, v in check["where"].items() if k in ("title", "notebook_id")}
    gates = _gates(parts, draft, weak, initial, golden)
    assert gates["initial"].passed and gates["golden"].passed
    partial = gates["counterfactual:partial"]
    assert partial.passed is False and partial.score == 1.0, partial


def test_a_task_that_changes_one_value_of_one_row_has_no_partial_and_says_why(parts: Parts, tmp_path: Path) -> None:
    draft = _draft(parts.proposer, "set_reminder")
    initial = copy_db(parts.seed_db, tmp_path / "initial.db")
    golden = run_golden(parts.backend, initial, draft.user, draft.steps, tmp_path / "golden.db")
    gates = _gates(parts, draft, _reward(parts, draft, initial, tmp_path / "good"), initial, golden)
    partial = gates["counterfactual:partial"]
    assert partial.score is None and partial.passed
    note_id = draft.steps[0].params["note"]
    assert partial.detail == f"not applicable: the task changes one value of one row (note #{note_id}: updated_on)"


def test_a_column_counts_as_the_tasks_when_its_value_comes_from_a_parameter() -> None:
    def param(name: str, ref: str | None = None) -> ParamSpec:
        return ParamSpec(name=name, var=name, label=name, type="reference" if ref else "int", py_type="int",
                         required=True, ref=ref, widget="reference" if ref else "number")

    params = [param("note", "note"), param("target", "notebook"), param("amount")]
    assert uses_task_value("target", params)  # the chosen row itself
    assert uses_task_value("note.balance - amount", params)
    assert not uses_task_value("min(note.priority + 1, 5)", params)  # the row's own value
    assert not uses_task_value("today()", params)
    assert not uses_task_value("'amount'", params)  # a word in a string literal is no name


def test_the_wrong_target_is_a_row_the_form_offers_when_the_first_rows_are_refused(
        offered_parts: Parts, tmp_path: Path) -> None:
    """archive_note on one of the user's twelve notes, all the others archived but the last: the
    six rows tried in id order are refused ("only active notes"), and the one the archive form
    offers is the wrong target, run over HTTP as the user, which the reward scores 0."""
    parts = offered_parts
    draft = _draft(parts.proposer, "archive_note")
    note_id = draft.steps[0].params["note"]
    initial = copy_db(parts.seed_db, tmp_path / "initial.db")
    conn = sqlite3.connect(initial)
    others = [i for i, in conn.execute("SELECT id FROM note WHERE owner_id = ? AND id != ? ORDER BY id",
                                       (draft.user_id, note_id))]
    assert len(others) > 6  # more than the rows tried: only the form's filter reaches the last
    offered = others[-1]
    conn.execute("UPDATE note SET status = 'archived' WHERE owner_id = ?", (draft.user_id,))
    conn.execute("UPDATE note SET status = 'active', pinned = 0 WHERE id IN (?, ?)", (note_id, offered))
    conn.commit()
    conn.close()
    options = parts.backend.options(copy_db(initial, tmp_path / "options.db"), draft.user, "archive_note", "note")
    assert sorted(options) == sorted([note_id, offered])
    golden = run_golden(parts.backend, initial, draft.user, draft.steps, tmp_path / "golden.db")

    gates = _gates(parts, draft, _reward(parts, draft, initial, tmp_path / "good"), initial, golden)
    wrong = gates["counterfactual:wrong_target"]
    assert wrong.passed and wrong.score == 0.0, wrong
    assert wrong.detail.startswith(f"note #{offered} instead of #{note_id}: "), wrong
    # The app made it: the offered note archived, the task's own note left active.
    state = parts.runner.work / "cf" / f"{draft.key}.wrong_target.db"
    assert _row(state, "note", offered)["status"] == "archived"
    assert _row(state, "note", note_id)["status"] == "active"
    assert all(g.passed for g in gates.values()), gates


def test_a_wrong_target_no_row_is_offered_for_says_what_was_tried(offered_parts: Parts, tmp_path: Path) -> None:
    """Every other note archived: the form offers none, the app refuses the ones tried, and the
    reason says both."""
    parts = offered_parts
    draft = _draft(parts.proposer, "archive_note")
    note_id = draft.steps[0].params["note"]
    initial = copy_db(parts.seed_db, tmp_path / "initial.db")
    conn = sqlite3.connect(initial)
    conn.execute("UPDATE note SET status = 'archived' WHERE owner_id = ? AND id != ?", (draft.user_id, note_id))
    conn.commit()
    conn.close()
    golden = run_golden(parts.backend, initial, draft.user, draft.steps, tmp_path / "golden.db")
    gates = _gates(parts, draft, _reward(parts, draft, initial, tmp_path / "good"), initial, golden)
    wrong = gates["counterfactual:wrong_target"]
    assert wrong.passed and wrong.score is None
    assert wrong.detail == ("not applicable: the form offers no other note row and the app refuses "
                            "the action on all 6 other note rows tried")


def test_the_wrong_target_is_a_row_the_app_is_predicted_to_accept(offered_parts: Parts, tmp_path: Path) -> None:
    """Every other note active, so the form offers them all, but pinned except the last: the app
    refuses the first six in id order ("unpin the note first"), and the row the spec's
    preconditions predict it accepts is tried first."""
    parts = offered_parts
    draft = _draft(parts.proposer, "archive_note")
    note_id = draft.steps[0].params["note"]
    initial = copy_db(parts.seed_db, tmp_path / "initial.db")
    conn = sqlite3.connect(initial)
    conn.execute("UPDATE note SET status = 'active', pinned = 1 WHERE owner_id = ?", (draft.user_id,))
    accepted = conn.execute("SELECT max(id) FROM note WHERE owner_id = ? AND id != ?",
                            (draft.user_id, note_id)).fetchone()[0]
    conn.execute("UPDATE note SET pinned = 0 WHERE id IN (?, ?)", (note_id, accepted))
    conn.commit()
    conn.close()
    options = parts.backend.options(copy_db(initial, tmp_path / "options.db"), draft.user, "archive_note", "note")
    others = sorted(i for i in options if i != note_id)
    assert len(others) == 11 and others.index(accepted) >= 6  # all offered, the accepted one past six
    golden = run_golden(parts.backend, initial, draft.user, draft.steps, tmp_path / "golden.db")

    gates = _gates(parts, draft, _reward(parts, draft, initial, tmp_path / "good"), initial, golden)
    wrong = gates["counterfactual:wrong_target"]
    assert wrong.passed and wrong.score == 0.0, wrong
    assert wrong.detail.startswith(f"note #{accepted} instead of #{note_id}: "), wrong
    assert all(g.passed for g in gates.values()), gates
