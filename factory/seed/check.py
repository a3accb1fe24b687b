"""Structural checks of a seed that a JSON Schema cannot express (names, references, cycles).

Expressions are checked later, by the builder, which type-checks them as it compiles them.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from faker import Faker

from factory.seed.derived_checks import check_derived
from factory.seed.loaded import LoadedSeed
from factory.seed.model import EntityDef, FieldDef
from factory.spec.labels import value_label

USER_FIELDS = ("username", "name", "email")
RESERVED = {"id", "label", "me", "user", "metadata", "model_config", "today", "ctx", "session"}
_SEARCHABLE = ("string", "text", "email", "enum")
_TEMPLATE_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def check_structure(loaded: LoadedSeed) -> None:
    """Raise the first structural problem of the seed as a located SeedError."""
    seed = loaded.seed
    _unique(loaded, ("users", "accounts"), [u.username for u in seed.users.accounts], "username")
    _unique(loaded, ("entities",), [e.name for e in seed.entities], "entity")
    _unique(loaded, ("workflows",), [w.name for w in seed.workflows], "workflow")
    _unique(loaded, ("tasks",), [t.name for t in seed.tasks], "task intent")
    _unique(loaded, ("storyline",), [s.name for s in seed.storyline], "storyline event")
    _unique(loaded, ("invariants",), [i.name for i in seed.invariants], "invariant")
    entities = {e.name: e for e in seed.entities}
    _check_roles(loaded)
    for ei, entity in enumerate(seed.entities):
        _check_entity(loaded, ei, entity, entities)
    _check_cycles(loaded, entities)
    check_derived(loaded)
    workflows = {w.name for w in seed.workflows}
    for wi, wf in enumerate(seed.workflows):
        _unique(loaded, ("workflows", wi, "params"), [p.name for p in wf.params], "parameter")
        params = {p.name: p for p in wf.params}
        for pi, param in enumerate(wf.params):
            where = ("workflows", wi, "params", pi)
            _check_name(loaded, where + ("name",), param.name)
            _check_typed(loaded, where, param.type, param.to, param.values, entities)
            _check_bounds(loaded, where, param.min, param.max, param.default, param.values)
            if param.range_end is not None:
                end = params.get(param.range_end)
                if end is None or end.type != param.type or param.type not in ("date", "datetime"):
                    raise loaded.error(where + ("range_end",), f"{param.range_end!r} must be another date parameter of {wf.name}")
        for ei, effect in enumerate(wf.effects):
            _check_effect_keys(loaded, ("workflows", wi, "effects", ei), effect)
        if wf.subject is not None:
            subject = params.get(wf.subject)
            if subject is None or subject.type != "reference":
                raise loaded.error(("workflows", wi, "subject"), f"{wf.subject!r} is not a reference parameter of {wf.name}")
    for ti, task in enumerate(seed.tasks):
        if task.workflow is not None and task.workflow not in workflows:
            raise loaded.error(("tasks", ti, "workflow"), f"unknown workflow {task.workflow!r}")
    for si, event in enumerate(seed.storyline):
        if event.workflow not in workflows:
            raise loaded.error(("storyline", si, "workflow"), f"unknown workflow {event.workflow!r}")
        if event.until is not None and event.until < event.start:
            raise loaded.error(("storyline", si, "until"), "ends before it starts")
        if event.start > seed.today:
            raise loaded.error(("storyline", si, "start"), f"starts after the world's today ({seed.today}): history is the past")
        if event.until is not None and event.until > seed.today:
            raise loaded.error(("storyline", si, "until"), f"runs past the world's today ({seed.today}): history is the past")


def label_warnings(loaded: LoadedSeed, tables: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Display labels that collide in the planned seed data, as `file:line: key: message` warnings.

    Two different rows one user sees under the same label ("Conference trip (Gus Moreno)" twice)
    cannot be told apart by an instruction, so the proposer passes them over. Rows are compared
    per owner for owned entities (what each owner's list shows) and all together for public ones.
    """
    warnings: list[str] = []
    for ei, entity in enumerate(loaded.seed.entities):
        rows = tables.get(entity.name, [])
        fields = {f.name: f for f in entity.fields}
        names = _TEMPLATE_FIELD.findall(entity.display) if "{" in entity.display else [entity.display]
        if not rows or any(n not in fields for n in names):
            continue
        columns = [f"{n}_id" if fields[n].type == "reference" else n for n in names]
        owners = [f"{o}_id" for o in entity.owner] if entity.visibility == "owner" else []
        seen: dict[tuple[Any, ...], list[int]] = {}
        for row in rows:
            label = tuple(row.get(c) for c in columns)
            for scope in [row.get(o) for o in owners] or [None]:
                seen.setdefault((scope, *label), []).append(int(row["id"]))
        clashes = {key: ids for key, ids in seen.items() if len(set(ids)) > 1}
        if not clashes:
            continue
        (scope, *first), ids = next(iter(sorted(clashes.items(), key=lambda kv: kv[1])))
        said = [value_label(fields[n].type, v) for n, v in zip(names, first, strict=True)]  # as the app shows it
        shown = entity.display.format(**dict(zip(names, said, strict=True))) if "{" in entity.display else said[0]
        whose = f" of one owner (user {scope})" if scope is not None else ""
        warnings.append(str(loaded.error(
            ("entities", ei, "display"),
            f"{len(clashes)} label(s) shared by different rows{whose}, e.g. rows {', '.join(map(str, sorted(set(ids))))} "
            f"are all {shown!r}; instructions cannot tell them apart: add a field that differs (a date, a status) to "
            "`display` or make the generated values distinct")))
    return warnings


_LOOKUP_OVER = re.compile(r"^\s*first\(\s*(?P<var>[a-z_][a-z0-9_]*)\s+in\s+(?P<entity>[a-z_][a-z0-9_]*)\b")


def lookup_warnings(loaded: LoadedSeed) -> list[str]:
    """Row lookups over rows each user owns that never name the acting user (`me`), as
    `file:line: key: message` warnings: `first(m in membership)` picks the first membership of
    anyone, so one member's form would fill in another member's row."""
    seed = loaded.seed
    owned = {e.name: e for e in seed.entities if e.visibility == "owner" and e.owner}
    warnings: list[str] = []
    for wi, wf in enumerate(seed.workflows):
        for pi, param in enumerate(wf.params):
            m = _LOOKUP_OVER.match(param.lookup or "")
            if m is None or m["entity"] not in owned or re.search(r"\bme\b", param.lookup or ""):
                continue
            owner = owned[m["entity"]].owner[0]
            warnings.append(str(loaded.error(
                ("workflows", wi, "params", pi, "lookup"),
                f"the lookup over {m['entity']} (rows each user owns) never names `me`, so it may pick another "
                f"user's row: add `{m['var']}.{owner} == me` to its `where`")))
    return warnings


def _check_roles(loaded: LoadedSeed) -> None:
    """Roles are names; every role a user, an entity or a workflow gives is one `users.roles` lists."""
    seed = loaded.seed
    roles = seed.users.roles
    _unique(loaded, ("users", "roles"), roles, "role")
    for ri, role in enumerate(roles):
        _check_name(loaded, ("users", "roles", ri), role)
    known = f"the roles are {', '.join(roles)}" if roles else "`users.roles` lists none"
    given: list[tuple[tuple[str | int, ...], list[str]]] = [
        (("users", "accounts", ui, "role"), [u.role]) for ui, u in enumerate(seed.users.accounts) if u.role]
    given += [(("entities", ei, "roles"), e.roles) for ei, e in enumerate(seed.entities) if e.roles]
    given += [(("workflows", wi, "roles"), w.roles) for wi, w in enumerate(seed.workflows) if w.roles]
    for path, names in given:
        for role in names:
            if role not in roles:
                raise loaded.error(path, f"unknown role {role!r} ({known})")


def _unique(loaded: LoadedSeed, path: tuple, names: Iterable[str], what: str) -> None:
    seen: set[str] = set()
    for index, name in enumerate(names):
        if name in seen:
            raise loaded.error(path + (index, "name" if what != "username" else "username"), f"duplicate {what} name {name!r}")
        seen.add(name)


def _check_effect_keys(loaded: LoadedSeed, path: tuple, effect: Any) -> None:
    """Keys that belong to another kind of effect: a `to` beside a delete would be ignored silently.

    The expressions (`to`, `values`, `when`, `for_each`, the set and delete paths) are type-checked
    by the builder, which reports each at its own line and key as well."""
    if effect.to is not None and effect.set is None:
        raise loaded.error(path + ("to",), "`to` goes with `set: <row>.<field>`")
    if effect.values is not None and effect.create is None:
        raise loaded.error(path + ("values",), "`values` goes with `create: <entity>`")


def _check_name(loaded: LoadedSeed, path: tuple, name: str) -> None:
    if keyword.iskeyword(name) or name in RESERVED:
        raise loaded.error(path, f"{name!r} is reserved; choose another name")


def _check_typed(loaded: LoadedSeed, path: tuple, kind: str, to: str | None, values: list[str] | None,
                 entities: dict[str, EntityDef]) -> None:
    if kind == "reference":
        if to is None:
            raise loaded.error(path + ("type",), "a reference needs `to: <entity>`")
        if to != "user" and to not in entities:
            known = ", ".join(["user", *sorted(entities)])
            raise loaded.error(path + ("to",), f"reference to missing entity {to!r} (entities: {known})")
    elif to is not None:
        raise loaded.error(path + ("to",), f"`to` only applies to references, not {kind}")
    if kind == "enum" and not values:
        raise loaded.error(path + ("type",), "an enum needs `values: [...]`")
    if kind != "enum" and values is not None:
        raise loaded.error(path + ("values",), f"`values` only applies to enums, not {kind}")


def _check_entity(loaded: LoadedSeed, ei: int, entity: EntityDef, entities: dict[str, EntityDef]) -> None:
    base = ("entities", ei)
    if entity.name == "user":
        raise loaded.error(base + ("name",), "'user' is built in; add people under `users:`")
    _check_name(loaded, base + ("name",), entity.name)
    _unique(loaded, base + ("fields",), [f.name for f in entity.fields], "field")
    fields = {f.name: f for f in entity.fields}
    for fi, field in enumerate(entity.fields):
        where = base + ("fields", fi)
        _check_name(loaded, where + ("name",), field.name)
        if field.name.endswith("_label") and fields.get(field.name[: -len("_label")], field).type == "reference":
            # the API sends each reference's label under `<reference>_label`; a field of that name would hide it
            raise loaded.error(where + ("name",), f"{field.name!r} collides with the label the app sends for "
                                                  f"reference {field.name[: -len('_label')]!r}; choose another name")
        _check_typed(loaded, where, field.type, field.to, field.values, entities)
        _check_bounds(loaded, where, field.min, field.max, field.default, field.values)
        if field.filter_parent is not None:
            parent = fields.get(field.filter_parent)
            if parent is None or not parent.filter or parent.name == field.name:
                raise loaded.error(where + ("filter_parent",),
                                   f"{field.filter_parent!r} is not another filter field of {entity.name}")
        if field.gen is not None:
            _check_gen(loaded, where + ("gen",), field, entity, entities)
        if field.searchable and field.type not in _SEARCHABLE:
            # the search box matches the words a row holds; a reference holds an id, a number or a
            # date is written otherwise than it is stored ("$120.50" is 12050)
            hint = "filter: true (a select of its rows)" if field.type == "reference" else "filter: true (a range)"
            raise loaded.error(where + ("searchable",), f"a {field.type} field cannot be searched (the search box "
                               f"matches text: {', '.join(_SEARCHABLE)}); use {hint}")
    for ri, row in enumerate(entity.seed.rows):
        for name, value in row.items():
            seeded = fields.get(name)
            if seeded is not None and seeded.values and value is not None and value not in seeded.values:
                raise loaded.error(base + ("seed", "rows", ri, name), f"{value!r} is not one of {', '.join(seeded.values)}")
    for oi, owner in enumerate(entity.owner):
        owner_field = fields.get(owner)
        if owner_field is None or owner_field.type != "reference" or owner_field.to != "user":
            raise loaded.error(base + ("owner", oi), f"owner {owner!r} must be a reference-to-user field of {entity.name}")
    display_fields = _TEMPLATE_FIELD.findall(entity.display) if "{" in entity.display else [entity.display]
    for name in display_fields:
        if name not in fields:
            raise loaded.error(base + ("display",), f"display names unknown field {name!r}")
    if entity.sort is not None and entity.sort.lstrip("-") not in fields:
        raise loaded.error(base + ("sort",), f"sort names unknown field {entity.sort.lstrip('-')!r}")
    if entity.visibility == "owner" and not entity.owner:
        raise loaded.error(base + ("owner",), "an entity with owner visibility needs owner fields (or visibility: public)")


def _check_bounds(loaded: LoadedSeed, path: tuple, lo: float | None, hi: float | None, default: Any,
                  values: list[str] | None) -> None:
    """min ≤ max, and a default that the field or parameter would itself accept."""
    if lo is not None and hi is not None and lo > hi:
        raise loaded.error(path + ("min",), f"min {lo:g} is above max {hi:g}")
    if default is None:
        return
    if values is not None and default not in values:
        raise loaded.error(path + ("default",), f"default {default!r} is not one of {', '.join(values)}")
    if (isinstance(default, (int, float)) and not isinstance(default, bool)
            and ((lo is not None and default < lo) or (hi is not None and default > hi))):
        raise loaded.error(path + ("default",), f"default {default} is outside [{lo}, {hi}]")


@lru_cache(maxsize=1)
def _faker() -> Faker:
    return Faker("en_US")


def _check_gen(loaded: LoadedSeed, path: tuple, field: FieldDef, entity: EntityDef, entities: dict[str, EntityDef]) -> None:
    """Generation rules that would only fail (or silently break a constraint) when the database is built."""
    gen = field.gen
    assert gen is not None
    if gen.faker is not None and not hasattr(_faker(), gen.faker):
        raise loaded.error(path + ("faker",), f"unknown Faker provider {gen.faker!r} (e.g. name, company, city, sentence, word)")
    if gen.pool is not None:
        if field.type not in ("string", "text"):
            raise loaded.error(path + ("pool",), f"`pool` applies to string and text fields, not {field.type}")
        if not gen.pool or any(not isinstance(v, str) or not v.strip() for v in gen.pool):
            raise loaded.error(path + ("pool",), "a pool needs at least one non-empty phrase")
        if gen.faker is not None or gen.choices is not None or gen.template is not None:
            raise loaded.error(path + ("pool",), "use one of pool, faker, choices or template, not several")
    if gen.choices is not None and field.values is not None:
        wrong = [c for c in gen.choices if c not in field.values]
        if wrong:
            raise loaded.error(path + ("choices",), f"{wrong[0]!r} is not one of {', '.join(field.values)}")
    if gen.weights is not None and (gen.choices is None or len(gen.weights) != len(gen.choices)):
        raise loaded.error(path + ("weights",), "weights need one number per choice")
    if gen.copy_from is not None:
        ref_name, _, attr = gen.copy_from.partition(".")
        ref = next((f for f in entity.fields if f.name == ref_name and f.type == "reference"), None)
        if ref is None:
            raise loaded.error(path + ("copy_from",), f"{ref_name!r} is not a reference field of {entity.name}")
        target_fields = (set(USER_FIELDS) | {"id"} if ref.to == "user"
                         else {f.name for f in entities[ref.to or ""].fields} | {"id"})
        if attr not in target_fields:
            raise loaded.error(path + ("copy_from",), f"{ref.to} has no field {attr!r}")


def _check_cycles(loaded: LoadedSeed, entities: dict[str, EntityDef]) -> None:
    """Required references must form no cycle, or no row could ever be created first."""
    edges = {name: [(fi, f.to) for fi, f in enumerate(e.fields) if f.type == "reference" and f.required and f.to != "user"]
             for name, e in entities.items()}
    state: dict[str, int] = {}
    order = list(entities)

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for fi, target in edges[name]:
            if state.get(target or "") == 1:
                cycle = " → ".join(trail[trail.index(target):] + [target]) if target in trail else f"{name} → {target}"
                ei = order.index(name)
                raise loaded.error(("entities", ei, "fields", fi, "to"),
                                   f"required reference cycle {cycle}; make one of them `required: false`")
            if state.get(target or "") is None and target in edges:
                visit(target, trail + [target])
        state[name] = 2

    for name in order:
        if name not in state:
            visit(name, [name])
