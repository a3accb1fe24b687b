"""What the builder compiles for derived values: computed fields, row lookups as parameter
defaults, and precondition messages with `{expression}` holes.

Each function takes the builder's shared pieces (the located-error seed, the expression schema and
a code generator) and returns spec parts; `factory.builder.build` calls them and keeps its own
flow. Nothing here changes what a seed without these constructs builds.
"""

from __future__ import annotations

from collections.abc import Callable

from factory.errors import ExpressionError
from factory.expr.pycode import PyGen, py_str
from factory.expr.syntax import Attr, Name, Node, Query, parse
from factory.expr.template import Hole, display_kind, has_holes, split_template
from factory.expr.typecheck import Schema, Scope, Type, check, field_type
from factory.seed.loaded import LoadedSeed
from factory.seed.model import EntityDef, FieldDef, ParamDef, Seed, WorkflowDef
from factory.spec.model import FieldSpec


def stored_seed(seed: Seed) -> Seed:
    """The seed with its computed fields left out: what the seed-data plan, the look and the home page
    see (a computed field has no column to fill, show by default or sort on)."""
    if not any(f.compute for e in seed.entities for f in e.fields):
        return seed
    entities = [e.model_copy(update={"fields": [f for f in e.fields if f.compute is None]}) for e in seed.entities]
    return seed.model_copy(update={"entities": entities})


def add_computed_types(schema: Schema, seed: Seed) -> None:
    """Computed fields in the expression schema, marked so a query's SQL refuses them."""
    for entity in seed.entities:
        for f in entity.fields:
            if f.compute is not None:
                base = field_type(f.type, f.to, f.values)
                schema[entity.name][f.name] = Type(base.kind, base.entity, base.values, computed=True)


def row_scope(schema: Schema, entity: EntityDef, models: dict[str, str]) -> tuple[Scope, dict[str, str], set[str]]:
    """What a computed field's expression may name: the row's stored fields by name, `id`, and the row
    itself by its entity's name; with each name's code (the row is `row`) and the names that may be None."""
    names: dict[str, Type] = {}
    code: dict[str, str] = {"id": "row.id", entity.name: "row"}
    maybe: set[str] = {"id"}
    for f in entity.fields:
        if f.compute is not None:
            continue
        names[f.name] = field_type(f.type, f.to, f.values)
        if f.type == "reference":
            code[f.name] = f"load_row(session, {models[f.to or '']}, row.{f.name}_id)"
            maybe.add(f.name)
        else:
            code[f.name] = f"row.{f.name}"
            if not f.required:
                maybe.add(f.name)
    scope = Scope(schema, {"id": Type("int"), entity.name: Type("ref", entity=entity.name), **names})
    return scope, code, maybe


def computed_field(loaded: LoadedSeed, schema: Schema, models: dict[str, str], entity: EntityDef, f: FieldDef,
                   path: tuple, gen_of: Callable[[dict[str, str], set[str]], PyGen], base: FieldSpec) -> FieldSpec:
    """The spec of one computed field: its expression checked over the row and compiled."""
    assert f.compute is not None
    scope, code, maybe = row_scope(schema, entity, models)
    want = field_type(f.type, f.to, f.values)
    try:
        node = parse(f.compute)
        check(f.compute, node, scope, want, True)
    except ExpressionError as exc:
        raise loaded.error(path + ("compute",), str(exc)) from exc
    gen = gen_of(code, maybe)
    gen.ctx = "CLOCK"  # read outside any request: the world's frozen clock (`backend/derived.py`)
    # a reference field compared inside a query is its id column, not its loaded row
    gen.ref_ids = {f_.name: f"row.{f_.name}_id" for f_ in entity.fields if f_.type == "reference" and f_.compute is None}
    gen.ref_ids[entity.name] = "row.id"
    python = gen.expr(node, want)
    return base.model_copy(update={"compute": f.compute, "compute_py": python, "editable": False, "unique": False,
                                   "required": not gen.maybe_none(node),
                                   "default": None, "min": None, "max": None, "max_length": None, "copy_of": None})


def money_field(node: Node, entities: dict[str, EntityDef]) -> FieldDef | None:
    """The money field an amount is read from (`fine.amount`), when it is one."""
    if not (isinstance(node, Attr) and node.obj.type is not None and node.obj.type.kind == "ref"):
        return None
    entity = entities.get(node.obj.type.entity or "")
    return next((f for f in entity.fields if f.name == node.name), None) if entity else None


def param_currency(wf: WorkflowDef, param: ParamDef, entities: dict[str, EntityDef]) -> str | None:
    """The currency of a money parameter: its own, else that of the one field with a currency of
    its own which an effect stores it in unchanged (`set: item.price, to: price`, or a created
    row's `price: price`), so the form and the tasks write "£14" where the app will show £14."""
    if param.type != "money" or param.currency is not None:
        return param.currency
    targets = {p.name: entities.get(p.to or "") for p in wf.params if p.type == "reference"}
    found: set[str] = set()
    for effect in wf.effects:
        fields: list[FieldDef] = []
        if effect.set is not None and (effect.to or "").strip() == param.name:
            var, _, name = effect.set.partition(".")
            entity = targets.get(var)
            fields += [f for f in (entity.fields if entity else []) if f.name == name]
        if effect.create is not None and effect.create in entities:
            stored = {name for name, value in (effect.values or {}).items() if value.strip() == param.name}
            fields += [f for f in entities[effect.create].fields if f.name in stored]
        found |= {f.currency for f in fields if f.currency}
    return found.pop() if len(found) == 1 else None


def _currency_code(node: Node, gen: PyGen, entities: dict[str, EntityDef]) -> str | None:
    """The code of an amount's currency in a message, when it has one of its own: `"EUR"` for a field's,
    or the row's currency field read alongside (`value_text(fine.currency)`); None for dollars."""
    f = money_field(node, entities)
    if f is not None and f.currency:
        return py_str(f.currency)
    if f is not None and f.currency_field and isinstance(node, Attr):
        return f"value_text({gen.row(node.obj)}.{f.currency_field})"
    return None


def reads_computed(node: Node, var: str) -> str | None:
    """The computed field of `var` an expression reads (`it.queue_position`), else None: SQL has no column for it."""
    if isinstance(node, Attr) and isinstance(node.obj, Name) and node.obj.id == var and node.type.computed:
        return node.name
    for child in vars(node).values():
        children = child if isinstance(child, list) else [child]
        for c in children:
            if isinstance(c, Node):
                found = reads_computed(c, var)
                if found:
                    return found
    return None


def lookup_param(loaded: LoadedSeed, p: ParamDef, path: tuple, scope: Scope, gen: PyGen,
                 compile_: Callable[..., Node]) -> tuple[str, str]:
    """A reference parameter's lookup (`first(x in e where …)`), checked in the workflow's scope: its
    source and compiled code."""
    assert p.lookup is not None
    if p.type != "reference":
        raise loaded.error(path + ("lookup",), "`lookup` only applies to reference parameters")
    # the lookup runs when the parameter is left out: it may name the others, not itself
    others = Scope(scope.schema, {k: v for k, v in scope.names.items() if k != p.name}, scope.random)
    node = compile_(p.lookup, path + ("lookup",), others, Type("ref", entity=p.to), False)
    if not (isinstance(node, Query) and node.fn == "first"):
        raise loaded.error(path + ("lookup",), "a lookup is a `first(x in entity where …)` of the parameter's entity")
    return p.lookup, gen.expr(node)


def message_code(loaded: LoadedSeed, message: str, path: tuple, scope: Scope, gen: PyGen,
                 entities: dict[str, EntityDef]) -> str | None:
    """A precondition message with `{expression}` holes as Python building its text (each value as the
    app's pages write it); None for a plain message."""
    if not has_holes(message):
        return None
    try:
        parts = split_template(message)
        for part in parts:
            if isinstance(part, Hole):
                check(part.source, part.node, scope)
    except ExpressionError as exc:
        raise loaded.error(path, str(exc)) from exc
    pieces: list[str] = []
    for part in parts:
        if isinstance(part, str):
            pieces.append(py_str(part))
            continue
        kind = display_kind(part.node.type)
        value = gen.expr(part.node)
        if kind == "ref":
            pieces.append(f"label_of({value})")
        elif kind == "money" and _currency_code(part.node, gen, entities) is not None:
            pieces.append(f"currency_text({value}, {_currency_code(part.node, gen, entities)})")
        else:
            pieces.append(f"label_text({py_str(kind)}, {value})")
    return " + ".join(pieces)


__all__ = ["add_computed_types", "computed_field", "lookup_param", "message_code", "reads_computed", "row_scope",
           "stored_seed"]
