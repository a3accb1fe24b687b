"""Route claims: every route's status for anonymous and logged-in visitors, every page served, and
list answers (pagination, filters, search, sort) with the expected rows computed in SQL. Who may
see which rows on those routes is claimed in `ownership.py`."""

from __future__ import annotations

import sqlite3
from typing import Any

from factory.claims.context import ClaimContext
from factory.claims.model import Claim, HttpGetter, HttpStep, ListIs, StatusIs


def route_claims(ctx: ClaimContext) -> list[Claim]:
    out: list[Claim] = []
    for route in ctx.spec.routes:
        path = ctx.concrete(route.path, route.entity)
        if path is None:
            continue
        where = f"routes[{route.operation_id}]"
        if route.method == "GET":
            anon = 401 if route.auth else 200
            out.append(ctx.http(f"route:{route.operation_id}:anonymous", "route_status", where,
                                  f"GET {path} answers {anon} to an anonymous visitor",
                                  [HttpStep(method="GET", path=path)], StatusIs(status=anon)))
            if route.auth:
                wf = next((w for w in ctx.spec.workflows if w.name == route.workflow), None)
                user = ctx.runner(wf) if wf is not None else ctx.viewer(route.entity)  # a role that may
                out.append(ctx.http(f"route:{route.operation_id}:user", "route_status", where,
                                      f"GET {path} answers 200 to a logged-in user",
                                      [HttpStep(method="GET", path=path, user=user.username)],
                                      StatusIs(status=200)))
        elif route.kind in ("create", "update", "delete", "workflow") or route.auth:
            out.append(ctx.http(f"route:{route.operation_id}:anonymous", "route_status", where,
                                  f"{route.method} {path} is refused (401) to an anonymous visitor",
                                  [HttpStep(method=route.method, path=path, body={})], StatusIs(status=401)))
    for page in ctx.spec.pages:
        path = ctx.concrete(page.path.replace(":id", "{id}"), page.entity)
        if path is None:
            continue
        out.append(Claim(id=f"page:{page.id}", layer="frontend", kind="page_status",
                         description=f"{path} serves the app's page", provenance=f"pages[{page.id}]",
                         getter=HttpGetter(steps=[HttpStep(method="GET", path=path)]), predicate=StatusIs(status=200, html=True)))
    out += list_claims(ctx)
    return out  # who may see which rows on these routes: ownership.py

# ---- lists: pagination, filters, search and sort, with the expected rows computed in SQL -----
def list_claims(ctx: ClaimContext) -> list[Claim]:
    out: list[Claim] = []
    for e in ctx.spec.entities:
        if e.builtin or "list" not in e.operations:
            continue
        viewer = ctx.viewer(e.name)
        visible = ctx.visible_rows(e, viewer.id)
        if not visible:
            continue
        total = len(visible)
        cases: list[tuple[str, str, dict[str, Any], list[sqlite3.Row]]] = []
        if total > e.page_size:
            cases.append(("page2", "the second page holds the next rows in order", {"page": 2}, visible))
        for flt in e.filters:
            values = [r[flt.param] for r in visible if r[flt.param] is not None]
            if flt.kind in ("select", "reference", "bool"):
                counts: dict[Any, int] = {}
                for v in values:
                    counts[v] = counts.get(v, 0) + 1
                narrowing = sorted((v for v in counts if counts[v] < total), key=lambda v: (-counts[v], str(v)))
                if narrowing:
                    value = narrowing[0]
                    shown = ("true" if value else "false") if flt.kind == "bool" else value
                    cases.append((f"filter:{flt.field}", f"filtering by {flt.label} = {shown} keeps exactly its rows",
                                  {flt.param: shown, "page_size": 100}, [r for r in visible if r[flt.param] == value]))
            elif flt.kind == "range" or (flt.kind == "date_range" and all(len(str(v)) == 10 for v in values)):
                ordered = sorted(values)
                if len(set(ordered)) >= 3:
                    lo, hi = ordered[len(ordered) // 4], ordered[(3 * len(ordered)) // 4]
                    kept = [r for r in visible if r[flt.param] is not None and lo <= r[flt.param] <= hi]
                    if len(kept) < total:
                        cases.append((f"range:{flt.field}", f"{flt.label} between {lo} and {hi} keeps exactly those rows",
                                      {f"{flt.param}_min": lo, f"{flt.param}_max": hi, "page_size": 100}, kept))
        if e.search_fields:
            word = next((str(r[e.search_fields[0]]).split()[0] for r in visible if r[e.search_fields[0]]), None)
            if word:
                needle = word.lower()
                kept = [r for r in visible if any(needle in str(r[f] or "").lower() for f in e.search_fields)]
                cases.append(("search", f"searching for {word!r} finds exactly the matching rows",
                              {"q": word, "page_size": 100}, kept))
        alternative = next((c for c in e.sort_fields if c != e.default_sort.lstrip("-")), None)
        if alternative:
            cases.append((f"sort:{alternative}", f"sorting by {alternative} descending orders the rows",
                          {"sort": f"-{alternative}", "page_size": 100}, visible))
        for name, text, query, rows in cases:
            sort = str(query.get("sort") or e.default_sort)
            ids = ctx.ordered_ids(rows, sort)
            size = int(query.get("page_size") or e.page_size)
            page = int(query.get("page") or 1)
            out.append(Claim(id=f"list:{e.name}:{name}", layer="backend", kind="list_query",
                             description=f"{e.plural}: {text}", provenance=f"entities[{e.name}]",
                             getter=HttpGetter(steps=[HttpStep(method="GET", path=f"/api/{e.path}", user=viewer.username,
                                                               query=query)]),
                             predicate=ListIs(total=len(rows), ids=ids[(page - 1) * size: page * size])))
    return out

