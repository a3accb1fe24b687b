"""The interpreter and the generated app agree on derived values: each computed field of every row,
the row a lookup picks (as a parameter default and in an effect), the refusal when it finds none
(nothing changed, not a 500), the text of messages with values, and labels in another currency."""

from __future__ import annotations

import datetime as dt
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from factory.predict.derived import LOOKUP_CODE
from factory.predict.effects import predict
from factory.predict.interpreter import Interpreter, computed_value
from factory.predict.overlay import Prediction, Rows
from factory.runtime.server import AppServer
from factory.runtime.step import Step
from factory.spec.model import Spec
from factory.world.assemble import build_world

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "lookups.yaml"
ALICE, BOB = 1, 2
SALT_AND_STONE, WINTER_ORCHARD, QUIET_RIVERS = 2, 3, 4  # Long Harbour's two copies are out after the storyline


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_world(FIXTURE, tmp_path_factory.mktemp("lookups"), frontend=False).path


@pytest.fixture(scope="module")
def spec(world: Path) -> Spec:
    return Spec.model_validate_json((world / "spec.json").read_text())  # as reward-gen reads it


class App:
    """The world's app; each `call` runs on a fresh copy of the seed database."""

    def __init__(self, world: Path, work: Path) -> None:
        self.world, self.work, self.calls = world, work, 0
        self.server = AppServer(world, shutil.copyfile(world / "data" / "seed.db", work / "serve.db"), control_token="t")

    @contextmanager
    def client(self, user: int) -> Iterator[httpx.Client]:
        name = ["alice", "bob"][user - 1]
        with httpx.Client(base_url=self.server.url, timeout=10) as client:
            assert client.post("/api/auth/login", json={"username": name, "password": f"{name}-pass"}).status_code == 200
            yield client

    def call(self, user: int, step: Step) -> tuple[httpx.Response, Path]:
        self.calls += 1
        db = shutil.copyfile(self.world / "data" / "seed.db", self.work / f"call-{self.calls}.db")
        self.server.use_db(db)
        with self.client(user) as client:
            return client.post(f"/api/workflows/{step.workflow}", json=step.params), db


@pytest.fixture(scope="module")
def app(world: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    served = App(world, tmp_path_factory.mktemp("app"))
    with served.server:
        yield served


def _rows(db: Path, table: str) -> dict[int, dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return {r["id"]: dict(r) for r in conn.execute(f'SELECT * FROM "{table}"')}


def _predicted(spec: Spec, world: Path, user: int, step: Step) -> Prediction:
    return predict(spec, world / "data" / "seed.db", user, [step])


def test_every_computed_value_the_api_shows_is_the_interpreters(app: App, spec: Spec, world: Path) -> None:
    rows = Rows(spec, world / "data" / "seed.db")
    compared = 0
    try:
        interpreter = Interpreter(rows, {}, dt.date.fromisoformat(spec.today), "")
        app.server.use_db(shutil.copyfile(world / "data" / "seed.db", app.work / "read.db"))
        with app.client(ALICE) as alice, app.client(BOB) as bob:
            for e in (x for x in spec.entities if x.computed):
                for client in (alice, bob):
                    for item in client.get(f"/api/{e.path}", params={"page_size": 100}).json()["items"]:
                        row = rows.get(e.name, item["id"])
                        assert row is not None
                        for f in e.computed:
                            expected = computed_value(interpreter, e.name, row, f.name)
                            shown = expected.isoformat() if isinstance(expected, dt.date) else expected
                            assert item[f.name] == shown, (e.name, item["id"], f.name)
                            compared += 1
    finally:
        rows.close()
    assert compared >= 20


def test_a_parameter_lookup_picks_the_same_row(app: App, spec: Spec, world: Path) -> None:
    step = Step("borrow", {"book": SALT_AND_STONE})
    answer, db = app.call(BOB, step)
    assert answer.status_code == 200, answer.text
    prediction = _predicted(spec, world, BOB, step)
    loaned = [rid for (table, rid), cols in prediction.updates.items() if table == "copy" and cols.get("status") == "loaned"]
    assert loaned == [rid for rid, r in _rows(db, "copy").items() if r["status"] == "loaned" and r["book_id"] == SALT_AND_STONE]
    new_loan = max(_rows(db, "loan").values(), key=lambda r: r["id"])
    assert prediction.inserts == [("loan", {k: v for k, v in new_loan.items() if k != "id"})]


def test_a_lookup_that_finds_nothing_refuses_alike_and_changes_nothing(app: App, spec: Spec, world: Path) -> None:
    for step, message in ((Step("borrow", {"book": QUIET_RIVERS}), "No copy of this book is available right now."),
                          (Step("request_pickup", {"book": QUIET_RIVERS}),
                           "Every copy of this book is out; place a hold instead.")):
        answer, db = app.call(ALICE, step)
        assert answer.status_code == 409 and answer.json()["detail"] == message, answer.text
        assert answer.json().get("precondition") == LOOKUP_CODE
        assert _rows(db, "pickup") == {} and _rows(db, "loan") == _rows(world / "data" / "seed.db", "loan")
        prediction = _predicted(spec, world, ALICE, step)
        assert prediction.refusals == [(0, LOOKUP_CODE)] and prediction.messages == [message]
        assert not prediction.updates and not prediction.inserts  # the effect's refusal rolled the overlay back


def test_an_effect_lookup_creates_the_same_row(app: App, spec: Spec, world: Path) -> None:
    step = Step("request_pickup", {"book": WINTER_ORCHARD})
    answer, db = app.call(ALICE, step)
    assert answer.status_code == 200, answer.text
    made = next(iter(_rows(db, "pickup").values()))
    assert _predicted(spec, world, ALICE, step).inserts == [("pickup", {k: v for k, v in made.items() if k != "id"})]


@pytest.mark.parametrize("user,step", [
    (ALICE, Step("place_hold", {"book": QUIET_RIVERS, "placed_on": "2026-06-16"})),
    (ALICE, Step("place_hold", {"book": SALT_AND_STONE})),
    (ALICE, Step("borrow", {"book": WINTER_ORCHARD, "book_copy": 7})),  # WO-1, out on loan
    (ALICE, Step("pay_fine", {"fine": 1})),  # paid already: its amount in euros
    (BOB, Step("pay_fine", {"fine": 4})),
], ids=["dates", "computed_in_message", "row_label", "money_in_euros", "money_paid"])
def test_messages_with_values_read_the_same(app: App, spec: Spec, world: Path, user: int, step: Step) -> None:
    answer, _ = app.call(user, step)
    prediction = _predicted(spec, world, user, step)
    if answer.status_code == 200:
        assert not prediction.refusals and step.workflow == "pay_fine"
        return
    assert answer.status_code == 409, answer.text
    assert prediction.messages == [answer.json()["detail"]]
    assert "{" not in answer.json()["detail"]
    if step.workflow == "borrow":
        assert answer.json()["detail"] == "Winter Orchard WO-1 is already on loan."
    if step.params.get("fine") == 1:
        assert answer.json()["detail"] == "The Lost bookmark fine of €13.85 is paid already."


def test_labels_write_each_rows_currency(app: App, spec: Spec, world: Path) -> None:
    rows = Rows(spec, world / "data" / "seed.db")
    try:
        interpreter = Interpreter(rows, {}, dt.date.fromisoformat(spec.today), "")
        app.server.use_db(shutil.copyfile(world / "data" / "seed.db", app.work / "labels.db"))
        symbols: set[str] = set()
        with app.client(ALICE) as alice, app.client(BOB) as bob:
            for client in (alice, bob):
                for item in client.get("/api/fines", params={"page_size": 100}).json()["items"]:
                    label = interpreter.label("fine", rows.get("fine", item["id"]))
                    assert item["label"] == label
                    symbols.add("€" if "€" in label else "$")
    finally:
        rows.close()
    assert symbols == {"€", "$"}
