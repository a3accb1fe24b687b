"""Behaviour claims: each workflow's effects, its refusals (anonymous, invalid, each precondition)
and its ownership, from the witnesses the search found."""

from __future__ import annotations

from factory.claims.context import ClaimContext
from factory.claims.model import Claim, EffectsExactly, Footprint, HttpStep, RejectedUnchanged
from factory.claims.witness import Witness
from factory.errors import FactoryError
from factory.expr.syntax import Binary, Literal, Name, parse
from factory.spec.model import WorkflowSpec


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def shadowed_by_bounds(source: str, wf: WorkflowSpec) -> str | None:
    """Why a precondition cannot be broken through the API: `amount > 0` when the parameter's own
    `min: 0.01` already refuses every amount that would break it (422 before the check runs)."""
    try:
        node = parse(source)
    except FactoryError:
        return None
    if not isinstance(node, Binary) or node.op not in _FLIP:
        return None
    left, right, op = node.left, node.right, node.op
    if isinstance(left, Literal) and isinstance(right, Name):
        left, right, op = right, left, _FLIP[op]
    if not (isinstance(left, Name) and isinstance(right, Literal) and isinstance(right.value, (int, float))):
        return None
    param = next((p for p in wf.params if p.name == left.id and p.type in ("int", "money")), None)
    if param is None:
        return None
    bound = float(right.value)
    # the values that break the check lie entirely outside the parameter's declared bounds
    below = op in (">", ">=") and param.min is not None and (param.min > bound if op == ">" else param.min >= bound)
    above = op in ("<", "<=") and param.max is not None and (param.max < bound if op == "<" else param.max <= bound)
    if below:
        return f"shadowed: `{source}` can only fail below the parameter's min {param.min:g}, which is refused first (422)"
    if above:
        return f"shadowed: `{source}` can only fail above the parameter's max {param.max:g}, which is refused first (422)"
    return None



def footprint(ctx: ClaimContext, wf: WorkflowSpec) -> EffectsExactly:
    witness = ctx.witnesses.get(wf.name)
    tables: dict[str, Footprint] = {}
    must_insert: list[str] = []
    must_delete: list[str] = []
    for eff in wf.effects:
        table = ctx.spec.entity(eff.entity).table
        fp = tables.setdefault(table, Footprint())
        if eff.kind == "set" and eff.field:
            column = next(f.column for f in ctx.spec.entity(eff.entity).fields if f.name == eff.field)
            if column not in fp.update:
                fp.update.append(column)
        elif eff.kind == "create":
            fp.insert = True
            must_insert.append(table)
        else:
            fp.delete = True
            must_delete.append(table)
    # a set effect must show, unless the witness itself only re-wrote values a row already held
    set_tables = {t for t, fp in tables.items() if fp.update}
    must_update = sorted(set_tables & set(witness.updated)) if witness else []
    return EffectsExactly(footprint=dict(sorted(tables.items())), must_update=must_update,
                          must_insert=sorted(set(must_insert)), must_delete=sorted(set(must_delete)))

def behaviour_claims(ctx: ClaimContext) -> list[Claim]:
    out: list[Claim] = []
    for wf in ctx.spec.workflows:
        if wf.system:
            continue
        w = ctx.witnesses[wf.name]
        where = f"workflows[{wf.name}]"
        steps = []
        if w.params is not None and w.user is not None:
            steps = [HttpStep(method="POST", path=wf.path, user=ctx.usernames[w.user], body=w.params)]
        else:
            ctx.unwitnessed.append(f"{wf.name}: no user could complete it on the seed data")
        out.append(ctx.http(f"behaviour:{wf.name}:effects", "wf_effects", where + ".effects",
                              f"a valid {wf.label.lower()} changes exactly what its effects declare", steps,
                              footprint(ctx, wf), fresh=True))
        out.append(ctx.http(f"behaviour:{wf.name}:anonymous", "wf_anonymous", where,
                              f"{wf.label} is refused to anonymous visitors and changes nothing",
                              [HttpStep(method="POST", path=wf.path, body=w.params or {})],
                              RejectedUnchanged(status=401), fresh=True))
        if any(p.required and p.default is None for p in wf.params):
            out.append(ctx.http(f"behaviour:{wf.name}:validation", "wf_validation", where + ".params",
                                  f"{wf.label} without its required parameters is refused (422) and changes nothing",
                                  [HttpStep(method="POST", path=wf.path, user=ctx.user.username, body={})],
                                  RejectedUnchanged(status=422), fresh=True))
        for check in wf.preconditions:
            found = w.violations.get(check.id)
            if found is None:
                reason = shadowed_by_bounds(check.source, wf)
                ctx.unwitnessed.append(f"{check.id}: " + (reason or f"no call found that breaks only `{check.source}`"))
                continue
            user, params = found
            out.append(ctx.http(f"behaviour:{check.id}", "wf_precondition", f"{where}.preconditions[{check.id}]",
                                  f"breaking `{check.source}` is refused with “{check.message}” and changes nothing",
                                  [HttpStep(method="POST", path=wf.path, user=ctx.usernames[user], body=params)],
                                  RejectedUnchanged(status=409, detail=check.message, precondition=check.id), fresh=True))
        ownership = _ownership_call(ctx, wf, w)
        if ownership is not None:
            out.append(ctx.http(f"behaviour:{wf.name}:ownership", "wf_ownership", where + ".params",
                                  f"another user cannot {wf.label.lower()} on {ctx.usernames[w.user or 0]}'s rows",
                                  [ownership], RejectedUnchanged(status=404), fresh=True))
    return out

def _ownership_call(ctx: ClaimContext, wf: WorkflowSpec, w: Witness) -> HttpStep | None:
    if w.params is None or w.user is None:
        return None
    owned = [p for p in wf.params if p.type == "reference" and p.ref and w.params.get(p.name) is not None
             and ctx.spec.entity(p.ref).visibility == "owner" and not ctx.spec.entity(p.ref).builtin]
    if not owned:
        return None
    for u in ctx.spec.users:
        if u.id == w.user:
            continue
        if all(w.params[p.name] not in ctx.rows.visible_ids(p.ref or "", u.id, limit=10**6) for p in owned):
            return HttpStep(method="POST", path=wf.path, user=u.username, body=w.params)
    return None

