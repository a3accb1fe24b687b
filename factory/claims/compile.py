"""Claims compiler: spec + seed database → `claims.json` (routes, state, behaviour, UI).

Deterministic: claims come out in a fixed order with stable ids, and witnesses are found by a
seeded search, so compiling the same world twice gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

from factory.claims.model import (
    Claim, ClaimSet, EffectsExactly, Footprint, HttpGetter, HttpStep, InvariantGetter, ListIs, NoRows, RejectedUnchanged, SqlGetter,
    StatusIs, UiGetter, UiPasses,
)
from factory.claims.probe import Probe
from factory.claims.witness import SeedRows, Witness, WitnessSearch
from factory.manifest import read_manifest
from factory.errors import FactoryError
from factory.expr.syntax import Binary, Literal, Name, parse
from factory.spec.model import EntitySpec, Spec, WorkflowSpec

log = logging.getLogger(__name__)
CLAIMS_FILE = "claims.json"


def claims_text(claims: ClaimSet) -> str:
    """Canonical JSON of a claim set: the bytes its lock hash is taken over."""
    return json.dumps(claims.model_dump(mode="json"), indent=1, sort_keys=True) + "\n"


def claims_sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def compile_claims(world: Path) -> ClaimSet:
    """Every claim about a built world."""
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    manifest = read_manifest(world / "manifest.json")
    probe = Probe(world)
    workflows = [w for w in spec.workflows if not w.system]
    witnesses = WitnessSearch(spec, probe).search_all(workflows)
    rows = SeedRows(spec, probe.db)
    compiler = _Compiler(spec, rows, witnesses)
    claims = compiler.routes() + compiler.state() + compiler.behaviour() + compiler.ui()
    ids = [c.id for c in claims]
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, f"claim ids must be unique: {sorted(duplicates)}"
    log.info("compiled %d claims with %d probe tries", len(claims), probe.calls)
    return ClaimSet(world=spec.world, spec_sha256=manifest.spec_sha256, seed_db_sha256=manifest.seed_db_sha256,
                    claims=claims, unwitnessed=compiler.unwitnessed)


def write_claims(world: Path, claims: ClaimSet) -> str:
    """Write `claims.json` and its lock; return the lock hash."""
    text = claims_text(claims)
    (world / CLAIMS_FILE).write_text(text)
    return claims_sha256(text)


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


class _Compiler:
    def __init__(self, spec: Spec, rows: SeedRows, witnesses: dict[str, Witness]) -> None:
        self.spec, self.rows, self.witnesses = spec, rows, witnesses
        self.user = spec.users[0]
        self.other = spec.users[1] if len(spec.users) > 1 else spec.users[0]
        self.usernames = {u.id: u.username for u in spec.users}
        self.unwitnessed: list[str] = []

    # ---- routes ---------------------------------------------------------------------------
    def routes(self) -> list[Claim]:
        out: list[Claim] = []
        for route in self.spec.routes:
            path = self._concrete(route.path, route.entity)
            if path is None:
                continue
            where = f"routes[{route.operation_id}]"
            if route.method == "GET":
                anon = 401 if route.auth else 200
                out.append(self._http(f"route:{route.operation_id}:anonymous", "route_status", where,
                                      f"GET {path} answers {anon} to an anonymous visitor",
                                      [HttpStep(method="GET", path=path)], StatusIs(status=anon)))
                if route.auth:
                    out.append(self._http(f"route:{route.operation_id}:user", "route_status", where,
                                          f"GET {path} answers 200 to a logged-in user",
                                          [HttpStep(method="GET", path=path, user=self.viewer(route.entity).username)],
                                          StatusIs(status=200)))
            elif route.kind in ("create", "update", "delete", "workflow") or route.auth:
                out.append(self._http(f"route:{route.operation_id}:anonymous", "route_status", where,
                                      f"{route.method} {path} is refused (401) to an anonymous visitor",
                                      [HttpStep(method=route.method, path=path, body={})], StatusIs(status=401)))
        for page in self.spec.pages:
            path = self._concrete(page.path.replace(":id", "{id}"), page.entity)
            if path is None:
                continue
            out.append(Claim(id=f"page:{page.id}", layer="frontend", kind="page_status",
                             description=f"{path} serves the app's page", provenance=f"pages[{page.id}]",
                             getter=HttpGetter(steps=[HttpStep(method="GET", path=path)]), predicate=StatusIs(status=200, html=True)))
        out += self.lists()
        for e in self._owned_entities():
            if "read" not in e.operations:
                continue
            pair = self._owner_and_stranger(e)
            if pair is None:
                continue
            owner, stranger, rid = pair
            out.append(self._http(f"ownership:read:{e.name}", "ownership_read", f"entities[{e.name}].owner",
                                  f"{stranger.username} cannot read {owner.username}'s {e.label.lower()} {rid}",
                                  [HttpStep(method="GET", path=f"/api/{e.path}/{rid}", user=stranger.username)], StatusIs(status=404)))
        return out

    # ---- lists: pagination, filters, search and sort, with the expected rows computed in SQL -----
    def lists(self) -> list[Claim]:
        out: list[Claim] = []
        for e in self.spec.entities:
            if e.builtin or "list" not in e.operations:
                continue
            viewer = self.viewer(e.name)
            visible = self._visible_rows(e, viewer.id)
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
                ids = self._ordered_ids(rows, sort)
                size = int(query.get("page_size") or e.page_size)
                page = int(query.get("page") or 1)
                out.append(Claim(id=f"list:{e.name}:{name}", layer="backend", kind="list_query",
                                 description=f"{e.plural}: {text}", provenance=f"entities[{e.name}]",
                                 getter=HttpGetter(steps=[HttpStep(method="GET", path=f"/api/{e.path}", user=viewer.username,
                                                                   query=query)]),
                                 predicate=ListIs(total=len(rows), ids=ids[(page - 1) * size: page * size])))
        return out

    @staticmethod
    def _ordered_ids(rows: list[sqlite3.Row], sort: str) -> list[int]:
        """Row ids in the app's order: the sort column (NULLs first ascending, as SQLite), then id."""
        column, descending = sort.lstrip("-"), sort.startswith("-")

        def key(row: sqlite3.Row) -> tuple[int, Any]:
            value = row[column]
            return (0, 0) if value is None else (1, value)

        ordered = sorted(rows, key=lambda r: r["id"])
        ordered = sorted(ordered, key=key, reverse=descending)
        if descending:  # ties keep ascending ids, as the app's secondary order does
            groups: dict[Any, list[sqlite3.Row]] = {}
            for r in ordered:
                groups.setdefault(key(r), []).append(r)
            ordered = [r for k in sorted(groups, reverse=True) for r in sorted(groups[k], key=lambda r: r["id"])]
        return [r["id"] for r in ordered]

    def viewer(self, entity: str | None) -> Any:
        """The first user (personas first) who sees rows of `entity`: hosts see their listings'
        blocks, guests their trips; claims about an entity's pages are made as such a user."""
        if entity is None:
            return self.user
        e = self.spec.entity(entity)
        return next((u for u in self.spec.users if self.rows.visible_ids(e.name, u.id, limit=1)), self.user)

    def _concrete(self, path: str, entity: str | None) -> str | None:
        """Fill path parameters with values that exist for the entity's viewer."""
        if "{id}" in path:
            e = self.spec.entity(entity or "")
            rid = self._row_of(e, self.viewer(entity).id)
            if rid is None:
                return None
            path = path.replace("{id}", str(rid))
        if "{field}" in path:
            e = self.spec.entity(entity or "")
            if not e.filters:
                return None
            path = path.replace("{field}", e.filters[0].field)
        return path

    def _owner_and_stranger(self, e: EntitySpec) -> tuple[Any, Any, int] | None:
        """A user with a row of `e` and another user who must not see it."""
        candidates = self.spec.users[:8]
        for owner in candidates:
            for stranger in candidates:
                if stranger.id != owner.id:
                    rid = self._row_of(e, owner.id, exclude_user=stranger.id)
                    if rid is not None:
                        return owner, stranger, rid
        return None

    def _owned_entities(self) -> list[EntitySpec]:
        return [e for e in self.spec.entities if not e.builtin and e.visibility == "owner"]

    def _row_of(self, e: EntitySpec, user: int, exclude_user: int | None = None) -> int | None:
        visible = self.rows.visible_ids(e.name, user, limit=200)
        if exclude_user is not None:
            hidden = set(self.rows.visible_ids(e.name, exclude_user, limit=10**6))
            visible = [i for i in visible if i not in hidden]
        return visible[0] if visible else None

    def _http(self, cid: str, kind: str, where: str, text: str, steps: list[HttpStep], predicate: Any,
              fresh: bool = False) -> Claim:
        return Claim(id=cid, layer="backend", kind=kind, description=text, provenance=where,
                     getter=HttpGetter(steps=steps, fresh_db=fresh), predicate=predicate)

    # ---- state ----------------------------------------------------------------------------
    def state(self) -> list[Claim]:
        out: list[Claim] = []
        for e in self.spec.entities:
            if e.builtin:
                continue
            t = f'"{e.table}"'
            for f in e.fields:
                c = f'"{f.column}"'
                where = f"entities[{e.name}].fields[{f.name}]"
                checks: list[tuple[str, str, str]] = []
                if f.required:
                    checks.append(("required", f"{e.label}.{f.name} is never empty", f"SELECT id FROM {t} WHERE {c} IS NULL"))
                if f.ref:
                    target = f'"{self.spec.entity(f.ref).table}"'
                    checks.append(("reference", f"every {e.label}.{f.name} points at an existing {f.ref}",
                                   f"SELECT x.id FROM {t} x LEFT JOIN {target} y ON x.{c} = y.id WHERE x.{c} IS NOT NULL AND y.id IS NULL"))
                if f.values:
                    allowed = ", ".join("'" + v.replace("'", "''") + "'" for v in f.values)
                    checks.append(("enum", f"{e.label}.{f.name} is one of {', '.join(f.values)}",
                                   f"SELECT id FROM {t} WHERE {c} IS NOT NULL AND {c} NOT IN ({allowed})"))
                if f.unique:
                    checks.append(("unique", f"{e.label}.{f.name} is unique",
                                   f"SELECT {c} FROM {t} WHERE {c} IS NOT NULL GROUP BY {c} HAVING COUNT(*) > 1"))
                scale = 100 if f.type == "money" else 1
                if f.min is not None:
                    checks.append(("range_min", f"{e.label}.{f.name} ≥ {f.min}", f"SELECT id FROM {t} WHERE {c} < {round(f.min * scale)}"))
                if f.max is not None:
                    checks.append(("range_max", f"{e.label}.{f.name} ≤ {f.max}", f"SELECT id FROM {t} WHERE {c} > {round(f.max * scale)}"))
                if f.max_length is not None:
                    checks.append(("max_length", f"{e.label}.{f.name} has at most {f.max_length} characters",
                                   f"SELECT id FROM {t} WHERE length({c}) > {f.max_length}"))
                for kind, text, sql in checks:
                    out.append(Claim(id=f"state:{kind}:{e.name}.{f.name}", layer="db", kind=f"db_{kind}", description=text,
                                     provenance=where, getter=SqlGetter(query=sql), predicate=NoRows()))
            planned = len(self.spec.seed_plan.rows_of(e.name))
            if planned and e.name not in self._storyline_deletes():  # a storyline may delete planned rows
                out.append(Claim(id=f"state:plan:{e.name}", layer="db", kind="db_plan",
                                 description=f"the {planned} planned {e.plural.lower()} are present", provenance=f"seed_plan.tables[{e.name}]",
                                 getter=SqlGetter(query=f"SELECT 'missing' WHERE (SELECT COUNT(*) FROM {t} WHERE id <= {planned}) < {planned}"),
                                 predicate=NoRows()))
        for inv in self.spec.invariants:
            out.append(Claim(id=f"state:invariant:{inv.name}", layer="db", kind="db_invariant",
                             description=f"every {inv.entity}: {inv.message} (`{inv.source}`)", provenance=f"invariants[{inv.name}]",
                             getter=InvariantGetter(name=inv.name), predicate=NoRows()))
        for i, event in enumerate(self.spec.storyline):
            wf = next(w for w in self.spec.workflows if w.name == event.workflow)
            created = [eff.entity for eff in wf.effects if eff.kind == "create"]
            for entity in dict.fromkeys(created):
                e = self.spec.entity(entity)
                planned = len(self.spec.seed_plan.rows_of(entity))
                out.append(Claim(id=f"state:storyline:{event.name}:{entity}", layer="db", kind="db_storyline",
                                 description=f"storyline event {event.name} added {e.plural.lower()} beyond the plan",
                                 provenance=f"storyline[{i}]",
                                 getter=SqlGetter(query=f"SELECT 'missing' WHERE (SELECT COUNT(*) FROM \"{e.table}\" WHERE id > {planned}) = 0"),
                                 predicate=NoRows()))
        return out

    def _storyline_deletes(self) -> set[str]:
        workflows = {w.name: w for w in self.spec.workflows}
        return {eff.entity for event in self.spec.storyline for eff in workflows[event.workflow].effects if eff.kind == "delete"}

    # ---- behaviour ------------------------------------------------------------------------
    def footprint(self, wf: WorkflowSpec) -> EffectsExactly:
        witness = self.witnesses.get(wf.name)
        tables: dict[str, Footprint] = {}
        must_insert: list[str] = []
        must_delete: list[str] = []
        for eff in wf.effects:
            table = self.spec.entity(eff.entity).table
            fp = tables.setdefault(table, Footprint())
            if eff.kind == "set" and eff.field:
                column = next(f.column for f in self.spec.entity(eff.entity).fields if f.name == eff.field)
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

    def behaviour(self) -> list[Claim]:
        out: list[Claim] = []
        for wf in self.spec.workflows:
            if wf.system:
                continue
            w = self.witnesses[wf.name]
            where = f"workflows[{wf.name}]"
            steps = []
            if w.params is not None and w.user is not None:
                steps = [HttpStep(method="POST", path=wf.path, user=self.usernames[w.user], body=w.params)]
            else:
                self.unwitnessed.append(f"{wf.name}: no user could complete it on the seed data")
            out.append(self._http(f"behaviour:{wf.name}:effects", "wf_effects", where + ".effects",
                                  f"a valid {wf.label.lower()} changes exactly what its effects declare", steps,
                                  self.footprint(wf), fresh=True))
            out.append(self._http(f"behaviour:{wf.name}:anonymous", "wf_anonymous", where,
                                  f"{wf.label} is refused to anonymous visitors and changes nothing",
                                  [HttpStep(method="POST", path=wf.path, body=w.params or {})],
                                  RejectedUnchanged(status=401), fresh=True))
            if any(p.required and p.default is None for p in wf.params):
                out.append(self._http(f"behaviour:{wf.name}:validation", "wf_validation", where + ".params",
                                      f"{wf.label} without its required parameters is refused (422) and changes nothing",
                                      [HttpStep(method="POST", path=wf.path, user=self.user.username, body={})],
                                      RejectedUnchanged(status=422), fresh=True))
            for check in wf.preconditions:
                found = w.violations.get(check.id)
                if found is None:
                    reason = shadowed_by_bounds(check.source, wf)
                    self.unwitnessed.append(f"{check.id}: " + (reason or f"no call found that breaks only `{check.source}`"))
                    continue
                user, params = found
                out.append(self._http(f"behaviour:{check.id}", "wf_precondition", f"{where}.preconditions[{check.id}]",
                                      f"breaking `{check.source}` is refused with “{check.message}” and changes nothing",
                                      [HttpStep(method="POST", path=wf.path, user=self.usernames[user], body=params)],
                                      RejectedUnchanged(status=409, detail=check.message, precondition=check.id), fresh=True))
            ownership = self._ownership_call(wf, w)
            if ownership is not None:
                out.append(self._http(f"behaviour:{wf.name}:ownership", "wf_ownership", where + ".params",
                                      f"another user cannot {wf.label.lower()} on {self.usernames[w.user or 0]}'s rows",
                                      [ownership], RejectedUnchanged(status=404), fresh=True))
        return out

    def _ownership_call(self, wf: WorkflowSpec, w: Witness) -> HttpStep | None:
        if w.params is None or w.user is None:
            return None
        owned = [p for p in wf.params if p.type == "reference" and p.ref and w.params.get(p.name) is not None
                 and self.spec.entity(p.ref).visibility == "owner" and not self.spec.entity(p.ref).builtin]
        if not owned:
            return None
        for u in self.spec.users:
            if u.id == w.user:
                continue
            if all(w.params[p.name] not in self.rows.visible_ids(p.ref or "", u.id, limit=10**6) for p in owned):
                return HttpStep(method="POST", path=wf.path, user=u.username, body=w.params)
        return None

    # ---- UI -------------------------------------------------------------------------------
    def ui(self) -> list[Claim]:
        out: list[Claim] = []
        for page in self.spec.pages:
            if page.kind == "login":
                continue
            path = self._concrete(page.path.replace(":id", "{id}"), page.entity)
            if path is None:
                continue
            buttons = self._buttons(page.kind, page.entity)
            viewer = self.viewer(page.entity)
            text = f"{path} renders for {viewer.username} without console errors"
            out.append(Claim(id=f"ui:page:{page.id}", layer="frontend", kind="ui_page",
                             description=text + (f" and offers {', '.join(buttons)}" if buttons else ""),
                             provenance=f"pages[{page.id}]",
                             getter=UiGetter(script="page", user=viewer.username, args={"path": path, "buttons": buttons}),
                             predicate=UiPasses()))
        for wf in self.spec.workflows:
            if wf.system:
                continue
            w = self.witnesses[wf.name]
            if w.params is None:  # the behaviour claim already fails for the missing witness
                self.unwitnessed.append(f"ui:workflow:{wf.name}: no values that complete it")
                continue
            args: dict[str, Any] = {"workflow": wf.name, "values": w.params}
            out.append(Claim(id=f"ui:workflow:{wf.name}", layer="frontend", kind="ui_workflow",
                             description=f"{wf.label} can be completed through its form and the database shows its effects",
                             provenance=f"workflows[{wf.name}]",
                             getter=UiGetter(script="workflow", user=self.usernames.get(w.user or 0, self.user.username), args=args),
                             predicate=UiPasses(effects=self.footprint(wf))))
        out += self._capabilities()
        return out

    def _buttons(self, kind: str, entity: str | None) -> list[str]:
        """Test ids of the actions a page must offer (from the spec's workflows and operations)."""
        if entity is None:
            return []
        e = self.spec.entity(entity)
        if kind == "list":
            return [f"new-{e.name}"] if "create" in e.operations else []
        if kind != "detail":
            return []
        buttons = [f"action-{w.name}" for w in self.spec.workflows if not w.system and w.subject_entity == e.name]
        buttons += [f"{op}-{e.name}" for op, verb in (("edit", "update"), ("delete", "delete")) if verb in e.operations]
        return buttons

    def _capabilities(self) -> list[Claim]:
        out: list[Claim] = []
        for e in self.spec.entities:
            if e.builtin or "list" not in e.operations:
                continue
            user = self.viewer(e.name)
            visible = self._visible_rows(e, user.id)
            for flt in e.filters:
                if flt.kind == "date_range":
                    values = sorted(str(r[flt.param])[:10] for r in visible if r[flt.param] is not None)
                    if len(set(values)) >= 4:
                        lo, hi = values[len(values) // 4], values[(3 * len(values)) // 4]
                        if lo < hi:
                            out.append(self._ui_cap(user, f"ui:date_range:{e.name}.{flt.field}", "ui_date_range", e, flt.field,
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
                            out.append(self._ui_cap(user, f"ui:nested:{e.name}.{flt.field}", "ui_nested_filter", e, flt.field,
                                                    f"choosing {parent.label} narrows the {flt.label} filter on {e.plural}",
                                                    {"entity": e.name, "parent": parent.field, "child": flt.field, "parent_value": value}))
                            break
            if len(visible) > e.page_size:
                out.append(self._ui_cap(user, f"ui:pagination:{e.name}", "ui_pagination", e, None,
                                        f"pagination on {e.plural} reaches the last page", {"entity": e.name}))
        return out

    def _ui_cap(self, user: Any, cid: str, kind: str, e: EntitySpec, field: str | None, text: str,
                args: dict[str, Any]) -> Claim:
        script = {"ui_date_range": "date_range_filter", "ui_nested_filter": "nested_filter", "ui_pagination": "pagination"}[kind]
        where = f"entities[{e.name}].fields[{field}].filter" if field else f"entities[{e.name}].page_size"
        return Claim(id=cid, layer="frontend", kind=kind, description=text, provenance=where,
                     getter=UiGetter(script=script, user=user.username, args=args), predicate=UiPasses())  # type: ignore[arg-type]

    def _visible_rows(self, e: EntitySpec, user: int) -> list[sqlite3.Row]:
        ids = self.rows.visible_ids(e.name, user, limit=10**6)
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        return list(self.rows.conn.execute(f'SELECT * FROM "{e.table}" WHERE id IN ({marks}) ORDER BY id', ids))
