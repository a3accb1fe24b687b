"""Predicates judge evidence strictly; the triage table places failures and names a fixer."""

from __future__ import annotations

from dataclasses import dataclass, field

from factory.claims.model import EffectsExactly, Footprint, ListIs, RejectedUnchanged, StatusIs
from factory.prove.triage import classify, triage
from factory.verify.judge import judge_effects, judge_list, judge_rejected, judge_status
from factory.verify.model import ClaimResult, Evidence, VerifyReport


@dataclass
class _Change:
    changed: tuple[str, ...]


@dataclass
class _Table:
    table: str
    inserted: list = field(default_factory=list)
    deleted: list = field(default_factory=list)
    updated: list = field(default_factory=list)


@dataclass
class _Diff:
    tables: tuple


EFFECTS = EffectsExactly(footprint={"note": Footprint(update=["status"])}, must_update=["note"])


def test_effects_accept_exactly_the_footprint() -> None:
    ok, _ = judge_effects(EFFECTS, 200, {}, _Diff((_Table("note", updated=[_Change(("status",))]),)))
    assert ok


def test_effects_reject_collateral_and_missing_changes() -> None:
    extra = _Diff((_Table("note", updated=[_Change(("status", "title"))]),))
    assert judge_effects(EFFECTS, 200, {}, extra) == (False, "changed note.title, which its effects do not set")
    other = _Diff((_Table("note", updated=[_Change(("status",))]), _Table("notebook", inserted=[{}])))
    assert not judge_effects(EFFECTS, 200, {}, other)[0]
    nothing = _Diff((_Table("note"),))
    assert judge_effects(EFFECTS, 200, {}, nothing)[1] == "no row of note changed, though its effects set it"
    assert not judge_effects(EFFECTS, 409, {"detail": "no"}, nothing)[0]


def test_rejected_needs_status_message_and_no_change() -> None:
    predicate = RejectedUnchanged(status=409, detail="Nope.", precondition="w.pre1")
    body = {"detail": "Nope.", "precondition": "w.pre1"}
    assert judge_rejected(predicate, 409, body, _Diff(()))[0]
    assert not judge_rejected(predicate, 409, {**body, "detail": ""}, _Diff(()))[0]
    assert not judge_rejected(predicate, 200, body, _Diff(()))[0]
    assert not judge_rejected(predicate, 409, body, _Diff((_Table("note", deleted=[{}]),)))[0]


def test_status_and_list_predicates() -> None:
    assert judge_status(StatusIs(status=200, html=True), 200, "", "text/html; charset=utf-8")[0]
    assert not judge_status(StatusIs(status=200, html=True), 200, {}, "application/json")[0]
    assert judge_list(ListIs(total=3, ids=[3, 1]), 200, {"total": 3, "items": [{"id": 3}, {"id": 1}]})[0]
    assert not judge_list(ListIs(total=3, ids=[3, 1]), 200, {"total": 3, "items": [{"id": 1}, {"id": 3}]})[0]


def _failure(cid: str, kind: str, layer: str, message: str, log: list[str] | None = None) -> ClaimResult:
    return ClaimResult(id=cid, layer=layer, kind=kind, passed=False, message=message, seconds=0.0,
                       evidence=Evidence(server_log=log or []))


def test_signature_table_places_failures() -> None:
    crash = _failure("behaviour:pay:effects", "wf_effects", "backend", "status 500, expected 200",
                     ['File "/w/app/backend/workflows.py", line 9, in pay', "Traceback"])
    assert classify(crash).name == "server_error"
    assert classify(_failure("state:enum:note.status", "db_enum", "db", "2+ violating rows, e.g. [3]")).fixer == "regenerate_data"
    assert classify(_failure("ui:workflow:pay", "ui_workflow", "frontend",
                             'label "Amount" not found on /actions/pay')).layer == "frontend"
    report = VerifyReport(world="w", claims_sha256="x", total=3, passed=0, seconds=0, results=[
        crash, _failure("behaviour:pay.pre1", "wf_precondition", "backend", "status 200 (None), expected 409"),
        _failure("odd:thing", "weird", "backend", "something nobody foresaw")])
    result = triage(report)
    assert result.failed == 3
    server = next(c for c in result.clusters if c.signature == "server_error")
    assert "app/backend/workflows.py" in server.suspected_files
    unplaced = next(c for c in result.clusters if c.signature == "unplaced")
    assert unplaced.needs_llm and unplaced.fixer == "regenerate_backend"


def test_preconditions_shadowed_by_parameter_bounds() -> None:
    from factory.claims.compile import shadowed_by_bounds
    from factory.spec.model import ParamSpec, WorkflowSpec

    amount = ParamSpec(name="amount", var="amount", label="Amount", type="money", py_type="int", required=True,
                       min=0.01, max=25000, widget="money")
    wf = WorkflowSpec(name="pay", label="Pay", description="", subject=None, subject_entity=None, params=[amount],
                      preconditions=[], effects=[], confirm=None, success="", system=False, path="/api/workflows/pay",
                      operation_id="run_pay", form_path=None)
    assert "below the parameter's min 0.01" in (shadowed_by_bounds("amount > 0", wf) or "")
    assert "above the parameter's max 25000" in (shadowed_by_bounds("amount <= 25000", wf) or "")
    assert "min" in (shadowed_by_bounds("0 < amount", wf) or "")
    assert shadowed_by_bounds("amount > 100", wf) is None  # 0.01..100 breaks it: a real, testable precondition
    assert shadowed_by_bounds("amount <= 10000", wf) is None


def test_wrong_values_from_a_form_are_the_frontends_when_the_api_stores_them_right() -> None:
    message = "account #2: stored balance=250; the spec's effects give balance=2500"
    ui = ClaimResult(id="ui:workflow:transfer", layer="frontend", kind="ui_workflow", passed=False, message=message, seconds=1.0)
    api = ClaimResult(id="behaviour:transfer:effects", layer="backend", kind="wf_effects", passed=True, message="ok", seconds=0.1)
    report = VerifyReport(world="w", claims_sha256="x", total=2, passed=1, seconds=1.0, results=[ui, api])
    (cluster,) = triage(report).clusters
    assert (cluster.layer, cluster.signature, cluster.fixer) == ("frontend", "ui_values", "regenerate_frontend")
    api_broken = api.model_copy(update={"passed": False, "message": message})
    report = VerifyReport(world="w", claims_sha256="x", total=2, passed=0, seconds=1.0, results=[ui, api_broken])
    assert {c.fixer for c in triage(report).clusters} == {"regenerate_backend"}
    leak = ClaimResult(id="ownership:list:bill@maya", layer="backend", kind="ownership_list", passed=False,
                       message="shows id [7, 9], which this user must not see", seconds=0.1)
    assert classify(leak).name == "ownership_leak"  # type: ignore[union-attr]
