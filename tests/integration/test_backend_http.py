"""The generated backend over real HTTP: login, workflows, preconditions, ownership, lists."""

from __future__ import annotations

import sqlite3

import httpx

from factory.runtime.server import AppServer


def _login(server: AppServer, username: str) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=10)
    response = client.post("/api/auth/login", json={"username": username, "password": f"{username}-pass"})
    assert response.status_code == 200, response.text
    return client


def test_login_is_required_and_checked(mock_server: AppServer) -> None:
    assert httpx.get(f"{mock_server.url}/api/notes").status_code == 401
    bad = httpx.post(f"{mock_server.url}/api/auth/login", json={"username": "alice", "password": "wrong"})
    assert bad.status_code == 401 and bad.json()["detail"] == "Invalid username or password"
    assert _login(mock_server, "alice").get("/api/auth/me").json()["user"]["username"] == "alice"


def test_workflow_effect_precondition_and_ownership(mock_server: AppServer) -> None:
    alice, bob = _login(mock_server, "alice"), _login(mock_server, "bob")
    notes = alice.get("/api/notes", params={"status": "active", "pinned": "false", "page_size": 100}).json()["items"]
    target = notes[0]
    done = alice.post("/api/workflows/archive_note", json={"note": target["id"]})
    assert done.status_code == 200 and done.json()["message"] == "Note archived."
    again = alice.post("/api/workflows/archive_note", json={"note": target["id"]})
    assert again.status_code == 409
    assert again.json() == {"detail": "Only active notes can be archived.", "precondition": "archive_note.pre1"}
    with sqlite3.connect(mock_server.db) as conn:
        status, updated = conn.execute("SELECT status, updated_on FROM note WHERE id = ?", (target["id"],)).fetchone()
    assert (status, updated) == ("archived", "2026-06-15")
    # bob can neither read nor act on alice's note
    assert bob.get(f"/api/notes/{target['id']}").status_code == 404
    assert bob.post("/api/workflows/archive_note", json={"note": notes[1]["id"]}).status_code == 404
    assert all(n["owner_id"] == 2 for n in bob.get("/api/notes", params={"page_size": 100}).json()["items"])


def test_rejected_workflow_changes_nothing(mock_server: AppServer) -> None:
    alice = _login(mock_server, "alice")
    with sqlite3.connect(mock_server.db) as conn:
        before = conn.execute("SELECT COUNT(*) FROM note").fetchone()[0]
    notebook = alice.get("/api/notebooks").json()["items"][0]["id"]
    short = alice.post("/api/workflows/write_note", json={"notebook": notebook, "title": "Hi"})
    assert short.status_code == 409 and "at least 3" in short.json()["detail"]
    high = alice.post("/api/workflows/write_note", json={"notebook": notebook, "title": "Hello", "priority": 9})
    assert high.status_code == 422 and high.json()["detail"] == "Priority must be at most 5."
    with sqlite3.connect(mock_server.db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM note").fetchone()[0] == before
    made = alice.post("/api/workflows/write_note", json={"notebook": notebook, "title": "Groceries"})
    assert made.status_code == 200
    new_id = made.json()["created"]["note"][0]
    row = alice.get(f"/api/notes/{new_id}").json()
    assert row["title"] == "Groceries" and row["owner_id"] == 1 and row["priority"] == 3 and row["status"] == "active"


def test_list_search_filter_sort_paginate(mock_server: AppServer) -> None:
    alice = _login(mock_server, "alice")
    everything = alice.get("/api/notes", params={"page_size": 100}).json()
    page = alice.get("/api/notes", params={"page_size": 2, "page": 2, "sort": "priority"}).json()
    assert page["total"] == everything["total"] and len(page["items"]) == 2
    ordered = alice.get("/api/notes", params={"page_size": 100, "sort": "-priority"}).json()["items"]
    assert [n["priority"] for n in ordered] == sorted((n["priority"] for n in ordered), reverse=True)
    word = everything["items"][0]["title"].split()[0]
    found = alice.get("/api/notes", params={"q": word.lower(), "page_size": 100}).json()["items"]
    assert found and all(word.lower() in n["title"].lower() for n in found)
    dated = alice.get("/api/notes", params={"updated_on_min": "2026-05-01", "updated_on_max": "2026-05-31",
                                            "page_size": 100}).json()["items"]
    assert all("2026-05-01" <= n["updated_on"] <= "2026-05-31" for n in dated)
    options = alice.get("/api/notes/options/notebook").json()["values"]
    assert sum(o["count"] for o in options) == everything["total"]


def test_default_user_convention(mock_world, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from factory.runtime.server import fresh_db

    with AppServer(mock_world, fresh_db(mock_world, tmp_path / "u.db"), user="bob") as server:
        me = httpx.get(f"{server.url}/api/auth/me").json()["user"]
        assert me["username"] == "bob"
