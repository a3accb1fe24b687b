"""Faults in input validation at the API: a workflow parameter's rule loosened where the value enters.

Each fault edits the parameter's Rule in the WORKFLOWS table of app/backend/workflows.py and, so the
loosened value is really stored rather than refused later by the row check, the Rule of every column
the parameter is written to as is (`memo=memo`, `account.nickname = nickname`) in app/backend/schema.py:

    max_length_raised     `max_length=80` → `max_length=800`
    min_bound_removed     `min=1` → `min=None`
    max_bound_raised      `max=2500000` → `max=25000000`
    enum_extra_value      `values=('a', 'b')` gains a value from another enum of the world
    required_dropped      `required=True` → `required=False` and the parameter model's field gets `| None = None`
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Callable
from typing import Any

from factory.mutate.faults.code import routed
from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView, match_once, splice
from factory.mutate.mutations.pysource import (
    SCHEMA_PY,
    WORKFLOWS_PY,
    char_span,
    column_rule,
    compiles,
    params_class,
    parse_module,
    rule_of,
)

Edit = Callable[[str], str]  # a Rule(...) line → the loosened line


def _params(view: WorldView, keep: Callable[[Any], bool]) -> list[Target]:
    return [Target(f"{w.name}.{p.name}", (w, p)) for w in routed(view) for p in w.params if keep(p)]


def _stored_in(view: WorldView, workflow: Any, param: Any) -> list[tuple[Any, Any]]:
    """(entity, field) of every column an effect writes this parameter's value to, unchanged."""
    found: list[tuple[Any, Any]] = []
    for effect in workflow.effects:
        entity = view.entity(effect.entity)
        if effect.kind == "set" and effect.field and (effect.to or "").strip() == param.name:
            found.append((entity, entity.field_named(effect.field)))
        elif effect.kind == "create":
            found += [(entity, entity.field_named(name)) for name, source in (effect.values or {}).items()
                      if source.strip() == param.name]
    unique: dict[tuple[str, str], tuple[Any, Any]] = {(e.name, f.column): (e, f) for e, f in found}
    return list(unique.values())


def _sub(pattern: str, line: str, new: Callable[[re.Match[str]], str], where: str) -> str:
    match = match_once(pattern, line, where)
    edited = splice(line, match.start(1), match.end(1), new(match))
    if edited == line:
        raise MutationError(f"{where}: the edit changes nothing")
    return edited


def _loosen(view: WorldView, workflow: Any, param: Any, edit: Edit, also_columns: Callable[[str], bool]) -> tuple[str, ...]:
    """Apply `edit` to the parameter's rule and to the rules of the columns it is stored in that
    `also_columns` accepts (given the column's `Rule(...)` text); returns the paths written."""
    text = view.read(WORKFLOWS_PY)
    where = f"{WORKFLOWS_PY} ({workflow.name}.{param.name} rule)"
    lo, hi = rule_of(text, workflow.name, param.name, where)
    text = splice(text, lo, hi, edit(text[lo:hi]))
    compiles(WORKFLOWS_PY, text)
    view.write(WORKFLOWS_PY, text)
    paths = [WORKFLOWS_PY]
    columns = _stored_in(view, workflow, param)
    if columns:
        schema = view.read(SCHEMA_PY)
        changed = False
        for entity, field in columns:
            lo, hi = column_rule(schema, entity.name, field.column, f"{SCHEMA_PY} ({entity.name}.{field.column} rule)")
            if also_columns(schema[lo:hi]):
                schema = splice(schema, lo, hi, edit(schema[lo:hi]))
                changed = True
        if changed:
            compiles(SCHEMA_PY, schema)
            view.write(SCHEMA_PY, schema)
            paths.append(SCHEMA_PY)
    return tuple(paths)


def _number(text: str) -> float | int:
    value = ast.literal_eval(text)
    if not isinstance(value, (int, float)):
        raise MutationError(f"{text!r} is not a number")
    return value


def _columns(paths: tuple[str, ...]) -> str:
    return " and the rule of the column it is stored in" if SCHEMA_PY in paths else ""


# ---------------------------------------------------------------- max_length_raised

_MAX_LENGTH = r"\bmax_length=(\d+)"


def _max_length_raised(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, param = target.ref
    where = f"{workflow.name}.{param.name}"

    def edit(line: str) -> str:
        return _sub(_MAX_LENGTH, line, lambda m: str(int(m.group(1)) * 10), where)

    paths = _loosen(view, workflow, param, edit, lambda line: re.search(_MAX_LENGTH, line) is not None)
    return Applied(f"{where}: max_length {param.max_length} → {int(param.max_length) * 10} in its rule"
                   f"{_columns(paths)}, so over-long text is accepted and stored ({', '.join(paths)})", paths)


# ---------------------------------------------------------------- min_bound_removed

_MIN = r"\bmin=(-?[\d.]+)"


def _min_removed(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, param = target.ref
    where = f"{workflow.name}.{param.name}"

    def edit(line: str) -> str:
        return _sub(_MIN, line, lambda m: "None", where)

    paths = _loosen(view, workflow, param, edit, lambda line: re.search(_MIN, line) is not None)
    return Applied(f"{where}: the lower bound {param.min:g} is gone from its rule{_columns(paths)}, so smaller "
                   f"values reach the workflow ({', '.join(paths)})", paths)


# ---------------------------------------------------------------- max_bound_raised

_MAX = r"\bmax=(-?[\d.]+)"


def _max_raised(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, param = target.ref
    where = f"{workflow.name}.{param.name}"

    def edit(line: str) -> str:
        return _sub(_MAX, line, lambda m: repr(_number(m.group(1)) * 10), where)

    paths = _loosen(view, workflow, param, edit, lambda line: re.search(_MAX, line) is not None)
    return Applied(f"{where}: the upper bound {param.max:g} is ten times higher in its rule{_columns(paths)}, so "
                   f"larger values reach the workflow ({', '.join(paths)})", paths)


# ---------------------------------------------------------------- enum_extra_value

_VALUES = r"\bvalues=(\([^()]*\))"


def _extra_value(view: WorldView, members: list[str]) -> str:
    """A plausible stray member: the first value of another enum of the world that this one lacks."""
    pool = [v for e in view.spec.entities for f in e.fields for v in (f.values or [])]
    pool += [v for w in view.spec.workflows for p in w.params for v in (p.values or [])]
    return next((v for v in pool if v not in members), "unknown")


def _enum_extra(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, param = target.ref
    where = f"{workflow.name}.{param.name}"
    extra = _extra_value(view, list(param.values or []))

    def edit(line: str) -> str:
        def grow(match: re.Match[str]) -> str:
            members = ast.literal_eval(match.group(1))
            if not isinstance(members, tuple):
                raise MutationError(f"{where}: values={match.group(1)} is not a tuple")
            return repr((*members, extra))
        return _sub(_VALUES, line, grow, where)

    paths = _loosen(view, workflow, param, edit, lambda line: re.search(r"\bvalues=\(", line) is not None)
    return Applied(f"{where}: {extra!r} is accepted as a member of {list(param.values or [])}"
                   f"{_columns(paths)} ({', '.join(paths)})", paths)


# ---------------------------------------------------------------- required_dropped


def _required_dropped(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    workflow, param = target.ref
    where = f"{WORKFLOWS_PY} ({workflow.name}.{param.name})"
    text = view.read(WORKFLOWS_PY)
    lo, hi = rule_of(text, workflow.name, param.name, where)
    text = splice(text, lo, hi, _sub(r"\brequired=(True)\b", text[lo:hi], lambda m: "False", where))
    # the request model must stop demanding the key too, or FastAPI refuses the call before the rule runs
    model = params_class(text, workflow.name)
    classes = [n for n in parse_module(text, where).body if isinstance(n, ast.ClassDef) and n.name == model]
    fields = [n for c in classes for n in c.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
              and n.target.id == param.name and n.value is None]
    if len(fields) != 1:
        raise MutationError(f"{where}: {model} has no field `{param.name}: ...` without a default; the generated code "
                            "changed shape")
    start, end = char_span(text, fields[0].annotation)
    text = splice(text, start, end, f"{text[start:end]} | None = None")
    compiles(WORKFLOWS_PY, text)
    view.write(WORKFLOWS_PY, text)
    return Applied(f"{workflow.name}.{param.name} is optional: its rule says required=False and {model} defaults "
                   f"it to None, so a call without it reaches the workflow ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


MUTATIONS = (
    Mutation("max_length_raised", "backend", lambda v: _params(v, lambda p: p.max_length is not None),
             _max_length_raised, "a text parameter's max_length is ten times larger (80 → 800)"),
    Mutation("min_bound_removed", "backend", lambda v: _params(v, lambda p: p.min is not None),
             _min_removed, "a number parameter loses its lower bound"),
    Mutation("max_bound_raised", "backend", lambda v: _params(v, lambda p: p.max is not None),
             _max_raised, "a number parameter's upper bound is ten times higher"),
    Mutation("enum_extra_value", "backend", lambda v: _params(v, lambda p: bool(p.values)),
             _enum_extra, "an enum parameter accepts one value more"),
    Mutation("required_dropped", "backend",
             lambda v: _params(v, lambda p: p.required and p.default is None and p.type != "bool"),
             _required_dropped, "a required parameter becomes optional"),
)
