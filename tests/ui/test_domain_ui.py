"""Two or more workflows of each domain world, completed through the real UI, checked in the database.

Parameters are looked up in the seed database the way a user would pick them on screen; after
each workflow the database shows the effect and another user cannot see it.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from factory.runtime.browser import login, run_workflow
from factory.runtime.server import AppServer, fresh_db
from factory.spec.model import Spec


@pytest.fixture()
def served(request: pytest.FixtureRequest, worlds: Any, tmp_path: Path) -> Iterator[tuple[AppServer, Spec]]:
    world = worlds.get(request.param)
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    with AppServer(world, fresh_db(world, tmp_path / "app.db")) as server:
        yield server, spec


def q(server: AppServer, sql: str, *args: object) -> list[tuple]:
    with sqlite3.connect(server.db) as conn:
        return conn.execute(sql, args).fetchall()


def api_as(server: AppServer, spec: Spec, username: str) -> httpx.Client:
    user = next(u for u in spec.users if u.username == username)
    client = httpx.Client(base_url=server.url, timeout=10)
    assert client.post("/api/auth/login", json={"username": username, "password": user.password}).status_code == 200
    return client


def user_id(spec: Spec, username: str) -> int:
    return next(u.id for u in spec.users if u.username == username)


@pytest.mark.parametrize("served", ["echobank.yaml"], indirect=True)
def test_echobank_transfer_and_bill_pay(page: Page, served: tuple[AppServer, Spec]) -> None:
    server, spec = served
    maya = user_id(spec, "maya")
    login(page, server.url, "maya", "maya-pass")
    (src, src_balance), (dst, dst_balance) = q(server, "SELECT id, balance FROM account WHERE owner_id = ? AND kind != 'credit' "
                                                       "ORDER BY balance DESC LIMIT 2", maya)
    done = run_workflow(page, server.url, spec, "transfer_funds", {"from_account": src, "to_account": dst, "amount": 2500})
    assert done.ok, done.message
    assert q(server, "SELECT balance FROM account WHERE id = ?", src) == [(src_balance - 2500,)]
    assert q(server, "SELECT balance FROM account WHERE id = ?", dst) == [(dst_balance + 2500,)]
    moved = q(server, 'SELECT account_id, amount FROM "transaction" WHERE posted_on = ? AND ABS(amount) = 2500 '
                      "AND account_id IN (?, ?) ORDER BY account_id", spec.today, src, dst)
    assert sorted(moved) == sorted([(src, -2500), (dst, 2500)]) or len(moved) == 2

    too_much = run_workflow(page, server.url, spec, "transfer_funds",
                            {"from_account": dst, "to_account": src, "amount": dst_balance + 2500 + 100})
    assert not too_much.ok and "Insufficient funds" in too_much.message

    bill, amount = q(server, "SELECT id, amount FROM bill WHERE owner_id = ? AND status != 'paid' AND issued_on <= ? "
                             "ORDER BY amount LIMIT 1", maya, spec.today)[0]
    paid = run_workflow(page, server.url, spec, "pay_bill", {"bill": bill, "from_account": src})  # confirms in a modal
    assert paid.ok, paid.message
    assert q(server, "SELECT status FROM bill WHERE id = ?", bill) == [("paid",)]
    assert q(server, "SELECT balance FROM account WHERE id = ?", src) == [(src_balance - 2500 - amount,)]

    devon = api_as(server, spec, "devon")
    assert devon.get(f"/api/accounts/{src}").status_code == 404
    assert devon.get(f"/api/bills/{bill}").status_code == 404
    assert all(t["owner_id"] != maya for t in devon.get("/api/transactions", params={"page_size": 100}).json()["items"])


def _free_window(server: AppServer, spec: Spec, guest: int) -> tuple[int, str, str]:
    """A listed listing of someone else with no booking or block in a 3-night window half a year out."""
    today = dt.date.fromisoformat(spec.today)
    for offset in range(150, 300, 7):
        start, end = (today + dt.timedelta(days=offset)).isoformat(), (today + dt.timedelta(days=offset + 3)).isoformat()
        rows = q(server, "SELECT l.id FROM listing l WHERE l.status = 'listed' AND l.host_id != ? AND l.capacity >= 2 "
                         "AND l.min_nights <= 3 AND NOT EXISTS (SELECT 1 FROM booking b WHERE b.listing_id = l.id AND "
                         "b.status = 'confirmed' AND b.check_in < ? AND b.check_out > ?) AND NOT EXISTS (SELECT 1 FROM "
                         "availability_block a WHERE a.listing_id = l.id AND a.start_on < ? AND a.end_on > ?) "
                         "AND NOT EXISTS (SELECT 1 FROM booking b WHERE b.guest_id = ? AND b.status = 'confirmed' "
                         "AND b.check_in < ? AND b.check_out > ?) ORDER BY l.id LIMIT 1",
                 guest, end, start, end, start, guest, end, start)
        if rows:
            return rows[0][0], start, end
    raise AssertionError("no free window found")


@pytest.mark.parametrize("served", ["echostay.yaml"], indirect=True)
def test_echostay_book_with_date_range_then_cancel(page: Page, served: tuple[AppServer, Spec]) -> None:
    server, spec = served
    sofia = user_id(spec, "sofia")
    listing, check_in, check_out = _free_window(server, spec, sofia)
    login(page, server.url, "sofia", "sofia-pass")
    booked = run_workflow(page, server.url, spec, "book_stay",
                          {"listing": listing, "check_in": check_in, "check_out": check_out, "guests": 2})
    assert booked.ok, booked.message
    (booking, host, status), = q(server, "SELECT id, host_id, status FROM booking WHERE guest_id = ? AND listing_id = ? "
                                         "AND check_in = ? AND check_out = ?", sofia, listing, check_in, check_out)
    assert status == "confirmed"
    again = run_workflow(page, server.url, spec, "book_stay",
                         {"listing": listing, "check_in": check_in, "check_out": check_out, "guests": 2})
    assert not again.ok  # the same dates are no longer free
    # the host sees the booking (two owner fields); an unrelated user does not
    host_name = next(u.username for u in spec.users if u.id == host)
    assert api_as(server, spec, host_name).get(f"/api/bookings/{booking}").status_code == 200
    stranger = next(u.username for u in spec.users if u.id not in (sofia, host))
    assert api_as(server, spec, stranger).get(f"/api/bookings/{booking}").status_code == 404

    cancelled = run_workflow(page, server.url, spec, "cancel_booking", {"booking": booking})  # confirms in a modal
    assert cancelled.ok, cancelled.message
    assert q(server, "SELECT status FROM booking WHERE id = ?", booking)[0][0] != "confirmed"


@pytest.mark.parametrize("served", ["echomail.yaml"], indirect=True)
def test_echomail_delivery_and_star(page: Page, served: tuple[AppServer, Spec]) -> None:
    server, spec = served
    hannah, raj = user_id(spec, "hannah"), user_id(spec, "raj")
    login(page, server.url, "hannah", "hannah-pass")
    sent = run_workflow(page, server.url, spec, "send_message",
                        {"recipient": raj, "subject": "Quarterly numbers", "body": "Draft attached, comments welcome."})
    assert sent.ok, sent.message
    copies = q(server, "SELECT owner_id, folder FROM message WHERE subject = 'Quarterly numbers' ORDER BY owner_id")
    assert copies == sorted([(hannah, "sent"), (raj, "inbox")])
    raj_api = api_as(server, spec, "raj")
    inbox = raj_api.get("/api/messages", params={"folder": "inbox", "q": "Quarterly numbers"}).json()["items"]
    assert [m["subject"] for m in inbox] == ["Quarterly numbers"]
    claire = api_as(server, spec, "claire")
    assert claire.get("/api/messages", params={"q": "Quarterly numbers"}).json()["total"] == 0

    (message,) = q(server, "SELECT id FROM message WHERE owner_id = ? AND folder = 'inbox' AND starred = 0 "
                           "ORDER BY id LIMIT 1", hannah)[0]
    starred = run_workflow(page, server.url, spec, "star", {"message": message})
    assert starred.ok, starred.message
    assert q(server, "SELECT starred FROM message WHERE id = ?", message) == [(1,)]
    # the form no longer offers it (the parameter's `where`); the API refuses it with the message
    hannah_api = api_as(server, spec, "hannah")
    ids = [o["id"] for o in hannah_api.get("/api/workflows/star/options/message").json()["items"]]
    assert message not in ids
    twice = hannah_api.post("/api/workflows/star", json={"message": message})
    assert twice.status_code == 409 and twice.json()["detail"] == "This message is already starred."
    assert claire.get(f"/api/messages/{message}").status_code == 404
