"""Conditional (`when`), bulk (`for_each`) and related-row (`set: loan.item.status`) effects: how the
builder compiles and type-checks them, the located one-line errors of each construct done wrong, the
independent interpreter's predictions worked out by hand, and the decisive test: the real backend's
end state grades 1.0 against the predicted reward for each branch, and the untouched database 0.0."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx
import pytest

from factory.builder.build import build_spec
from factory.cli import main
from factory.errors import PredictionError
from factory.predict.effects import predict, reward_checks
from factory.runtime.server import AppServer
from factory.runtime.step import Step
from factory.seed.loader import load_seed_text
from factory.spec.model import EffectSpec, Spec
from factory.world.assemble import build_world, spec_json
from verifiers import grade

# Ana's loan 1 is ten days late at $0.50 a day, her loan 2 is not due yet; Atlas has a queue of three
# holds (Ana first), Codex one; Atlas and Codex sit on the North shelf.
QUEUE = """
world: queue
title: Queue
scenario: Items on shelves, loans and hold queues, for the tests of conditional, bulk and related-row effects.
today: 2026-05-20
users:
  accounts:
    - {username: ana, name: Ana Alves, password: ana-pass}
    - {username: bo, name: Bo Berg, password: bo-pass}
entities:
  - name: shelf
    display: name
    visibility: public
    operations: [list, read]
    fields:
      - {name: name, type: string, max_length: 20, unique: true}
      - {name: returns, type: int, default: 0}
    seed:
      rows:
        - {name: North, returns: 0}
        - {name: South, returns: 0}
  - name: item
    display: title
    visibility: public
    operations: [list, read]
    fields:
      - {name: title, type: string, max_length: 20, unique: true}
      - {name: shelf, type: reference, to: shelf}
      - {name: status, type: enum, values: [in, out, gone]}
    seed:
      rows:
        - {title: Atlas, shelf: North, status: out}
        - {title: Bible, shelf: South, status: out}
        - {title: Codex, shelf: North, status: in}
  - name: loan
    display: "{item} due {due_on}"
    owner: [member]
    operations: [list, read]
    fields:
      - {name: member, type: reference, to: user, editable: false}
      - {name: item, type: reference, to: item}
      - {name: due_on, type: date}
      - {name: rate, type: money, min: 0}
      - {name: fine, type: money, min: 0, default: 0}
      - {name: open, type: bool, default: true}
    seed:
      rows:
        - {member: ana, item: Atlas, due_on: 2026-05-10, rate: 0.5, fine: 0, open: true}
        - {member: ana, item: Bible, due_on: 2026-05-30, rate: 0.5, fine: 0, open: true}
  - name: hold
    display: "{item} for {member} at {position}"
    owner: [member]
    visibility: public
    operations: [list, read]
    fields:
      - {name: member, type: reference, to: user, editable: false}
      - {name: item, type: reference, to: item}
      - {name: position, type: int, min: 1}
    seed:
      rows:
        - {member: ana, item: Atlas, position: 1}
        - {member: bo, item: Atlas, position: 2}
        - {member: bo, item: Codex, position: 1}
        - {member: bo, item: Atlas, position: 3}
workflows:
  - name: give_back
    label: Give back
    subject: loan
    params:
      - {name: loan, type: reference, to: loan}
    preconditions:
      - {check: "loan.open", message: "Already given back."}
    effects:
      - {set: loan.open, to: "false"}
      - {set: loan.fine, to: "loan.rate * (today() - loan.due_on)", when: "today() > loan.due_on"}
      - {set: loan.item.status, to: "'in'"}
      - {set: loan.item.shelf.returns, to: "loan.item.shelf.returns + 1"}
  - name: leave_queue
    label: Leave a queue
    subject: hold
    params:
      - {name: hold, type: reference, to: hold}
    effects:
      - {for_each: "h in hold where h.item == hold.item and h.position > hold.position", set: h.position, to: "h.position - 1"}
      - {delete: hold}
  - name: retire
    label: Retire an item
    subject: item
    params:
      - {name: item, type: reference, to: item}
      - {name: notify, type: bool, default: false}
    effects:
      - {for_each: "h in hold where h.item == item", delete: h}
      - {set: item.status, to: "'gone'"}
      - {set: item.shelf.returns, to: "item.shelf.returns + 100", when: "notify"}
  - name: lend_to_queue
    label: Lend to everyone waiting
    subject: item
    params:
      - {name: item, type: reference, to: item}
    effects:
      - for_each: "h in hold where h.item == item and h.position <= 2"
        create: loan
        values: {member: h.member, item: item, due_on: "today() + days(h.position * 7)", rate: "0.25"}
"""
ANA, BO = 1, 2


@pytest.fixture(scope="module")
def queue_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("queue")
    (root / "queue.yaml").write_text(QUEUE)
    return build_world(root / "queue.yaml", root / "worlds", frontend=False).path


def spec_of(world: Path) -> Spec:
    return Spec.model_validate_json((world / "spec.json").read_text())


def effects_of(spec: Spec, workflow: str) -> list[EffectSpec]:
    return next(w for w in spec.workflows if w.name == workflow).effects


# ---- compiled and type-checked ---------------------------------------------------------------
def test_each_construct_compiles_to_readable_python() -> None:
    spec = build_spec(load_seed_text(QUEUE, "queue.yaml"))
    late, item, shelf = effects_of(spec, "give_back")[1:]
    assert (late.when, late.for_each, late.target, late.field) == ("today() > loan.due_on", None, "loan", "fine")
    assert late.python == ["if ctx.today > loan.due_on:",
                           "    loan.fine = loan.rate * (ctx.today - loan.due_on).days"]
    # a related row: the entity is the row reached, the target the path to it
    assert (item.entity, item.target, item.field) == ("item", "loan.item", "status")
    assert item.python == ['get_row(session, Item, loan.item_id).status = "in"']
    assert (shelf.entity, shelf.target) == ("shelf", "loan.item.shelf")
    assert shelf.python[0].startswith("get_row(session, Shelf, get_row(session, Item, loan.item_id).shelf_id).returns = ")
    renumber, gone = effects_of(spec, "leave_queue")
    assert (renumber.for_each, renumber.target, renumber.entity) == (
        "h in hold where h.item == hold.item and h.position > hold.position", "h", "hold")
    assert renumber.python[0].startswith("for h in session.exec(select(Hold).where(") and renumber.python[0].endswith(
        ".order_by(col(Hold.id))).all():")
    assert renumber.python[1:] == ["    h.position = h.position - 1"]
    assert gone.python == ["session.delete(hold)"] and gone.when is None and gone.for_each is None
    clear = effects_of(spec, "retire")[0]
    assert clear.kind == "delete" and clear.python[1:] == ["    session.delete(h)"]


def test_a_plain_effect_keeps_its_spec_json_bytes_and_an_old_spec_loads() -> None:
    spec = build_spec(load_seed_text(QUEUE, "queue.yaml"))
    data = json.loads(spec_json(spec))
    plain = next(w for w in data["workflows"] if w["name"] == "leave_queue")["effects"][1]
    assert "when" not in plain and "for_each" not in plain  # a spec without the new keys keeps its hash
    bulk = next(w for w in data["workflows"] if w["name"] == "leave_queue")["effects"][0]
    assert bulk["for_each"].startswith("h in hold")
    assert Spec.model_validate(data) == spec  # and the canonical JSON reads back to the same spec


# ---- located one-line errors -------------------------------------------------------------------
def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


BAD = [
    ("when_not_bool", '"today() > loan.due_on"}', '"loan.rate"}', 'when: "loan.rate"', ["effects[1].when", "expected bool"]),
    ("when_unknown_name", '"today() > loan.due_on"}', '"today() > due_on"}', "due_on\"}",
     ["effects[1].when", "unknown name 'due_on'"]),
    ("when_names_the_row", '{for_each: "h in hold where h.item == item", delete: h}',
     '{for_each: "h in hold where h.item == item", delete: h, when: "h.position > 1"}', "h.position > 1",
     ["effects[0].when", "cannot name the for_each row 'h'"]),
    ("for_each_unknown_entity", '"h in hold where h.item == item"', '"h in holds where h.item == item"', "h in holds",
     ["effects[0].for_each", "unknown entity 'holds'"]),
    ("for_each_hides_a_parameter", '"h in hold where h.item == item"', '"item in hold where item.position > 1"',
     "item in hold", ["effects[0].for_each", "hides a name already in use"]),
    ("for_each_not_a_selector", '"h in hold where h.item == item"', '"count(h in hold)"', "count(h in hold)",
     ["effects[0].for_each", "expected 'in' but found '('"]),
    ("set_path_through_a_scalar", "{set: loan.item.status,", "{set: loan.due_on.status,", "loan.due_on.status",
     ["effects[2].set", "'loan.due_on' is not a row"]),
    ("set_path_missing_reference", "{set: loan.item.status,", "{set: loan.book.status,", "loan.book.status",
     ["effects[2].set", "has no field 'book'"]),
    ("set_path_missing_field", "{set: loan.item.status,", "{set: loan.item.state,", "loan.item.state",
     ["effects[2].set", "effect on missing field 'state' of item"]),
    ("set_from_me", "{set: loan.item.status,", "{set: me.name,", "me.name", ["effects[2].set", "set needs"]),
    ("delete_a_value", "{delete: hold}", "{delete: hold.position}", "hold.position}",
     ["effects[1].delete", "delete needs a reference parameter"]),
    ("to_beside_a_delete", "{delete: hold}", '{delete: hold, to: "1"}', 'to: "1"', ["effects[1].to", "`to` goes with `set"]),
]


@pytest.mark.parametrize(("case", "old", "new", "needle", "words"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_effect_is_a_located_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str,
                                                  old: str, new: str, needle: str, words: list[str]) -> None:
    assert old in QUEUE, case
    text = QUEUE.replace(old, new, 1)
    seed = tmp_path / "queue.yaml"
    seed.write_text(text)
    assert main(["check", str(seed)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"error: {seed}:{_line_of(text, needle)}: workflows["), err
    for word in words:
        assert word in err, err


# ---- predictions worked out by hand ------------------------------------------------------------
def test_a_late_return_fines_and_an_early_one_does_not(queue_world: Path) -> None:
    spec, db = spec_of(queue_world), queue_world / "data" / "seed.db"
    late = predict(spec, db, ANA, [Step("give_back", {"loan": 1})])
    # ten days late at $0.50: $5.00; the loan's item comes back in and its shelf counts one more return
    assert late.updates == {("item", 1): {"status": "in"}, ("loan", 1): {"fine": 500, "open": 0},
                            ("shelf", 1): {"returns": 1}}
    assert late.trace == [(0, 1, "when:true")]
    early = predict(spec, db, ANA, [Step("give_back", {"loan": 2})])
    assert early.updates == {("item", 2): {"status": "in"}, ("loan", 2): {"open": 0}, ("shelf", 2): {"returns": 1}}
    assert early.trace == [(0, 1, "when:false")]


def test_leaving_a_queue_moves_everyone_behind_up(queue_world: Path) -> None:
    spec, db = spec_of(queue_world), queue_world / "data" / "seed.db"
    first = predict(spec, db, ANA, [Step("leave_queue", {"hold": 1})])
    # holds 2 and 4 (Atlas, behind Ana) move up; Codex's queue (hold 3) is another item's
    assert first.updates == {("hold", 2): {"position": 1}, ("hold", 4): {"position": 2}}
    assert first.deletes == [("hold", 1)] and first.trace == [(0, 0, "rows:2")]
    last = predict(spec, db, BO, [Step("leave_queue", {"hold": 4})])
    assert last.updates == {} and last.deletes == [("hold", 4)] and last.trace == [(0, 0, "rows:0")]
    # two steps, one trace: Codex's queue has nobody behind Bo, Atlas's has hold 4 behind hold 2
    both = predict(spec, db, BO, [Step("leave_queue", {"hold": 3}), Step("leave_queue", {"hold": 2})])
    assert sorted(both.deletes) == [("hold", 2), ("hold", 3)] and both.updates == {("hold", 4): {"position": 2}}
    assert both.trace == [(0, 0, "rows:0"), (1, 0, "rows:1")]


def test_retiring_deletes_every_hold_and_the_condition_reads_a_parameter(queue_world: Path) -> None:
    spec, db = spec_of(queue_world), queue_world / "data" / "seed.db"
    quiet = predict(spec, db, ANA, [Step("retire", {"item": 1})])
    assert sorted(quiet.deletes) == [("hold", 1), ("hold", 2), ("hold", 4)]
    assert quiet.updates == {("item", 1): {"status": "gone"}}
    loud = predict(spec, db, ANA, [Step("retire", {"item": 3, "notify": True})])
    assert loud.deletes == [("hold", 3)] and loud.updates[("shelf", 1)] == {"returns": 100}
    assert loud.trace == [(0, 0, "rows:1"), (0, 2, "when:true")]


def test_a_bulk_create_makes_one_row_per_selected_row(queue_world: Path) -> None:
    spec, db = spec_of(queue_world), queue_world / "data" / "seed.db"
    got = predict(spec, db, BO, [Step("lend_to_queue", {"item": 1})])
    # Atlas's first two places (Ana, then Bo): a week per place; the third place (hold 4) is not selected
    assert got.inserts == [
        ("loan", {"member_id": ANA, "item_id": 1, "due_on": "2026-05-27", "rate": 25, "fine": 0, "open": 1}),
        ("loan", {"member_id": BO, "item_id": 1, "due_on": "2026-06-03", "rate": 25, "fine": 0, "open": 1}),
    ]
    assert got.updates == {} and got.trace == [(0, 0, "rows:2")]


def test_a_related_row_that_is_gone_is_a_server_error(queue_world: Path, tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "broken.db"
    shutil.copyfile(queue_world / "data" / "seed.db", db)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("UPDATE loan SET item_id = 99 WHERE id = 2")
    with pytest.raises(PredictionError, match=r"loan\.item is null or already deleted"):
        predict(spec_of(queue_world), db, ANA, [Step("give_back", {"loan": 2})])


# ---- the decisive test: the real backend agrees --------------------------------------------------
CALLS = [
    ("ana", [Step("give_back", {"loan": 1})]),
    ("ana", [Step("give_back", {"loan": 2})]),
    ("ana", [Step("leave_queue", {"hold": 1})]),
    ("bo", [Step("leave_queue", {"hold": 3}), Step("leave_queue", {"hold": 2})]),
    ("ana", [Step("retire", {"item": 1})]),
    ("ana", [Step("retire", {"item": 3, "notify": True})]),
    ("bo", [Step("lend_to_queue", {"item": 1})]),
]


def test_the_backend_ends_where_the_interpreter_predicts(queue_world: Path, tmp_path: Path) -> None:
    spec, initial = spec_of(queue_world), queue_world / "data" / "seed.db"
    users = {u.username: u for u in spec.users}
    wrong: dict[str, str] = {}
    with AppServer(queue_world, shutil.copyfile(initial, tmp_path / "serve.db"), control_token="scope") as server:
        for n, (who, steps) in enumerate(CALLS):
            prediction = predict(spec, initial, users[who].id, steps)
            program = {"schema_version": 1, "checks": reward_checks(spec, initial, prediction)}
            final = shutil.copyfile(initial, tmp_path / f"final-{n}.db")
            server.use_db(final)
            with httpx.Client(base_url=server.url, timeout=10) as client:
                login = client.post("/api/auth/login", json={"username": who, "password": f"{who}-pass"})
                assert login.status_code == 200, login.text
                answers = [client.post(f"/api/workflows/{s.workflow}", json=s.params) for s in steps]
            refused = [a.text[:200] for a in answers if a.status_code != 200]
            golden, untouched = grade(program, initial, final), grade(program, initial, initial)
            if refused or golden.score != 1.0 or untouched.score != 0.0:
                wrong[str(steps)] = f"refused {refused}; golden {golden.explanation}; untouched {untouched.score}"
    assert not wrong, wrong
