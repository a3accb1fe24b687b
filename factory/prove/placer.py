"""The triager's model policy: a cause for each cluster the signature table cannot place.

The model is shown the cluster's failures and the table's own causes, each with what it means, and
names one of them or `unknown`. The answer is validated (`CauseReply`): a name outside that set is
sent back with the error, up to the configured attempts, and then the cluster stays unplaced. A
known cause gives the cluster that row's signature, layer and fixer; `unknown` leaves it as it was.
Either way what the model said is kept on the cluster (`Cluster.model`), so the report shows
which clusters a model placed and why.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from factory.llm.ask import LLM
from factory.llm.errors import LLMError
from factory.llm.prompts import render_prompt
from factory.prove.triage import SIGNATURES, Cluster, Placement, Triage, failure_text
from factory.verify.model import VerifyReport

PURPOSE = "triage.cause"
UNKNOWN = "unknown"
MAX_SHOWN = 6
MAX_TEXT = 1_200  # a long server log says what it says in its first lines

# What each row of the table means, in words a model can match evidence to.
MEANINGS: dict[str, str] = {
    "no_witness": "the seed data has no row a claim needs as its witness",
    "server_error": "the backend raised an exception or answered 500",
    "db_violation": "rows of the seed database break an invariant of the spec",
    "db_query_error": "a query of the seed database failed (a missing table or column)",
    "login_broken": "a user cannot log in",
    "console_error": "the page's JavaScript raised an error",
    "ui_locator": "a page lacks a control, field or label the spec says it has",
    "ui_effect": "a form submitted in the browser changed the wrong rows",
    "exact_effects": "a workflow changed values or rows other than its effects say",
    "ui_toast": "a page showed the wrong message or state after an action",
    "page_missing": "a page of the spec does not load",
    "list_wrong_rows": "a list or search returned the wrong rows, total or status",
    "ownership_leak": "a user sees rows they must not, or misses rows they must see",
    "route_missing": "a route of the spec answers 404 or 405",
    "effects_wrong": "a workflow did not make the changes its effects declare",
    "refused_but_changed": "a refused call changed the database anyway",
    "wrong_message": "a refusal carries the wrong message",
    "wrong_precondition": "a precondition refuses or lets through the wrong calls",
    "wrong_status": "a route answered another HTTP status than the spec gives",
}
CAUSES: tuple[str, ...] = tuple(s.name for s in SIGNATURES)


class CauseReply(BaseModel):
    """The model's answer: one known cause (or `unknown`) and the evidence for it."""

    model_config = ConfigDict(extra="forbid")

    cause: str = Field(description="one of the signature table's causes, or `unknown`",
                       json_schema_extra={"enum": [*CAUSES, UNKNOWN]})
    rationale: str = Field(min_length=1, description="one sentence: the evidence that points to the cause")

    @field_validator("cause")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in CAUSES and value != UNKNOWN:
            raise ValueError(f"{value!r} is not a known cause; answer one of {', '.join(CAUSES)} or {UNKNOWN}")
        return value


def place_unplaced(result: Triage, report: VerifyReport, llm: LLM | None) -> Triage:
    """`result` with its unplaced clusters placed where the model names a known cause; without a
    model (or with nothing unplaced) `result` itself, unchanged."""
    if llm is None or not any(c.needs_llm for c in result.clusters):
        return result
    by_id = {r.id: r for r in report.failures()}
    clusters = [_place(c, [failure_text(by_id[i])[:MAX_TEXT] for i in c.claims[:MAX_SHOWN] if i in by_id], llm)
                if c.needs_llm else c for c in result.clusters]
    return result.model_copy(update={"clusters": clusters})


def _place(cluster: Cluster, failures: list[str], llm: LLM) -> Cluster:
    causes = [{"name": s.name, "layer": s.layer, "means": MEANINGS.get(s.name, s.pattern)} for s in SIGNATURES]
    question = render_prompt("triage/cause.md.j2", cluster=cluster, failures=failures, causes=causes)
    try:
        reply = llm.ask(PURPOSE, [{"role": "user", "content": question}], CauseReply).value
    except LLMError as exc:
        # no known cause within the bound (or no reply): unknown stays unknown
        return cluster.model_copy(update={"model": Placement(cause="", rationale="", accepted=False, note=str(exc))})
    if reply.cause == UNKNOWN:
        return cluster.model_copy(update={"model": Placement(cause=UNKNOWN, rationale=reply.rationale, accepted=False,
                                                             note="the model could not place it either")})
    row = next(s for s in SIGNATURES if s.name == reply.cause)
    layer = row.layer or cluster.layer
    subject = cluster.id.split(":", 2)[-1]
    return cluster.model_copy(update={
        "id": f"{layer}:{row.name}:{subject}", "layer": layer, "signature": row.name, "fixer": row.fixer,
        "needs_llm": False, "model": Placement(cause=row.name, rationale=reply.rationale, accepted=True)})


__all__ = ["CAUSES", "MEANINGS", "PURPOSE", "UNKNOWN", "CauseReply", "place_unplaced"]
