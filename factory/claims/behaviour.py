"""Behaviour claims: each workflow's exact effects, each precondition at its boundary (the last call
allowed with its exact effects, the first refused with nothing changed), refusals to anonymous
visitors and strangers, all from the witnesses the spec-only search found.

Every expected change is the oracle's: the spec's effect expressions evaluated on the witness's
rows, so a transfer that credits `amount - 1` or stores a tenth of the amount fails its claim."""

from __future__ import annotations

from factory.claims.context import ClaimContext
from factory.claims.model import Claim, EffectsExactly, Expected, Footprint, HttpStep, RejectedUnchanged
from factory.claims.oracle import Call, Oracle
from factory.claims.search import Pair, Witness, WitnessSearch
from factory.errors import FactoryError
from factory.expr.syntax import Binary, Literal, Name, parse
from factory.predict.derived import LOOKUP_CODE
from factory.spec.model import WorkflowSpec
from factory.spec.roles import may_run

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


def footprint(ctx: ClaimContext, wf: WorkflowSpec, calls: list[Call] | None = None) -> EffectsExactly:
    """What a successful call of `wf` may change, and (for the witness, or `calls`) exactly how.

    A witness on planted rows is predicted by its own oracle, over the planted copy its claims run on."""
    witness = ctx.witnesses.get(wf.name)
    oracle = witness.oracle if witness is not None and witness.oracle is not None else ctx.oracle
    tables: dict[str, Footprint] = {}
    must_insert: list[str] = []
    must_delete: list[str] = []
    # setup calls in front (N labels made before the 21st is refused) change what their own effects say too
    named = [wf] + [w for w in ctx.spec.workflows if w.name != wf.name and any(c.workflow == w.name for c in calls or [])]
    for eff in (e for w in named for e in w.effects):
        table = ctx.spec.entity(eff.entity).table
        fp = tables.setdefault(table, Footprint())
        if eff.kind == "set" and eff.field:
            column = next(f.column for f in ctx.spec.entity(eff.entity).fields if f.name == eff.field)
            if column not in fp.update:
                fp.update.append(column)
        elif eff.kind == "create":
            fp.insert = True
            if eff.when is None and eff.for_each is None:  # a conditional or bulk one may make none
                must_insert.append(table)
        else:
            fp.delete = True
            if eff.when is None and eff.for_each is None:
                must_delete.append(table)
    expect = _expected(oracle, calls) if calls else (
        oracle.expected(witness.outcome.prediction) if witness and witness.outcome and witness.outcome.prediction else None)
    # a set effect must show, unless the call itself only re-writes values a row already holds
    set_tables = {t for t, fp in tables.items() if fp.update}
    must_update = sorted(set_tables & {r.table for r in expect.updated}) if expect else []
    return EffectsExactly(footprint=dict(sorted(tables.items())), must_update=must_update,
                          must_insert=sorted(set(must_insert)), must_delete=sorted(set(must_delete)), expect=expect)


def _expected(oracle: Oracle, calls: list[Call]) -> Expected | None:
    outcome = oracle.outcome(calls)
    return oracle.expected(outcome.prediction) if outcome.prediction is not None else None


def steps_of(ctx: ClaimContext, wf_paths: dict[str, str], calls: list[Call]) -> list[HttpStep]:
    return [HttpStep(method="POST", path=wf_paths[c.workflow], user=ctx.usernames[c.user], body=c.params) for c in calls]


def behaviour_claims(ctx: ClaimContext) -> list[Claim]:
    out: list[Claim] = []
    paths = {w.name: w.path for w in ctx.spec.workflows}
    for wf in ctx.spec.workflows:
        if wf.system:
            continue
        w = ctx.witnesses[wf.name]
        where = f"workflows[{wf.name}]"
        planted = " (on rows planted for it: the seed data has none it acts on)" if w.plant else ""
        steps = []
        if w.params is not None and w.user is not None:
            steps = [HttpStep(method="POST", path=wf.path, user=ctx.usernames[w.user], body=w.params)]
        else:
            ctx.unwitnessed.append(f"{wf.name}: no user can complete it on the seed data (every sampled call is refused)")
        out.append(ctx.http(f"behaviour:{wf.name}:effects", "wf_effects", where + ".effects",
                            f"a valid {wf.label.lower()} changes exactly what its effects compute{planted}", steps,
                            footprint(ctx, wf), fresh=True, plant=w.plant))
        out.append(ctx.http(f"behaviour:{wf.name}:anonymous", "wf_anonymous", where,
                            f"{wf.label} is refused to anonymous visitors and changes nothing",
                            [HttpStep(method="POST", path=wf.path, body=w.params or {})],
                            RejectedUnchanged(status=401), fresh=True, plant=w.plant))
        if any(p.required and p.default is None for p in wf.params):
            out.append(ctx.http(f"behaviour:{wf.name}:validation", "wf_validation", where + ".params",
                                f"{wf.label} without its required parameters is refused (422) and changes nothing",
                                [HttpStep(method="POST", path=wf.path, user=ctx.runner(wf).username, body={})],
                                RejectedUnchanged(status=422), fresh=True))
        out += _branch_claims(ctx, wf, w)
        for check in wf.preconditions:
            pair = w.pairs.get(check.id)
            if pair is None:
                reason = shadowed_by_bounds(check.source, wf) or w.reasons.get(check.id)
                ctx.unwitnessed.append(f"{check.id}: " + (reason or f"no call found that breaks only `{check.source}`, "
                                                          "with or without a setup call of any workflow before it"))
                continue
            message = _shown_message(w.oracle or ctx.oracle, pair) if check.message_py else check.message
            out += _pair_claims(ctx, wf, check.id, check.source, message, pair, paths, w)
        if w.lookup_refused is not None:
            call, message = w.lookup_refused
            out.append(ctx.http(f"behaviour:{wf.name}:lookup", "wf_lookup", where + ".params",
                                f"when its lookup finds no row, {wf.label.lower()} is refused with “{message}” (409) "
                                "and changes nothing", steps_of(ctx, paths, [call]),
                                RejectedUnchanged(status=409, detail=message, precondition=LOOKUP_CODE), fresh=True,
                                plant=w.plant))
        ownership = _ownership_call(ctx, wf, w)
        if ownership is not None:
            out.append(ctx.http(f"behaviour:{wf.name}:ownership", "wf_ownership", where + ".params",
                                f"another user cannot {wf.label.lower()} on {ctx.usernames[w.user or 0]}'s rows",
                                [ownership], RejectedUnchanged(status=404), fresh=True, plant=w.plant))
    return out


def _branch_claims(ctx: ClaimContext, wf: WorkflowSpec, w: Witness) -> list[Claim]:
    """Each side of every conditional effect, and every bulk effect over several rows, with exact effects:
    a dropped or negated `when` changes what one side stores, a loop cut short or a `where` lost
    changes which rows change."""
    out: list[Claim] = []
    for key in WitnessSearch.branch_keys(wf):
        number = int(key.split(":")[0].removeprefix("effect"))
        effect = wf.effects[number - 1]
        call = w.branches.get(key)
        if call is None:
            ctx.unwitnessed.append(f"{wf.name} {key}: {w.reasons.get(key, 'no call found')}")
            continue
        if key.endswith(":rows"):
            what = f"`{effect.for_each}` reaches every row it selects and no other"
        elif key.endswith(":true"):
            what = f"when `{effect.when}` holds, effect {number} applies"
        else:
            what = f"when `{effect.when}` does not hold, effect {number} is skipped"
        step = HttpStep(method="POST", path=wf.path, user=ctx.usernames[call.user], body=call.params)
        out.append(ctx.http(f"behaviour:{wf.name}:{key.replace(':', '_', 1).replace(':', '_')}", "wf_effect_branch",
                            f"workflows[{wf.name}].effects[{number - 1}]", f"{wf.label}: {what}, with exactly its effects",
                            [step], footprint(ctx, wf, [call]), fresh=True, plant=w.plant))
    return out


def _shown_message(oracle: Oracle, pair: Pair) -> str | None:
    """The text a refused call's message with `{expression}` holes reads, as the oracle fills it in
    (None, so no text is claimed, when the oracle cannot say)."""
    outcome = oracle.outcome(pair.refused)
    return outcome.message if outcome.status == 409 and outcome.message else None


def _pair_claims(ctx: ClaimContext, wf: WorkflowSpec, rule: str, source: str, message: str | None, pair: Pair,
                 paths: dict[str, str], w: Witness) -> list[Claim]:
    """The two sides of one rule's boundary: allowed with exact effects, refused with nothing changed."""
    where = f"workflows[{wf.name}].preconditions[{rule}]"
    setups = pair.refused[:-1]
    refused_expect = _expected(w.oracle or ctx.oracle, setups) if setups else None
    side = f" ({pair.note})"
    return [
        ctx.http(f"behaviour:{rule}", "wf_precondition", where,
                 f"breaking `{source}` is refused with “{message}” and changes nothing{side}",
                 steps_of(ctx, paths, pair.refused),
                 RejectedUnchanged(status=409, detail=message, precondition=rule, expect=refused_expect), fresh=True,
                 plant=w.plant),
        ctx.http(f"behaviour:{rule}:allowed", "wf_boundary_allowed", where,
                 f"just inside `{source}` the call succeeds with exactly its effects{side}",
                 steps_of(ctx, paths, pair.allowed), footprint(ctx, wf, pair.allowed), fresh=True, plant=w.plant),
    ]


def _ownership_call(ctx: ClaimContext, wf: WorkflowSpec, w: Witness) -> HttpStep | None:
    if w.params is None or w.user is None:
        return None
    owned = [p for p in wf.params if p.type == "reference" and p.ref and w.params.get(p.name) is not None
             and ctx.spec.entity(p.ref).visibility == "owner" and not ctx.spec.entity(p.ref).builtin]
    if not owned:
        return None
    for u in ctx.spec.users:
        if u.id == w.user or not may_run(ctx.spec, wf, u.id):  # another role is refused before its rows (403)
            continue
        if all(w.params[p.name] not in ctx.rows.visible_ids(p.ref or "", u.id, limit=10**6) for p in owned):
            return HttpStep(method="POST", path=wf.path, user=u.username, body=w.params)
    return None

