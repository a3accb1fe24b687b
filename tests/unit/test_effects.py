"""The effect interpreter: predictions worked out by hand on a small ledger world, refusals, the
reward checks it writes, and the decisive test: for every workflow of the mock, ledger and
echobank worlds, the real backend's end state grades 1.0 against the predicted reward program and
the untouched database 0.0."""

from __future__ import annotations

import datetime as dt
import random
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factory.errors import PredictionError
from factory.predict.effects import predict, reward_checks
from factory.predict.overlay import Prediction
from factory.runtime.server import AppServer
from factory.runtime.step import Step
from factory.spec.model import ParamSpec, Spec, UserSpec, WorkflowSpec
from factory.world.assemble import build_world
from verifiers import grade, load_reward

SEEDS = Path(__file__).resolve().parents[2] / "seeds"

# Explicit rows so that the expected values below can be worked out by hand. Wallet 1 has three
# entries: caps $4, NULL and $9; wallet 3 has none; wallet 4 is Bo's.
LEDGER = """
world: ledger
title: Ledger
scenario: Wallets with entries, for the effect interpreter's tests.
today: 2026-05-20
users:
  accounts:
    - {username: ana, name: Ana Alves, password: ana-pass}
    - {username: bo, name: Bo Berg, password: bo-pass}
entities:
  - name: wallet
    display: "{name} ({balance})"
    owner: [owner]
    operations: [list, read]
    fields:
      - {name: owner, type: reference, to: user, editable: false}
      - {name: name, type: string, max_length: 40, unique: true}
      - {name: balance, type: money, min: 0}
      - {name: score, type: int}
      - {name: cap, type: money, required: false, gen: {null_rate: 1}}
      - {name: opened_at, type: datetime, required: false, gen: {null_rate: 1}}
    seed:
      rows:
        - {owner: ana, name: Daily, balance: 500, score: -7}
        - {owner: ana, name: Savings, balance: 1200.5, score: -50, cap: 3}
        - {owner: ana, name: Spare, balance: 20, score: -1}
        - {owner: bo, name: Bo main, balance: 300, score: -8}
  - name: entry
    display: memo
    owner: [owner]
    operations: [list, read]
    fields:
      - {name: owner, type: reference, to: user, editable: false}
      - {name: wallet, type: reference, to: wallet}
      - {name: amount, type: money, min: 0}
      - {name: cap, type: money, required: false, gen: {null_rate: 1}}
      - {name: memo, type: string}
      - {name: posted_at, type: datetime}
      - {name: flagged, type: bool, default: false, gen: {choices: [false]}}
      - {name: kind, type: enum, values: [in, out], default: out, gen: {choices: [in]}}
    seed:
      rows:
        - {owner: ana, wallet: 1, amount: 12.5, cap: 4, memo: Coffee}
        - {owner: ana, wallet: 1, amount: 30, memo: Books}
        - {owner: ana, wallet: 1, amount: 7, cap: 9, memo: Lunch}
        - {owner: ana, wallet: 2, amount: 5, cap: 2, memo: Fee}
        - {owner: bo, wallet: 4, amount: 10, memo: Bus}
workflows:
  - name: pay
    label: Pay
    subject: wallet
    params:
      - {name: wallet, type: reference, to: wallet}
      - {name: amount, type: money, min: 0.01}
    preconditions:
      - {check: "amount <= wallet.balance", message: "Not enough money."}
    effects:
      - {set: wallet.balance, to: "wallet.balance - amount"}
      - create: entry
        values: {wallet: wallet, amount: amount, posted_at: "now()",
                 memo: "text(wallet) + ' paid ' + text(amount) + ' at ' + text(now())"}
      - set: wallet.score
        to: "count(e in entry where e.wallet == wallet and not (e.cap > 5)) * 1000 + wallet.score / 3"
      - {set: wallet.cap, to: "sum(e.cap for e in entry where e.wallet == wallet)"}
  - name: open_wallet
    label: Open a wallet
    params:
      - {name: name, type: string, max_length: 40}
      - {name: opened_at, type: datetime}
    preconditions:
      - {check: "len(name) >= 3", message: "Name the wallet."}
      - {check: "opened_at <= now()", message: "A wallet cannot open in the future."}
    effects:
      - create: wallet
        values: {name: name, balance: "0", score: "0", opened_at: opened_at}
  - name: rename_wallet
    label: Rename a wallet
    subject: wallet
    params:
      - {name: wallet, type: reference, to: wallet}
      - {name: name, type: string, max_length: 40}
    effects:
      - {set: wallet.name, to: name}
  - name: close_wallet
    label: Close a wallet
    subject: wallet
    params:
      - {name: wallet, type: reference, to: wallet}
    effects:
      - {delete: wallet}
  - name: tally
    label: Count entries with a cap
    subject: wallet
    params:
      - {name: wallet, type: reference, to: wallet}
      - {name: cap, type: money, required: false}
    effects:
      - {set: wallet.score, to: "count(e in entry where e.wallet == wallet and e.cap == cap)"}
"""
ANA, BO = 1, 2
PAID_MEMO = "Daily ($475.00) paid $25.00 at 2026-05-20T09:00:00"


@pytest.fixture(scope="module")
def ledger_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ledger")
    (root / "ledger.yaml").write_text(LEDGER)
    return build_world(root / "ledger.yaml", root / "worlds", frontend=False).path


@pytest.fixture(scope="module")
def echobank_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Built here, not taken from worlds/: a world built before effects kept their sources has
    # none in its spec.json.
    return build_world(SEEDS / "echobank.yaml", tmp_path_factory.mktemp("echobank"), frontend=False).path


def spec_of(world: Path) -> Spec:
    """The spec as reward-gen reads it: from spec.json (so it survives canonical JSON)."""
    return Spec.model_validate_json((world / "spec.json").read_text())


def db_of(world: Path) -> Path:
    return world / "data" / "seed.db"


def run(world: Path, user: int, *steps: Step) -> Prediction:
    return predict(spec_of(world), db_of(world), user, list(steps))


# ---- predictions worked out by hand ------------------------------------------------------
def test_set_arithmetic_and_a_create_reading_the_earlier_set(ledger_world: Path) -> None:
    got = run(ledger_world, ANA, Step("pay", {"wallet": 1, "amount": 2500}))
    # score: one entry of wallet 1 has `not (cap > $5)`; NULL caps match neither the condition
    # nor its negation (SQL), and -7 / 3 rounds down to -3 (not towards zero). cap: NULLs skipped.
    assert got.updates == {("wallet", 1): {"balance": 47500, "score": 1000 - 3, "cap": 400 + 900}}
    # the label reads the balance the first effect set; unset optional fields are NULL; the owner
    # is the actor; required fields with a default take it (bool stored as 0)
    assert got.inserts == [("entry", {"owner_id": ANA, "wallet_id": 1, "amount": 2500, "memo": PAID_MEMO,
                                      "posted_at": "2026-05-20 09:00:00.000000", "cap": None, "flagged": 0,
                                      "kind": "out"})]
    assert got.deletes == [] and got.failed == []


def test_query_conditions_follow_sql(ledger_world: Path) -> None:
    def tally(cap: int | None) -> Any:
        return run(ledger_world, ANA, Step("tally", {"wallet": 1, "cap": cap})).updates[("wallet", 1)]["score"]

    # `e.cap == cap` with a null parameter is IS NULL (SQLAlchemy), so it finds the one NULL cap
    assert (tally(None), tally(400), tally(900), tally(500)) == (1, 1, 1, 0)


def test_create_fills_the_owner_with_the_actor(mock_world: Path) -> None:
    with sqlite3.connect(db_of(mock_world)) as conn:
        notebook = conn.execute("SELECT id FROM notebook WHERE owner_id = 2 ORDER BY id").fetchone()[0]
    got = run(mock_world, 2, Step("write_note", {"notebook": notebook, "title": "Groceries"}))
    assert got.inserts == [("note", {"owner_id": 2, "notebook_id": notebook, "title": "Groceries", "body": None,
                                     "status": "active", "pinned": 0, "priority": 3, "updated_on": "2026-06-15"})]
    assert got.updates == {} and got.failed == []


def test_delete_and_steps_in_sequence(ledger_world: Path) -> None:
    got = run(ledger_world, ANA, Step("rename_wallet", {"wallet": 3, "name": "Old spare"}),
              Step("close_wallet", {"wallet": 3}))
    assert got.deletes == [("wallet", 3)] and got.updates == {}  # a deleted row has no update left
    opened = run(ledger_world, ANA, Step("open_wallet", {"name": "Travel", "opened_at": "2026-05-19T08:30:00"}),
                 Step("close_wallet", {"wallet": 5}))
    assert opened == Prediction({}, [], [], [])  # created, then deleted: no trace
    twice = run(ledger_world, ANA, Step("pay", {"wallet": 1, "amount": 2500}),
                Step("pay", {"wallet": 1, "amount": 1000}))
    # the second step sees the first: balance, label, and a score of 1000 + 997 // 3
    assert twice.updates == {("wallet", 1): {"balance": 46500, "score": 1332, "cap": 1300}}
    assert [row["memo"] for _, row in twice.inserts] == [
        PAID_MEMO, "Daily ($465.00) paid $10.00 at 2026-05-20T09:00:00"]


def test_failing_preconditions_are_reported_and_change_nothing(ledger_world: Path) -> None:
    got = run(ledger_world, ANA, Step("pay", {"wallet": 1, "amount": 60000}),
              Step("open_wallet", {"name": "ab", "opened_at": "2026-05-21T10:00:00"}),
              Step("rename_wallet", {"wallet": 2, "name": "Rainy day"}))
    assert got.failed == ["Not enough money.", "Name the wallet.", "A wallet cannot open in the future."]
    assert got.updates == {("wallet", 2): {"name": "Rainy day"}} and got.inserts == []  # later steps still run


REFUSED = [
    (ANA, Step("pay", {"wallet": 4, "amount": 100}), "wallet #4 does not exist or is not visible to user #1"),
    (ANA, Step("pay", {"wallet": 99, "amount": 100}), "wallet #99 does not exist"),
    (ANA, Step("pay", {"wallet": 1, "amount": 0}), "Amount must be at least $0.01."),
    (ANA, Step("pay", {"wallet": 1, "amount": None}), "Amount is required."),
    (ANA, Step("pay", {"wallet": 1, "amount": 12.5}), "must be integer cents"),
    (ANA, Step("open_wallet", {"name": "Trips", "opened_at": "2026/05/01 10:00"}), "'YYYY-MM-DDTHH:MM:SS'"),
    (ANA, Step("rename_wallet", {"wallet": 1, "name": "Savings"}), "would repeat the unique name 'Savings'"),
    (ANA, Step("close_wallet", {"wallet": 1}), "would break the reference from entry #1.wallet"),
]


@pytest.mark.parametrize(("user", "step", "phrase"), REFUSED, ids=lambda v: str(v)[:40])
def test_what_the_app_refuses_raises(ledger_world: Path, user: int, step: Step, phrase: str) -> None:
    with pytest.raises(PredictionError, match="step 1") as info:
        run(ledger_world, user, step)
    assert phrase in str(info.value)


def test_caller_mistakes_raise(ledger_world: Path) -> None:
    for steps, phrase in [([Step("pay", {"wallet": 1, "amount": 1, "tip": 5})], "unknown parameter(s) tip"),
                          ([Step("pay", {"wallet": 1})], "parameter 'amount' is missing"),
                          ([Step("refund", {})], "no workflow 'refund'")]:
        with pytest.raises(PredictionError, match=phrase.replace("(", r"\(").replace(")", r"\)")):
            run(ledger_world, ANA, *steps)
    with pytest.raises(PredictionError, match="acting user #42"):
        run(ledger_world, 42, Step("pay", {"wallet": 1, "amount": 1}))


def test_a_spec_without_effect_sources_asks_for_a_rebuild(ledger_world: Path) -> None:
    old = spec_of(ledger_world)
    for workflow in old.workflows:
        for effect in workflow.effects:
            effect.target = effect.to = effect.values = None
    with pytest.raises(PredictionError, match="rebuild the world"):
        predict(old, db_of(ledger_world), ANA, [Step("pay", {"wallet": 1, "amount": 100})])


# ---- reward checks ------------------------------------------------------------------------
def test_reward_checks_name_each_change_and_allow_nothing_else(ledger_world: Path) -> None:
    spec = spec_of(ledger_world)
    prediction = run(ledger_world, ANA, Step("pay", {"wallet": 1, "amount": 2500}), Step("close_wallet", {"wallet": 3}))
    checks = reward_checks(spec, db_of(ledger_world), prediction)
    assert [c["id"] for c in checks] == ["wallet_1_updated", "entry_added_1", "wallet_3_removed", "no_other_changes"]
    assert checks[0]["expect"] == {"balance": 47500, "cap": 1300, "score": 997}
    assert "balance 50000 -> 47500" in str(checks[0]["description"])
    assert checks[1]["where"] == dict(sorted(prediction.inserts[0][1].items())) and checks[1]["count"] == 1
    assert checks[-1]["allowed"] == {"entry": {"insert": 1},
                                     "wallet": {"delete": True, "rows": [1, 3], "update": ["balance", "cap", "score"]}}
    load_reward({"schema_version": 1, "checks": checks})  # well-formed
    assert reward_checks(spec, db_of(ledger_world), prediction) == checks  # deterministic
    same = run(ledger_world, ANA, Step("pay", {"wallet": 1, "amount": 1000}),
               Step("pay", {"wallet": 1, "amount": 1000}))
    ids = [c["id"] for c in reward_checks(spec, db_of(ledger_world), same)]
    assert ids == ["wallet_1_updated", "entry_added_1", "entry_added_2", "no_other_changes"]  # memos differ


def test_identical_inserts_are_one_check_with_a_count(mock_world: Path) -> None:
    with sqlite3.connect(db_of(mock_world)) as conn:
        notebook = conn.execute("SELECT id FROM notebook WHERE owner_id = 1 ORDER BY id").fetchone()[0]
    step = Step("write_note", {"notebook": notebook, "title": "Same again"})
    checks = reward_checks(spec_of(mock_world), db_of(mock_world), run(mock_world, 1, step, step))
    assert [(c["id"], c.get("count")) for c in checks] == [("note_added_1", 2), ("no_other_changes", None)]
    assert checks[-1]["allowed"] == {"note": {"insert": 2}}


def test_reward_checks_refuse_rows_the_database_lacks(ledger_world: Path) -> None:
    with pytest.raises(PredictionError, match="wallet #77 is not in the initial database"):
        reward_checks(spec_of(ledger_world), db_of(ledger_world), Prediction({}, [], [("wallet", 77)], []))
    with pytest.raises(PredictionError, match="table 'purse'"):
        reward_checks(spec_of(ledger_world), db_of(ledger_world), Prediction({("purse", 1): {"a": 1}}, [], [], []))


# ---- the decisive test: the real backend agrees -----------------------------------------------
class Backend:
    """One server per world; each call runs on a fresh copy of the seed database."""

    def __init__(self, world: Path, work: Path) -> None:
        self.world, self.work, self.calls = world, work, 0
        self.spec = spec_of(world)
        self.server = AppServer(world, shutil.copyfile(db_of(world), work / "serve.db"), control_token="effects")

    def run(self, user: UserSpec, steps: list[Step]) -> tuple[Path, list[httpx.Response]]:
        self.calls += 1
        final = self.work / f"final-{self.calls}.db"
        shutil.copyfile(db_of(self.world), final)
        self.server.use_db(final)
        with httpx.Client(base_url=self.server.url, timeout=10) as client:
            login = client.post("/api/auth/login", json={"username": user.username, "password": user.password})
            assert login.status_code == 200, login.text
            return final, [client.post(f"/api/workflows/{s.workflow}", json=s.params) for s in steps]


@pytest.fixture()
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    world = request.getfixturevalue(request.param)
    served = Backend(world, tmp_path)
    with served.server:
        yield served


def candidates(p: ParamSpec, today: dt.date) -> list[Any]:
    """A few plausible API values per scalar parameter; the search keeps those that pass."""
    if p.values:
        return list(p.values)
    if p.type == "bool":
        return [False, True]
    if p.type in ("int", "money"):
        scale = 100 if p.type == "money" else 1
        lo, hi = (None if v is None else round(v * scale) for v in (p.min, p.max))
        picks = [2500, 1000, 12000] if p.type == "money" else [2, 1, 3, 5]
        fit = [v for v in picks if (lo is None or v >= lo) and (hi is None or v <= hi)]
        return fit or [lo if lo is not None else hi]
    if p.type == "date":
        return [(today + dt.timedelta(days=d)).isoformat() for d in (5, 1, 3, 10, 30, 0, -1)]
    if p.type == "datetime":
        return [f"{today + dt.timedelta(days=d)}T10:00:00" for d in (1, 3, -1)]
    words = {"phone": "555-010-1234", "state": "CA", "postal_code": "94107", "contact_email": "new@example.com"}
    text = words.get(p.name, "A long enough text for the test" if p.type == "text" else "Summer plans 2026")
    return [text[: p.max_length] if p.max_length else text]


def find_step(spec: Spec, db: Path, workflow: WorkflowSpec) -> tuple[UserSpec, Step, Prediction]:
    """Parameters (and a user) for which the prediction says the workflow succeeds."""
    rng = random.Random(workflow.name)
    today = dt.date.fromisoformat(spec.today)
    with sqlite3.connect(db) as conn:
        for user in spec.users[:8]:
            options: dict[str, list[Any]] = {}
            for p in workflow.params:
                if p.type == "reference":
                    entity = spec.entity(p.ref or "")
                    if entity.builtin:
                        options[p.name] = [u.id for u in spec.users if u.id != user.id][:4]
                    else:
                        mine = " OR ".join(f"{o}_id = {user.id}" for o in entity.owner_fields) or "1"
                        where = "1" if entity.visibility == "public" else mine
                        options[p.name] = [r[0] for r in conn.execute(f'SELECT id FROM "{entity.table}" WHERE {where}')]
                else:
                    options[p.name] = candidates(p, today)
            if not all(options.values()):
                continue
            for _ in range(40):
                step = Step(workflow.name, {name: rng.choice(values) for name, values in options.items()})
                try:
                    prediction = predict(spec, db, user.id, [step])
                except PredictionError:
                    continue  # e.g. a delete blocked by a reference: try other rows
                if not prediction.failed:
                    return user, step, prediction
    raise AssertionError(f"no parameters found for which {workflow.name} succeeds")


def golden_gate(backend: Backend, user: UserSpec, steps: list[Step]) -> str:
    """'' when the backend's end state scores 1.0 and the initial state 0.0, else why not."""
    spec, initial = backend.spec, db_of(backend.world)
    prediction = predict(spec, initial, user.id, steps)
    program = {"schema_version": 1, "checks": reward_checks(spec, initial, prediction)}
    final, answers = backend.run(user, steps)
    refused = [f"{a.status_code} {a.text[:200]}" for a in answers if a.status_code != 200]
    if refused:
        return f"the backend refused: {refused}"
    golden, untouched = grade(program, initial, final), grade(program, initial, initial)
    if golden.score != 1.0:
        return golden.explanation
    return "" if untouched.score == 0.0 else "the reward also passes on the untouched database"


@pytest.mark.parametrize("backend", ["mock_world", "ledger_world", "echobank_world"], indirect=True)
def test_every_workflow_predicts_the_real_backend(backend: Backend) -> None:
    spec, initial = backend.spec, db_of(backend.world)
    workflows = [w for w in spec.workflows if not w.system]
    assert workflows
    wrong = {}
    for workflow in workflows:
        user, step, _ = find_step(spec, initial, workflow)
        why = golden_gate(backend, user, [step])
        if why:
            wrong[workflow.name] = f"{step.params} as {user.username}: {why}"
    assert not wrong, wrong


@pytest.mark.parametrize("backend", ["ledger_world"], indirect=True)
def test_sequences_and_refusals_agree_with_the_backend(backend: Backend) -> None:
    ana = backend.spec.users[0]
    for steps in ([Step("pay", {"wallet": 1, "amount": 2500}), Step("pay", {"wallet": 1, "amount": 1000})],
                  [Step("open_wallet", {"name": "Travel", "opened_at": "2026-05-19T08:30:00"}),
                   Step("rename_wallet", {"wallet": 5, "name": "Trips"})],
                  [Step("rename_wallet", {"wallet": 3, "name": "Old spare"}), Step("close_wallet", {"wallet": 3})],
                  [Step("tally", {"wallet": 1, "cap": None}), Step("tally", {"wallet": 2, "cap": 200})]):
        assert golden_gate(backend, ana, steps) == ""
    # what the prediction refuses, the app refuses too, and leaves the database as it was
    for user_id, step, _ in REFUSED:
        user = next(u for u in backend.spec.users if u.id == user_id)
        final, (answer,) = backend.run(user, [step])
        assert answer.status_code in (404, 409, 422), (step, answer.text)
        assert grade({"schema_version": 1, "checks": [{"id": "same", "type": "diff_within", "allowed": {}}]},
                     db_of(backend.world), final).passed
    # a failing precondition: 409 with the predicted message
    step = Step("pay", {"wallet": 1, "amount": 60000})
    _, (answer,) = backend.run(ana, [step])
    assert answer.status_code == 409 and answer.json()["detail"] == predict(
        backend.spec, db_of(backend.world), ana.id, [step]).failed[0]


@pytest.mark.parametrize("backend", ["ledger_world"], indirect=True)
def test_the_reward_fails_a_different_end_state(backend: Backend) -> None:
    ana = backend.spec.users[0]
    initial = db_of(backend.world)
    asked = predict(backend.spec, initial, ana.id, [Step("pay", {"wallet": 1, "amount": 2500})])
    program = {"schema_version": 1, "checks": reward_checks(backend.spec, initial, asked)}
    for other in ([Step("pay", {"wallet": 1, "amount": 2400})], [Step("pay", {"wallet": 2, "amount": 2500})],
                  [Step("pay", {"wallet": 1, "amount": 2500}),
                   Step("rename_wallet", {"wallet": 2, "name": "Rainy day"})],
                  [Step("pay", {"wallet": 1, "amount": 2500}), Step("close_wallet", {"wallet": 3})]):
        final, answers = backend.run(ana, other)
        assert all(a.status_code == 200 for a in answers)
        result = grade(program, initial, final)
        assert result.score == 0.0, (other, result.explanation)
