"""A seed in a domain the repository's seeds do not have, with a multi-role approval chain
(tests/fixtures/approvals.yaml: employees draft and submit expense reports for a period that has
ended, their manager approves against a team budget or rejects, finance pays, managers change
budget limits): every role's workflow gets a witness, so claims that it works and that each of its
rules holds at its boundary.

Before the witness search tried periods that have ended and money up to a parameter's bound,
draft_report (its period must have ended) and set_budget_limit (a limit no lower than what is spent,
thousands of dollars) had no witness at all, so neither claims nor tasks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from factory.claims.compile import compile_claims
from factory.world.assemble import build_world
from factory.world.layout import World

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "approvals.yaml"
ROLES = {"employee": ["draft_report", "submit_report"], "manager": ["approve_report", "reject_report", "set_budget_limit"],
         "finance": ["mark_paid"]}


@pytest.fixture(scope="module")
def approvals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_world(SEED, tmp_path_factory.mktemp("approvals"), frontend=False).path


def test_every_roles_workflows_are_witnessed_and_claimed(approvals: Path) -> None:
    spec = World(approvals).spec
    assert sorted(w for ws in ROLES.values() for w in ws) == sorted(w.name for w in spec.workflows if not w.system)
    claims = compile_claims(approvals)
    ids = {c.id for c in claims.claims}
    unwitnessed = [u for u in claims.unwitnessed if ": no user can complete it" in u]
    assert unwitnessed == []
    for workflows in ROLES.values():
        for name in workflows:
            assert f"behaviour:{name}:effects" in ids, name
    # the period rule at its boundary: a period ending today allowed, one ending tomorrow refused
    by_id = {c.id: c for c in claims.claims}

    def body(claim: str) -> dict[str, Any]:
        sent: dict[str, Any] = by_id[claim].getter.steps[-1].body  # type: ignore[union-attr,assignment]
        return sent

    refused, allowed = body("behaviour:draft_report.pre2"), body("behaviour:draft_report.pre2:allowed")
    assert (allowed["period_end"], refused["period_end"]) == (spec.today, _tomorrow(spec.today))
    # the budget rule: a limit of exactly what is spent allowed, a cent below refused
    low, ok = body("behaviour:set_budget_limit.pre1")["limit"], body("behaviour:set_budget_limit.pre1:allowed")["limit"]
    assert ok - low == 1 and ok > 25000  # in cents: more than anything the old candidates reached


def test_every_roles_workflows_get_drafts_and_a_report_is_read_after_its_action(approvals: Path) -> None:
    """Every role's workflow gets write drafts: reports that share a label ("Conference travel
    (Tomas Silva)", four of them) are told apart by their status, a report is drafted with the
    employee's own manager and team budget (rows a random draw rarely pairs right), and a
    manager's rejection gives a reason the world's own rows give. An act-then-report errand's
    golden trajectory acts first and reads the answer last."""
    from factory.predict.rows import UserView
    from factory.runtime.client import Backend
    from factory.tasks.language.phrasing import parse
    from factory.tasks.language.resolve import find_rows
    from factory.tasks.nodes import _options
    from factory.tasks.propose.proposer import Plan, Proposer
    from factory.tasks.ui_gate.steps import ui_steps

    world = World(approvals)
    work = approvals.parent / "propose"
    work.mkdir(exist_ok=True)
    with Backend(approvals, world.spec, work) as backend:
        proposer = Proposer(world.spec, world.seed_db, _options(backend, world.seed_db, work))
        try:
            drafts = proposer.propose(Plan.for_total(190))
        finally:
            proposer.close()
    acted = {s.workflow for d in drafts for s in d.steps}
    assert acted >= {w for ws in ROLES.values() for w in ws}, sorted(acted)
    view = UserView.open(world.spec, world.seed_db)
    try:
        qualified = [d for d in drafts if d.category == "submit_report" and not d.setup and ", draft" in d.goal]
        assert qualified, [d.goal for d in drafts if d.category == "submit_report"]
        for d in qualified:  # the goal names exactly the draft it submits
            ask = parse(world.spec, d.goal)
            ref = ask.steps[0].args["report"]
            assert [r["id"] for r in find_rows(view, "report", d.user_id, ref)] == [d.steps[0].params["report"]]
    finally:
        view.close()
    reasons = {d.steps[0].params["reason"] for d in drafts if d.category == "reject_report"}
    assert reasons & {"Missing receipts", "Not a business expense", "Over the per-diem"}, reasons
    assert not any("my expense report" in d.goal for d in drafts
                   if d.category in ("approve_report", "reject_report", "mark_paid"))  # not the manager's own
    reports = [d for d in drafts if d.category == "act_report"]
    assert reports, proposer.skipped[:5]
    for d in reports:
        kinds = [s.kind for s in ui_steps(world.spec, d, world.seed_db)]
        assert kinds[-1] == "find" and kinds[:-1] and set(kinds[:-1]) <= {"workflow", "find"}, (d.goal, kinds)
        assert "workflow" in kinds[:-1], d.goal


def _tomorrow(today: str) -> str:
    import datetime as dt

    return (dt.date.fromisoformat(today) + dt.timedelta(days=1)).isoformat()
