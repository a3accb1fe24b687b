"""Faults in the React app: a form without one of its fields, a page without one of its buttons.

Both edit `app/frontend/src`; `factory.mutate.run.inject` then rebuilds the bundle so the served app changes.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView, match_once, splice
from factory.world.layout import FRONTEND

SRC = f"{FRONTEND}/src"
SPEC_JS = f"{SRC}/spec.gen.js"
_SPEC_PREFIX = "export const SPEC = "


# ---------------------------------------------------------------- remove_form_field


def _field_targets(view: WorldView) -> list[Target]:
    if not (view.root / SRC / "forms").is_dir():
        return []  # a world built without its frontend has no forms to break
    # an end-of-range parameter shares its start's widget, so the start stands for both
    return [Target(f"{w.name} form field {p.name}", (w, p)) for w in view.spec.workflows
            if not w.system and w.form_path for p in w.params if p.range_of is None]


def _form_file(view: WorldView, workflow: str) -> str:
    hits = [p for p in sorted((view.root / SRC / "forms").glob("*.jsx"))
            if f"useWorkflowForm({json.dumps(workflow)})" in p.read_text()]
    if len(hits) != 1:
        raise MutationError(f"{view.root / SRC / 'forms'}: expected one form for {workflow}, found {len(hits)}")
    return hits[0].relative_to(view.root).as_posix()


def _remove_form_field(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, param = target.ref
    rel = _form_file(view, workflow.name)
    text = view.read(rel)
    match = match_once(rf"^ *<\w+ form=\{{form\}} param=\{{{re.escape(json.dumps(param.name))}\}}[^\n]*/>\n", text, rel)
    view.write(rel, splice(text, match.start(), match.end(), ""))
    return Applied(f"the {workflow.name} form no longer renders its {param.label!r} field "
                   f"(field-{workflow.name}-{param.name}) ({rel})", (rel,))


# ---------------------------------------------------------------- remove_button


def _dump(model: dict[str, Any]) -> str:
    """spec.gen.js exactly as the frontend compiler writes it (sorted, indented JSON in a JS module)."""
    body = json.dumps(model, sort_keys=True, indent=2, ensure_ascii=False).replace("</", "<\\/")
    return f"{_SPEC_PREFIX}{body};\n"


def _load_spec_js(view: WorldView) -> tuple[str, dict[str, Any], str]:
    """(text before the SPEC literal, the SPEC object, the text) of spec.gen.js, checked to round-trip."""
    text = view.read(SPEC_JS)
    at = text.find(_SPEC_PREFIX)
    if at < 0 or not text.endswith(";\n"):
        raise MutationError(f"{SPEC_JS}: no `{_SPEC_PREFIX.strip()} {{...}};` literal")
    try:
        model = json.loads(text[at + len(_SPEC_PREFIX):-2])
    except json.JSONDecodeError as exc:
        raise MutationError(f"{SPEC_JS}: the SPEC literal is not JSON ({exc})") from exc
    if _dump(model) != text[at:]:
        raise MutationError(f"{SPEC_JS}: rewriting the SPEC literal would change more than the fault")
    return text[:at], model, text


_FLAGS = (("canCreate", "new", "list page"), ("canUpdate", "edit", "detail page"), ("canDelete", "delete", "detail page"))


def _button_targets(view: WorldView) -> list[Target]:
    if not (view.root / SPEC_JS).is_file():
        return []
    _, model, _ = _load_spec_js(view)
    targets = []
    for name, entity in model.get("entities", {}).items():
        for action in entity.get("actions", []):
            targets.append(Target(f"action-{action['workflow']} button ({name} detail page)", (name, "action", action)))
        for flag, prefix, page in _FLAGS:
            if entity.get(flag) is True:
                targets.append(Target(f"{prefix}-{name} button ({name} {page})", (name, flag, None)))
    return targets


def _remove_button(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    entity, what, action = target.ref
    head, model, _ = _load_spec_js(view)
    node = model["entities"][entity]
    if what == "action":
        if action not in node["actions"]:
            raise MutationError(f"{SPEC_JS}: {entity} has no action {action['workflow']}")
        node["actions"].remove(action)
        testid = f"action-{action['workflow']}"
        how = f"the {entity} detail page lists no {action['workflow']} action"
    else:
        node[what] = False
        prefix = {flag: p for flag, p, _page in _FLAGS}[what]
        testid = f"{prefix}-{entity}"
        how = f"{entity} says {what}: false, so its button is never rendered"
    view.write(SPEC_JS, head + _dump(model))
    return Applied(f"the {testid} button is gone: {how} ({SPEC_JS})", (SPEC_JS,))


MUTATIONS = (
    Mutation("remove_form_field", "frontend", _field_targets, _remove_form_field),
    Mutation("remove_button", "frontend", _button_targets, _remove_button),
)
