"""Validation claims: every declared bound of every workflow parameter, probed over HTTP at and
just past its limit.

Past the limit the app must refuse with 422 and change nothing (a memo of `max_length + 1`
characters, an amount one cent under `min`, a value outside an enum, a required parameter left
out, a date that is not one, an id no row has). At the limit the call is not a validation error:
the oracle says what it is instead (a success with exact effects, or a precondition's 409), and
the claim asserts exactly that, so a bound moved inwards fails too.
"""

from __future__ import annotations

from typing import Any

from factory.claims.behaviour import footprint
from factory.claims.context import ClaimContext
from factory.claims.model import Claim, EffectsExactly, Expected, Footprint, HttpStep, RejectedUnchanged, RowValues
from factory.claims.oracle import Call
from factory.spec.model import EntitySpec, FieldSpec, ParamSpec, WorkflowSpec

_NOT_A_DATE = "31/12/2026"
_NOT_A_NUMBER = "twelve"
_NOT_A_CHOICE = "not-one-of-the-choices"
STRAYS = 4  # values of other choice lists tried against each enum


def _text(p: ParamSpec | FieldSpec, size: int) -> str:
    """A value of exactly `size` characters that is valid for the parameter's type otherwise."""
    if p.type == "email":
        domain = "@example.com"
        return "a" * max(size - len(domain), 1) + domain
    return "v" * size


def _strays(values: list[str], others: list[str]) -> list[str]:
    """Plausible wrong members of an enum: other choice lists' values it lacks, and its first value
    in capitals (a generator that copies the wrong list, or does not normalise case)."""
    out = [v for v in dict.fromkeys(others) if v not in values][:STRAYS]
    shouted = values[0].upper()
    if shouted not in values:
        out.append(shouted)
    return out


def enum_pool(spec: Any) -> list[str]:
    """Every choice of every enum of the world, fields first, in spec order."""
    pool = [v for e in spec.entities for f in e.fields for v in (f.values or [])]
    return pool + [v for w in spec.workflows for p in w.params for v in (p.values or [])]


def _cases(p: ParamSpec, witness: dict[str, Any], others: list[str] | None = None) -> list[tuple[str, str, Any, bool]]:
    """(rule, description, value, at_limit) for each bound of one parameter; value `...` omits it."""
    others = others or []
    out: list[tuple[str, str, Any, bool]] = []
    if p.required and p.default is None:
        out.append(("required", f"{p.label} left out", ..., False))
    if p.max_length is not None and p.type in ("string", "text", "email"):
        out.append(("max_length", f"{p.label} of {p.max_length} characters", _text(p, p.max_length), True))
        out.append(("max_length", f"{p.label} of {p.max_length + 1} characters", _text(p, p.max_length + 1), False))
    if p.type in ("int", "money"):
        scale, unit = (100, "cent") if p.type == "money" else (1, "unit")
        if p.min is not None:
            low = round(p.min * scale)
            out.append(("min", f"{p.label} at its minimum {low}", low, True))
            out.append(("min", f"{p.label} one {unit} under its minimum", low - 1, False))
        if p.max is not None:
            high = round(p.max * scale)
            out.append(("max", f"{p.label} at its maximum {high}", high, True))
            out.append(("max", f"{p.label} one {unit} over its maximum", high + 1, False))
        out.append(("type", f"{p.label} that is not a number", _NOT_A_NUMBER, False))
    if p.type == "enum" and p.values:
        out.append(("enum", f"{p.label} outside its choices", _NOT_A_CHOICE, False))
        for stray in _strays(p.values, others):
            out.append((f"enum:{stray}", f"{p.label} set to {stray!r}, a choice of another list", stray, False))
    if p.type == "date" and p.range_of is None:
        out.append(("format", f"{p.label} that is not a date", _NOT_A_DATE, False))
    return out


def validation_claims(ctx: ClaimContext) -> list[Claim]:
    out: list[Claim] = entity_validation_claims(ctx)
    for wf in ctx.spec.workflows:
        w = ctx.witnesses.get(wf.name)
        if wf.system or w is None or w.params is None or w.user is None:
            continue
        for p in wf.params:
            for rule, text, value, at_limit in _cases(p, w.params, enum_pool(ctx.spec)):
                claim = _claim(ctx, wf, p, rule, text, value, at_limit, w.user, w.params)
                if claim is not None:
                    out.append(claim)
            if p.type == "reference" and p.ref and w.params.get(p.name) is not None:
                out.append(_missing_row(ctx, wf, p, w.user, w.params))
    return out


def _claim(ctx: ClaimContext, wf: WorkflowSpec, p: ParamSpec, rule: str, text: str, value: Any, at_limit: bool,
           user: int, base: dict[str, Any]) -> Claim | None:
    params = {k: v for k, v in base.items() if k != p.name} if value is ... else {**base, p.name: value}
    cid = f"validation:{wf.name}.{p.name}:{rule}:{'at' if at_limit else 'past'}"
    where = f"workflows[{wf.name}].params[{p.name}]"
    step = HttpStep(method="POST", path=wf.path, user=ctx.usernames[user], body=params)
    if not at_limit:
        return ctx.http(cid, "wf_param_bound", where, f"{wf.label} with {text} is refused (422) and changes nothing",
                        [step], RejectedUnchanged(status=422), fresh=True)
    call = Call(wf.name, user, params)
    outcome = ctx.oracle.outcome([call])
    if outcome.ok:
        return ctx.http(cid, "wf_param_bound", where, f"{wf.label} with {text} is accepted with exactly its effects",
                        [step], footprint(ctx, wf, [call]), fresh=True)
    if outcome.status == 409 and outcome.precondition:
        check = next((c for c in wf.preconditions if c.id == outcome.precondition), None)
        if check is None:  # a lookup that finds no row refuses first: claimed by its own claim
            return None
        return ctx.http(cid, "wf_param_bound", where,
                        f"{wf.label} with {text} passes validation and meets `{check.source}` (409), changing nothing",
                        [step], RejectedUnchanged(status=409, detail=outcome.message if check.message_py else check.message,
                                                  precondition=check.id), fresh=True)
    return None  # at the limit something else refuses it first (a unique name, a reference): no claim to make


def _missing_row(ctx: ClaimContext, wf: WorkflowSpec, p: ParamSpec, user: int, base: dict[str, Any]) -> Claim:
    table = ctx.spec.entity(p.ref or "").table
    last = ctx.rows.conn.execute(f'SELECT COALESCE(MAX(id), 0) FROM "{table}"').fetchone()[0]
    missing = int(last) + 1000
    return ctx.http(f"validation:{wf.name}.{p.name}:exists:past", "wf_param_bound", f"workflows[{wf.name}].params[{p.name}]",
                    f"{wf.label} naming a {p.ref} that does not exist (#{missing}) is refused (404) and changes nothing",
                    [HttpStep(method="POST", path=wf.path, user=ctx.usernames[user], body={**base, p.name: missing})],
                    RejectedUnchanged(status=404), fresh=True)


# ---- entity forms: PATCH (and POST) of editable fields ---------------------------------------
def _field_cases(f: FieldSpec, current: Any) -> list[tuple[str, str, Any, bool]]:
    """(rule, description, value, at_limit) for each bound of one editable field."""
    out: list[tuple[str, str, Any, bool]] = []
    if f.max_length is not None and f.type in ("string", "text", "email"):
        out.append(("max_length", f"{f.label} of {f.max_length} characters", _text(f, f.max_length), True))
        out.append(("max_length", f"{f.label} of {f.max_length + 1} characters", _text(f, f.max_length + 1), False))
    if f.type == "int":
        for rule, bound, step in (("min", f.min, -1), ("max", f.max, 1)):
            if bound is not None:
                out.append((rule, f"{f.label} at its {rule}imum {round(bound)}", round(bound), True))
                out.append((rule, f"{f.label} one past its {rule}imum", round(bound) + step, False))
    if f.type == "enum" and f.values:
        other = next((v for v in f.values if v != current), None)
        if other is not None:
            out.append(("enum", f"{f.label} set to {other!r}", other, True))
        out.append(("enum", f"{f.label} outside its choices", _NOT_A_CHOICE, False))
    if f.required and f.type in ("string", "text", "email"):
        out.append(("required", f"{f.label} emptied", "", False))
    if f.type == "date":
        out.append(("format", f"{f.label} that is not a date", _NOT_A_DATE, False))
    return [case for case in out if not (case[3] and case[2] == current)]


def entity_validation_claims(ctx: ClaimContext) -> list[Claim]:
    """Each editable field's bounds through the entity's update route, on a row its owner edits."""
    out: list[Claim] = []
    updates = {r.entity: r for r in ctx.spec.routes if r.kind == "update" and r.entity}
    for e in ctx.spec.entities:
        route = updates.get(e.name)
        if e.builtin or route is None:
            continue
        owner = ctx.viewer(e.name)
        row_id = ctx.row_of(e, owner.id)
        if row_id is None:
            continue
        row = ctx.rows.row(e.name, row_id)
        path = route.path.replace("{id}", str(row_id))
        for f in e.fields:
            if not f.editable or f.unique:
                continue
            for rule, text, value, at_limit in _field_cases(f, row.get(f.column)):
                out.append(_entity_claim(ctx, e, f, path, owner.username, row_id, rule, text, value, at_limit))
    return out


def _entity_claim(ctx: ClaimContext, e: EntitySpec, f: FieldSpec, path: str, user: str, row_id: int, rule: str,
                  text: str, value: Any, at_limit: bool) -> Claim:
    cid = f"validation:{e.name}.{f.name}:{rule}:{'at' if at_limit else 'past'}"
    where = f"entities[{e.name}].fields[{f.name}]"
    step = HttpStep(method="PATCH", path=path, user=user, body={f.column: value})
    if not at_limit:
        return ctx.http(cid, "entity_field_bound", where, f"editing {e.label.lower()} #{row_id} with {text} is refused "
                        "(422) and changes nothing", [step], RejectedUnchanged(status=422), fresh=True)
    expect = Expected(updated=[RowValues(table=e.table, id=row_id, values={f.column: value})])
    predicate = EffectsExactly(footprint={e.table: Footprint(update=[f.column])}, must_update=[e.table], expect=expect)
    return ctx.http(cid, "entity_field_bound", where, f"editing {e.label.lower()} #{row_id} with {text} stores exactly it",
                    [step], predicate, fresh=True)
