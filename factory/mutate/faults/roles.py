"""Faults in who may do what by role: a role's lock forgotten on the server or in the pages.

    workflow_role_dropped   one workflow's entry is gone from workflows.py's ROLES table, so every role
                            may run it (an employee approves their own report)
    entity_role_opened      one entity's EntityMeta says `roles=()`, so every role lists, reads and adds to it
    role_link_shown         one navigation link or quick action for some roles loses its `roles` in the
                            frontend's view model (spec.gen.js), so every role is offered it

Only a world whose seed names roles has targets. The server-side kinds leave the pages as they were,
and the page-side kind leaves the server as it was: each side is claimed on its own (`claims/roles.py`
over HTTP, `claims/browser.py` in Chromium).
"""

from __future__ import annotations

import ast
import random
from typing import Any

from factory.mutate.faults.code import routed
from factory.mutate.faults.frontend import SPEC_JS, read_spec, render_spec, spec_or_none
from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView, splice
from factory.mutate.mutations.pysource import SCHEMA_PY, WORKFLOWS_PY, char_span, compiles, meta_keyword, parse_module

# ---------------------------------------------------------------- workflow_role_dropped


def _roles_table(text: str) -> ast.Dict:
    """The value of `ROLES: dict[...] = {...}` in workflows.py: workflow name → the roles that may run it."""
    for node in parse_module(text, WORKFLOWS_PY).body:
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "ROLES"
                and isinstance(node.value, ast.Dict)):
            return node.value
    raise MutationError(f"{WORKFLOWS_PY}: no `ROLES = {{...}}` table; the generated code changed shape")


def _workflow_targets(view: WorldView) -> list[Target]:
    return [Target(f"{w.name} ({', '.join(w.roles)})", w) for w in routed(view) if w.roles]


def _drop_workflow_role(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow = target.ref
    text = view.read(WORKFLOWS_PY)
    table = _roles_table(text)
    keys = [k for k in table.keys if isinstance(k, ast.Constant) and k.value == workflow.name]
    if len(keys) != 1:
        raise MutationError(f"{WORKFLOWS_PY} (ROLES): {workflow.name!r} not found once; the generated code changed shape")
    key = keys[0]
    value = table.values[table.keys.index(key)]
    start, end = char_span(text, key)[0], char_span(text, value)[1]
    if text[end:end + 1] == ",":  # the entry's own comma goes with it
        end += 1
    # the entry's whole line when it has one to itself, so the table stays as the formatter lays it out
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip() == "" and text[end:end + 1] == "\n":
        start, end = line_start, end + 1
    text = splice(text, start, end, "")
    compiles(WORKFLOWS_PY, text)
    view.write(WORKFLOWS_PY, text)
    return Applied(f"{workflow.name} is no longer limited to the {' or '.join(workflow.roles)} role, so every role "
                   f"may run it ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


# ---------------------------------------------------------------- entity_role_opened


def _entity_targets(view: WorldView) -> list[Target]:
    return [Target(f"{e.name} ({', '.join(e.roles)})", e) for e in view.spec.entities if e.roles and not e.builtin]


def _open_entity(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    entity = target.ref
    text = view.read(SCHEMA_PY)
    value = meta_keyword(text, entity.name, "roles")
    if not isinstance(value, ast.Tuple) or not value.elts:
        raise MutationError(f"{SCHEMA_PY} ({entity.name}): roles= is not a non-empty tuple; the generated code "
                            "changed shape")
    text = splice(text, *char_span(text, value), "()")
    compiles(SCHEMA_PY, text)
    view.write(SCHEMA_PY, text)
    return Applied(f"{entity.plural} are no longer kept to the {' or '.join(entity.roles)} role: every role lists, "
                   f"reads and adds them ({SCHEMA_PY})", (SCHEMA_PY,))


# ---------------------------------------------------------------- role_link_shown

# The view model's lists of links a home page offers: its navigation and its quick actions.
_LINK_LISTS = ("nav", "actions")


def _link_name(item: dict[str, Any]) -> str:
    return str(item.get("label") or item.get("workflow") or item.get("entity") or item.get("path") or "?")


def _link_targets(view: WorldView) -> list[Target]:
    model = spec_or_none(view)
    if model is None:
        return []
    found = []
    for key in _LINK_LISTS:
        for index, item in enumerate(model.get(key) or []):
            if isinstance(item, dict) and item.get("roles"):
                found.append(Target(f"{key}[{index}] {_link_name(item)} ({', '.join(item['roles'])})", (key, index)))
    return found


def _show_link(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    key, index = target.ref
    head, model = read_spec(view)
    items = model.get(key)
    if not isinstance(items, list) or index >= len(items) or not isinstance(items[index], dict) \
            or not items[index].get("roles"):
        raise MutationError(f"{SPEC_JS}: {key}[{index}] holds no link limited to roles")
    item = items[index]
    roles = item.pop("roles")
    view.write(SPEC_JS, head + render_spec(model))
    where = "navigation" if key == "nav" else "quick actions"
    return Applied(f"the home page's {where} offer {_link_name(item)!r} to every role, not only to the "
                   f"{' or '.join(roles)} role ({SPEC_JS})", (SPEC_JS,))


MUTATIONS = (
    Mutation("workflow_role_dropped", "backend", _workflow_targets, _drop_workflow_role,
             "a workflow for some roles may be run by every role (its ROLES entry is gone)"),
    Mutation("entity_role_opened", "backend", _entity_targets, _open_entity,
             "an entity kept to some roles is listed, read and added to by every role"),
    Mutation("role_link_shown", "frontend", _link_targets, _show_link,
             "a navigation link or quick action for some roles is offered to every role"),
)
