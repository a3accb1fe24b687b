"""Roles in the seed: names checked where they are used, a default for users who give none, and
the spec's role rule (`factory.spec.roles`) as the app applies it."""

from __future__ import annotations

from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.errors import SeedError
from factory.seed.loader import load_seed_text
from factory.spec.roles import may_run, refusal, role_of, sees

APPROVALS = (Path(__file__).resolve().parents[1] / "fixtures" / "approvals.yaml").read_text()


def test_users_entities_and_workflows_carry_their_roles() -> None:
    spec = build_spec(load_seed_text(APPROVALS, "approvals.yaml"))
    assert spec.roles == ["employee", "manager", "finance"]
    by_name = {u.username: u for u in spec.users}
    assert (by_name["grace"].role, by_name["priya"].role, by_name["tomas"].role) == ("manager", "finance", "employee")
    user = spec.entity("user")
    assert [f.values for f in user.fields if f.name == "role"] == [["employee", "manager", "finance"]]
    approve = next(w for w in spec.workflows if w.name == "approve_report")
    assert may_run(spec, approve, by_name["grace"].id) and not may_run(spec, approve, by_name["tomas"].id)
    assert refusal(approve) == "Approve report is for the manager role only"
    payout = spec.entity("payout")
    assert sees(spec, payout, by_name["priya"].id) and not sees(spec, payout, by_name["grace"].id)
    assert sees(spec, spec.entity("report"), by_name["tomas"].id)  # no roles: every role
    assert role_of(spec, 999) == ""


def test_a_user_without_a_role_holds_the_first() -> None:
    text = APPROVALS.replace("role: manager, persona: \"Engineering", "persona: \"Engineering", 1)
    spec = build_spec(load_seed_text(text, "approvals.yaml"))
    assert next(u.role for u in spec.users if u.username == "grace") == "employee"


@pytest.mark.parametrize(("old", "new", "where"), [
    ("role: finance, persona", "role: auditor, persona", "users.accounts[2].role"),
    ("    roles: [finance]\n    operations", "    roles: [accounting]\n    operations", "entities[3].roles"),
    ("    roles: [manager]\n", "    roles: [boss]\n", "workflows[2].roles"),
])
def test_an_unknown_role_is_a_located_error(old: str, new: str, where: str) -> None:
    assert old in APPROVALS
    text = APPROVALS.replace(old, new, 1)
    with pytest.raises(SeedError) as caught:
        build_spec(load_seed_text(text, "approvals.yaml"))
    message = str(caught.value)
    assert f" {where}: unknown role " in message and "the roles are employee, manager, finance" in message, message
    line = int(message.split(":")[1])
    assert new.split("\n")[0].strip() in text.splitlines()[line - 1], (line, message)
