"""Faults in who may read what: each route kind that answers rows loses its owner check, per entity or at once.

    leak_list            a list route reads with a public copy of its entity's metadata (or list_rows drops
                         `visible(...)` for every entity)
    leak_detail          a detail route loads its row by id alone (`session.get`), without `load_visible`
    leak_filter_options  a filter-options route (`/api/<entity>/options/<field>`) counts every user's rows
                         (per entity, or filter_options drops `visible(...)` for every entity)
    leak_param_options   one workflow parameter's option list (OPTION_QUERIES) drops its `visible(...)`
    leak_param_load      one workflow loads one reference parameter itself, by id, without the owner check

Only entities whose reads are filtered by owner are targets: a public entity has nothing to leak.
"""

from __future__ import annotations

import ast
import random
from typing import Any

from factory.mutate.faults.code import RUNTIME_PY, WORKFLOW_ROUTER, handler_span, owned, route, routed, router_of
from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView, replace_once, splice
from factory.mutate.mutations.pysource import (
    WORKFLOWS_PY,
    char_span,
    compiles,
    entry_part,
    import_name,
    node_text,
    parse_module,
    workflow_span,
)

_EVERY = "every entity"
_PUBLIC_COPY = "dataclasses.replace(META, public=True)"


def _write(view: WorldView, rel: str, text: str) -> None:
    compiles(rel, text)
    view.write(rel, text)


def _entities(view: WorldView, operation: str) -> list[Any]:
    return [e for e in view.spec.entities if owned(e) and operation in e.operations]


def _import_dataclasses(text: str, where: str) -> str:
    if "\nimport dataclasses\n" in text:
        return text
    return replace_once(text, "from __future__ import annotations\n\n",
                        "from __future__ import annotations\n\nimport dataclasses\n", where)


def _edit_handler(view: WorldView, operation_id: str, old: str, new: str) -> str:
    """Replace `old` by `new` inside one route handler; returns the router's path."""
    rel = router_of(view, operation_id)
    text = view.read(rel)
    start, end = handler_span(text, operation_id, rel)
    handler = replace_once(text[start:end], old, new, f"{rel} ({operation_id})")
    text = splice(text, start, end, handler)
    if "dataclasses." in new:
        text = _import_dataclasses(text, rel)
    _write(view, rel, text)
    return rel


def _entity_targets(view: WorldView, operation: str, kind: str, runtime_site: bool) -> list[Target]:
    found = [Target(f"{r.method} {r.path} ({e.name})", (e, r)) for e in _entities(view, operation)
             if (r := route(view, kind, e.name)) is not None]
    if runtime_site and found:
        found.append(Target(f"{_EVERY} ({RUNTIME_PY})", None))
    return found


# ---------------------------------------------------------------- leak_list

_LIST = "return list_rows(session, META, user, dict(request.query_params))"
_LIST_CONDS = "    conds = [visible(meta, actor), *filter_conditions(meta, params)]\n"


def _list_targets(view: WorldView) -> list[Target]:
    return _entity_targets(view, "list", "list", runtime_site=True)


def _leak_list(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    if target.ref is None:
        text = view.read(RUNTIME_PY)
        _write(view, RUNTIME_PY, replace_once(text, _LIST_CONDS, "    conds = [*filter_conditions(meta, params)]\n",
                                              f"{RUNTIME_PY} (list_rows)"))
        return Applied(f"list_rows no longer applies visible(), so every list shows every user's rows ({RUNTIME_PY})",
                       (RUNTIME_PY,))
    entity, list_route = target.ref
    rel = _edit_handler(view, list_route.operation_id, _LIST, _LIST.replace("META,", f"{_PUBLIC_COPY},"))
    return Applied(f"GET {list_route.path} lists with a public copy of the {entity.name} metadata, so it shows "
                   f"other users' {entity.plural.lower()} ({rel})", (rel,))


# ---------------------------------------------------------------- leak_detail

_DETAIL = "    return public(session, load_visible(session, META, row_id, user))\n"
_BY_ID = ("    row = session.get(META.model, row_id)\n"
          "    if row is None:\n"
          "        raise NotFound(f\"{META.label} not found\")\n"
          "    return public(session, row)\n")


def _detail_targets(view: WorldView) -> list[Target]:
    return _entity_targets(view, "read", "read", runtime_site=False)


def _leak_detail(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    entity, detail_route = target.ref
    rel = router_of(view, detail_route.operation_id)
    text = view.read(rel)
    start, end = handler_span(text, detail_route.operation_id, rel)
    text = splice(text, start, end, replace_once(text[start:end], _DETAIL, _BY_ID, f"{rel} ({detail_route.operation_id})"))
    text = import_name(text, "backend.runtime", "NotFound", rel)
    _write(view, rel, text)
    return Applied(f"GET {detail_route.path} loads the {entity.name} by id alone, so any user reads any "
                   f"{entity.label.lower()} ({rel})", (rel,))


# ---------------------------------------------------------------- leak_filter_options

_OPTIONS = "return filter_options(session, META, user, field, dict(request.query_params))"
_OPTIONS_CONDS = "    conds = [visible(meta, actor), *filter_conditions(meta, params, skip=column)]\n"


def _options_targets(view: WorldView) -> list[Target]:
    return [t for t in _entity_targets(view, "list", "options", runtime_site=True)
            if t.ref is None or t.ref[0].filters]


def _leak_filter_options(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    if target.ref is None:
        text = view.read(RUNTIME_PY)
        _write(view, RUNTIME_PY, replace_once(text, _OPTIONS_CONDS,
                                              "    conds = [*filter_conditions(meta, params, skip=column)]\n",
                                              f"{RUNTIME_PY} (filter_options)"))
        return Applied(f"filter_options no longer applies visible(): every filter's options and counts include "
                       f"other users' rows ({RUNTIME_PY})", (RUNTIME_PY,))
    entity, options_route = target.ref
    rel = _edit_handler(view, options_route.operation_id, _OPTIONS, _OPTIONS.replace("META,", f"{_PUBLIC_COPY},"))
    return Applied(f"GET {options_route.path} counts every user's {entity.plural.lower()}: its options and "
                   f"counts leak other users' values ({rel})", (rel,))


# ---------------------------------------------------------------- leak_param_options


def _option_query(text: str, workflow: str, param: str) -> ast.Call:
    """The `.where(...)` call of one OPTION_QUERIES entry's query."""
    where = f"{WORKFLOW_ROUTER} ({workflow}.{param})"
    tables = [n.value for n in parse_module(text, where).body if isinstance(n, ast.AnnAssign)
              and isinstance(n.target, ast.Name) and n.target.id == "OPTION_QUERIES" and isinstance(n.value, ast.Dict)]
    queries = [v for table in tables for k, v in zip(table.keys, table.values, strict=True)
               if isinstance(k, ast.Tuple) and [getattr(e, "value", None) for e in k.elts] == [workflow, param]]
    calls = [n for q in queries for n in ast.walk(q) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "where"]
    if len(calls) != 1:
        raise MutationError(f"{where}: expected one option query with one .where(...), found {len(calls)}")
    return calls[0]


def _param_option_targets(view: WorldView) -> list[Target]:
    return [Target(f"{w.name}.{p.name} options ({p.ref})", (w, p)) for w in routed(view) for p in w.params
            if p.type == "reference" and p.ref and owned(view.entity(p.ref))]


def _leak_param_options(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, param = target.ref
    text = view.read(WORKFLOW_ROUTER)
    where = f"{WORKFLOW_ROUTER} ({workflow.name}.{param.name})"
    call = _option_query(text, workflow.name, param.name)
    kept = [a for a in call.args if not (isinstance(a, ast.Call) and isinstance(a.func, ast.Name) and a.func.id == "visible")]
    if len(kept) == len(call.args):
        raise MutationError(f"{where}: the option query does not filter by visible(); the generated code changed shape")
    # the visibility was the only condition: the query keeps an empty where(); else the rest stays as written
    args = ", ".join(node_text(text, a) for a in kept)
    start, end = char_span(text, call)
    receiver = node_text(text, call.func.value) if isinstance(call.func, ast.Attribute) else ""
    _write(view, WORKFLOW_ROUTER, splice(text, start, end, f"{receiver}.where({args})"))
    return Applied(f"the {param.label!r} options of {workflow.name} list every user's {param.ref} rows "
                   f"(OPTION_QUERIES lost visible()) ({WORKFLOW_ROUTER})", (WORKFLOW_ROUTER,))


# ---------------------------------------------------------------- leak_param_load


def _param_load_targets(view: WorldView) -> list[Target]:
    return [Target(f"{w.name}.{p.name} ({p.ref})", (w, p)) for w in routed(view) for p in w.params
            if p.type == "reference" and p.ref and owned(view.entity(p.ref))]


def _loader(param: Any, model: str, label: str) -> str:
    """The hand-written loading a workflow does for itself: by id, with a 404 for a missing row only."""
    lines = [f"{param.var} = load_row(session, {model}, {param.var})",
             f"if {param.var} is None:",
             f"    raise NotFound({label + ' not found'!r})"]
    if not param.required:
        lines = [f"if {param.var} is not None:"] + [f"    {line}" for line in lines]
    return "".join(f"    {line}\n" for line in lines)


def _leak_param_load(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, param = target.ref
    entity = view.entity(param.ref)
    text = view.read(WORKFLOWS_PY)
    where = f"{WORKFLOWS_PY} ({workflow.name}.{param.name})"
    # 1. run() no longer loads this parameter: it leaves the reference map of the workflow's entry
    refs = entry_part(text, workflow.name, 3)
    mapping = ast.literal_eval(refs)
    if not isinstance(mapping, dict) or mapping.get(param.name) != entity.name:
        raise MutationError(f"{where}: the reference map {node_text(text, refs)} does not load {param.name} as {entity.name}")
    del mapping[param.name]
    text = splice(text, *char_span(text, refs), repr(mapping))
    # 2. the workflow function loads it itself, by id
    start, end = workflow_span(text, workflow.name)
    body = replace_once(text[start:end], "    created: dict[str, list[int]] = {}\n",
                        "    created: dict[str, list[int]] = {}\n" + _loader(param, entity.model, entity.label), where)
    text = splice(text, start, end, body)
    text = import_name(import_name(text, "backend.runtime", "NotFound", where), "backend.runtime", "load_row", where)
    _write(view, WORKFLOWS_PY, text)
    return Applied(f"{workflow.name} loads {param.name} by id without the owner check, so it acts on other users' "
                   f"{entity.plural.lower()} ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


MUTATIONS = (
    Mutation("leak_list", "backend", _list_targets, _leak_list,
             "a list route shows other users' rows"),
    Mutation("leak_detail", "backend", _detail_targets, _leak_detail,
             "a detail route answers another user's row by id"),
    Mutation("leak_filter_options", "backend", _options_targets, _leak_filter_options,
             "a filter-options route offers and counts other users' values"),
    Mutation("leak_param_options", "backend", _param_option_targets, _leak_param_options,
             "a workflow parameter's option list offers other users' rows"),
    Mutation("leak_param_load", "backend", _param_load_targets, _leak_param_load,
             "a workflow accepts another user's row as a reference parameter"),
)
