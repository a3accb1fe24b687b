"""Faults in what workflows do (app/backend/workflows.py): effects that run but store the wrong thing.

Unlike the classic suite's lost effect, every fault here leaves the effect running and writing
rows; only the value written, the column written or the row written to is wrong, as after a slip of
the pen in generated or hand-edited code:

    effect_off_by_one       a number stored one unit less (`amount` → `(amount) - 1`), a date one day late
    effect_wrong_sign       `balance - amount` → `balance + amount` (and `+` → `-`)
    effect_wrong_column     `account.balance = ...` → `account.low_balance_alert = ...` (same type)
    created_field_wrong     a created row's field from another parameter or a constant (`memo=memo` → `memo=description`)
    effect_wrong_row        an effect on the sibling row (`from_account` ↔ `to_account`, the actor ↔ a user parameter)
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from factory.mutate.faults.code import MOMENTS, NUMERIC, field_by_column, routed, same_kind
from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView, splice
from factory.mutate.mutations.pysource import (
    WORKFLOWS_PY,
    EffectLine,
    char_span,
    compiles,
    create_keywords,
    effect_line,
    node_text,
    operator_span,
    parse_line,
    set_parts,
)


@dataclass(frozen=True)
class Site:
    """One value an effect writes: a `set` effect's value (column None) or one column of a created row."""

    workflow: Any
    index: int
    column: str | None

    def name(self, what: str) -> str:
        effect = self.workflow.effects[self.index]
        where = f"`{effect.source}`" if self.column is None else f"create {effect.entity}.{self.column}"
        return f"{self.workflow.name} effect {self.index + 1} {where}: {what}"


def _values(view: WorldView) -> Iterator[tuple[Site, Any, Any]]:
    """Every value a routed workflow's effect writes, with the field written and the effect."""
    for workflow in routed(view):
        for index, effect in enumerate(workflow.effects):
            entity = view.entity(effect.entity)
            if effect.kind == "set" and effect.field:
                yield Site(workflow, index, None), entity.field_named(effect.field), effect
            elif effect.kind == "create" and effect.values is not None:
                for name in effect.values:
                    field = entity.field_named(name)
                    yield Site(workflow, index, field.column), field, effect


def _value_node(view: WorldView, site: Site) -> tuple[EffectLine, ast.expr]:
    """The effect statement and the expression it writes at this site, read from the current file."""
    line = effect_line(view, site.workflow, site.index)
    if site.column is None:
        return line, set_parts(line)[1]
    keywords = create_keywords(line)
    if site.column not in keywords:
        raise MutationError(f"{line.where()}: the created row has no {site.column}= argument")
    return line, keywords[site.column]


def _replace_value(view: WorldView, site: Site, new_value: str) -> tuple[str, str]:
    """workflows.py with the value at `site` replaced by `new_value` (old text, new file)."""
    line, node = _value_node(view, site)
    start, end = char_span(line.line, node)
    old = line.line[start:end]
    return old, line.replaced(splice(line.line, start, end, new_value))


def _write(view: WorldView, text: str) -> None:
    compiles(WORKFLOWS_PY, text)
    view.write(WORKFLOWS_PY, text)


def _owner_column(view: WorldView, effect: Any, field: Any) -> bool:
    return bool(effect.kind == "create" and field.name in view.entity(effect.entity).owner_fields)


# ---------------------------------------------------------------- effect_off_by_one


def _off_by_one_targets(view: WorldView) -> list[Target]:
    return [Target(site.name("one unit off"), site) for site, field, effect in _values(view)
            if field.type in NUMERIC + MOMENTS and not _owner_column(view, effect, field)]


def _off_by_one(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    site: Site = target.ref
    effect = site.workflow.effects[site.index]
    entity = view.entity(effect.entity)
    field = entity.field_named(effect.field) if site.column is None else field_by_column(entity, site.column)
    line, node = _value_node(view, site)
    old = node_text(line.line, node)
    if field.type in NUMERIC:
        new, what = f"({old}) - 1", "one cent less" if field.type == "money" else "one less"
    else:
        new, what = f"({old}) + timedelta(days=1)", "one day later"
    start, end = char_span(line.line, node)
    _write(view, line.replaced(splice(line.line, start, end, new)))
    return Applied(f"{site.workflow.name}: {entity.name}.{field.name} is written {what} than declared "
                   f"(`{old}` → `{new}`) ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


# ---------------------------------------------------------------- effect_wrong_sign


def _sum(node: ast.expr) -> ast.BinOp | None:
    """The outermost `a + b` or `a - b` of an expression (breadth first, so the one that decides the value)."""
    return next((n for n in ast.walk(node) if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub))), None)


def _wrong_sign_targets(view: WorldView) -> list[Target]:
    found = []
    for site, field, effect in _values(view):
        if field.type not in NUMERIC + MOMENTS or _owner_column(view, effect, field):
            continue
        value = effect.to if site.column is None else (effect.values or {}).get(field.name)
        if value is not None and ("+" in value or "-" in value):  # the seed wrote a sum or a difference
            found.append(Target(site.name("sign flipped"), site))
    return found


def _wrong_sign(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    site: Site = target.ref
    line, node = _value_node(view, site)
    binop = _sum(node)
    if binop is None:
        raise MutationError(f"{line.where()}: the written value `{node_text(line.line, node)}` adds or subtracts nothing")
    start, end = operator_span(line.line, binop.left, binop.right, r"[+-]")
    flipped = "-" if line.line[start:end] == "+" else "+"
    before = node_text(line.line, node)
    new_line = splice(line.line, start, end, flipped)
    _write(view, line.replaced(new_line))
    after = new_line[char_span(line.line, node)[0]:char_span(line.line, node)[1]]
    return Applied(f"{site.workflow.name}: `{before}` became `{after}` ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


# ---------------------------------------------------------------- effect_wrong_column


def _other_column(entity: Any, field: Any) -> Any | None:
    """The next field of the entity (in declaration order, wrapping) holding the same kind of value."""
    fields = [f for f in entity.fields if f.name not in entity.owner_fields]
    if field not in fields:
        return None
    at = fields.index(field)
    for other in fields[at + 1:] + fields[:at]:
        if other.type == field.type and same_kind(other, field) and same_kind(field, other):
            return other
    return None


def _wrong_column_targets(view: WorldView) -> list[Target]:
    found = []
    for site, field, effect in _values(view):
        if site.column is not None:
            continue
        other = _other_column(view.entity(effect.entity), field)
        if other is not None:
            found.append(Target(site.name(f"written to {other.name}"), (site, other)))
    return found


def _wrong_column(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    site, other = target.ref
    effect = site.workflow.effects[site.index]
    field = view.entity(effect.entity).field_named(effect.field)
    line = effect_line(view, site.workflow, site.index)
    attribute, _ = set_parts(line)
    if attribute.attr != field.column:
        raise MutationError(f"{line.where()}: the effect writes {attribute.attr}, the spec says {field.column}")
    start, end = char_span(line.line, attribute)
    var = node_text(line.line, attribute.value)
    _write(view, line.replaced(splice(line.line, start, end, f"{var}.{other.column}")))
    return Applied(f"{site.workflow.name}: `{effect.source}` writes {effect.entity}.{other.column} instead of "
                   f"{effect.entity}.{field.column} ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


# ---------------------------------------------------------------- created_field_wrong


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None


def _stand_in(workflow: Any, field: Any, source: str) -> tuple[str, str] | None:
    """What a careless edit writes instead of `source`: another parameter of the same kind, else a constant.

    Returns (seed expression, why) or None when nothing plausible differs from the declared value.
    """
    if field.type == "reference":
        return None  # a created row pointing at the wrong row is effect_wrong_row
    for param in workflow.params:
        if param.name != source.strip() and param.type != "reference" and same_kind(param, field):
            return param.name, f"parameter {param.name}"
    value = _literal(source)
    if field.type == "bool":
        # the seed writes booleans as true/false; anything else (an expression) gets a constant that may differ
        return ("false" if source.strip() == "true" else "true"), "a constant"
    if field.type == "enum" and field.values and isinstance(value, str) and value in field.values:
        return repr(field.values[(field.values.index(value) + 1) % len(field.values)]), "another member"
    if field.type in NUMERIC:
        return ("1" if value == 0 else "0"), "a constant"
    if field.type == "date" and source.strip() != "today()":
        return "today()", "today"
    if field.type == "datetime" and source.strip() != "now()":
        return "now()", "now"
    return None


def _python_of(stand_in: str, workflow: Any) -> str:
    """The generated-code spelling of a stand-in (parameters by variable, today()/now() from the context)."""
    if stand_in == "today()":
        return "ctx.today"
    if stand_in == "now()":
        return "ctx.now"
    if stand_in in ("true", "false"):
        return stand_in.capitalize()
    param = next((p for p in workflow.params if p.name == stand_in), None)
    return param.var if param is not None else stand_in


def _created_targets(view: WorldView) -> list[Target]:
    found = []
    for site, field, effect in _values(view):
        if site.column is None or _owner_column(view, effect, field) or effect.values is None:
            continue
        stand_in = _stand_in(site.workflow, field, effect.values[field.name])
        if stand_in is not None:
            found.append(Target(site.name(f"from {stand_in[0]}"), (site, field, stand_in)))
    return found


def _created_field_wrong(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    site, field, (stand_in, why) = target.ref
    effect = site.workflow.effects[site.index]
    old, text = _replace_value(view, site, _python_of(stand_in, site.workflow))
    _write(view, text)
    return Applied(f"{site.workflow.name}: the created {effect.entity}'s {field.name} is taken from {why} "
                   f"`{stand_in}` instead of `{effect.values[field.name]}` (`{old}`) ({WORKFLOWS_PY})", (WORKFLOWS_PY,))


# ---------------------------------------------------------------- effect_wrong_row

_ACTOR = "ctx.actor"
_STRINGS = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_ROOTS = re.compile(r"(?<![.\w])([A-Za-z_]\w*)")


def _siblings(workflow: Any) -> dict[str, str]:
    """Seed row name → the seed name of another row of the same entity the workflow holds (the first one).

    Reference parameters pair up by target entity; a user parameter pairs with the acting user (`me`).
    """
    refs = [p for p in workflow.params if p.type == "reference"]
    pairs: dict[str, str] = {}
    for p in refs:
        other = next((q for q in refs if q is not p and q.ref == p.ref), None)
        if other is not None:
            pairs[p.name] = other.name
        elif p.ref == "user":
            pairs[p.name] = "me"
    users = [p for p in refs if p.ref == "user"]
    if users:
        pairs["me"] = users[0].name
    return pairs


def _first_row(source: str, pairs: dict[str, str]) -> str | None:
    """The first row name (in source order, outside string literals) of a seed expression that has a sibling."""
    bare = _STRINGS.sub("''", source)
    return next((m.group(1) for m in _ROOTS.finditer(bare) if m.group(1) in pairs), None)


def _code(workflow: Any, name: str) -> str:
    """The generated-code spelling of a seed row name: the parameter's variable, or ctx.actor for `me`."""
    if name == "me":
        return _ACTOR
    param = next((p for p in workflow.params if p.name == name), None)
    return param.var if param is not None else name


def _wrong_row_targets(view: WorldView) -> list[Target]:
    found = []
    for workflow in routed(view):
        pairs = _siblings(workflow)
        if not pairs:
            continue
        for index, effect in enumerate(workflow.effects):
            if effect.kind == "set" and effect.target in pairs:
                site, var = Site(workflow, index, None), effect.target
            elif effect.kind == "create" and effect.values is not None:
                entity = view.entity(effect.entity)
                for name, source in effect.values.items():
                    var = _first_row(source, pairs)
                    if var is not None:
                        site = Site(workflow, index, entity.field_named(name).column)
                        found.append(Target(site.name(f"{pairs[var]} instead of {var}"),
                                            (site, _code(workflow, var), _code(workflow, pairs[var]))))
                continue
            else:
                continue
            found.append(Target(site.name(f"on {pairs[var]} instead of {var}"),
                                (site, _code(workflow, var), _code(workflow, pairs[var]))))
    return found


def _row_uses(node: ast.AST, var: str) -> list[ast.AST]:
    """Nodes naming the row `var` (a parameter variable, or `ctx.actor`)."""
    if var == _ACTOR:
        return [n for n in ast.walk(node) if isinstance(n, ast.Attribute) and n.attr == "actor"
                and isinstance(n.value, ast.Name) and n.value.id == "ctx"]
    return [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == var]


def _wrong_row(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    site, var, sibling = target.ref
    effect = site.workflow.effects[site.index]
    line, node = _value_node(view, site)
    # a set effect moves whole to the sibling row (`from_account.balance = from_account.balance - amount`
    # becomes `to_account.balance = to_account.balance - amount`, as a copy-pasted line would); a created
    # row's field reads the sibling row instead
    scope: ast.AST = parse_line(line.line, line.where()) if site.column is None else node
    uses = sorted(_row_uses(scope, var), key=lambda n: char_span(line.line, n)[0], reverse=True)
    if not uses:
        raise MutationError(f"{line.where()}: {var} is not used where the fault expects it")
    new_line = line.line
    for use in uses:  # right to left, so earlier offsets stay valid
        start, end = char_span(line.line, use)
        new_line = splice(new_line, start, end, sibling)
    _write(view, line.replaced(new_line))
    what = f"`{effect.source}`" if site.column is None else f"the created {effect.entity}'s {site.column}"
    return Applied(f"{site.workflow.name}: {what} uses {sibling} where it should use {var} ({WORKFLOWS_PY})",
                   (WORKFLOWS_PY,))


MUTATIONS = (
    Mutation("effect_off_by_one", "backend", _off_by_one_targets, _off_by_one,
             "a number written one unit less, a date one day later (`amount` → `(amount) - 1`)"),
    Mutation("effect_wrong_sign", "backend", _wrong_sign_targets, _wrong_sign,
             "a sum written as a difference or the other way round (`balance - amount` → `balance + amount`)"),
    Mutation("effect_wrong_column", "backend", _wrong_column_targets, _wrong_column,
             "a set effect writes another column of the same type of the same row"),
    Mutation("created_field_wrong", "backend", _created_targets, _created_field_wrong,
             "a created row's field is taken from another parameter or a constant"),
    Mutation("effect_wrong_row", "backend", _wrong_row_targets, _wrong_row,
             "an effect hits the sibling row (from_account ↔ to_account, the actor ↔ a user parameter)"),
)
