"""A seed using every field type, widget, effect kind and expression form builds and behaves."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx

from factory.runtime.server import AppServer, fresh_db
from factory.world.assemble import build_world

SINK = Path(__file__).resolve().parents[1] / "fixtures" / "kitchen_sink.yaml"


def _client(server: AppServer, username: str, password: str) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=10)
    assert client.post("/api/auth/login", json={"username": username, "password": password}).status_code == 200
    return client


def test_kitchen_sink_world(tmp_path: Path) -> None:
    world = build_world(SINK, tmp_path / "worlds").path
    with sqlite3.connect(world / "data" / "seed.db") as conn:
        bad = conn.execute("SELECT COUNT(*) FROM tool JOIN shed ON tool.shed_id = shed.id").fetchone()[0]
        assert bad == 12
        copied = conn.execute("SELECT COUNT(*) FROM tool JOIN shed ON tool.shed_id = shed.id"
                              " WHERE tool.keeper_id = shed.keeper_id").fetchone()[0]
        assert copied == 12  # gen copy_from keeps keeper consistent with the shed
    with AppServer(world, fresh_db(world, tmp_path / "app.db")) as server:
        ann = _client(server, "ann", "ann-pass")
        ben = _client(server, "ben", "letmein")
        tools = ann.get("/api/tools", params={"page_size": 100, "available": "true"}).json()["items"]
        foreign = next(t for t in tools if t["keeper_id"] != 1)
        # public entity: everybody reads it; nested filter options narrow with the parent
        assert ben.get(f"/api/tools/{foreign['id']}").status_code == 200
        oslo = ann.get("/api/sheds/options/district", params={"city": "Oslo"}).json()["values"]
        assert sum(v["count"] for v in oslo) == ann.get("/api/sheds", params={"city": "Oslo"}).json()["total"]
        body = {"tool": foreign["id"], "starts_on": "2026-03-12", "ends_on": "2026-03-15"}
        made = ann.post("/api/workflows/borrow", json=body)
        assert made.status_code == 200, made.text
        loan_id = made.json()["created"]["loan"][0]
        loan = ann.get(f"/api/loans/{loan_id}").json()
        assert loan["lender_id"] == foreign["keeper_id"] and loan["state"] == "open"
        assert loan["fee"] == max(500, foreign["deposit"] // 10)
        assert loan["id_text"] == f"L-{foreign['serial']}"
        # labels format money and name references by their own labels
        assert loan["label"] == f"Loan L-{foreign['serial']} of {foreign['label']} (${loan['fee'] / 100:,.2f})"
        # the lender sees the loan too (two owner fields); a third user does not
        keeper = next(u for u in ann.get("/api/users").json()["items"] if u["id"] == foreign["keeper_id"])
        third = next(u for u in ann.get("/api/users").json()["items"] if u["id"] not in (1, foreign["keeper_id"]))
        assert _client(server, keeper["username"],
                       f"{keeper['username']}-pass" if keeper["username"] != "ben" else "letmein",
                       ).get(f"/api/loans/{loan_id}").status_code == 200
        assert _client(server, third["username"],
                       f"{third['username']}-pass" if third["username"] != "ben" else "letmein",
                       ).get(f"/api/loans/{loan_id}").status_code == 404
        # preconditions: tool now out; too long a range; own tool
        assert ann.post("/api/workflows/borrow", json=body).json()["detail"] == "That tool is out."
        other = next(t for t in tools if t["keeper_id"] != 1 and t["id"] != foreign["id"])
        long = ann.post("/api/workflows/borrow", json={**body, "tool": other["id"], "ends_on": "2026-04-30"})
        assert long.status_code == 409 and long.json()["detail"] == "Loans last two weeks at most."
        # service: only the keeper may log it; a money field moves by a literal amount ($1.25 = 125 cents)
        keeper_api = _client(server, keeper["username"],
                             "letmein" if keeper["username"] == "ben" else f"{keeper['username']}-pass")
        tool = keeper_api.get(f"/api/tools/{other['id']}").json() if other["keeper_id"] == keeper["id"] else foreign
        refused = ann.post("/api/workflows/service", json={"tool": tool["id"], "at": "2026-03-09T10:00:00"})
        assert refused.status_code == 409 and refused.json()["detail"] == "Only the keeper logs services."
        serviced = keeper_api.post("/api/workflows/service", json={"tool": tool["id"], "at": "2026-03-09T10:00:00",
                                                                   "contact": "fix@sink.example"})
        assert serviced.status_code == 200, serviced.text
        after = keeper_api.get(f"/api/tools/{tool['id']}").json()
        assert after["deposit"] == tool["deposit"] + 125 and after["contact"] == "fix@sink.example"
        # delete effect, guarded by a precondition
        assert ann.post("/api/workflows/forget_loan", json={"loan": loan_id}).json()["detail"] == "Return it first."
        # options endpoint applies the parameter's `where`
        options = ann.get("/api/workflows/borrow/options/tool").json()["items"]
        assert foreign["id"] not in [o["id"] for o in options]
        assert ann.get("/openapi.json").status_code == 200
