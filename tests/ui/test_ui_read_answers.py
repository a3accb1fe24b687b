"""READ tasks proven on screen: the UI gate's solver answers from the page it reached, and that
answer, not the reference one, is what the task's reward grades.

Real parts throughout: built worlds, the app on loopback, Chromium, SQLite copies. Expected values
are computed with SQL from the database, never copied from the page the solver reads; a page made
to show another value (a corrupted database copy, an altered API answer) must fail the gate.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Route

from episodes.dbfiles import copy_db
from factory.predict.rows import UserView, money_text
from factory.runtime.client import Backend
from factory.runtime.server import AppServer, fresh_db
from factory.spec.model import Spec
from factory.tasks.attempt import Attempt
from factory.tasks.gates import GateRunner
from factory.tasks.language.asks import Cond, Question, RefText
from factory.tasks.language.spoken import spoken_label
from factory.tasks.propose.proposer import Draft, Plan, Proposer
from factory.tasks.reward.gen import deterministic_policy
from factory.tasks.setupgen import Setup
from factory.tasks.triage import false_aliases, weakens, with_aliases
from factory.tasks.ui_gate import gate as ui_gate_module
from factory.tasks.ui_gate.gate import ui_gate, ui_verdicts
from factory.tasks.ui_gate.solver import solve
from factory.tasks.ui_gate.steps import answer_texts, shown_value, ui_steps
from factory.tasks.ui_gate.trajectory import Trajectory, UiStep
from verifiers.grade import grade


def _spec(world: Path) -> Spec:
    return Spec.model_validate_json((world / "spec.json").read_text())


def _rows(db: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute(sql, args).fetchall()


def _reward(spec: Spec, draft: Draft, db: Path) -> dict[str, Any]:
    """The deterministic reward-gen policy, in process (its sandbox is tested in stage two's tests)."""
    return deterministic_policy({"goal": draft.goal, "user": draft.user}, spec, db)


def _password(spec: Spec, username: str) -> str:
    return next(u.password for u in spec.users if u.username == username)


def _first_alphabetically(titles: list[str]) -> str:
    return min(titles, key=lambda t: " ".join(t.split()).casefold())


# ---------------------------------------------------------------- each READ op, read off the page

@pytest.fixture(scope="module")
def mock_reads(mock_world: Path) -> dict[str, Draft]:
    """The mock world's READ drafts, the first of each op."""
    proposer = Proposer(_spec(mock_world), mock_world / "data" / "seed.db")
    try:
        drafts = proposer.propose(Plan.for_total(120))  # enough drafts that every READ op turns up
    finally:
        proposer.close()
    out: dict[str, Draft] = {}
    for d in drafts:
        if d.ask.question is not None and not d.setup:
            out.setdefault(d.ask.question.op, d)
    return out


@pytest.mark.parametrize("op", ["lookup", "count", "max", "min"])
def test_each_read_op_is_answered_from_the_page_and_grades_1(op: str, mock_reads: dict[str, Draft], page: Page,
                                                             mock_server: AppServer, mock_world: Path) -> None:
    spec, db = _spec(mock_world), mock_server.db
    draft = mock_reads[op]
    q = draft.ask.question
    assert q is not None
    t = solve(page, mock_server.url, spec, draft.user, _password(spec, draft.user), ui_steps(spec, draft, db), None)
    assert t.ok, t.message
    assert t.answer is not None and t.to_json()["answer"] == t.answer
    assert (t.actions[-1]["action"], t.actions[-1]["value"]) == ("answer", t.answer)
    # The answer is text a read action took from the page, not the reference answer handed over.
    assert any(a["action"] == "read" and t.answer in (a["value"] or "") for a in t.actions[:-1])
    assert grade(_reward(spec, draft, db), db, db, t.answer).score == 1.0
    shown = answer_texts(spec, draft, db).shown
    assert t.answer in shown, (t.answer, shown)
    if op == "lookup":  # the field as the detail page prints it (the app capitalises enum words)
        column = spec.entity(q.entity).field_named(q.field or "").column
        raw = _rows(db, f'SELECT "{column}" FROM "{spec.entity(q.entity).table}" WHERE id = ?',
                    draft.answer.rows[0] if draft.answer else 0)[0][0]
        assert t.answer.casefold() == str(raw).replace("_", " ").casefold()
        assert any(a["action"] == "read" and "details" in a["target"] for a in t.actions)
    if op == "count":
        assert t.answer == str(len(draft.answer.rows if draft.answer else ()))
        assert any(a["target"] == 'navigation "Pagination"' for a in t.actions)
    if op in ("max", "min"):
        assert any(a["action"] == "sort" for a in t.actions)
        assert t.answer == (draft.answer.value if draft.answer else None)


def test_count_reads_the_stated_total_not_the_rows_of_one_page(solved_as_alice: Any, mock_server: AppServer) -> None:
    total = _rows(mock_server.db, "SELECT count(*) FROM note WHERE owner_id = 1")[0][0]
    assert total > 5  # the notes list shows 5 rows a page
    t = solved_as_alice([UiStep(kind="find", entity="note", read="count")])
    assert t.ok and t.answer == str(total), (t.message, t.answer)


def test_a_superlative_with_a_tie_names_the_first_label_alphabetically(solved_as_alice: Any,
                                                                       mock_server: AppServer) -> None:
    db = mock_server.db
    for op, pick in (("max", "max"), ("min", "min")):
        best = _rows(db, f"SELECT {pick}(priority) FROM note WHERE owner_id = 1")[0][0]
        titles = [r[0] for r in _rows(db, "SELECT title FROM note WHERE owner_id = 1 AND priority = ?", best)]
        t = solved_as_alice([UiStep(kind="find", entity="note", read=op, field="priority")])
        assert t.ok, t.message
        assert t.answer == _first_alphabetically(titles), (op, titles, t.answer)
    # A date column, sorted by its header: the most recently updated note.
    latest = _rows(db, "SELECT max(updated_on) FROM note WHERE owner_id = 1")[0][0]
    titles = [r[0] for r in _rows(db, "SELECT title FROM note WHERE owner_id = 1 AND updated_on = ?", latest)]
    t = solved_as_alice([UiStep(kind="find", entity="note", read="max", field="updated_on")])
    assert t.ok and t.answer == _first_alphabetically(titles), (titles, t.answer, t.message)


@pytest.fixture()
def solved_as_alice(page: Page, mock_server: AppServer, mock_world: Path) -> Any:
    def run(steps: list[Any]) -> Trajectory:
        return solve(page, mock_server.url, _spec(mock_world), "alice", "alice-pass", steps, None)
    return run


@pytest.fixture()
def catalogue(worlds: Any, tmp_path: Path) -> Iterator[tuple[Path, AppServer]]:
    world = worlds.get("capabilities/nested_filters.yaml")
    with AppServer(world, fresh_db(world, tmp_path / "app.db")) as server:
        yield world, server


def test_a_sum_adds_up_the_amounts_shown_over_every_page(catalogue: tuple[Path, AppServer], page: Page) -> None:
    world, server = catalogue
    spec, db = _spec(world), server.db
    product = spec.entity("product")
    # The category with the most products: its rows span several pages of the list.
    category, count = _rows(db, "SELECT category, count(*) FROM product GROUP BY 1 ORDER BY 2 DESC, 1")[0]
    assert count > product.page_size
    cents = _rows(db, "SELECT sum(price) FROM product WHERE category = ?", category)[0][0]
    proposer = Proposer(spec, world / "data" / "seed.db")
    try:
        user = proposer.users[0]
        draft = proposer._ask_read(Question("sum", "product", "price", conds=(Cond("category", f'"{category}"'),)),
                                   user, "total", [])
    finally:
        proposer.close()
    assert draft is not None
    t = solve(page, server.url, spec, user.username, user.password, ui_steps(spec, draft, db), None)
    assert t.ok, t.message
    assert t.answer == money_text(cents)
    pages = [a for a in t.actions if a["action"] == "read" and 'column "Price"' in a["target"]]
    assert len(pages) == -(-count // product.page_size)  # every page of the list was read
    assert sum(len(a["value"].split("; ")) for a in pages) == count
    assert grade(_reward(spec, draft, db), db, db, t.answer).score == 1.0
    assert grade(_reward(spec, draft, db), db, db, money_text(cents + 100)).score == 0.0


# ---------------------------------------------------------------- the UI gate and its repair

@pytest.fixture()
def planner(worlds: Any, tmp_path: Path) -> Iterator[tuple[Path, Spec, Path, Proposer]]:
    """A private copy of the date-pickers world (the UI gate writes trajectories into it)."""
    world = tmp_path / "datepickers"
    shutil.copytree(worlds.get("capabilities/datepickers.yaml"), world)
    (world / "tasks").mkdir(exist_ok=True)
    spec = _spec(world)
    proposer = Proposer(spec, world / "data" / "seed.db")
    yield world, spec, tmp_path / "work", proposer
    proposer.close()


def _moment_lookup(spec: Spec, proposer: Proposer, seed: Path) -> tuple[Draft, int]:
    """A READ of a leave request's submission moment: the reward expects "2026-05-04 09:30" (as
    reward-gen writes a datetime), the detail page shows "May 4, 2026, 9:30 AM"."""
    for user in proposer.users:
        for (row_id,) in _rows(seed, "SELECT id FROM leave_request WHERE owner_id = ? AND submitted_at IS NOT NULL "
                                     "ORDER BY id", user.id):
            row = proposer.world.row("leave_request", row_id)
            assert row is not None
            # named as the proposer names rows: the label's dates in words
            label = spoken_label(proposer.world.label("leave_request", row), spec.today[:4])
            draft = proposer._ask_read(Question("lookup", "leave_request", "submitted_at", RefText(label)),
                                       user, "lookup", [])
            if draft is not None:
                return draft, row_id
    raise AssertionError("no leave request can be asked about")


def _attempt(spec: Spec, world: Path, work: Path, draft: Draft, initial: Path) -> Attempt:
    """An attempt that passed every non-UI gate, as the stage hands it to the UI gate."""
    reward = _reward(spec, draft, initial)
    with Backend(world, spec, work / "gates") as backend:
        runner = GateRunner(spec, backend, world / "data" / "seed.db", work / "gates")
        gates = runner.run(draft, reward, initial, initial, "")
        runner.close()
    assert all(g.passed for g in gates), [g for g in gates if not g.passed]
    return Attempt(draft, Setup([], ""), initial, initial, reward, gates)


def test_a_rendering_the_reward_does_not_accept_is_caught_and_repaired(planner: Any) -> None:
    world, spec, work, proposer = planner
    seed = world / "data" / "seed.db"
    draft, row_id = _moment_lookup(spec, proposer, seed)
    stored = _rows(seed, "SELECT submitted_at FROM leave_request WHERE id = ?", row_id)[0][0]
    a = _attempt(spec, world, work, draft, seed)
    before = json.loads(json.dumps(a.reward))
    said: list[str] = []
    ui_gate([a], world, spec, work, 1, said.append)

    shown = a.trajectory["answer"] if a.trajectory else None
    assert shown and shown != stored and stored[:4] in shown  # the page's own rendering of the moment
    # Graded as generated, the page's answer scores 0: that is the failure the gate records ...
    assert grade(before, seed, seed, shown).score == 0.0
    assert any(r.startswith("widened the reward's answer check (ui:answer): the answer shown on screen, "
                            f"{shown!r}, does not grade 1") for r in a.repairs), a.repairs
    assert any("1 repaired, 0 rejected" in s for s in said), said
    # ... and the repair: the reward now accepts the moment as the app shows it, and only that.
    assert a.failure is None
    assert a.reward is not None and a.reward["checks"][0]["aliases"] == [shown]
    ui = [g for g in a.gates if g.name == "ui"]
    assert len(ui) == 1 and ui[0].passed and ui[0].score == 1.0
    assert {g.name for g in a.gates} >= {"initial", "golden", "counterfactual:wrong_answer", "determinism"}
    assert all(g.passed for g in a.gates)
    other = _rows(seed, "SELECT submitted_at FROM leave_request WHERE id != ? AND submitted_at IS NOT NULL "
                        "AND substr(submitted_at, 1, 16) != substr(?, 1, 16) ORDER BY id", row_id, stored)[0][0]
    assert answer_texts(spec, draft, seed).shown == (shown,)
    world_view = UserView.open(spec, seed)
    try:
        other_shown = shown_value(world_view, "leave_request", "submitted_at", other)
    finally:
        world_view.close()
    for wrong in (other, other[:16].replace("T", " "), other_shown):  # another request's moment
        assert grade(a.reward, seed, seed, wrong).score == 0.0
    # The same alias, or one that is not a rendering of the expected value, is refused as weakening.
    assert not weakens(before, a.reward, [shown])
    assert weakens(before, a.reward) and false_aliases(before, a.reward, []) == [shown]
    assert weakens(before, with_aliases(before, [shown, "any answer"]), [shown])


def _corrupt(db: Path, row_id: int) -> str:
    """Move the request's submission a day and two hours later; returns the new stored value."""
    conn = sqlite3.connect(db)
    try:
        conn.execute("UPDATE leave_request SET submitted_at = datetime(submitted_at, '+26 hours') WHERE id = ?",
                     (row_id,))
        conn.commit()
        return str(conn.execute("SELECT submitted_at FROM leave_request WHERE id = ?", (row_id,)).fetchone()[0])
    finally:
        conn.close()


def test_a_page_showing_a_wrong_value_fails_the_ui_gate(planner: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    world, spec, work, proposer = planner
    seed = world / "data" / "seed.db"
    draft, row_id = _moment_lookup(spec, proposer, seed)
    a = _attempt(spec, world, work, draft, seed)
    texts = answer_texts(spec, draft, seed)

    def copy_then_corrupt(src: Path, dst: Path) -> Path:
        out = copy_db(src, dst)
        if dst.parent.name == "ui":  # only the copy the solver runs on
            _corrupt(out, row_id)
        return out

    monkeypatch.setattr(ui_gate_module, "copy_db", copy_then_corrupt)
    ui_gate([a], world, spec, work, 1, lambda _m: None)
    shown = a.trajectory["answer"] if a.trajectory else None
    assert shown and shown not in texts.shown  # the page showed the corrupted moment
    ui = [g for g in a.gates if g.name == "ui"]
    assert len(ui) == 1 and not ui[0].passed and ui[0].score == 0.0
    assert a.failure is not None and repr(shown) in ui[0].detail
    assert not any(r.startswith("widened") for r in a.repairs)


def test_a_page_that_misrenders_the_value_is_rejected_with_the_reason(planner: Any, page: Page) -> None:
    """The database is intact and the app's API answer for the row is altered on its way to the
    page (a frontend showing another value): the answer fails, and no alias can excuse it."""
    world, spec, work, proposer = planner
    seed = world / "data" / "seed.db"
    draft, row_id = _moment_lookup(spec, proposer, seed)
    a = _attempt(spec, world, work, draft, seed)
    final = copy_db(seed, work / "ui" / "final.db")
    texts = answer_texts(spec, draft, seed)

    def misreport(route: Route) -> None:
        response = route.fetch()
        body = response.json()
        body["submitted_at"] = "2026-01-02T03:04:00"
        route.fulfill(response=response, json=body)

    with AppServer(world, final) as server:
        page.route(f"**/api/{spec.entity('leave_request').path}/{row_id}", misreport)
        t = solve(page, server.url, spec, draft.user, _password(spec, draft.user), ui_steps(spec, draft, seed), None)
    assert t.ok, t.message
    assert t.answer == "Jan 2, 2026, 3:04 AM" and t.answer not in texts.shown
    said: list[str] = []
    ui_verdicts([(a, final, t.to_json())], world, spec, work, said.append)
    assert a.failure is not None and (a.failure.layer, a.failure.kind) == ("task", "ui:answer")
    assert a.failure.message.startswith(f"the answer shown on screen, {t.answer!r}, does not grade 1")
    assert "not how the app renders the expected value" in a.failure.message
    assert any(r.startswith("rejected (ui:answer)") for r in a.repairs)
    assert "0 repaired, 1 rejected" in said[-1]
    ui = [g for g in a.gates if g.name == "ui"]
    assert not ui[-1].passed and a.reward is not None and "aliases" not in a.reward["checks"][0]
