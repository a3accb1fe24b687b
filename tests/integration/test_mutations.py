"""Fault injection: every kind applies to a copy of the mock world, is committed, and breaks the served app."""

from __future__ import annotations

import json
import py_compile
import random
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import git
import httpx
import pytest
from playwright.sync_api import Page, expect

from factory.mutate.mutations.base import MutationError
from factory.mutate.run import FAULT_KINDS, Fault, inject, plan, targets
from factory.runtime.browser import login
from factory.runtime.server import AppServer, fresh_db
from factory.spec.model import Spec

Mutant = Callable[..., tuple[Path, Fault]]
PASSWORDS = {"alice": "alice-pass", "bob": "bob-pass"}


# ---------------------------------------------------------------- fixtures and helpers


@pytest.fixture()
def mutant(mock_world: Path, tmp_path: Path) -> Mutant:
    """Copy the shared mock world (its own git repo) and inject one fault into the copy."""

    def make(kind: str, target: str | None = None, seed: int = 0) -> tuple[Path, Fault]:
        world = tmp_path / "world"
        shutil.copytree(mock_world, world)
        fault = inject(world, kind, seed, target=target)
        assert_committed(world, fault)
        return world, fault

    return make


def assert_committed(world: Path, fault: Fault) -> None:
    """HEAD is the mutation commit, holding exactly the fault's files, and nothing is left uncommitted."""
    repo = git.Repo(world)
    head = repo.head.commit
    assert head.message == f"mutation: {fault.kind} {fault.target}"
    assert head.author.name == "world-factory-mutator"
    assert tuple(sorted(head.stats.files)) == tuple(sorted(fault.files))
    assert not repo.is_dirty(untracked_files=True)


def commit(repo: git.Repo, message: str) -> None:
    repo.git.add(A=True)
    someone = git.Actor("test", "test@example.invalid")
    repo.index.commit(message, author=someone, committer=someone)


def serve(world: Path) -> AppServer:
    return AppServer(world, fresh_db(world, world.parent / "run" / "app.db"))


@contextmanager
def signed_in(server: AppServer, username: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        answer = client.post("/api/auth/login", json={"username": username, "password": PASSWORDS[username]})
        assert answer.status_code == 200, f"login as {username}: {answer.status_code} {answer.text}"
        yield client


def notes(client: httpx.Client, **params: str | int) -> list[dict]:
    answer = client.get("/api/notes", params={"page_size": 100, **params})
    assert answer.status_code == 200, answer.text
    return answer.json()["items"]


def archivable(client: httpx.Client) -> dict:
    """One of the user's notes that archive_note accepts (active and not pinned)."""
    return notes(client, status="active", pinned="false")[0]


# ---------------------------------------------------------------- every target applies


def test_every_target_of_every_kind_applies(mock_world: Path, tmp_path: Path) -> None:
    world = tmp_path / "world"
    shutil.copytree(mock_world, world)
    repo = git.Repo(world)
    base = repo.head.commit.hexsha
    for kind in FAULT_KINDS:
        names = targets(world, kind)
        assert names, f"the mock world has no {kind} target"
        for name in names:
            fault = inject(world, kind, 0, target=name)
            assert fault.files and fault.target == name
            for rel in fault.files:
                if rel.endswith(".py"):
                    py_compile.compile(str(world / rel), doraise=True)  # a fault must misbehave, not crash on import
            if fault.layer == "frontend":
                assert "app/frontend/dist/_app/app.js" in fault.files
            repo.git.reset("--hard", base)


# ---------------------------------------------------------------- backend faults over HTTP


@pytest.mark.parametrize(("target", "method", "path"), [
    ("POST /api/workflows/archive_note", "POST", "/api/workflows/archive_note"),
    ("GET /api/notes/{id}", "GET", "/api/notes/{id}"),
])
def test_drop_route(mutant: Mutant, target: str, method: str, path: str) -> None:
    world, fault = mutant("drop_route", target)
    router = "workflows.py" if "workflows" in path else "note.py"
    assert fault.layer == "backend" and fault.files == (f"app/backend/routers/{router}",)
    with serve(world) as server, signed_in(server, "alice") as alice:
        note = archivable(alice)  # the list route still answers
        answer = alice.request(method, path.format(id=note["id"]), json={"note": note["id"]} if method == "POST" else None)
        assert answer.status_code in (404, 405)


def test_break_effect_set(mutant: Mutant) -> None:
    world, _ = mutant("break_effect", "archive_note effect 1: note.status = 'archived'")
    with serve(world) as server, signed_in(server, "alice") as alice:
        note = archivable(alice)
        answer = alice.post("/api/workflows/archive_note", json={"note": note["id"]})
        assert answer.status_code == 200 and answer.json()["ok"]
        assert alice.get(f"/api/notes/{note['id']}").json()["status"] == "active"  # declared effect: archived
        with closing(sqlite3.connect(server.db)) as conn:
            assert conn.execute("SELECT status FROM note WHERE id = ?", (note["id"],)).fetchone()[0] == "active"


def test_break_effect_create(mutant: Mutant) -> None:
    world, _ = mutant("break_effect", "write_note effect 1: create note")
    with serve(world) as server, signed_in(server, "alice") as alice:
        before = len(notes(alice))
        notebook = alice.get("/api/notebooks").json()["items"][0]["id"]
        answer = alice.post("/api/workflows/write_note", json={"notebook": notebook, "title": "Groceries", "priority": 2})
        assert answer.status_code == 200 and answer.json()["ok"]
        assert len(notes(alice)) == before  # declared effect: one more note


def test_invert_precondition(mutant: Mutant) -> None:
    world, fault = mutant("invert_precondition", "archive_note.pre1: note.status == 'active'")
    assert 'the code refuses when `note.status == "active"`' in fault.description
    with serve(world) as server, signed_in(server, "alice") as alice:
        valid = alice.post("/api/workflows/archive_note", json={"note": archivable(alice)["id"]})
        assert valid.status_code == 409 and valid.json()["precondition"] == "archive_note.pre1"
        archived = notes(alice, status="archived", pinned="false")[0]
        invalid = alice.post("/api/workflows/archive_note", json={"note": archived["id"]})
        assert invalid.status_code == 200


def test_drop_ownership_filter(mutant: Mutant) -> None:
    world, _ = mutant("drop_ownership_filter", "note visibility (owner)")
    with serve(world) as server, signed_in(server, "alice") as alice, signed_in(server, "bob") as bob:
        mine = archivable(alice)
        assert bob.get(f"/api/notes/{mine['id']}").status_code == 200  # contract: 404 for another user's row
        assert {n["owner_id"] for n in notes(bob)} != {bob.get("/api/auth/me").json()["user"]["id"]}


def test_break_list_filter(mutant: Mutant) -> None:
    world, fault = mutant("break_list_filter", "note filter status")
    assert "filter_status" in fault.description
    with serve(world) as server, signed_in(server, "alice") as alice:
        narrowed = notes(alice, status="archived")
        assert any(n["status"] != "archived" for n in narrowed)
        assert len(narrowed) == len(notes(alice))


def test_break_pagination(mutant: Mutant) -> None:
    world, _ = mutant("break_pagination", "note list pagination")
    with serve(world) as server, signed_in(server, "alice") as alice:
        first = alice.get("/api/notes", params={"page": 1}).json()
        second = alice.get("/api/notes", params={"page": 2}).json()
        assert first["total"] > first["page_size"]  # there is a real second page
        assert second["items"] == first["items"]


def test_swallow_error_message(mutant: Mutant) -> None:
    world, _ = mutant("swallow_error_message", "archive_note.pre1 message")
    with serve(world) as server, signed_in(server, "alice") as alice:
        archived = notes(alice, status="archived", pinned="false")[0]
        answer = alice.post("/api/workflows/archive_note", json={"note": archived["id"]})
        assert answer.status_code == 409 and answer.json()["precondition"] == "archive_note.pre1"
        assert answer.json()["detail"] != "Only active notes can be archived."
        assert answer.json()["detail"] == ""


@pytest.mark.parametrize("variant", ["correct password refused", "wrong password accepted", "no session cookie"])
def test_break_login(mutant: Mutant, variant: str) -> None:
    world, _ = mutant("break_login", f"POST /api/auth/login: {variant}")
    with serve(world) as server, httpx.Client(base_url=server.url, timeout=10) as client:
        right = client.post("/api/auth/login", json={"username": "alice", "password": "alice-pass"})
        if variant == "correct password refused":
            assert right.status_code == 401
        elif variant == "no session cookie":
            assert right.status_code == 200 and client.get("/api/auth/me").status_code == 401
        else:
            wrong = client.post("/api/auth/login", json={"username": "alice", "password": "not-her-password"})
            assert wrong.status_code == 200


# ---------------------------------------------------------------- data faults


def constraint_violations(db: Path, spec: Spec) -> int:
    """Rows breaking a field constraint of the spec (enum, bounds, length, reference), by SQL."""
    found = 0
    tables = {e.name: e.table for e in spec.entities}
    with closing(sqlite3.connect(db)) as conn:
        for entity in (e for e in spec.entities if not e.builtin):
            for f in entity.fields:
                col, table = f'"{f.column}"', f'"{entity.table}"'
                checks = []
                if f.type == "enum" and f.values:
                    checks.append(f"{col} NOT IN ({', '.join(repr(v) for v in f.values)})")
                scale = 100 if f.type == "money" else 1
                if f.min is not None and f.type in ("int", "money"):
                    checks.append(f"{col} < {f.min * scale}")
                if f.max is not None and f.type in ("int", "money"):
                    checks.append(f"{col} > {f.max * scale}")
                if f.max_length:
                    checks.append(f"length({col}) > {f.max_length}")
                if f.ref:
                    checks.append(f'{col} NOT IN (SELECT id FROM "{tables[f.ref]}")')
                for check in checks:
                    found += conn.execute(f"SELECT COUNT(*) FROM {table} WHERE {col} IS NOT NULL AND {check}").fetchone()[0]
    return found


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_corrupt_seed_rows(mutant: Mutant, mock_world: Path, seed: int) -> None:
    spec = Spec.model_validate_json((mock_world / "spec.json").read_text())
    assert constraint_violations(mock_world / "data" / "seed.db", spec) == 0
    world, fault = mutant("corrupt_seed_rows", seed=seed)
    assert fault.layer == "db" and fault.files == ("data/seed.db",)
    with serve(world) as server:  # the app still starts on the corrupt data, and serves it
        assert 1 <= constraint_violations(server.db, spec) <= 3


# ---------------------------------------------------------------- frontend faults in Chromium


@pytest.mark.ui
def test_remove_form_field(mutant: Mutant, page: Page) -> None:
    world, fault = mutant("remove_form_field", "write_note form field title")
    assert fault.layer == "frontend" and "app/frontend/src/forms/WriteNoteForm.jsx" in fault.files
    with serve(world) as server:
        login(page, server.url, "alice", "alice-pass")
        page.goto(f"{server.url}/actions/write-note")
        expect(page.get_by_test_id("field-write_note-notebook")).to_be_visible()
        expect(page.get_by_test_id("field-write_note-title")).to_have_count(0)


@pytest.mark.ui
def test_remove_button(mutant: Mutant, page: Page) -> None:
    world, fault = mutant("remove_button", "action-archive_note button (note detail page)")
    assert "app/frontend/src/spec.gen.js" in fault.files
    with serve(world) as server:
        login(page, server.url, "alice", "alice-pass")
        page.goto(f"{server.url}/notes/2")
        expect(page.get_by_test_id("action-move_note")).to_be_visible()
        expect(page.get_by_test_id("action-archive_note")).to_have_count(0)


# ---------------------------------------------------------------- determinism, planning, refusals


def test_same_seed_same_fault_and_commit(mock_world: Path, tmp_path: Path) -> None:
    heads, faults = [], []
    for copy in ("a", "b"):
        shutil.copytree(mock_world, tmp_path / copy)
        faults.append(inject(tmp_path / copy, "corrupt_seed_rows", 5))
        heads.append(git.Repo(tmp_path / copy).head.commit.hexsha)
    assert faults[0] == faults[1] and heads[0] == heads[1]  # same target, same rows, same commit
    assert faults[0].target == chosen(mock_world, "corrupt_seed_rows", 5)
    assert len({chosen(mock_world, "break_effect", seed) for seed in range(10)}) > 1  # seeds spread over targets


def chosen(world: Path, kind: str, seed: int) -> str:
    """The documented choice: random.Random(seed) picks among the eligible targets, in order."""
    return random.Random(seed).choice(targets(world, kind))


def test_plan_is_deterministic_and_spreads(mock_world: Path) -> None:
    runs = plan(mock_world, None, 3, seed=7)
    assert runs == plan(mock_world, None, 3, seed=7)
    assert runs != plan(mock_world, None, 3, seed=8)
    assert [k for k, _ in runs] == [k for k in FAULT_KINDS for _ in range(3)]
    for kind in FAULT_KINDS:
        hit = {chosen(mock_world, kind, seed) for k, seed in runs if k == kind}
        assert len(hit) == min(3, len(targets(mock_world, kind))), kind  # distinct targets while they last
    logins = plan(mock_world, ["break_login"], 5, seed=1)
    assert len(logins) == 5 and {chosen(mock_world, k, s) for k, s in logins} == set(targets(mock_world, "break_login"))


def test_no_eligible_target_unknown_kind_and_missing_anchor(mock_world: Path, tmp_path: Path) -> None:
    world = tmp_path / "world"
    shutil.copytree(mock_world, world)
    repo = git.Repo(world)
    spec = json.loads((world / "spec.json").read_text())
    for entity in spec["entities"]:
        entity["visibility"] = "public"
    (world / "spec.json").write_text(json.dumps(spec))
    commit(repo, "every entity public")
    with pytest.raises(MutationError, match="no eligible target for drop_ownership_filter"):
        inject(world, "drop_ownership_filter", 0)
    with pytest.raises(MutationError, match="unknown fault kind"):
        inject(world, "flip_bits", 0)
    # a generated file that lost its anchor fails loudly and leaves the world as it was
    auth = world / "app" / "backend" / "routers" / "auth.py"
    auth.write_text(auth.read_text().replace("hash_password(user.username, body.password)", "check(body)"))
    commit(repo, "login reworked")
    head = repo.head.commit.hexsha
    with pytest.raises(MutationError, match="anchor"):
        inject(world, "break_login", 0, target="POST /api/auth/login: correct password refused")
    assert repo.head.commit.hexsha == head and not repo.is_dirty(untracked_files=True)
