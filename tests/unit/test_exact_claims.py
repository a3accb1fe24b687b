"""Claims that discriminate: exact effects judged value by value, and rules witnessed at their boundary.

The judge tests use real SQLite files and the real row diff; the compiler tests use the mock world
(built once per session) and never run its app: claims are a function of the spec and seed database.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest

from factory.claims.compile import claims_text, compile_claims
from factory.claims.model import EffectsExactly, Expected, Footprint, RejectedUnchanged, RowValues
from factory.spec.model import Spec
from factory.verify.judge import judge_effects, judge_exact, judge_rejected
from verifiers.dbdiff import diff_databases


def _db(path: Path, rows: list[tuple[int, str, int]]) -> Path:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE account (id INTEGER PRIMARY KEY, name TEXT, balance INTEGER)")
        conn.executemany("INSERT INTO account VALUES (?, ?, ?)", rows)
    conn.close()
    return path


BASE = [(1, "Main", 10000), (2, "Savings", 500)]
EXPECT = Expected(updated=[RowValues(table="account", id=1, values={"balance": 7500}),
                           RowValues(table="account", id=2, values={"balance": 3000})],
                  inserted=[RowValues(table="account", values={"name": "Trip", "balance": 0})])
FOOTPRINT = EffectsExactly(footprint={"account": Footprint(update=["balance"], insert=True)},
                           must_update=["account"], must_insert=["account"], expect=EXPECT)


@pytest.mark.parametrize(("after", "verdict"), [
    ([(1, "Main", 7500), (2, "Savings", 3000), (3, "Trip", 0)], "exactly the expected change"),
    ([(1, "Main", 7500), (2, "Savings", 2999), (3, "Trip", 0)], "account #2: stored balance=2999"),  # credits amount - 1
    ([(1, "Main", 9750), (2, "Savings", 750), (3, "Trip", 0)], "account #1: stored balance=9750"),  # a tenth of the amount
    ([(1, "Main", 7500), (2, "Savings", 500), (3, "Trip", 0)], "account #2 did not change"),
    ([(1, "Main", 7500), (2, "Savings", 3000)], "no row was created"),
    ([(1, "Main", 7500), (2, "Savings", 3000), (3, "Trip", 1)], "the spec's effects give"),
    ([(1, "Mine", 7500), (2, "Savings", 3000), (3, "Trip", 0)], "which its effects do not set"),  # a column set that must not be
])
def test_exact_effects_are_judged_value_by_value(tmp_path: Path, after: list[tuple[int, str, int]], verdict: str) -> None:
    before = _db(tmp_path / "before.db", BASE)
    now = _db(tmp_path / "after.db", after)
    ok, message = judge_effects(FOOTPRINT, 200, {}, diff_databases(before, now))
    assert ok == (verdict == "exactly the expected change"), message
    assert verdict in message


def test_a_refusal_after_setups_keeps_exactly_the_setups_change(tmp_path: Path) -> None:
    before = _db(tmp_path / "before.db", BASE)
    setup_only = _db(tmp_path / "setup.db", [(1, "Main", 10000), (2, "Savings", 0)])
    more = _db(tmp_path / "more.db", [(1, "Main", 9999), (2, "Savings", 0)])
    rule = RejectedUnchanged(status=409, detail="Insufficient funds.", precondition="pay.pre1",
                             expect=Expected(updated=[RowValues(table="account", id=2, values={"balance": 0})]))
    body = {"detail": "Insufficient funds.", "precondition": "pay.pre1"}
    assert judge_rejected(rule, 409, body, diff_databases(before, setup_only))[0]
    ok, message = judge_rejected(rule, 409, body, diff_databases(before, more))
    assert not ok and "account #1" in message
    assert not judge_exact(rule.expect, None)[0]  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def mock_claims(mock_world: Path) -> tuple[Spec, str, dict[str, object]]:
    spec = Spec.model_validate_json((mock_world / "spec.json").read_text())
    claims = compile_claims(mock_world)
    return spec, claims_text(claims), {c.id: c for c in claims.claims}


def test_claims_are_a_function_of_spec_and_seed(mock_world: Path, mock_claims: tuple[Spec, str, dict[str, object]],
                                                tmp_path: Path) -> None:
    _, text, _ = mock_claims
    assert claims_text(compile_claims(mock_world)) == text
    # no app involved: the world's app directory can be gone and the claims are the same bytes
    copy = tmp_path / "mock"
    import shutil

    shutil.copytree(mock_world, copy, ignore=shutil.ignore_patterns("app", "run"))
    assert claims_text(compile_claims(copy)) == text


def test_every_effects_claim_expects_exact_values(mock_claims: tuple[Spec, str, dict[str, object]]) -> None:
    spec, _, claims = mock_claims
    for wf in (w for w in spec.workflows if not w.system):
        claim = claims[f"behaviour:{wf.name}:effects"]
        assert isinstance(claim.predicate, EffectsExactly) and claim.predicate.expect is not None, wf.name  # type: ignore[attr-defined]
        expect = claim.predicate.expect  # type: ignore[attr-defined]
        assert expect.updated or expect.inserted or expect.deleted, wf.name


def test_ordered_rules_are_witnessed_one_unit_either_side(mock_claims: tuple[Spec, str, dict[str, object]]) -> None:
    spec, _, claims = mock_claims
    today = dt.date.fromisoformat(spec.today)
    # `len(title) >= 3`: 3 characters allowed, 2 refused
    refused = claims["behaviour:write_note.pre1"].getter.steps[-1].body["title"]  # type: ignore[attr-defined]
    allowed = claims["behaviour:write_note.pre1:allowed"].getter.steps[-1].body["title"]  # type: ignore[attr-defined]
    assert (len(allowed), len(refused)) == (3, 2)
    # `remind_on > today()`: tomorrow allowed, today refused; `<= today() + days(365)`: day 365 vs 366
    pairs = {}
    for rule in ("set_reminder.pre1", "set_reminder.pre2"):
        steps = [claims[f"behaviour:{rule}{side}"].getter.steps[-1].body["remind_on"] for side in (":allowed", "")]  # type: ignore[attr-defined]
        pairs[rule] = [(dt.date.fromisoformat(d) - today).days for d in steps]
    assert pairs == {"set_reminder.pre1": [1, 0], "set_reminder.pre2": [365, 366]}


def test_state_rules_are_witnessed_after_a_setup_call(mock_claims: tuple[Spec, str, dict[str, object]]) -> None:
    _, _, claims = mock_claims
    claim = claims["behaviour:archive_note.pre1"]  # "Only active notes can be archived": archive, then again
    steps = claim.getter.steps  # type: ignore[attr-defined]
    predicate = claim.predicate
    assert isinstance(predicate, RejectedUnchanged)
    if len(steps) == 2:  # a setup made the row ready: the refusal keeps exactly the setup's change
        assert predicate.expect is not None and predicate.expect.updated
    allowed = claims["behaviour:archive_note.pre1:allowed"].getter.steps  # type: ignore[attr-defined]
    assert allowed[-1].body == steps[-1].body or len(steps) == 1


def test_count_rules_are_witnessed_after_repeated_setups(mock_world: Path) -> None:
    """`count(n in note where n.owner == me) < K`: K - c notes made in front allowed, one more refused.

    The rule is added to the mock spec here with K three above the witness user's note count, so the
    search must make three copies of a note (titles told apart) to reach it; no single call can."""
    from factory.claims.compile import find_witnesses
    from factory.claims.oracle import Oracle
    from factory.spec.model import CheckSpec

    spec = Spec.model_validate_json((mock_world / "spec.json").read_text())
    db = mock_world / "data" / "seed.db"
    with sqlite3.connect(db) as conn:
        counts = dict(conn.execute("SELECT owner_id, count(*) FROM note GROUP BY owner_id").fetchall())
    conn.close()
    limit = max(counts.values()) + 3
    source = f"count(n in note where n.owner == me) < {limit}"
    wf = next(w for w in spec.workflows if w.name == "write_note")
    wf.preconditions.append(CheckSpec(id="write_note.pre9", source=source, message="Too many notes.", python="True"))
    oracle = Oracle(spec, db)
    try:
        pair = find_witnesses(spec, oracle)["write_note"].pairs["write_note.pre9"]
        user = pair.refused[-1].user
        made = limit - counts.get(user, 0)  # notes to make before the call is the one over the limit
        assert len(pair.refused) == made + 1 and len(pair.allowed) == made
        assert oracle.outcome(pair.allowed).ok
        refused = oracle.outcome(pair.refused)
        assert (refused.status, refused.precondition, refused.setups_ok) == (409, "write_note.pre9", True)
        titles = [c.params["title"] for c in pair.refused[:-1]]
        assert len(set(titles)) == len(titles)  # each copy told apart, so a uniqueness rule would not stop it
    finally:
        oracle.close()


def test_a_setup_call_keeps_each_reference_in_its_own_role(mock_world: Path) -> None:
    """Pay *this* card *from that* account: a setup of a workflow with two references to the same
    entity is aimed at the call's rows role by role, not both at the first row the call names.

    A workflow `copy_priority(source: note, target: note)` is added to the mock spec here; with
    the role lost, the setup would copy a note's priority onto itself and change nothing."""
    from factory.claims.oracle import Call, Oracle
    from factory.claims.search import WitnessSearch
    from factory.claims.setups import _amounts, _setup_variants
    from factory.spec.model import WorkflowSpec

    spec = Spec.model_validate_json((mock_world / "spec.json").read_text())
    move = next(w for w in spec.workflows if w.name == "move_note").model_dump()
    note_param = move["params"][0]
    copy = WorkflowSpec.model_validate({
        **move, "name": "copy_priority", "label": "Copy priority", "description": "Copy priority",
        "operation_id": "run_copy_priority", "path": "/api/workflows/copy_priority", "form_path": "/actions/copy-priority",
        "params": [{**note_param, "name": "source", "var": "source", "label": "Source"},
                   {**note_param, "name": "target", "var": "target", "label": "Target"}],
        "preconditions": [],
        "effects": [{**move["effects"][0], "field": "priority", "source": "target.priority = source.priority",
                     "target": "target", "to": "source.priority", "python": []}],
    })
    spec.workflows.append(copy)
    oracle = Oracle(spec, mock_world / "data" / "seed.db")
    try:
        search = WitnessSearch(spec, oracle)
        user = spec.users[0].id
        notes = oracle.options(copy, "source", user)
        assert len(notes) >= 4
        base = Call("copy_priority", user, {"source": notes[0], "target": notes[1]})
        example = Call("copy_priority", user, {"source": notes[2], "target": notes[3]})
        aimed = _setup_variants(search, copy, example, base)[0]
        assert aimed.params == {"source": notes[0], "target": notes[1]}
        # amounts: the rows' own numbers whole first (pay a card off), then their differences
        amounts = _amounts(search, copy, base)
        priorities = sorted({oracle.row("note", n)["priority"] for n in notes[:2]})
        assert amounts[:len(priorities)] == priorities
    finally:
        oracle.close()
