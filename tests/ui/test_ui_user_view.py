"""Browser claims that read the app as its user does: forms filled by their visible labels and option
words, every kind of list filter and the search box set through their controls, labels and column
headers compared with the spec.

Each claim passes on a clean world and fails on a copy whose frontend was broken by hand (the
source edited under app/frontend/src and the bundle rebuilt), with a message that names the fault.
Claims come from the claims compiler (mock world) or from its case functions on the seed database
(nested-filters world, whose full compile is too slow for a test).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from factory.claims.browser import (
    choice_case,
    column_headers,
    filter_args,
    form_labels,
    param_choice,
    range_case,
)
from factory.claims.compile import compile_claims
from factory.claims.model import Claim, UiGetter
from factory.compiler.frontend import build_frontend
from factory.predict.rows import UserView
from factory.runtime.server import AppServer, fresh_db
from factory.spec.model import Spec
from factory.verify.ui import UiOutcome, run_ui_claim

SRC = Path("app/frontend/src")
FAST_MS = 3000  # a broken page is waited for this long before the claim fails


class Served:
    """A world's app on its own database copy, and the spec to drive it with."""

    def __init__(self, world: Path, server: AppServer, shots: Path) -> None:
        self.world, self.server, self.shots = world, server, shots
        self.spec = Spec.model_validate_json((world / "spec.json").read_text())

    def run(self, browser: Browser, getter: UiGetter, claim_id: str) -> UiOutcome:
        passwords = {u.username: u.password for u in self.spec.users}
        outcome = run_ui_claim(browser, self.server.url, self.spec, getter, passwords.__getitem__, self.shots,
                               claim_id, timeout_ms=FAST_MS)
        assert "\n" not in outcome.message
        return outcome


def _serve(world: Path, tmp: Path) -> Iterator[Served]:
    with AppServer(world, fresh_db(world, tmp / "app.db")) as server:
        yield Served(world, server, tmp / "shots")


def _broken_copy(world: Path, tmp: Path, *edits: Callable[[Path], None]) -> Path:
    """A copy of `world` whose frontend source took `edits`, rebuilt so the server serves them."""
    copy = tmp / world.name
    shutil.copytree(world, copy, ignore=shutil.ignore_patterns("run"))
    for edit in edits:
        edit(copy / SRC)
    build_frontend(copy / "app")
    return copy


def _edit_spec(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    """An edit of the SPEC literal in spec.gen.js (JSON after its `export const SPEC = `)."""
    def edit(src: Path) -> None:
        path = src / "spec.gen.js"
        text = path.read_text()
        at = text.index("export const SPEC = ") + len("export const SPEC = ")
        model = json.loads(text[at:].rstrip().removesuffix(";"))
        change(model)
        path.write_text(text[:at] + json.dumps(model, indent=2, ensure_ascii=False) + ";\n")
    return edit


def _replace(rel: str, old: str, new: str) -> Callable[[Path], None]:
    def edit(src: Path) -> None:
        path = src / rel
        text = path.read_text()
        assert text.count(old) == 1, f"{rel}: the anchor {old!r} is gone"
        path.write_text(text.replace(old, new))
    return edit


def _filter_of(model: dict[str, Any], entity: str, field: str) -> dict[str, Any]:
    return next(f for g in model["entities"][entity]["filterGroups"] for f in g["filters"] if f["field"] == field)


def _swap_move_note_labels(model: dict[str, Any]) -> None:
    params = {p["name"]: p for p in model["workflows"]["move_note"]["params"]}
    params["note"]["label"], params["target"]["label"] = params["target"]["label"], params["note"]["label"]


def _status_under_another_param(model: dict[str, Any]) -> None:
    flt = _filter_of(model, "note", "status")
    flt["param"], flt["keys"] = "status_eq", ["status_eq"]  # sent, but not a parameter the API reads


def _rename_status_header(model: dict[str, Any]) -> None:
    next(f for f in model["entities"]["note"]["fields"] if f["name"] == "status")["label"] = "State"


# ---- fixtures: the mock world clean and broken, the nested-filters world with money broken ------------
@pytest.fixture(scope="module")
def mock_claims(worlds: Any) -> dict[str, Claim]:
    return {c.id: c for c in compile_claims(worlds.get("mock.yaml")).claims}


@pytest.fixture(scope="module")
def clean(worlds: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from _serve(worlds.get("mock.yaml"), tmp_path_factory.mktemp("clean"))


@pytest.fixture(scope="module")
def broken(worlds: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Four faults at once, each in a different claim's way (the claims fail one by one below)."""
    tmp = tmp_path_factory.mktemp("broken")
    copy = _broken_copy(worlds.get("mock.yaml"), tmp,
                        _edit_spec(_swap_move_note_labels), _edit_spec(_status_under_another_param),
                        _edit_spec(_rename_status_header),
                        _replace("runtime/ListPage.jsx", "onSearch={(q) => update({ q })}", "onSearch={() => update({})}"))
    yield from _serve(copy, tmp)


@pytest.fixture(scope="module")
def tenth_cents(worlds: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The nested-filters world whose workflow forms convert dollars to cents by 10, not 100."""
    tmp = tmp_path_factory.mktemp("money")
    copy = _broken_copy(worlds.get("capabilities/nested_filters.yaml"), tmp,
                        _replace("runtime/formCore.js", 'case "money": return majorToCents(raw);',
                                 'case "money": return Math.round(Number(raw) * 10);'))
    yield from _serve(copy, tmp)


# ---- the spec's words ------------------------------------------------------------------------------
def test_expected_labels_and_headers_follow_the_spec(worlds: Any) -> None:
    spec = Spec.model_validate_json((worlds.get("mock.yaml") / "spec.json").read_text())
    move = next(w for w in spec.workflows if w.name == "move_note")
    assert form_labels(move) == ["Note", "Destination notebook"]
    # one display field: the label column is named after it and not repeated
    assert column_headers(spec.entity("note")) == ["Title", "Notebook", "Status", "Pinned", "Priority", "Updated on"]


# ---- lists: every filter kind, set through its control, shows the seed database's rows -------------
LIST_CLAIMS = ["ui:filter:note.notebook", "ui:filter:note.status", "ui:filter:note.pinned",
               "ui:date_range:note.updated_on", "ui:search:note"]


def test_every_filter_kind_shows_the_rows_of_the_seed_database(browser: Browser, clean: Served,
                                                                 mock_claims: dict[str, Claim]) -> None:
    kinds = {(step.get("field") and clean.spec.entity("note").filter_on(step["field"]).kind) or "search"
             for cid in LIST_CLAIMS for step in mock_claims[cid].getter.args["steps"]}  # type: ignore[union-attr]
    assert kinds == {"reference", "select", "bool", "date_range", "search"}
    for cid in LIST_CLAIMS:
        getter = mock_claims[cid].getter
        assert isinstance(getter, UiGetter) and getter.script == "filter"
        outcome = clean.run(browser, getter, cid)
        assert outcome.ok, f"{cid}: {outcome.message}"


def test_a_filter_sent_under_another_parameter_fails(browser: Browser, broken: Served,
                                                     mock_claims: dict[str, Claim]) -> None:
    claim = mock_claims["ui:filter:note.status"]
    outcome = broken.run(browser, claim.getter, claim.id)  # type: ignore[arg-type]
    assert not outcome.ok
    step = claim.getter.args["steps"][0]  # type: ignore[union-attr]
    chosen = step["option"]
    assert chosen, "the status filter claim chooses an option"
    assert outcome.message.startswith(f"after choosing {chosen!r} in 'Status' (status = ")
    assert " the list shows " in outcome.message
    assert f"expected {claim.getter.args['total']} row(s)" in outcome.message  # type: ignore[union-attr]


def test_a_search_box_that_sends_nothing_fails(browser: Browser, broken: Served, mock_claims: dict[str, Claim]) -> None:
    claim = mock_claims["ui:search:note"]
    outcome = broken.run(browser, claim.getter, claim.id)  # type: ignore[arg-type]
    assert not outcome.ok
    assert outcome.message.startswith("after searching for ")


def test_a_changed_column_header_fails_the_list_page(browser: Browser, clean: Served, broken: Served,
                                                     mock_claims: dict[str, Claim]) -> None:
    claim = mock_claims["ui:page:list-note"]
    assert clean.run(browser, claim.getter, claim.id).ok  # type: ignore[arg-type]
    outcome = broken.run(browser, claim.getter, claim.id)  # type: ignore[arg-type]
    assert not outcome.ok
    assert outcome.message == ("the table on /notes heads its columns ['Title', 'Notebook', 'State', 'Pinned', 'Priority', "
                               "'Updated on'], the spec names them ['Title', 'Notebook', 'Status', 'Pinned', "
                               "'Priority', 'Updated on']")


# ---- forms: labels lead to their own fields, options are chosen by their words --------------------
def test_swapped_labels_fail_the_form_page_and_the_workflow(browser: Browser, broken: Served,
                                                            mock_claims: dict[str, Claim]) -> None:
    page = broken.run(browser, mock_claims["ui:page:form-move_note"].getter, "page-swapped")  # type: ignore[arg-type]
    assert not page.ok
    assert page.message == ("the form on /actions/move-note shows the labels ['Destination notebook', 'Note'], "
                            "the spec names its fields ['Note', 'Destination notebook']")
    workflow = broken.run(browser, mock_claims["ui:workflow:move_note"].getter, "wf-swapped")  # type: ignore[arg-type]
    assert not workflow.ok
    assert workflow.message == ("the label 'Note' on /actions/move-note leads to the target field "
                                "(field-move_note-target), not to the note field (field-move_note-note)")


def test_the_workflow_passes_choosing_options_by_their_words(browser: Browser, mock_world: Path, tmp_path: Path,
                                                             mock_claims: dict[str, Claim]) -> None:
    getter = mock_claims["ui:workflow:move_note"].getter
    assert isinstance(getter, UiGetter) and set(getter.args["choices"]) == {"note", "target"}
    with AppServer(mock_world, fresh_db(mock_world, tmp_path / "app.db")) as server:  # its own database: it writes
        served = Served(mock_world, server, tmp_path / "shots")
        assert served.run(browser, mock_claims["ui:page:form-move_note"].getter, "page-form").ok  # type: ignore[arg-type]
        outcome = served.run(browser, getter, "wf-move")
        assert outcome.ok, outcome.message
        choices = {**getter.args["choices"], "target": "No such notebook"}
        missing = served.run(browser, getter.model_copy(update={"args": {**getter.args, "choices": choices}}), "wf-no-option")
        assert not missing.ok
        assert missing.message.startswith("the field 'Destination notebook' offers no option 'No such notebook' "
                                          "on /actions/move-note")


# ---- money typed in dollars; nested and money-range filters -------------------------------------
def _rows(conn: sqlite3.Connection, sql: str, *args: Any) -> list[sqlite3.Row]:
    return list(conn.execute(sql, args))


def test_money_sent_as_a_tenth_of_its_cents_fails_the_workflow(browser: Browser, tenth_cents: Served) -> None:
    spec, seed = tenth_cents.spec, tenth_cents.world / "data" / "seed.db"
    sam = next(u for u in spec.users if u.username == "sam")
    conn = sqlite3.connect(f"file:{seed}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        product = _rows(conn, "SELECT id, price FROM product WHERE price >= 5000 AND id NOT IN "
                              "(SELECT product_id FROM price_watch WHERE owner_id = ?) ORDER BY id LIMIT 1", sam.id)[0]
        world = UserView(spec, conn)
        watch = next(w for w in spec.workflows if w.name == "watch_price")
        target = (product["price"] // 200) * 100  # whole dollars, half the price
        choice = param_choice(world, watch.params[0], product["id"])
        assert choice is not None
        getter = UiGetter(script="workflow", user="sam", args={
            "workflow": "watch_price", "values": {"product": product["id"], "target_price": target},
            "choices": {"product": choice}})
        outcome = tenth_cents.run(browser, getter, "wf-tenth")
        assert not outcome.ok
        assert outcome.message.startswith(f"'Target price' was entered as ${target / 100:.2f} ({target} cents) but the form "
                                          f"sent target_price={target // 10} (the app answered ")

        # the list filters use their own conversion, which the fault left alone: they still pass
        visible = _rows(conn, "SELECT * FROM product ORDER BY id")
        product_entity = spec.entity("product")
        for flt, case in ((product_entity.filter_on("subcategory"),
                           choice_case(world, product_entity, product_entity.filter_on("subcategory"), visible)),
                          (product_entity.filter_on("price"),
                           range_case(product_entity, product_entity.filter_on("price"), visible))):
            assert case is not None, flt.field
            args = filter_args(product_entity, case)
            outcome = tenth_cents.run(browser, UiGetter(script="filter", user="sam", args=args), f"filter-{flt.field}")
            assert outcome.ok, f"{flt.field}: {outcome.message}"
        assert len(args["steps"]) == 1 and args["steps"][0]["min"].count(".") == 1  # the price range is typed in dollars
    finally:
        conn.close()
