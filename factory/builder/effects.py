"""Builder: a workflow's effects compiled (set, create, delete; `when`, `for_each`, paths through
references), each to readable, typed Python and the expression sources the interpreter reads.

`EffectCompiler` is the half of the builder's `_Builder` that compiles effects; the builder gives it
the loaded seed, the entities, the model names and the expression compiler.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from factory.errors import ExpressionError
from factory.expr.pycode import PyGen, mentions, py_str
from factory.expr.syntax import Attr, Name, Node, Query, parse, parse_rows
from factory.expr.typecheck import BOOL, Scope, Type, check, field_type
from factory.seed.loaded import LoadedSeed
from factory.seed.model import EntityDef, FieldDef, ParamDef, WorkflowDef
from factory.spec import naming
from factory.spec.model import EffectSpec


class EffectCompiler:
    """Compiles one workflow's effects; mixed into the builder, which supplies what is declared here."""

    loaded: LoadedSeed
    entities: dict[str, EntityDef]
    models: dict[str, str]

    def _compile(self, source: str, path: tuple, scope: Scope, expect: Type | None = None,
                 nullable: bool = False) -> Node:
        raise NotImplementedError  # the builder's expression compiler

    def _effect(self, wf: WorkflowDef, path: tuple, eff: Any, scope: Scope, gen: PyGen) -> EffectSpec:
        given = [k for k in ("set", "create", "delete") if getattr(eff, k) is not None]
        if len(given) != 1:
            raise self.loaded.error(path, "an effect needs exactly one of set / create / delete")
        rows: tuple[Query, str] | None = None
        outer = gen
        if eff.for_each is not None:
            rows = self._each(eff.for_each, path + ("for_each",), scope, gen)
            query, var = rows
            scope = scope.child(query.var, Type("ref", entity=query.entity))
            gen = dataclasses.replace(gen, names={**gen.names, query.var: var})
        condition = None
        if eff.when is not None:
            node = self._compile(eff.when, path + ("when",), scope, BOOL)
            if rows is not None and mentions(node, rows[0].var):
                raise self.loaded.error(path + ("when",), f"`when` is asked once for the whole effect and cannot name "
                                        f"the for_each row {rows[0].var!r}: filter rows in for_each's `where`")
            condition = outer.expr(node)
        params = {p.name: p for p in wf.params}
        row_name = rows[0].var if rows else None
        if eff.set is not None:
            made = self._set(eff, path, params, row_name, scope, gen)
        elif eff.create is not None:
            made = self._create(path, eff.create, eff.values or {}, scope, gen)
        else:
            made = self._delete(eff, path, params, row_name, scope, gen)
        if rows is None and condition is None:
            return made
        # the compiled statements go inside the loop, the loop inside the condition: the condition is
        # asked once, where the effect runs, and the rows are selected once, before any is changed
        python = made.python
        if rows is not None:
            python = [f"for {rows[1]} in {outer.expr(rows[0])}:", *_indented(python)]
        if condition is not None:
            python = [f"if {condition}:", *_indented(python)]
        source = made.source
        if eff.for_each is not None:
            source = f"for each {eff.for_each}: {source}"
        if eff.when is not None:
            source = f"{source} when {eff.when}"
        return made.model_copy(update={"python": python, "source": source, "when": eff.when,
                                       "for_each": eff.for_each})

    def _each(self, source: str, path: tuple, scope: Scope, gen: PyGen) -> tuple[Query, str]:
        """A checked bulk-effect row selector over the workflow's names, and its row's Python variable."""
        try:
            query = parse_rows(source)
            check(source, query, scope)
        except ExpressionError as exc:
            raise self.loaded.error(path, str(exc)) from exc
        var = naming.py_var(query.var)
        if var in set(gen.names.values()) | {"session", "ctx", "created"} or var.startswith("new_"):
            raise self.loaded.error(path, f"the row variable {query.var!r} clashes with a name the workflow's code "
                                    "already uses: pick another")
        return query, var

    def _path(self, text: str, path: tuple, key: str, params: dict[str, ParamDef], row_name: str | None,
              scope: Scope, usage: str) -> Node:
        """A checked row path: a reference parameter or the for_each row, then reference fields."""
        try:
            node = parse(text)
        except ExpressionError as exc:
            raise self.loaded.error(path + (key,), usage) from exc
        root = node
        while isinstance(root, Attr):
            root = root.obj
        param = params.get(root.id) if isinstance(root, Name) else None
        if not isinstance(root, Name) or not (root.id == row_name or (param is not None and param.type == "reference")):
            raise self.loaded.error(path + (key,), usage)
        try:
            check(text, node, scope)
        except ExpressionError as exc:
            raise self.loaded.error(path + (key,), str(exc)) from exc
        return node

    def _set(self, eff: Any, path: tuple, params: dict[str, ParamDef], row_name: str | None, scope: Scope,
             gen: PyGen) -> EffectSpec:
        usage = f"set needs '<reference parameter>.<field>', got {eff.set!r}"
        try:
            written = parse(eff.set)
        except ExpressionError as exc:
            raise self.loaded.error(path + ("set",), usage) from exc
        if not isinstance(written, Attr):
            raise self.loaded.error(path + ("set",), usage)
        owner = self._path(eff.set.rsplit(".", 1)[0], path, "set", params, row_name, scope, usage)
        if owner.type.kind != "ref":
            raise self.loaded.error(path + ("set",), f"{eff.set.rsplit('.', 1)[0]!r} is not a row: set needs "
                                    "'<row>.<field>'")
        entity = self.entities.get(owner.type.entity or "")
        field = next((f for f in entity.fields if f.name == written.name), None) if entity else None
        if field is None:
            raise self.loaded.error(path + ("set",), f"effect on missing field {written.name!r} of {owner.type.entity}")
        if field.compute is not None:
            raise self.loaded.error(path + ("set",), f"{owner.type.entity}.{written.name} is computed (read-only): set "
                                    "the stored fields its expression reads instead")
        if eff.to is None:
            raise self.loaded.error(path, "set needs `to: <expression>`")
        want = field_type(field.type, field.to, field.values)
        node = self._compile(eff.to, path + ("to",), scope, want, not field.required)
        value = _written(gen, node, field, want)
        row = naming.py_var(owner.id) if isinstance(owner, Name) else gen.row(owner)
        line = f"{row}.{field.name}_id = {value}" if field.type == "reference" else f"{row}.{field.name} = {value}"
        target = eff.set.rsplit(".", 1)[0].replace(" ", "")
        return EffectSpec(kind="set", source=f"{eff.set} = {eff.to}", entity=owner.type.entity or "", field=field.name,
                          python=[line], target=target, to=eff.to)

    def _delete(self, eff: Any, path: tuple, params: dict[str, ParamDef], row_name: str | None, scope: Scope,
                gen: PyGen) -> EffectSpec:
        usage = f"delete needs a reference parameter, got {eff.delete!r}"
        node = self._path(eff.delete or "", path, "delete", params, row_name, scope, usage)
        if node.type.kind != "ref":
            raise self.loaded.error(path + ("delete",), usage)
        row = naming.py_var(node.id) if isinstance(node, Name) else gen.row(node)
        return EffectSpec(kind="delete", source=f"delete {eff.delete}", entity=node.type.entity or "",
                          python=[f"session.delete({row})"], target=(eff.delete or "").replace(" ", ""))

    def _create(self, path: tuple, entity_name: str, values: dict[str, str], scope: Scope, gen: PyGen) -> EffectSpec:
        entity = self.entities.get(entity_name)
        if entity is None:
            raise self.loaded.error(path + ("create",), f"create of missing entity {entity_name!r}")
        fields = {f.name: f for f in entity.fields}
        args: list[str] = []
        for name, source in values.items():
            field = fields.get(name)
            if field is None:
                raise self.loaded.error(path + ("values", name), f"effect on missing field {name!r} of {entity_name}")
            if field.compute is not None:
                raise self.loaded.error(path + ("values", name), f"{entity_name}.{name} is computed (read-only): "
                                        "the app works it out, a create cannot give it")
            want = field_type(field.type, field.to, field.values)
            node = self._compile(str(source), path + ("values", name), scope, want, not field.required)
            args.append(f"{name}_id={_written(gen, node, field, want)}" if field.type == "reference"
                        else f"{name}={_written(gen, node, field, want)}")
        for owner in entity.owner:
            if owner not in values:
                args.append(f"{owner}_id=row_id(ctx.actor)")
        for f in entity.fields:
            if (f.required and f.name not in values and f.name not in entity.owner and f.default is None
                    and f.compute is None):
                raise self.loaded.error(path + ("values",), f"create {entity_name} must set required field {f.name!r}")
        model = self.models[entity_name]
        # sorted: spec.json stores keys sorted anyway, and a spec reloaded from it must compare equal
        # (the values are independent expressions, so their order never changes a result)
        sources = {name: str(source) for name, source in sorted(values.items())}
        # the new row's variable is named after its entity (one workflow may create rows of several), never
        # after a parameter, which later effects may still read
        row, taken = f"new_{entity_name}", set(gen.names.values())
        while row in taken:
            row += "_row"
        return EffectSpec(kind="create", source=f"create {entity_name}", entity=entity_name,
                          python=[f"{row} = {model}({', '.join(args)})", f"session.add({row})", "session.flush()",
                                  f"created.setdefault({py_str(entity_name)}, []).append(row_id({row}))"], values=sources)

    # ---- storyline --------------------------------------------------------------------


def _written(gen: PyGen, node: Node, field: FieldDef, want: Type) -> str:
    """The code of a value an effect writes to `field`: a reference as its id; a value that may be None
    written to a required column through `required()`, which refuses it as the row check would."""
    value = gen.expr(node, want)
    if field.type == "reference":
        value = f"row_id({value})"
    if field.required and gen.maybe_none(node):
        value = f"required({value}, {py_str(field.label or naming.title(field.name))})"
    return value


def _indented(lines: list[str]) -> list[str]:
    """Statements one block deeper (the body of an `if` or a `for`)."""
    return ["    " + line for line in lines]
