"""Data claims: the seed database's exact shape, and searches that must find a planted value.

Counts and totals are taken from the seed database at compile time, so each claim pins one number
the data must keep: how many rows each entity has, how many each owner has, what the money columns
add up to (per entity and per owner), and what each storyline event added. Claims stay a function
of spec + seed database (nothing here runs the app), so compiling twice gives the same bytes.

Which rows a storyline event added is read from the spec, not from a replay: the event's compiled
parameters (`params_py`, plain literals or `rand_choice` over literals) and its workflow's `create`
values (literals, parameters, `today()`) give, per column, the values its rows can hold; columns a
storyline `set` may change later are left out. Events whose rows match each other's signatures
cannot be told apart and are claimed together.

Searches plant a unique token into one visible row's searchable field (on the claim's own database
copy) and ask the list route for it: a field dropped from the app's search is then caught even when
no seed row has a value worth searching for.
"""

from __future__ import annotations

import ast
import datetime as dt
import hashlib
import logging
import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from factory.claims.context import ClaimContext
from factory.claims.model import Claim, HttpGetter, HttpStep, ListIs, NoRows, SqlGetter
from factory.errors import ExpressionError
from factory.expr.pycode import cents
from factory.expr.syntax import Binary, Call, Literal, Name, Node, Unary, parse
from factory.expr.typecheck import is_numeric_literal
from factory.predict.rows import money_text
from factory.spec.model import (
    EffectSpec,
    EntitySpec,
    FieldSpec,
    ParamSpec,
    Spec,
    StorySpec,
    WorkflowSpec,
)
from verifiers.sqlrender import value_literal

log = logging.getLogger(__name__)
_TEXT = ("string", "text", "email")  # the field types a search can match (the app lowers and LIKEs them)
_ANY = None  # a column whose value an event does not pin down


def data_claims(ctx: ClaimContext) -> list[Claim]:
    """Plan, counts, money totals, storyline events and planted searches, in that order."""
    return plan_claims(ctx) + count_claims(ctx) + reference_claims(ctx) + storyline_claims(ctx) + search_claims(ctx)


# ---- SQL helpers -----------------------------------------------------------------------------
def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _exactly(ctx: ClaimContext, actual: str, columns: list[str]) -> tuple[str, list[tuple[Any, ...]]]:
    """A query selecting the differences between `actual` now and what it returns on the seed
    database (computed here): rows it no longer returns are labelled 'expected', new ones 'found'.
    Both directions through EXCEPT, which compares NULLs as equal, as a group key needs."""
    rows = [tuple(r) for r in ctx.rows.conn.execute(actual)]
    cols = ", ".join(_q(c) for c in columns)
    head = f"WITH actual({cols}) AS ({actual})"
    if not rows:  # VALUES cannot be empty: every row the query returns is one too many
        return f"{head} SELECT 'found', * FROM actual", rows
    values = ", ".join("(" + ", ".join(value_literal(v) for v in row) + ")" for row in rows)
    query = (f"{head}, expected({cols}) AS (VALUES {values}) "
             "SELECT 'found', * FROM (SELECT * FROM actual EXCEPT SELECT * FROM expected) "
             "UNION ALL SELECT 'expected', * FROM (SELECT * FROM expected EXCEPT SELECT * FROM actual)")
    return query, rows


def _sql_claim(cid: str, kind: str, text: str, where: str, query: str) -> Claim:
    return Claim(id=cid, layer="db", kind=kind, description=text, provenance=where,
                 getter=SqlGetter(query=query), predicate=NoRows())


def _money(e: EntitySpec) -> list[FieldSpec]:
    return [f for f in e.fields if f.type == "money"]


def _sums(e: EntitySpec) -> str:
    return ", ".join(f"SUM({_q(f.column)})" for f in _money(e))


def _totals_text(e: EntitySpec, values: tuple[Any, ...]) -> str:
    return ", ".join(f"{f.name} {money_text(v) if v is not None else 'empty'}" for f, v in zip(_money(e), values, strict=True))


# ---- the plan --------------------------------------------------------------------------------
def plan_claims(ctx: ClaimContext) -> list[Claim]:
    """The planned rows are present (unless a storyline event may delete rows of the entity)."""
    out: list[Claim] = []
    deleted = _storyline_deletes(ctx.spec)
    for e in ctx.spec.entities:
        if e.builtin:
            continue
        planned = len(ctx.spec.seed_plan.rows_of(e.name))
        if planned and e.name not in deleted:
            out.append(_sql_claim(f"state:plan:{e.name}", "db_plan", f"the {planned} planned {e.plural.lower()} are present",
                                  f"seed_plan.tables[{e.name}]",
                                  f"SELECT 'missing' WHERE (SELECT COUNT(*) FROM {_q(e.table)} "
                                  f"WHERE id <= {planned}) < {planned}"))
    return out


def _storyline_deletes(spec: Spec) -> set[str]:
    workflows = {w.name: w for w in spec.workflows}
    return {eff.entity for event in spec.storyline for eff in workflows[event.workflow].effects if eff.kind == "delete"}


# ---- counts and money totals -------------------------------------------------------------------
def count_claims(ctx: ClaimContext) -> list[Claim]:
    """Exact row counts and money totals, per entity and per owner (each owner field)."""
    out: list[Claim] = []
    for e in ctx.spec.entities:
        t = _q(e.table)
        where = f"entities[{e.name}]"
        query, rows = _exactly(ctx, f"SELECT COUNT(*) FROM {t}", ["n"])
        total = rows[0][0]
        out.append(_sql_claim(f"data:count:{e.name}", "db_count", f"there are exactly {total} {e.plural.lower()}", where, query))
        if total == 0:
            continue  # nothing to split by owner or to add up: the count says it all
        if _money(e):
            query, rows = _exactly(ctx, f"SELECT {_sums(e)} FROM {t}", [f"sum_{f.column}" for f in _money(e)])
            out.append(_sql_claim(f"data:sum:{e.name}", "db_sum", f"the {e.plural.lower()} add up to: {_totals_text(e, rows[0])}",
                                  where, query))
        for owner in e.owner_fields:
            key = _q(f"{owner}_id")
            query, rows = _exactly(ctx, f"SELECT {key}, COUNT(*) FROM {t} GROUP BY {key} ORDER BY {key}", [owner, "n"])
            out.append(_sql_claim(f"data:count:{e.name}:{owner}", "db_count_owner",
                                  f"each {owner} has exactly their {e.plural.lower()} ({len(rows)} {owner}s, "
                                  f"from {min(r[1] for r in rows)} to {max(r[1] for r in rows)} each)", f"{where}.owner", query))
            if _money(e):
                query, rows = _exactly(ctx, f"SELECT {key}, {_sums(e)} FROM {t} GROUP BY {key} ORDER BY {key}",
                                       [owner] + [f"sum_{f.column}" for f in _money(e)])
                out.append(_sql_claim(f"data:sum:{e.name}:{owner}", "db_sum_owner",
                                      f"each {owner}'s {e.plural.lower()} add up to their seeded totals "
                                      f"({', '.join(f.name for f in _money(e))})", f"{where}.owner", query))
    return out


def reference_claims(ctx: ClaimContext) -> list[Claim]:
    """Which row each reference points at, as one exact checksum per reference column: a card
    re-pointed at another user's account keeps every count and total, but not this sum."""
    out: list[Claim] = []
    for e in ctx.spec.entities:
        if e.builtin:
            continue
        for f in e.fields:
            if f.type != "reference":
                continue
            column = _q(f.column)
            query, rows = _exactly(ctx, f"SELECT TOTAL(id * {column}), COUNT({column}) FROM {_q(e.table)}", ["checksum", "n"])
            out.append(_sql_claim(f"data:refs:{e.name}.{f.name}", "db_refs",
                                  f"every {e.label.lower()}'s {f.label.lower()} points at the row the seed gives it "
                                  f"({rows[0][1]} references, checksum {rows[0][0]:.0f})",
                                  f"entities[{e.name}].fields[{f.name}]", query))
    return out


# ---- storyline events ------------------------------------------------------------------------
Signature = dict[str, frozenset[Any]]  # column → the values an event's rows can hold there


@dataclass
class _Event:
    """A storyline event that creates rows of one entity, with what each of its creates pins down."""

    index: int
    story: StorySpec
    signatures: list[Signature]


def storyline_claims(ctx: ClaimContext) -> list[Claim]:
    """Per storyline event (or group of events whose rows look alike), the exact number of rows it
    added and their money totals."""
    spec = ctx.spec
    workflows = {w.name: w for w in spec.workflows}
    out: list[Claim] = []
    for e in spec.entities:
        if e.builtin:
            continue
        events = [_Event(i, story, sigs) for i, story in enumerate(spec.storyline)
                  if (sigs := _signatures(spec, story, workflows[story.workflow], e))]
        if not events:
            continue
        if any(not _has_sources(workflows[ev.story.workflow], e) for ev in events):
            ctx.unwitnessed.append(f"state:storyline:*:{e.name}: the spec keeps no create sources; rebuild the world "
                                   "to claim what each storyline event added")
            continue
        beyond = _beyond_plan(spec, e)
        matched = {ev.index: {r[0] for r in ctx.rows.conn.execute(f"SELECT id FROM {_q(e.table)} WHERE {beyond} AND "
                                                                 f"({_matches(ev.signatures)})")} for ev in events}
        for group in _groups(events, matched):
            names = [ev.story.name for ev in group]
            condition = " OR ".join(f"({_matches(ev.signatures)})" for ev in group)
            columns = ["n"] + [f"sum_{f.column}" for f in _money(e)]
            select = ", ".join(["COUNT(*)"] + [f"SUM({_q(f.column)})" for f in _money(e)])
            query, rows = _exactly(ctx, f"SELECT {select} FROM {_q(e.table)} WHERE {beyond} AND ({condition})", columns)
            n = rows[0][0]
            who = f"storyline event {names[0]}" if len(names) == 1 else \
                f"storyline events {', '.join(names)} (rows alike, claimed together)"
            totals = f" ({_totals_text(e, rows[0][1:])})" if _money(e) and n else ""
            out.append(_sql_claim(f"state:storyline:{'+'.join(names)}:{e.name}", "db_storyline",
                                  f"{who} added exactly {n} {e.plural.lower()}{totals}",
                                  ", ".join(f"storyline[{ev.index}]" for ev in group), query))
        unmatched = ctx.rows.conn.execute(f"SELECT COUNT(*) FROM {_q(e.table)} WHERE {beyond} AND NOT "
                                          f"({' OR '.join(f'({_matches(ev.signatures)})' for ev in events)})").fetchone()[0]
        if unmatched:  # the per-entity counts still hold them; only the attribution is missing
            log.info("%d %s rows beyond the plan match no storyline event's signature", unmatched, e.name)
    return out


def _has_sources(wf: WorkflowSpec, e: EntitySpec) -> bool:
    return all(eff.values is not None for eff in wf.effects if eff.kind == "create" and eff.entity == e.name)


def _beyond_plan(spec: Spec, e: EntitySpec) -> str:
    """SQL: not a planned row (planned rows carry their ids in the plan)."""
    ids = sorted(int(r["id"]) for r in spec.seed_plan.rows_of(e.name) if "id" in r)
    if not ids:
        return "1"
    if ids == list(range(1, len(ids) + 1)):
        return f"id > {len(ids)}"
    return f"id NOT IN ({', '.join(map(str, ids))})"


def _groups(events: list[_Event], matched: dict[int, set[int]]) -> list[list[_Event]]:
    """Events sharing a matched row, joined (transitively), in storyline order."""
    groups: list[tuple[list[_Event], set[int]]] = []
    for ev in events:
        rows = set(matched[ev.index])
        joined = [g for g in groups if g[1] & rows]
        members = [ev]
        for g in joined:
            groups.remove(g)
            members = g[0] + members
            rows |= g[1]
        groups.append((sorted(members, key=lambda x: x.index), rows))
    return sorted((g[0] for g in groups), key=lambda g: g[0].index)


def _matches(signatures: list[Signature]) -> str:
    """SQL: a row holds values one of the signatures allows."""
    ors = []
    for sig in signatures:
        ands = []
        for column, values in sorted(sig.items()):
            known = sorted((v for v in values if v is not None), key=repr)
            parts = [f"{_q(column)} IS NULL"] if None in values else []
            if known:
                parts.append(f"{_q(column)} IN ({', '.join(value_literal(v) for v in known)})")
            ands.append(parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")")
        ors.append("(" + " AND ".join(ands) + ")" if ands else "1")
    return " OR ".join(ors)


def _signatures(spec: Spec, story: StorySpec, wf: WorkflowSpec, e: EntitySpec) -> list[Signature]:
    """Per `create` of `e` in the event's workflow, what its row holds in each column it pins down."""
    changed = _storyline_sets(spec, e)
    params = {p.name: p for p in wf.params}
    out = []
    for eff in wf.effects:
        if eff.kind != "create" or eff.entity != e.name:
            continue
        sig: Signature = {}
        for f in e.fields:
            if f.column in changed or f.name in e.owner_fields:
                continue  # changed later by the storyline, or the acting user
            values = _field_values(story, params, f, eff)
            if values is not _ANY:
                sig[f.column] = values
        out.append(sig)
    return out


def _storyline_sets(spec: Spec, e: EntitySpec) -> set[str]:
    """Columns of `e` some storyline event may change after creating the row."""
    workflows = {w.name: w for w in spec.workflows}
    return {e.field_named(eff.field).column for story in spec.storyline for eff in workflows[story.workflow].effects
            if eff.kind == "set" and eff.entity == e.name and eff.field}


def _field_values(story: StorySpec, params: dict[str, ParamSpec], f: FieldSpec, eff: EffectSpec) -> frozenset[Any] | None:
    sources = eff.values or {}
    if f.name not in sources:  # not given: the model's default, or None (as `effects._Step.create`)
        if not f.required:
            return frozenset([None])
        if f.default is not None and f.type in ("string", "text", "email", "enum", "int", "bool", "money"):
            return frozenset([_stored(f.type, round(float(f.default) * 100) if f.type == "money" else f.default)])
        return _ANY
    try:
        node = parse(sources[f.name])
    except ExpressionError:
        return _ANY
    if isinstance(node, Name) and node.id in params:
        return _param_values(story, params[node.id], f)
    if f.type == "money" and is_numeric_literal(node):
        return frozenset([cents(node)])
    if isinstance(node, Literal) and not (isinstance(node.value, (int, float)) and f.type == "money"):
        return frozenset([_stored(f.type, node.value)])
    if f.type == "date":
        shift = _today_shift(node)
        if shift is not None:
            return frozenset((dt.date.fromisoformat(d) + dt.timedelta(days=shift)).isoformat() for d in story.dates)
    return _ANY


def _today_shift(node: Node) -> int | None:
    """Days from the event's date for `today()`, `today() + days(N)` and `today() - days(N)`."""
    if isinstance(node, Call) and node.fn == "today":
        return 0
    if (isinstance(node, Binary) and node.op in ("+", "-") and isinstance(node.left, Call) and node.left.fn == "today"
            and isinstance(node.right, Call) and node.right.fn == "days" and len(node.right.args) == 1):
        arg = node.right.args[0]
        sign = -1 if isinstance(arg, Unary) else 1
        inner = arg.operand if isinstance(arg, Unary) else arg
        if isinstance(inner, Literal) and isinstance(inner.value, int) and not isinstance(inner.value, bool):
            return sign * inner.value * (1 if node.op == "+" else -1)
    return None


def _param_values(story: StorySpec, p: ParamSpec, f: FieldSpec) -> frozenset[Any] | None:
    """The values an event passes for parameter `p`, read from its compiled code: a constant or
    `ctx.rng.choice([constants])` (the generated code already holds them in storage form)."""
    code = story.params_py.get(p.name)
    if code is None:
        if p.default is None:
            return frozenset([None]) if not p.required else _ANY
        value = round(float(p.default) * 100) if p.type == "money" else p.default
        return frozenset([_stored(f.type, value)]) if f.type != "date" else _ANY
    try:
        tree = ast.parse(code, mode="eval").body
    except SyntaxError:
        return _ANY
    if isinstance(tree, ast.Constant):
        return frozenset([_stored(f.type, tree.value)])
    if (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Attribute) and tree.func.attr == "choice"
            and ast.unparse(tree.func.value) == "ctx.rng" and len(tree.args) == 1 and isinstance(tree.args[0], ast.List)
            and all(isinstance(x, ast.Constant) for x in tree.args[0].elts)):
        return frozenset(_stored(f.type, x.value) for x in tree.args[0].elts if isinstance(x, ast.Constant))
    return _ANY


def _stored(kind: str, value: Any) -> Any:
    """A Python value as SQLite holds it in a column of `kind` (bools 0/1)."""
    if isinstance(value, bool):
        return int(value)
    if kind == "money" and isinstance(value, float):
        return round(value)
    return value


# ---- searches -----------------------------------------------------------------------------------
def search_claims(ctx: ClaimContext) -> list[Claim]:
    """Per searchable field, a token planted in one visible row is found by the list route, alone."""
    out: list[Claim] = []
    for e in ctx.spec.entities:
        if e.builtin or "list" not in e.operations or not e.search_fields:
            continue
        viewer = ctx.viewer(e.name)
        rid = ctx.row_of(e, viewer.id)
        if rid is None:
            continue
        for name in e.search_fields:
            f = next((x for x in e.fields if x.name == name), None)
            if f is None or f.type not in _TEXT:
                continue
            token = _token(e.name, name, f.max_length, f.type == "email")
            if token is None:
                ctx.unwitnessed.append(f"data:search:{e.name}.{name}: max_length {f.max_length} leaves no room for a "
                                       "token found by nothing else")
                continue
            if _already_there(ctx.rows.conn, e, token):
                ctx.unwitnessed.append(f"data:search:{e.name}.{name}: the token {token!r} is already in the data")
                continue
            value = f"{token}{_EMAIL_TAIL}" if f.type == "email" else token  # a well-formed value of its type
            plant = f"UPDATE {_q(e.table)} SET {_q(f.column)} = {value_literal(value)} WHERE id = {rid}"
            out.append(Claim(id=f"data:search:{e.name}.{name}", layer="backend", kind="search_planted",
                             description=f"{e.plural}: searching for {token!r}, planted in {f.label} of {e.label.lower()} {rid}, "
                                         "finds exactly that row",
                             provenance=f"entities[{e.name}].search_fields[{name}]",
                             getter=HttpGetter(steps=[HttpStep(method="GET", path=f"/api/{e.path}", user=viewer.username,
                                                               query={"q": token, "page_size": 100})],
                                               fresh_db=True, plant=[plant]),
                             predicate=ListIs(total=1, ids=[rid])))
    return out


_EMAIL_TAIL = "@example.com"
_MIN_TOKEN = 5  # "zq" and three hex digits: shorter tokens would match ordinary words


def _token(entity: str, field: str, max_length: int | None, email: bool) -> str | None:
    """A token no ordinary value contains, short enough for the field: a planted value longer than
    `max_length` is refused by the app's own models, and the claim would test the planting, not the
    search. The readable token when it fits, else "zq" and a digest cut to fit; None when even
    `_MIN_TOKEN` characters do not."""
    token = "zqx" + re.sub(r"[^a-z0-9]", "", f"{entity}{field}".lower())
    room = None if max_length is None else max_length - (len(_EMAIL_TAIL) if email else 0)
    if room is None or len(token) <= room:
        return token
    if room < _MIN_TOKEN:
        return None
    return ("zq" + hashlib.sha256(f"{entity}.{field}".encode()).hexdigest())[:room]


def _already_there(conn: sqlite3.Connection, e: EntitySpec, token: str) -> bool:
    """Whether some row already holds the token in a search field (the claim would then find two)."""
    columns = [f.column for f in e.fields if f.name in e.search_fields]
    if not columns:
        return False
    where = " OR ".join(f"lower({_q(c)}) LIKE ?" for c in columns)
    found = conn.execute(f"SELECT 1 FROM {_q(e.table)} WHERE {where} LIMIT 1", [f"%{token}%"] * len(columns))
    return found.fetchone() is not None


__all__ = ["count_claims", "data_claims", "plan_claims", "search_claims", "storyline_claims"]
