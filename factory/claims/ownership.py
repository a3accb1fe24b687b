"""Ownership claims: every route that shows or takes rows, probed as a user who must not see or use
other users' rows, with real foreign ids taken from the seed database.

For each entity whose rows belong to users (`visibility: owner`):

- list: the first page (100 rows) a user gets is exactly their own rows in the app's order, and
  names none of the foreign rows a leak would show first (a user with no rows gets an empty page);
- search: a word taken from a foreign row finds exactly the user's own matching rows;
- detail, update, delete: a foreign id answers 404 (writes also change nothing);
- filter options (`GET /api/<entity>/options/<field>`): exactly the values, with their counts, of
  the user's own rows; a reference filter names no foreign row.

For each workflow reference parameter:

- option list (`GET /api/workflows/<wf>/options/<param>`): exactly the rows the form may offer the
  user, visible to them and passing the parameter's filter. The filter's seed source (`where`) is
  evaluated by the expression interpreter of stage two in SQL's logic; a spec written before the
  source was kept falls back to the compiled form (`where_py`), translated to SQL by
  `factory.claims.filter_sql`;
- the call: the workflow as a user, with another user's row in that parameter and the user's own
  rows in the others, is refused (404) and changes nothing.

Every expected value comes from the spec and the seed database alone; nothing here asks the app.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from factory.claims.context import ClaimContext
from factory.claims.filter_sql import compiled_filter_sql
from factory.claims.model import Claim, EntriesAre, HttpGetter, HttpStep, IdsAmong, RejectedUnchanged, StatusIs
from factory.claims.witness import range_candidates, scalar_candidates
from factory.errors import ExpressionError, PredictionError
from factory.expr.syntax import Node, parse
from factory.expr.typecheck import BOOL, Scope, Type, check
from factory.predict.derived import spec_schema
from factory.predict.interpreter import Interpreter
from factory.predict.overlay import Ref, Rows  # the interpreter's own row model
from factory.spec.model import EntitySpec, FilterSpec, ParamSpec, UserSpec, WorkflowSpec
from factory.spec.roles import may_run, sees

PAGE = 100  # the app's largest page: one request shows a user's first 100 rows
SAMPLE = 24  # foreign ids named per claim (the exact answer catches the rest)
STRANGERS = 2  # users each list, detail and option list is probed as
_WORD = re.compile(r"[A-Za-z0-9]{3,}")  # search words: no LIKE wildcards, ASCII so case folds alike
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ownership_claims(ctx: ClaimContext) -> list[Claim]:
    """Every list, search, detail, write, filter option list, workflow option list and workflow
    reference parameter, probed as users who must not see other users' rows."""
    probe = _Ownership(ctx)
    try:
        return (probe.lists() + probe.searches() + probe.details() + probe.filter_options()
                + probe.param_options() + probe.workflow_references())
    finally:
        probe.close()


def rows_of(n: int, e: EntitySpec) -> str:
    """`1 account`, `3 accounts`."""
    return f"{n} {e.label.lower() if n == 1 else e.plural.lower()}"


def spread(ids: list[int], n: int = SAMPLE) -> list[int]:
    """At most `n` of `ids`, evenly spread (first and last included): foreign rows of many owners."""
    if len(ids) <= n:
        return list(ids)
    step = (len(ids) - 1) / (n - 1)
    return list(dict.fromkeys(ids[round(i * step)] for i in range(n)))


# ---- the generator -------------------------------------------------------------------------------
class _Ownership:
    """Who sees which rows in the seed database, and the claims that follow from it."""

    def __init__(self, ctx: ClaimContext) -> None:
        self.ctx, self.spec = ctx, ctx.spec
        self.today = dt.date.fromisoformat(ctx.spec.today)
        self._visible: dict[tuple[str, int], list[int]] = {}
        self._all: dict[str, list[sqlite3.Row]] = {}
        # the interpreter reads the same seed database the claims are compiled over
        db = Path(ctx.rows.conn.execute("PRAGMA database_list").fetchone()[2])
        self.rows = Rows(ctx.spec, db)
        self.schema = spec_schema(ctx.spec)
        self._filters: dict[tuple[str, str], Callable[[int, list[int]], list[int]] | None] = {}

    def close(self) -> None:
        self.rows.close()

    # ---- who sees what ------------------------------------------------------------------------
    def visible(self, entity: str, user: int) -> list[int]:
        key = (entity, user)
        if key not in self._visible:
            self._visible[key] = self.ctx.rows.visible_ids(entity, user, limit=10**9)
        return self._visible[key]

    def all_rows(self, e: EntitySpec) -> list[sqlite3.Row]:
        if e.name not in self._all:
            self._all[e.name] = list(self.ctx.rows.conn.execute(f'SELECT * FROM "{e.table}" ORDER BY id'))
        return self._all[e.name]

    def foreign(self, e: EntitySpec, user: int) -> list[int]:
        """Ids of the rows of `e` that `user` must not see, in id order."""
        mine = set(self.visible(e.name, user))
        return [r["id"] for r in self.all_rows(e) if r["id"] not in mine]

    def holders(self, e: EntitySpec) -> list[UserSpec]:
        """Users who see rows of `e`, in the spec's order (personas first)."""
        return [u for u in self.spec.users if self.visible(e.name, u.id)]

    def owned(self) -> list[EntitySpec]:
        return [e for e in self.spec.entities if not e.builtin and e.visibility == "owner"]

    def route(self, kind: str, entity: str | None = None, workflow: str | None = None) -> Any:
        return next((r for r in self.spec.routes if r.kind == kind and r.entity == entity and r.workflow == workflow), None)

    def page(self, e: EntitySpec, rows: list[sqlite3.Row]) -> list[int]:
        """The first page of `rows` in the entity's default order, as the app sorts it."""
        return self.ctx.ordered_ids(rows, e.default_sort)[:PAGE]

    def leak_candidates(self, e: EntitySpec, user: int, rows: list[sqlite3.Row] | None = None) -> list[int]:
        """Foreign ids a leak would show: those on the first page of everyone's rows, then a spread."""
        mine = set(self.visible(e.name, user))
        rows = self.all_rows(e) if rows is None else rows
        first = [i for i in self.page(e, rows) if i not in mine][: SAMPLE // 2]
        rest = spread([r["id"] for r in rows if r["id"] not in mine and r["id"] not in first], SAMPLE - len(first))
        return first + rest

    @staticmethod
    def claim(cid: str, kind: str, where: str, text: str, steps: list[HttpStep], predicate: Any,
              fresh: bool = False) -> Claim:
        return Claim(id=cid, layer="backend", kind=kind, description=text, provenance=where,
                     getter=HttpGetter(steps=steps, fresh_db=fresh), predicate=predicate)

    # ---- lists and search -----------------------------------------------------------------------
    def lists(self) -> list[Claim]:
        out: list[Claim] = []
        for e in self.owned():
            route = self.route("list", e.name)
            if route is None or "list" not in e.operations:
                continue
            holders = self.holders(e)
            users = holders[:STRANGERS]
            # a user with none of these rows: every row on their page would be someone else's
            users += [u for u in self.spec.users if u not in holders and sees(self.spec, e, u.id)][:1]
            for u in users:
                mine = self.ctx.visible_rows(e, u.id)
                expected = self.page(e, mine)
                forbidden = self.leak_candidates(e, u.id)
                if not forbidden:
                    continue
                shown = f"exactly their own {rows_of(len(mine), e)}" if mine else f"no {e.plural.lower()}"
                out.append(self.claim(
                    f"ownership:list:{e.name}@{u.username}", "ownership_list",
                    f"routes[{route.operation_id}], entities[{e.name}].owner_fields",
                    f"{u.username} lists {shown} (first {PAGE} in order) and none of the other users' "
                    f"{e.plural.lower()}, e.g. {forbidden[:3]}",
                    [HttpStep(method="GET", path=route.path, user=u.username, query={"page_size": PAGE})],
                    IdsAmong(forbidden=forbidden, required=expected[:5], exact=expected)))
        return out

    def searches(self) -> list[Claim]:
        out: list[Claim] = []
        for e in self.owned():
            route = self.route("list", e.name)
            if route is None or not e.search_fields:
                continue
            holders = self.holders(e)
            if not holders:
                continue
            u = holders[0]
            found = self._search_word(e, u.id)
            if found is None:
                continue
            word, mine, theirs = found
            expected = self.page(e, mine)
            out.append(self.claim(
                f"ownership:search:{e.name}@{u.username}", "ownership_search",
                f"routes[{route.operation_id}], entities[{e.name}].search_fields",
                f"{u.username} searching {e.plural.lower()} for {word!r} (taken from another user's row) finds "
                f"exactly their own {len(mine)} of the matches, none of the other users' {len(theirs)}",
                [HttpStep(method="GET", path=route.path, user=u.username, query={"q": word, "page_size": PAGE})],
                IdsAmong(forbidden=spread(theirs), required=expected[:5], exact=expected)))
        return out

    def _search_word(self, e: EntitySpec, user: int) -> tuple[str, list[sqlite3.Row], list[int]] | None:
        """A word from a foreign row, preferably one that also finds some of the user's own rows
        (so an empty answer cannot pass): the word, the user's matching rows, the foreign matches."""
        mine = set(self.visible(e.name, user))
        rows = self.all_rows(e)
        haystacks = [" ".join(str(r[f]) for f in e.search_fields if r[f] is not None).translate(_ASCII_LOWER)
                     for r in rows]
        fallback: tuple[str, list[sqlite3.Row], list[int]] | None = None
        seen: set[str] = set()
        for row, text in zip(rows, haystacks, strict=True):
            if row["id"] in mine:
                continue
            for word in _WORD.findall(text):
                if word in seen:
                    continue
                seen.add(word)
                own = [r for r, h in zip(rows, haystacks, strict=True) if word in h and r["id"] in mine]
                theirs = [r["id"] for r, h in zip(rows, haystacks, strict=True) if word in h and r["id"] not in mine]
                if own and len(own) <= PAGE:
                    return word, own, theirs
                fallback = fallback or (word, own, theirs)
            if len(seen) > 400:  # enough candidates; the fallback still finds foreign rows
                break
        return fallback

    # ---- detail, update, delete ---------------------------------------------------------------
    def details(self) -> list[Claim]:
        out: list[Claim] = []
        for e in self.owned():
            for n, u in enumerate(self.holders(e)[:STRANGERS]):
                foreign = self.foreign(e, u.id)
                if not foreign:
                    continue
                # each stranger gets a different foreign row: the first, then one from the middle
                rid = foreign[len(foreign) // 2 if n % 2 else 0]
                read = self.route("read", e.name)
                if read is not None:
                    out.append(self.claim(
                        f"ownership:read:{e.name}@{u.username}", "ownership_read",
                        f"routes[{read.operation_id}], entities[{e.name}].owner_fields",
                        f"{u.username} cannot read another user's {e.label.lower()} {rid} (404)",
                        [HttpStep(method="GET", path=read.path.replace("{id}", str(rid)), user=u.username)],
                        StatusIs(status=404)))
                writes: tuple[tuple[str, Literal["PATCH", "DELETE"]], ...] = (("update", "PATCH"), ("delete", "DELETE"))
                for kind, method in writes:
                    route = self.route(kind, e.name)
                    if route is None or route.method != method:
                        continue
                    body = self._change(e) if kind == "update" else None
                    out.append(self.claim(
                        f"ownership:{kind}:{e.name}@{u.username}", "ownership_write",
                        f"routes[{route.operation_id}], entities[{e.name}].owner_fields",
                        f"{u.username} cannot {kind} another user's {e.label.lower()} {rid}: 404 and nothing changes",
                        [HttpStep(method=method, path=route.path.replace("{id}", str(rid)), user=u.username, body=body)],
                        RejectedUnchanged(status=404), fresh=True))
        return out

    @staticmethod
    def _change(e: EntitySpec) -> dict[str, Any]:
        """A valid edit of one field, so that an update let through would show in the row diff."""
        for f in e.fields:
            if not f.editable:
                continue
            if f.type in ("string", "text"):
                return {f.column: "Changed by the ownership check"[: f.max_length or 200]}
            if f.type == "enum" and f.values:
                return {f.column: f.values[-1]}
        return {}

    # ---- filter options of an entity's list ---------------------------------------------------------
    def filter_options(self) -> list[Claim]:
        out: list[Claim] = []
        for e in self.owned():
            route = self.route("options", e.name)
            if route is None:
                continue
            holders = self.holders(e)
            for flt in e.filters:
                if flt.kind not in ("select", "reference", "bool"):
                    continue  # ranges have no value list to leak
                for u in holders[: STRANGERS if flt.kind == "reference" else 1]:
                    out.append(self._filter_claim(e, flt, u, route.operation_id))
        return out

    def _filter_claim(self, e: EntitySpec, flt: FilterSpec, u: UserSpec, operation: str) -> Claim:
        column = flt.param  # reference filters name the `<field>_id` column
        counts: dict[Any, int] = {}
        for r in self.ctx.visible_rows(e, u.id):
            if r[column] is not None:
                counts[r[column]] = counts.get(r[column], 0) + 1
        as_json = (lambda v: bool(v)) if flt.kind == "bool" else (lambda v: v)
        entries = [{"value": as_json(v), "count": counts[v]} for v in sorted(counts)]
        forbidden: list[Any] = []
        if flt.kind == "reference":
            mine = set(self.visible(e.name, u.id))
            theirs = sorted({r[column] for r in self.all_rows(e) if r["id"] not in mine and r[column] is not None} - set(counts))
            forbidden = spread(theirs)
        text = (f"{u.username}'s {flt.label} filter on {e.plural.lower()} offers exactly the values of their own rows "
                f"with their counts ({len(entries)} value{'' if len(entries) == 1 else 's'})")
        if forbidden:
            text += f", none of the other users' rows such as {forbidden[:3]}"
        return self.claim(f"ownership:options:{e.name}.{flt.field}@{u.username}", "ownership_filter_options",
                          f"routes[{operation}], entities[{e.name}].filters[{flt.field}]", text,
                          [HttpStep(method="GET", path=f"/api/{e.path}/options/{flt.field}", user=u.username)],
                          EntriesAre(field="values", keys=["value", "count"], entries=entries, forbidden=forbidden))

    # ---- workflow option lists ------------------------------------------------------------------
    def offered(self, wf: WorkflowSpec, p: ParamSpec, user: int, ids: list[int] | None = None) -> list[int] | None:
        """Which of `ids` (default: the user's visible rows) pass the parameter's option filter, in
        id order; None when the filter cannot be worked out."""
        assert p.ref is not None
        candidates = self.visible(p.ref, user) if ids is None else ids
        key = (wf.name, p.name)
        if key not in self._filters:
            self._filters[key] = self._filter_of(p)
        passes = self._filters[key]
        return None if passes is None else passes(user, candidates)

    def _filter_of(self, p: ParamSpec) -> Callable[[int, list[int]], list[int]] | None:
        assert p.ref is not None
        target = self.spec.entity(p.ref)
        if p.where:
            source = p.where
            try:
                node: Node = parse(source)
                check(source, node, Scope(self.schema, {"it": Type("ref", entity=p.ref), "me": Type("ref", entity="user")}),
                      BOOL)
            except ExpressionError:
                return None

            def by_interpreter(user: int, ids: list[int]) -> list[int]:
                table = self.rows.table(target.name)
                interp = Interpreter(self.rows, {"me": Ref("user", user)}, self.today, source)
                # SQL's logic, as the app's option query: a NULL comparison offers nothing
                return [i for i in ids if i in table and interp.sql(node, "it", table[i]) is True]

            return by_interpreter
        if p.where_py:
            columns = {f.column for f in target.fields} | {"id"}
            where_py = p.where_py
            if compiled_filter_sql(where_py, target.model, columns, 0, self.spec.today) is None:
                return None

            def by_sql(user: int, ids: list[int]) -> list[int]:
                condition = compiled_filter_sql(where_py, target.model, columns, user, self.spec.today)
                passing = {r[0] for r in self.ctx.rows.conn.execute(f'SELECT id FROM "{target.table}" WHERE {condition}')}
                return [i for i in ids if i in passing]

            return by_sql
        return lambda user, ids: list(ids)

    def param_options(self) -> list[Claim]:
        out: list[Claim] = []
        for wf in self.spec.workflows:
            if wf.system:
                continue
            for p in wf.params:
                if p.type != "reference" or p.ref is None:
                    continue
                path = f"{wf.path}/options/{p.name}"
                if not any(r.kind == "param_options" and r.path == path for r in self.spec.routes):
                    continue
                out += self._param_option_claims(wf, p, path)
        return out

    def _param_option_claims(self, wf: WorkflowSpec, p: ParamSpec, path: str) -> list[Claim]:
        assert p.ref is not None
        target = self.spec.entity(p.ref)
        owned = target.visibility == "owner" and not target.builtin
        runners = [u for u in self.spec.users if may_run(self.spec, wf, u.id)]  # others are refused (roles.py)
        try:
            offers = {u.id: self.offered(wf, p, u.id) for u in runners}
        except PredictionError:
            offers = {u.id: None for u in runners}
        # users whose form offers something first: their own eligible rows must be present
        users = [u for u in runners if offers[u.id]] + [u for u in runners if not offers[u.id]]
        out: list[Claim] = []
        for u in users[:STRANGERS]:
            expected = offers[u.id]
            foreign = self.foreign(target, u.id) if owned else []
            try:
                eligible = self.offered(wf, p, u.id, foreign) if foreign else []
            except PredictionError:
                eligible = None
            # a leak would offer the foreign rows that pass the filter; name those first
            forbidden = spread(eligible) if eligible else spread(foreign)
            if expected is None:
                text = (f"{u.username}'s {p.label} options for {wf.label.lower()} name none of the other users' "
                        f"{target.plural.lower()} (the option filter could not be worked out)")
                predicate = IdsAmong(forbidden=forbidden)
            else:
                text = (f"{u.username}'s {p.label} options for {wf.label.lower()} are exactly their "
                        f"{rows_of(len(expected), target)} the form may offer" + (f" (`{p.where}`)" if p.where else "")
                        + (f", none of the other users' such as {forbidden[:3]}" if forbidden else ""))
                predicate = IdsAmong(forbidden=forbidden, required=expected[:5], exact=expected)
            out.append(self.claim(f"ownership:param_options:{wf.name}.{p.name}@{u.username}", "ownership_param_options",
                                  f"workflows[{wf.name}].params[{p.name}]" + (".where" if p.where or p.where_py else ""),
                                  text, [HttpStep(method="GET", path=path, user=u.username)], predicate))
        return out

    # ---- workflow calls with a foreign row ------------------------------------------------------
    def workflow_references(self) -> list[Claim]:
        out: list[Claim] = []
        for wf in self.spec.workflows:
            if wf.system:
                continue
            for p in wf.params:
                if p.type != "reference" or p.ref is None:
                    continue
                target = self.spec.entity(p.ref)
                if target.builtin or target.visibility != "owner":
                    continue
                found = self._foreign_call(wf, p)
                if found is None:
                    self.ctx.unwitnessed.append(f"ownership:workflow:{wf.name}.{p.name}: no user with rows for the "
                                                "other parameters and a foreign row for this one")
                    continue
                u, params, rid = found
                out.append(self.claim(
                    f"ownership:workflow:{wf.name}.{p.name}", "ownership_workflow",
                    f"workflows[{wf.name}].params[{p.name}], entities[{p.ref}].owner_fields",
                    f"{u.username} cannot {wf.label.lower()} with another user's {target.label.lower()} {rid} as "
                    f"{p.label}: refused (404) and nothing changes",
                    [HttpStep(method="POST", path=wf.path, user=u.username, body=params)],
                    RejectedUnchanged(status=404), fresh=True))
        return out

    def _foreign_call(self, wf: WorkflowSpec, p: ParamSpec) -> tuple[UserSpec, dict[str, Any], int] | None:
        """A user, a call that is valid for them in every other parameter, and another user's row
        for `p`: the only thing wrong with the call is whose row `p` names."""
        assert p.ref is not None
        target = self.spec.entity(p.ref)
        # first a user whose forms offer a row for every other parameter (so that, were the
        # foreign row let through, the call would most likely go ahead), then anyone with rows
        runners = [u for u in self.spec.users if may_run(self.spec, wf, u.id)]  # others are refused (roles.py)
        for strict, u in [(True, u) for u in runners] + [(False, u) for u in runners]:
            foreign = self.foreign(target, u.id)
            if not foreign:
                continue
            params = self._valid_call(wf, u.id, skip=p.name, strict=strict)
            if params is None:
                continue
            try:
                eligible = self.offered(wf, p, u.id, foreign) or foreign
            except PredictionError:
                eligible = foreign
            # a row its owner's form would offer: let through, the call would likely go ahead
            params[p.name] = eligible[0]
            return u, params, eligible[0]
        return None

    def _valid_call(self, wf: WorkflowSpec, user: int, skip: str, strict: bool) -> dict[str, Any] | None:
        """Parameters that pass validation for `user`, each reference naming a row of their own
        (what the form offers first, distinct rows for two parameters of one entity); `strict`
        takes only rows the form offers."""
        params: dict[str, Any] = {}
        used: set[tuple[str, int]] = set()
        for q in wf.params:
            if q.range_of is not None:
                continue
            if q.range_end is not None:
                params[q.name], params[q.range_end] = range_candidates(self.today, q.type)[0]
            elif q.type == "reference" and q.ref is not None:
                if q.name == skip:
                    params[q.name] = None  # filled by the caller, kept in the declared order
                    continue
                try:
                    offered = self.offered(wf, q, user) or []
                except PredictionError:
                    offered = []
                choices = offered if strict else offered + [i for i in self.visible(q.ref, user) if i not in offered]
                fresh = [i for i in choices if (q.ref, i) not in used]
                if not fresh:
                    if q.required:
                        return None
                    params[q.name] = None
                    continue
                params[q.name] = fresh[0]
                used.add((q.ref, fresh[0]))
            else:
                values = scalar_candidates(q, self.today)
                params[q.name] = values[0] if values else None
        return params
