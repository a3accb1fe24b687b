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


def _tomorrow(today: str) -> str:
    import datetime as dt

    return (dt.date.fromisoformat(today) + dt.timedelta(days=1)).isoformat()
