"""A workflow's answer names only the rows it made that the actor may open: sending a message makes
the sender's copy and the recipient's, and the sender's receipt (the form's `Receipt`, which fetches
each row named) must not ask for the recipient's, which answers 404 and shows a console error."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from factory.runtime.server import AppServer, fresh_db
from factory.world.assemble import build_world

SEED = Path(__file__).resolve().parents[2] / "seeds" / "echomail.yaml"


@pytest.fixture(scope="module")
def mail(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_world(SEED, tmp_path_factory.mktemp("receipt"), frontend=False).path


def test_a_sent_message_names_the_senders_copy_only(mail: Path, tmp_path: Path) -> None:
    with AppServer(mail, fresh_db(mail, tmp_path / "app.db")) as server:
        sender = httpx.Client(base_url=server.url)
        assert sender.post("/api/auth/login", json={"username": "hannah", "password": "hannah-pass"}).status_code == 200
        people = sender.get("/api/workflows/send_message/options/recipient").json()["items"]
        raj = next(p for p in people if p["label"] == "Raj Malhotra")
        sent = sender.post("/api/workflows/send_message", json={"recipient": raj["id"], "subject": "Hi", "body": "Hello"})
        assert sent.status_code == 200, sent.text
        [mine] = sent.json()["created"]["message"]
        assert sender.get(f"/api/messages/{mine}").status_code == 200  # the sender may open what is named
        # the recipient's copy was made too (it is in Raj's inbox), but the sender's answer leaves it out
        reader = httpx.Client(base_url=server.url)
        assert reader.post("/api/auth/login", json={"username": "raj", "password": "raj-pass"}).status_code == 200
        inbox = reader.get("/api/messages", params={"q": "Hi", "folder": "inbox"}).json()["items"]
        assert any(m["subject"] == "Hi" and m["id"] != mine for m in inbox), inbox
