"""Faults in reading rows: visibility without the owner check, a filter that is ignored, pagination stuck on page one."""

from __future__ import annotations

import ast
import random
import re
import sqlite3
from contextlib import closing
from typing import Any

from factory.mutate.mutations.base import (
    Applied,
    Mutation,
    MutationError,
    Target,
    WorldView,
    match_once,
    splice,
)
from factory.mutate.mutations.pysource import char_span, meta_keyword
from factory.world.layout import BACKEND, SEED_DB

SCHEMA = f"{BACKEND}/schema.py"
ROUTERS = f"{BACKEND}/routers"


def _listed(view: WorldView) -> list[Any]:
    return [e for e in view.spec.entities if not e.builtin and "list" in e.operations]


def _keyword(view: WorldView, entity: str, name: str) -> tuple[str, ast.expr]:
    """schema.py and the value of one keyword of the entity's EntityMeta(...)."""
    text = view.read(SCHEMA)
    return text, meta_keyword(text, entity, name)


# ---------------------------------------------------------------- drop_ownership_filter


def _owned_targets(view: WorldView) -> list[Target]:
    return [Target(f"{e.name} visibility ({', '.join(e.owner_fields)})", e) for e in view.spec.entities
            if not e.builtin and e.visibility == "owner" and e.owner_fields
            and {"list", "read"} & set(e.operations)]


def _drop_ownership_filter(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    entity = target.ref
    # visible() skips the owner condition for public entities: one flag and every user reads every row.
    text, public = _keyword(view, entity.name, "public")
    if not (isinstance(public, ast.Constant) and public.value is False):
        raise MutationError(f"{SCHEMA} ({entity.name}): public= is not False; the generated code changed shape")
    view.write(SCHEMA, splice(text, *char_span(text, public), "True"))
    return Applied(f"{entity.name} rows are visible to every logged-in user: its registry entry says public=True, "
                   f"so reads skip the {'/'.join(entity.owner_fields)} owner filter ({SCHEMA})", (SCHEMA,))


# ---------------------------------------------------------------- break_list_filter


def _filter_targets(view: WorldView) -> list[Target]:
    return [Target(f"{e.name} filter {f.field}", (e, f)) for e in _listed(view) for f in e.filters]


def _wrong_param(entity: Any, flt: Any) -> str:
    """The classic mismatch: a reference filter read as `<field>` instead of `<field>_id`, else a stray prefix."""
    taken = {f.param for f in entity.filters}
    if flt.kind == "reference" and flt.param.endswith("_id") and flt.param[:-3] not in taken:
        return flt.param[:-3]
    return f"filter_{flt.param}"


def _break_list_filter(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    entity, flt = target.ref
    text, filters = _keyword(view, entity.name, "filters")
    where = f"{SCHEMA} ({entity.name} filter {flt.field})"
    # Filter(column, param, kind, parent): the one reading this parameter
    found = [n.args[1] for n in ast.walk(filters) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == "Filter" and len(n.args) >= 3 and getattr(n.args[1], "value", None) == flt.param
             and getattr(n.args[2], "value", None) == flt.kind]
    if len(found) != 1:
        raise MutationError(f"{where}: anchor Filter(..., {flt.param!r}, {flt.kind!r}, ...) found {len(found)} times; "
                            "the generated code changed shape")
    wrong = _wrong_param(entity, flt)
    view.write(SCHEMA, splice(text, *char_span(text, found[0]), repr(wrong)))
    asked = f"{flt.param}_min/_max" if flt.kind in ("range", "date_range") else flt.param
    return Applied(f"{entity.name} list ignores ?{asked}=: the filter reads {wrong!r} instead ({SCHEMA})", (SCHEMA,))


# ---------------------------------------------------------------- break_pagination

_FORWARD = "    return list_rows(session, META, user, dict(request.query_params))\n"
_DROP_PAGE = '    return list_rows(session, META, user, {k: v for k, v in request.query_params.items() if k != "page"})\n'


def _has_second_page(view: WorldView, entity: Any) -> bool:
    """Whether some user sees more rows than fit on a page: else the UI never asks for page 2."""
    columns = [f.column for f in entity.fields if f.name in entity.owner_fields]
    if entity.visibility == "public" or not columns:
        queries = [f'SELECT COUNT(*) FROM "{entity.table}"']
    else:
        queries = [f'SELECT COUNT(*) FROM "{entity.table}" GROUP BY "{c}"' for c in columns]
    with closing(sqlite3.connect(view.root / SEED_DB)) as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (entity.table,)).fetchone():
            return False
        return any(n > entity.page_size for query in queries for (n,) in conn.execute(query))


def _page_targets(view: WorldView) -> list[Target]:
    routes = {r.entity: r for r in view.spec.routes if r.kind == "list" and r.entity}
    return [Target(f"{e.name} list pagination", routes[e.name]) for e in _listed(view)
            if e.name in routes and _has_second_page(view, e)]


def _break_pagination(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    route = target.ref
    hits = [p for p in sorted((view.root / ROUTERS).glob("*.py")) if f'operation_id="{route.operation_id}"' in p.read_text()]
    if len(hits) != 1:
        raise MutationError(f"{view.root / ROUTERS}: expected one router defining {route.operation_id}, found {len(hits)}")
    rel = hits[0].relative_to(view.root).as_posix()
    text = view.read(rel)
    decorator = match_once(rf'^@router\.get\(\s*"[^"\n]*",\s*operation_id="{re.escape(route.operation_id)}"', text, rel)
    # the list function's own return, the first after its decorator
    at = text.find(_FORWARD, decorator.end())
    following = text.find("\n@router.", decorator.end())
    if at < 0 or (0 <= following < at):
        raise MutationError(f"{rel}: {route.operation_id} does not forward its query to list_rows as expected")
    view.write(rel, splice(text, at, at + len(_FORWARD), _DROP_PAGE))
    return Applied(f"GET {route.path} drops the page parameter before listing, so every page is page 1 ({rel})", (rel,))


MUTATIONS = (
    Mutation("drop_ownership_filter", "backend", _owned_targets, _drop_ownership_filter),
    Mutation("break_list_filter", "backend", _filter_targets, _break_list_filter),
    Mutation("break_pagination", "backend", _page_targets, _break_pagination),
)
