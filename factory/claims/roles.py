"""Role claims: a user outside an entity's or a workflow's roles is refused, over HTTP, on every
route it has (`factory.spec.roles` says who is outside).

For each workflow that names roles, as the first user of every role outside them:

- the call, with a body that is valid for a user inside (the witness's), is refused with 403 and
  the app's own message (`roles.refusal`), and changes nothing;
- each reference parameter's option list answers 403: the form's choices are not shown either.

For each entity that names roles, as the first user of every role outside them: its list and each
filter's option list answer 403, a create with a body valid for the roles inside answers 403 and
changes nothing, and a real row id answers 404 (the row is not theirs to see). As
the first user of each role inside them, the list answers 200: the lock does not shut everyone out.

What a role's user may do is claimed elsewhere: the witnesses of behaviour claims are searched
through the effect interpreter, which refuses a user outside the roles, so every witness is run by
a user inside them. The browser side (navigation, buttons and pages shown by role) is claimed in
`browser.py`.
"""

from __future__ import annotations

from factory.claims.context import ClaimContext
from factory.claims.model import Claim, HttpStep, RejectedUnchanged, StatusIs
from factory.spec.model import EntitySpec, Spec, UserSpec, WorkflowSpec
from factory.spec.roles import refusal


def role_claims(ctx: ClaimContext) -> list[Claim]:
    """Every role-limited workflow and entity, probed as a user of each role outside it."""
    out: list[Claim] = []
    for wf in ctx.spec.workflows:
        if wf.roles and not wf.system:
            out += _workflow_claims(ctx, wf)
    for e in ctx.spec.entities:
        if e.roles and not e.builtin:
            out += _entity_claims(ctx, e)
    return out


def first_of_each_role(spec: Spec, roles: list[str]) -> list[UserSpec]:
    """The first user (in the spec's order: personas first) holding each of `roles`."""
    found = {}
    for u in spec.users:
        if u.role in roles and u.role not in found:
            found[u.role] = u
    return [found[r] for r in roles if r in found]


def _outside(spec: Spec, roles: list[str]) -> list[UserSpec]:
    return first_of_each_role(spec, [r for r in spec.roles if r not in roles])


def _workflow_claims(ctx: ClaimContext, wf: WorkflowSpec) -> list[Claim]:
    out: list[Claim] = []
    w = ctx.witnesses.get(wf.name)
    body = w.params if w is not None and w.params is not None else None
    where = f"workflows[{wf.name}].roles"
    for u in _outside(ctx.spec, wf.roles):
        if body is None:
            ctx.unwitnessed.append(f"roles:{wf.name}@{u.role}: no valid call of it to send as a {u.role} "
                                   "(the workflow has no witness)")
        else:
            out.append(ctx.http(
                f"roles:workflow:{wf.name}@{u.role}", "role_workflow", where,
                f"{u.username} ({u.role}) cannot run {wf.label!r}, even with a call valid for the "
                f"{' or '.join(wf.roles)} role: refused (403) and nothing changes",
                [HttpStep(method="POST", path=wf.path, user=u.username, body=body)],
                RejectedUnchanged(status=403, detail=refusal(wf)), fresh=True))
        for p in wf.params:
            if p.type != "reference":
                continue
            out.append(ctx.http(
                f"roles:options:{wf.name}.{p.name}@{u.role}", "role_options", where,
                f"{u.username} ({u.role}) is not shown the choices of {wf.label}'s {p.label} (403)",
                [HttpStep(method="GET", path=f"{wf.path}/options/{p.name}", user=u.username)], StatusIs(status=403)))
    return out


def _entity_claims(ctx: ClaimContext, e: EntitySpec) -> list[Claim]:
    out: list[Claim] = []
    where = f"entities[{e.name}].roles"
    api = f"/api/{e.path.strip('/')}"
    some = ctx.rows.conn.execute(f'SELECT id FROM "{e.table}" ORDER BY id LIMIT 1').fetchone()
    for u in _outside(ctx.spec, e.roles):
        if "list" in e.operations:
            out.append(ctx.http(f"roles:list:{e.name}@{u.role}", "role_list", where,
                                f"{u.username} ({u.role}) is refused the list of {e.plural.lower()} (403)",
                                [HttpStep(method="GET", path=api, user=u.username)], StatusIs(status=403)))
            for flt in e.filters:
                out.append(ctx.http(f"roles:filter:{e.name}.{flt.field}@{u.role}", "role_list", where,
                                    f"{u.username} ({u.role}) is refused the {flt.label} filter's values of "
                                    f"{e.plural.lower()} (403)",
                                    [HttpStep(method="GET", path=f"{api}/options/{flt.field}", user=u.username)],
                                    StatusIs(status=403)))
        create = next((r for r in ctx.spec.routes if r.kind == "create" and r.entity == e.name), None)
        if create is not None and some is not None:  # a body the app would take from a role that sees it
            row = ctx.rows.row(e.name, some[0])
            owners = {f"{o}_id" for o in e.owner_fields} | set(e.owner_fields)
            body = {f.column: row.get(f.column) for f in e.fields if f.editable and f.column not in owners}
            out.append(ctx.http(f"roles:create:{e.name}@{u.role}", "role_create", where,
                                f"{u.username} ({u.role}) cannot add a {e.label.lower()} (403) and nothing changes",
                                [HttpStep(method="POST", path=create.path, user=u.username, body=body)],
                                RejectedUnchanged(status=403), fresh=True))
        if "read" in e.operations and some is not None:
            out.append(ctx.http(f"roles:detail:{e.name}@{u.role}", "role_detail", where,
                                f"{u.username} ({u.role}) cannot open {e.label.lower()} #{some[0]} (404)",
                                [HttpStep(method="GET", path=f"{api}/{some[0]}", user=u.username)],
                                StatusIs(status=404)))
    if "list" in e.operations:
        for u in first_of_each_role(ctx.spec, e.roles):
            out.append(ctx.http(f"roles:list:{e.name}@{u.role}", "role_list", where,
                                f"{u.username} ({u.role}) may list {e.plural.lower()} (200)",
                                [HttpStep(method="GET", path=api, user=u.username)], StatusIs(status=200)))
    return out
