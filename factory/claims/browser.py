"""Browser claims: every page renders with its actions, every workflow completes through its form,
and the list capabilities (date ranges, nested filters, pagination) work as a user drives them."""

from __future__ import annotations

from typing import Any

from factory.claims.behaviour import footprint
from factory.claims.context import ClaimContext
from factory.claims.model import Claim, UiGetter, UiPasses
from factory.spec.model import EntitySpec


def browser_claims(ctx: ClaimContext) -> list[Claim]:
    out: list[Claim] = []
    for page in ctx.spec.pages:
        if page.kind == "login":
            continue
        path = ctx.concrete(page.path.replace(":id", "{id}"), page.entity)
        if path is None:
            continue
        buttons = _buttons(ctx, page.kind, page.entity)
        viewer = ctx.viewer(page.entity)
        text = f"{path} renders for {viewer.username} without console errors"
        out.append(Claim(id=f"ui:page:{page.id}", layer="frontend", kind="ui_page",
                         description=text + (f" and offers {', '.join(buttons)}" if buttons else ""),
                         provenance=f"pages[{page.id}]",
                         getter=UiGetter(script="page", user=viewer.username, args={"path": path, "buttons": buttons}),
                         predicate=UiPasses()))
    for wf in ctx.spec.workflows:
        if wf.system:
            continue
        w = ctx.witnesses[wf.name]
        if w.params is None:  # the behaviour claim already fails for the missing witness
            ctx.unwitnessed.append(f"ui:workflow:{wf.name}: no values that complete it")
            continue
        args: dict[str, Any] = {"workflow": wf.name, "values": w.params}
        out.append(Claim(id=f"ui:workflow:{wf.name}", layer="frontend", kind="ui_workflow",
                         description=f"{wf.label} can be completed through its form and the database shows its effects",
                         provenance=f"workflows[{wf.name}]",
                         getter=UiGetter(script="workflow", user=ctx.usernames.get(w.user or 0, ctx.user.username), args=args),
                         predicate=UiPasses(effects=footprint(ctx, wf))))
    out += _capabilities(ctx)
    return out

def _buttons(ctx: ClaimContext, kind: str, entity: str | None) -> list[str]:
    """Test ids of the actions a page must offer (from the spec's workflows and operations)."""
    if entity is None:
        return []
    e = ctx.spec.entity(entity)
    if kind == "list":
        return [f"new-{e.name}"] if "create" in e.operations else []
    if kind != "detail":
        return []
    buttons = [f"action-{w.name}" for w in ctx.spec.workflows if not w.system and w.subject_entity == e.name]
    buttons += [f"{op}-{e.name}" for op, verb in (("edit", "update"), ("delete", "delete")) if verb in e.operations]
    return buttons

def _capabilities(ctx: ClaimContext) -> list[Claim]:
    out: list[Claim] = []
    for e in ctx.spec.entities:
        if e.builtin or "list" not in e.operations:
            continue
        user = ctx.viewer(e.name)
        visible = ctx.visible_rows(e, user.id)
        for flt in e.filters:
            if flt.kind == "date_range":
                values = sorted(str(r[flt.param])[:10] for r in visible if r[flt.param] is not None)
                if len(set(values)) >= 4:
                    lo, hi = values[len(values) // 4], values[(3 * len(values)) // 4]
                    if lo < hi:
                        out.append(_ui_cap(ctx, user, f"ui:date_range:{e.name}.{flt.field}", "ui_date_range", e, flt.field,
                                                f"the {flt.label} date-range filter on {e.plural} sets both dates and narrows the list",
                                                {"entity": e.name, "field": flt.field, "min": lo, "max": hi}))
            if flt.parent is not None:
                parent = next(f for f in e.filters if f.field == flt.parent)
                counts: dict[Any, int] = {}
                for r in visible:
                    counts[r[parent.param]] = counts.get(r[parent.param], 0) + 1
                children = {r[flt.param] for r in visible}
                best = sorted((v for v in counts if v is not None), key=lambda v: (-counts[v], str(v)))
                for value in best:
                    narrowed = {r[flt.param] for r in visible if r[parent.param] == value}
                    if narrowed < children:
                        out.append(_ui_cap(ctx, user, f"ui:nested:{e.name}.{flt.field}", "ui_nested_filter", e, flt.field,
                                                f"choosing {parent.label} narrows the {flt.label} filter on {e.plural}",
                                                {"entity": e.name, "parent": parent.field, "child": flt.field, "parent_value": value}))
                        break
        if len(visible) > e.page_size:
            out.append(_ui_cap(ctx, user, f"ui:pagination:{e.name}", "ui_pagination", e, None,
                                    f"pagination on {e.plural} reaches the last page", {"entity": e.name}))
    return out

def _ui_cap(ctx: ClaimContext, user: Any, cid: str, kind: str, e: EntitySpec, field: str | None, text: str,
            args: dict[str, Any]) -> Claim:
    script = {"ui_date_range": "date_range_filter", "ui_nested_filter": "nested_filter", "ui_pagination": "pagination"}[kind]
    where = f"entities[{e.name}].fields[{field}].filter" if field else f"entities[{e.name}].page_size"
    return Claim(id=cid, layer="frontend", kind=kind, description=text, provenance=where,
                 getter=UiGetter(script=script, user=user.username, args=args), predicate=UiPasses())  # type: ignore[arg-type]
