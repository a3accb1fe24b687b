"""Lookup claims: a workflow called without a parameter that has a lookup uses the row the lookup
finds, shown by a call whose lookup picks another row than the first of its entity (so a lookup
that ignores its condition, or never runs, changes other rows than the claim expects).

The call is the workflow's witness, made by another user where that moves the lookup off the
entity's first row; the expected change is the oracle's, as for every behaviour claim.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from factory.claims.behaviour import footprint
from factory.claims.context import ClaimContext
from factory.claims.model import Claim, HttpStep
from factory.claims.oracle import Call
from factory.errors import ExpressionError, PredictionError
from factory.expr.syntax import parse
from factory.expr.typecheck import Scope, Type, check, field_type
from factory.predict.derived import sorted_rows, spec_schema
from factory.predict.interpreter import Interpreter
from factory.predict.overlay import Ref, Rows
from factory.spec.model import ParamSpec, WorkflowSpec
from factory.spec.roles import may_run


def lookup_claims(ctx: ClaimContext) -> list[Claim]:
    """Per parameter lookup, one call that relies on it where it picks a row other than the first."""
    out: list[Claim] = []
    for wf in ctx.spec.workflows:
        witness = ctx.witnesses.get(wf.name)
        if wf.system or witness is None or witness.params is None or witness.plant:
            continue
        for p in (x for x in wf.params if x.lookup):
            claim = _claim(ctx, wf, p, witness.params)
            if claim is None:
                ctx.unwitnessed.append(f"behaviour:{wf.name}:lookup:{p.name}: no call found whose lookup picks another "
                                       f"{p.ref} than the first")
            else:
                out.append(claim)
    return out


def _claim(ctx: ClaimContext, wf: WorkflowSpec, p: ParamSpec, base: dict[str, Any]) -> Claim | None:
    lookups = {x.name for x in wf.params if x.lookup}
    entity = ctx.spec.entity(p.ref or "")
    first = sorted_rows(entity, _all_rows(ctx, entity.name))[:1]
    for user in ctx.spec.users:
        if not may_run(ctx.spec, wf, user.id):
            continue
        params = _params_for(ctx, wf, user.id, {k: v for k, v in base.items() if k not in lookups})
        if params is None or not ctx.oracle.outcome([Call(wf.name, user.id, params)]).ok:
            continue
        picked = _picked(ctx, wf, p, user.id, params)
        if picked is None or (first and picked == first[0]["id"]):
            continue
        call = Call(wf.name, user.id, params)
        return ctx.http(f"behaviour:{wf.name}:lookup:{p.name}", "wf_lookup_pick", f"workflows[{wf.name}].params[{p.name}]",
                        f"{wf.label} without {p.label.lower()} uses the {p.ref} its lookup finds ({p.ref} {picked}, "
                        f"not the first {p.ref}): `{p.lookup}`",
                        [HttpStep(method="POST", path=wf.path, user=user.username, body=params)],
                        footprint(ctx, wf, [call]), fresh=True)
    return None


def _params_for(ctx: ClaimContext, wf: WorkflowSpec, user: int, params: dict[str, Any]) -> dict[str, Any] | None:
    """The witness's parameters for another user: each row it names replaced by one the user may name."""
    out = dict(params)
    for q in wf.params:
        if q.type != "reference" or q.name not in out or out[q.name] is None:
            continue
        offered = ctx.oracle.options(wf, q.name, user)
        if out[q.name] not in offered:
            if not offered:
                return None
            out[q.name] = offered[0]
    return out


def _all_rows(ctx: ClaimContext, entity: str) -> list[dict[str, Any]]:
    rows = Rows(ctx.spec, ctx.oracle.db)
    try:
        return list(rows.table(entity).values())
    finally:
        rows.close()


def _picked(ctx: ClaimContext, wf: WorkflowSpec, p: ParamSpec, user: int, params: dict[str, Any]) -> int | None:
    """The id of the row the lookup finds for this call on the seed database (None when it finds none)."""
    names = {"me": Type("ref", entity="user"),
             **{x.name: field_type(x.type, x.ref, x.values) for x in wf.params if x.name != p.name}}
    source = p.lookup or ""
    try:
        node = parse(source)
        check(source, node, Scope(spec_schema(ctx.spec), names))
    except ExpressionError:
        return None
    rows = Rows(ctx.spec, ctx.oracle.db)
    try:
        env: dict[str, Any] = {"me": Ref("user", user)}
        for x in wf.params:
            if x.name in params and x.name != p.name:
                value = params[x.name]
                env[x.name] = Ref(x.ref or "", value) if x.type == "reference" and value is not None else _scalar(x, value)
        found = Interpreter(rows, env, dt.date.fromisoformat(ctx.spec.today), source).value(node)
    except PredictionError:
        return None
    finally:
        rows.close()
    return found.id if isinstance(found, Ref) else None


def _scalar(p: ParamSpec, value: Any) -> Any:
    if p.type == "date" and isinstance(value, str):
        return dt.date.fromisoformat(value)
    if p.type == "datetime" and isinstance(value, str):
        return dt.datetime.fromisoformat(value)
    return value


__all__ = ["lookup_claims"]
