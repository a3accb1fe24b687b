"""Independent data checks: exact counts and money totals (per entity, per owner, per storyline
event), searches that must find a planted value, and invariants evaluated by the factory from the
spec. Each test breaks a copy of a world the way a fault would and expects the claim to fail.

The counts and the storyline attribution are tested on a small purse world built here (money
columns, two storyline events adding rows of the same entity on the same days); searches and
invariants on the session's mock world."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from factory.claims.compile import compile_claims
from factory.claims.invariants import (
    InvariantError,
    all_violations,
    invariant_violations,
    with_row_selectors,
)
from factory.claims.model import Claim, ClaimSet, SqlGetter
from factory.errors import WorldError
from factory.spec.model import Spec
from factory.verify.model import ClaimResult
from factory.verify.run import Verifier
from factory.world.assemble import build_world
from factory.world.manifest import sha256_file

TILL = """
world: till
title: Till
scenario: Purses and what was spent from them, for the data claims' tests.
today: 2026-03-31
users:
  accounts:
    - {username: ana, name: Ana Alves, password: ana-pass}
    - {username: bo, name: Bo Berg, password: bo-pass}
  generate: 2
entities:
  - name: purse
    display: name
    owner: [owner]
    operations: [list, read]
    fields:
      - {name: owner, type: reference, to: user, editable: false}
      - {name: name, type: string, max_length: 40, searchable: true}
      - {name: balance, type: money}
    seed: {rows: []}
  - name: spend
    display: memo
    owner: [owner]
    operations: [list, read]
    fields:
      - {name: owner, type: reference, to: user, editable: false}
      - {name: purse, type: reference, to: purse}
      - {name: amount, type: money, min: 0}
      - {name: kind, type: enum, values: [coffee, rent]}
      - {name: memo, type: string, max_length: 60, searchable: true}
      - {name: spent_on, type: date}
    seed: {rows: []}
workflows:
  - name: open_purse
    label: Open a purse
    params:
      - {name: name, type: string, max_length: 40}
    effects:
      - create: purse
        values: {name: name, balance: "1000"}
  - name: spend
    label: Spend
    subject: purse
    params:
      - {name: purse, type: reference, to: purse}
      - {name: amount, type: money, min: 0.01}
      - {name: kind, type: enum, values: [coffee, rent]}
      - {name: memo, type: string, max_length: 60}
    preconditions:
      - {check: "amount <= purse.balance", message: "Not enough money."}
    effects:
      - {set: purse.balance, to: "purse.balance - amount"}
      - create: spend
        values: {purse: purse, amount: amount, kind: kind, memo: memo, spent_on: "today()"}
storyline:
  - name: open_purses
    workflow: open_purse
    start: 2026-01-01
    for_each: "u in user"
    actor: u
    params: {name: "rand_choice('Daily', 'Main', 'Pocket')"}
  - name: coffee
    workflow: spend
    start: 2026-01-02
    every: week
    for_each: "p in purse"
    actor: p.owner
    params: {purse: p, amount: "rand_money(2, 6)", kind: "'coffee'", memo: "rand_choice('Espresso', 'Latte')"}
    chance: 0.8
  - name: rent
    workflow: spend
    start: 2026-01-02
    every: month
    for_each: "p in purse"
    actor: p.owner
    params: {purse: p, amount: "rand_money(100, 300)", kind: "'rent'", memo: "'Rent'"}
invariants:
  - name: balance_is_what_is_left
    for_each: "p in purse where p.name != 'Pocket'"
    check: "p.balance == 1000 - sum(s.amount for s in spend where s.purse == p)"
    message: A purse holds 1000 less what was spent from it.
"""

# Runs the world's generated seeder with two hooks that record which storyline event created which
# rows: the test's oracle for the attribution the claims compiler works out from the spec alone.
REPLAY = """
import json, sys
from pathlib import Path
import backend.seed as seed
from backend import workflows
current, made = [None], []
call, run = seed._event_call, workflows.run
def event_call(session, ctx, name, row):
    current[0] = name
    return call(session, ctx, name, row)
def recorded(session, ctx, name, raw):
    created = run(session, ctx, name, raw)
    made.append([current[0], created])
    return created
seed._event_call, workflows.run = event_call, recorded
seed.build(Path(sys.argv[1]))
print(json.dumps(made))
"""


@pytest.fixture(scope="module")
def till(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("till")
    (root / "till.yaml").write_text(TILL)
    return build_world(root / "till.yaml", root / "worlds", frontend=False).path


@pytest.fixture(scope="module")
def till_claims(till: Path) -> list[Claim]:
    return compile_claims(till).claims


@pytest.fixture(scope="module")
def mock_claims(mock_world: Path) -> list[Claim]:
    return compile_claims(mock_world).claims


def copy_world(world: Path, tmp_path: Path) -> Path:
    target = tmp_path / world.name
    shutil.copytree(world, target, ignore=shutil.ignore_patterns("run", "node_modules"))
    return target


def data_sql(claims: list[Claim]) -> list[Claim]:
    return [c for c in claims
            if isinstance(c.getter, SqlGetter) and c.id.startswith(("data:", "state:storyline:", "state:plan:"))]


def sql_failures(claims: list[Claim], db: Path) -> set[str]:
    """The SQL claims whose query selects a row on `db` (as the verifier's `_sql` judges them)."""
    failed = set()
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        for c in claims:
            assert isinstance(c.getter, SqlGetter)
            if conn.execute(c.getter.query).fetchone() is not None:
                failed.add(c.id)
    return failed


def verify(world: Path, claims: list[Claim]) -> dict[str, ClaimResult]:
    claim_set = ClaimSet(world=world.name, spec_sha256="0" * 64, seed_db_sha256="0" * 64, claims=claims)
    report = Verifier(world, ui=False, workers=1).run(claim_set, "0" * 64)
    return {r.id: r for r in report.results}


def app_invariants(world: Path, db: Path) -> dict[str, list[int]]:
    """What the app's own generated checker reports (the checker the verifier no longer trusts)."""
    result = subprocess.run([sys.executable, "-m", "backend.invariants", "--db", str(db)], cwd=world / "app",
                            capture_output=True, text=True, check=True, timeout=120)
    found: dict[str, list[int]] = json.loads(result.stdout)
    return found


# ---- 1. counts and money totals ----------------------------------------------------------------
def test_counts_and_totals_hold_on_the_seed_and_a_deleted_row_fails(till: Path, till_claims: list[Claim], tmp_path: Path) -> None:
    claims = data_sql(till_claims)
    ids = {c.id for c in claims}
    assert {"data:count:spend", "data:count:spend:owner", "data:sum:spend", "data:sum:spend:owner",
            "state:storyline:coffee:spend", "state:storyline:rent:spend", "state:storyline:open_purses:purse"} <= ids
    assert sql_failures(claims, till / "data" / "seed.db") == set()
    db = tmp_path / "seed.db"
    shutil.copyfile(till / "data" / "seed.db", db)
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM spend WHERE id = (SELECT MAX(id) FROM spend WHERE kind = 'rent')")
    failed = sql_failures(claims, db)
    assert failed == {"data:count:spend", "data:count:spend:owner", "data:sum:spend", "data:sum:spend:owner",
                      "state:storyline:rent:spend", "data:refs:spend.owner", "data:refs:spend.purse"}


def test_a_reference_re_pointed_fails_its_checksum_alone(till: Path, till_claims: list[Claim], tmp_path: Path) -> None:
    db = tmp_path / "seed.db"
    shutil.copyfile(till / "data" / "seed.db", db)
    with sqlite3.connect(db) as conn:  # the same purse count and totals, one spend moved to another purse
        first, second = [r[0] for r in conn.execute("SELECT id FROM purse ORDER BY id LIMIT 2")]
        conn.execute("UPDATE spend SET purse_id = ? WHERE id = (SELECT MIN(id) FROM spend WHERE purse_id = ?)", (second, first))
    assert "data:refs:spend.purse" in sql_failures(data_sql(till_claims), db)


def test_one_cent_fails_the_totals_but_not_the_counts(till: Path, till_claims: list[Claim], tmp_path: Path) -> None:
    db = tmp_path / "seed.db"
    shutil.copyfile(till / "data" / "seed.db", db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE spend SET amount = amount + 1 WHERE id = (SELECT MIN(id) FROM spend WHERE kind = 'coffee')")
    assert sql_failures(data_sql(till_claims), db) == {"data:sum:spend", "data:sum:spend:owner", "state:storyline:coffee:spend"}


def test_each_event_is_claimed_for_exactly_the_rows_the_seeder_made_for_it(till: Path, till_claims: list[Claim],
                                                                           tmp_path: Path) -> None:
    replayed = tmp_path / "replay.db"
    result = subprocess.run([sys.executable, "-c", REPLAY, str(replayed)], cwd=till / "app", capture_output=True,
                            text=True, check=True, timeout=300)
    assert sha256_file(replayed) == sha256_file(till / "data" / "seed.db")  # the oracle rebuilt this very database
    made: dict[tuple[str, str], list[int]] = {}
    for event, created in json.loads(result.stdout.strip().splitlines()[-1]):
        for entity, ids in created.items():
            made.setdefault((event, entity), []).extend(ids)
    storyline = [c for c in data_sql(till_claims) if c.id.startswith("state:storyline:")]
    assert {c.id for c in storyline} == {f"state:storyline:{event}:{entity}" for event, entity in made}
    tables = {"purse": "purse", "spend": "spend"}
    for (event, entity), ids in sorted(made.items()):
        db = tmp_path / f"{event}.db"
        shutil.copyfile(till / "data" / "seed.db", db)
        with sqlite3.connect(db) as conn:
            if entity == "purse":  # a purse is referenced by its spends: drop those too, from their own events
                conn.execute("DELETE FROM spend WHERE purse_id = ?", (ids[-1],))
            conn.execute(f'DELETE FROM "{tables[entity]}" WHERE id = ?', (ids[-1],))
        failed = sql_failures(storyline, db)
        assert f"state:storyline:{event}:{entity}" in failed
        if entity == "spend":  # the other event's rows are untouched, so its claim holds
            assert failed == {f"state:storyline:{event}:{entity}"}


# ---- 2. planted searches -----------------------------------------------------------------------
def test_a_planted_search_value_is_found_and_a_dropped_search_field_fails(mock_world: Path, mock_claims: list[Claim],
                                                                         tmp_path: Path) -> None:
    searches = [c for c in mock_claims if c.id.startswith("data:search:")]
    assert {c.id for c in searches} == {"data:search:notebook.title", "data:search:note.title"}
    clean = verify(copy_world(mock_world, tmp_path / "clean"), searches)
    assert all(r.passed for r in clean.values()), {i: r.message for i, r in clean.items()}
    broken = copy_world(mock_world, tmp_path / "broken")
    schema = broken / "app" / "backend" / "schema.py"
    text = schema.read_text()
    start = text.index('search=("title",)', text.index('name="notebook"'))  # the notebook's search, not the note's
    schema.write_text(text[:start] + "search=()" + text[start + len('search=("title",)'):])
    results = verify(broken, searches)
    assert not results["data:search:notebook.title"].passed
    assert "expected 1" in results["data:search:notebook.title"].message
    assert results["data:search:note.title"].passed


def test_a_search_token_fits_the_fields_max_length(tmp_path: Path) -> None:
    """A template defect found on a stranger's seed: the planted token was longer than a short code
    field's max_length, the app's model refused the row it listed (500), and no repair could help.
    The token is cut to fit, still found by nothing else, and the claim passes on the clean app."""
    short = TILL.replace("{name: name, type: string, max_length: 40, searchable: true}",
                         "{name: name, type: string, max_length: 8, searchable: true}").replace(
        "- {name: name, type: string, max_length: 40}", "- {name: name, type: string, max_length: 8}")
    assert short != TILL
    (tmp_path / "till.yaml").write_text(short)
    world = build_world(tmp_path / "till.yaml", tmp_path / "worlds", frontend=False).path
    searches = [c for c in compile_claims(world).claims if c.id == "data:search:purse.name"]
    assert len(searches) == 1
    token = searches[0].getter.steps[0].query["q"]  # type: ignore[union-attr]
    assert 5 <= len(token) <= 8 and token.startswith("zq")
    results = verify(world, searches)
    assert results["data:search:purse.name"].passed, results["data:search:purse.name"].message


# ---- 3. invariants from the spec ---------------------------------------------------------------
def test_an_invariant_broken_in_the_data_fails_even_when_the_apps_checker_is_edited_to_pass(
        mock_world: Path, mock_claims: list[Claim], tmp_path: Path) -> None:
    world = copy_world(mock_world, tmp_path)
    checker = world / "app" / "backend" / "invariants.py"
    text = checker.read_text()
    masked = re.sub(r'(    violations\["note_in_own_notebook"\] = ).*?\n(?=    return violations)', r"\1[]\n", text,
                    flags=re.DOTALL)
    assert masked != text
    checker.write_text(masked)
    db = world / "data" / "seed.db"
    with sqlite3.connect(db) as conn:
        other = conn.execute("SELECT id FROM notebook WHERE owner_id != (SELECT owner_id FROM note WHERE id = 1)").fetchone()[0]
        conn.execute("UPDATE note SET notebook_id = ? WHERE id = 1", (other,))  # a note in someone else's notebook
    assert app_invariants(world, db) == {"note_in_own_notebook": []}  # the edit hides it from the app's checker
    invariant = [c for c in mock_claims if c.id == "state:invariant:note_in_own_notebook"]
    result = verify(world, invariant)["state:invariant:note_in_own_notebook"]
    assert not result.passed
    assert result.evidence.sql_rows == [[1]]


def test_invariants_select_and_judge_rows_as_the_generated_checker_does(till: Path, tmp_path: Path) -> None:
    spec = Spec.model_validate_json((till / "spec.json").read_text())
    assert all_violations(spec, till, till / "data" / "seed.db") == {"balance_is_what_is_left": []}
    db = tmp_path / "seed.db"
    shutil.copyfile(till / "data" / "seed.db", db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE purse SET name = 'Pocket' WHERE id = 1")
        conn.execute("UPDATE purse SET balance = balance + 1")  # every purse is off, but Pockets are not checked
    found = all_violations(spec, till, db)
    assert found == app_invariants(till, db)
    assert 1 not in found["balance_is_what_is_left"] and found["balance_is_what_is_left"]


def test_a_spec_without_row_selectors_takes_them_from_its_own_seed(till: Path, tmp_path: Path) -> None:
    spec = Spec.model_validate_json((till / "spec.json").read_text())
    old = spec.model_copy(update={"invariants": [i.model_copy(update={"for_each": None}) for i in spec.invariants]})
    with pytest.raises(InvariantError, match="rebuild the world"):
        invariant_violations(old, till / "data" / "seed.db", old.invariants[0])
    assert [i.for_each for i in with_row_selectors(old, till)] == ["p in purse where p.name != 'Pocket'"]
    world = tmp_path / "till"
    world.mkdir()
    (world / "seed.yaml").write_text((till / "seed.yaml").read_text() + "\n# edited\n")
    with pytest.raises(WorldError, match="not the seed"):
        with_row_selectors(old, world)
