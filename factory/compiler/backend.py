"""Backend compiler: spec → FastAPI + SQLModel package `app/backend/`, plus its seed plan."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from factory.compiler.pystyle import tidy
from factory.compiler.render import render
from factory.expr.pycode import computed_function
from factory.spec import naming
from factory.spec.labels import CURRENCIES, KINDS
from factory.spec.model import EntitySpec, FieldSpec, InvariantSpec, ParamSpec, Spec, StorySpec, WorkflowSpec

_STATIC = ["runtime.py", "deps.py"]


def render_backend(spec: Spec, app_dir: Path, spec_hash: str) -> list[Path]:
    """Write every backend file for `spec` under `app_dir/backend`; return the paths written."""
    out = app_dir / "backend"
    entities = [e for e in spec.entities if not e.builtin]
    models = ", ".join(sorted(["User"] + [e.model for e in entities]))
    base = {"title": spec.title, "world": spec.world, "today": spec.today, "spec_hash": spec_hash,
            "model_imports": models, "random_seed": spec.random_seed, "secret": f"{spec.world}:{spec_hash[:16]}",
            "roles": list(spec.roles), "derived_imports": ", ".join(derived_names(spec)),
            "currencies": repr(CURRENCIES) if _has_currencies(spec) else ""}
    entity_ctx = [_entity(e) for e in entities]
    workflow_ctx = [_workflow(w, spec) for w in spec.workflows]
    written = [
        render("backend/runtime.py.j2", base, spec_hash, out / "runtime.py"),
        render("backend/deps.py.j2", base, spec_hash, out / "deps.py"),
        render("backend/models.py.j2", {**base, "entities": entity_ctx}, spec_hash, out / "models.py"),
        render("backend/schema.py.j2", {**base, "entities": entity_ctx}, spec_hash, out / "schema.py"),
        render("backend/workflows.py.j2", {**base, "workflows": workflow_ctx}, spec_hash, out / "workflows.py"),
        render("backend/router_auth.py.j2", base, spec_hash, out / "routers" / "auth.py"),
        render("backend/router_workflows.py.j2", {**base, "workflows": [w for w in workflow_ctx if not w["system"]]},
               spec_hash, out / "routers" / "workflows.py"),
        render("backend/app.py.j2", base, spec_hash, out / "app.py"),
        render("backend/invariants.py.j2", {**base, "invariants": [_invariant(i) for i in spec.invariants]}, spec_hash,
               out / "invariants.py"),
    ]
    if base["derived_imports"]:  # only a world with computed fields or lookups has the module
        written.append(render("backend/derived.py.j2", {**base, "entities": entity_ctx}, spec_hash, out / "derived.py"))
    for e in entity_ctx:
        written.append(render("backend/router_entity.py.j2", {**base, "e": e}, spec_hash, out / "routers" / f"{e['name']}.py"))
    modules = ["auth", *[e["name"] for e in entity_ctx], "workflows"]
    written.append(render("backend/routers_init.py.j2", {**base, "modules": modules},
                          spec_hash, out / "routers" / "__init__.py"))
    written.append(render("backend/package_init.py.j2", base, spec_hash, out / "__init__.py"))
    timeline = sorted(((d, i, s.name, s.workflow) for i, s in enumerate(spec.storyline) for d in s.dates))
    written.append(render("backend/seed.py.j2", {
        **base, "storyline": [_story(s) for s in spec.storyline], "timeline": repr([(d, n, w) for d, _, n, w in timeline]),
        "chances": repr({s.name: s.chance for s in spec.storyline}),
        "models_map": "{" + ", ".join(f"{e.name!r}: {e.model}" for e in entities) + "}",
    }, spec_hash, out / "seed.py"))
    plan = {"users": [u.model_dump() for u in spec.users],
            "tables": [{"entity": t.entity, "rows": t.rows} for t in spec.seed_plan.tables]}
    plan_path = out / "seed_plan.json"
    plan_path.write_text(json.dumps(plan, indent=1, sort_keys=True) + "\n")
    written.append(plan_path)
    tidy(written)
    return written


def _annotation(f: FieldSpec | ParamSpec) -> str:
    # NaiveDatetime: the world's clock has no time zone, and SQLModel refuses naive `datetime` columns
    py = {"date": "_dt.date", "datetime": "NaiveDatetime"}.get(f.py_type, f.py_type)
    return py if f.required else f"{py} | None"


def _row_annotation(p: ParamSpec, models: dict[str, str]) -> str:
    """A workflow function's parameter type: the model of a reference, else the value's type."""
    if p.ref is None:
        py = {"date": "_dt.date", "datetime": "_dt.datetime"}.get(p.py_type, p.py_type)
    else:
        py = models[p.ref]
    return py if p.required else f"{py} | None"


def _rule(f: FieldSpec | ParamSpec) -> str:
    """A `Rule(...)` literal; money bounds become cents."""
    scale = 100 if f.type == "money" else 1
    lo = None if f.min is None else round(f.min * scale)
    hi = None if f.max is None else round(f.max * scale)
    values = None if f.values is None else tuple(f.values)
    kind = f.type if f.type != "enum" else "enum"
    return (f"Rule({f.label!r}, {kind!r}, required={f.required}, min={lo!r}, max={hi!r}, "
            f"max_length={f.max_length!r}, values={values!r})")


def _entity(e: EntitySpec) -> dict[str, Any]:
    columns = []
    for f in e.fields:
        args: list[str] = []
        if not f.required:
            args.append("default=None")
        elif f.default is not None:
            args.append(f"default={_default_code(f, f.default)}")
        if f.ref is not None:
            args.append(f"foreign_key='{f.ref}.id'")
            args.append("index=True")
        if f.unique:
            args.append("unique=True")
        if f.max_length is not None:
            args.append(f"max_length={f.max_length}")
        columns.append({"name": f.name, "column": f.column, "annotation": _annotation(f), "ref": f.ref,
                        "optional_annotation": _annotation(f).removesuffix(" | None") + " | None",
                        "required": f.required, "field_args": ", ".join(args), "rule": _rule(f), "editable": f.editable})
    editable = [c for c in columns if c["editable"] and c["column"] not in {f"{o}_id" for o in e.owner_fields}]
    # the public model adds `<reference>_label`, unless a stored field already has that name (its type stands)
    names = {c["column"] for c in columns}
    ref_labels = [f"{c['name']}_label" for c in columns if c["ref"] and f"{c['name']}_label" not in names]
    query_params: list[str] = []
    for flt in e.filters:
        if flt.kind in ("range", "date_range"):
            query_params += [f"{flt.param}_min", f"{flt.param}_max"]
        else:
            query_params.append(flt.param)
    return {
        "name": e.name, "label": e.label, "plural": e.plural, "plural_name": naming.plural(e.name), "path": e.path,
        "model": e.model, "table": e.table, "columns": columns, "editable": editable, "ref_labels": ref_labels,
        "editable_columns": repr(tuple(c["column"] for c in editable)),
        "owners": repr(tuple(f"{o}_id" for o in e.owner_fields)), "public": e.visibility == "public",
        "display": e.display, "refs": repr({f.column: f.ref for f in e.fields if f.ref}),
        "search": repr(tuple(e.search_fields)), "filters": [{"column": next(f.column for f in e.fields if f.name == flt.field),
                                                             "param": flt.param, "kind": flt.kind,
                                                             "parent": _parent_column(e, flt.parent)} for flt in e.filters],
        "sortable": repr(tuple(e.sort_fields)), "default_sort": e.default_sort, "page_size": e.page_size,
        "operations": e.operations, "query_params": query_params, "roles": repr(tuple(e.roles)),
        "label_kinds": repr({f.name: _label_kind(f) for f in e.fields if f.type in KINDS and "{" + f.name + "}" in e.display}),
        "computed": [_computed(e, f) for f in e.computed],
        "public_fn": f"{e.name}_public" if e.computed else "public",
    }


def _has_currencies(spec: Spec) -> bool:
    return any(f.currency or f.currency_field for e in spec.entities for f in [*e.fields, *e.computed])


def _label_kind(f: FieldSpec) -> str:
    """How a row's label writes a field: its type, or for money in a currency `money:EUR` (its own)
    or `money@<field>` (the row's currency field)."""
    if f.type == "money" and f.currency:
        return f"money:{f.currency}"
    if f.type == "money" and f.currency_field:
        return f"money@{f.currency_field}"
    return f.type


def derived_names(spec: Spec) -> list[str]:
    """What `backend/derived.py` offers the modules holding compiled expressions: `find_row` and each
    computed field's function (none: the world has no such module)."""
    computed = [computed_function(e.name, f.name) for e in spec.entities for f in e.computed]
    lookups = any(p.lookup_py for w in spec.workflows for p in w.params) or any(
        "find_row(" in code for code in _compiled_code(spec))
    return sorted(computed + (["find_row"] if computed or lookups else []))


def _compiled_code(spec: Spec) -> list[str]:
    out = [c.python for w in spec.workflows for c in w.preconditions]
    out += [line for w in spec.workflows for e in w.effects for line in e.python]
    out += [c.message_py for w in spec.workflows for c in w.preconditions if c.message_py]
    out += [s.actor_py for s in spec.storyline] + [v for s in spec.storyline for v in s.params_py.values()]
    out += [i.check_py for i in spec.invariants]
    return out


def _computed(e: EntitySpec, f: FieldSpec) -> dict[str, Any]:
    py = {"date": "_dt.date", "datetime": "_dt.datetime"}.get(f.py_type, f.py_type)
    return {"name": f.name, "label": f.label, "source": f.compute or "", "python": f.compute_py or "None",
            "function": computed_function(e.name, f.name), "annotation": py if f.required else f"{py} | None",
            "public_annotation": f"{py} | None"}


# helpers of the runtime's private API before it had a public one: a spec.json written then still renders
# (a world built by an older factory stays repairable), with the names of today's runtime
_LEGACY = re.compile(r"(?<![\w.])(_id|_same|_load|_scalar|_money_text|_label|_text)\(")
_PUBLIC = {"_id": "row_id", "_same": "same_row", "_load": "load_row", "_scalar": "query_value",
           "_money_text": "money_text", "_label": "label_of", "_text": "value_text"}


def _legacy(code: str) -> str:
    """Compiled code from a spec, with the runtime's old private helper names replaced by their public ones."""
    return _LEGACY.sub(lambda m: _PUBLIC[m.group(1)] + "(", code)


def _invariant(inv: InvariantSpec) -> dict[str, str]:
    return {"name": inv.name, "source": inv.source, "row_var": inv.row_var, "rows_py": _legacy(inv.rows_py),
            "violation": _legacy(inv.violation_py or f"not ({inv.check_py})")}


def _story(s: StorySpec) -> dict[str, Any]:
    return {"name": s.name, "row_var": s.row_var, "rows_py": None if s.rows_py is None else _legacy(s.rows_py),
            "actor_py": _legacy(s.actor_py), "params_py": {k: _legacy(v) for k, v in s.params_py.items()}}


def _parent_column(e: EntitySpec, parent: str | None) -> str | None:
    if parent is None:
        return None
    return next(f.column for f in e.fields if f.name == parent)


def _default_code(f: FieldSpec | ParamSpec, value: Any) -> str:
    if f.type == "money":
        return repr(round(float(value) * 100))
    if f.type == "date":
        return f"_dt.date.fromisoformat({str(value)!r})"
    return repr(value)


def _workflow(w: WorkflowSpec, spec: Spec) -> dict[str, Any]:
    models = {e.name: e.model for e in spec.entities}
    params = []
    for p in w.params:
        annotation = _annotation(p)
        default = None
        if p.default is not None:
            default = _default_code(p, p.default)
        elif not p.required:
            default = "None"
        params.append({"name": p.name, "var": p.var, "annotation": annotation, "default_code": default, "rule": _rule(p),
                       "ref": p.ref, "model": models.get(p.ref or ""),
                       "where_py": None if p.where_py is None else _legacy(p.where_py)})
    # the function's parameters are typed as it sees them: a reference parameter arrives as its loaded row
    signature = ["session: Session", "ctx: Ctx", *(f"{p.var}: {_row_annotation(p, models)}" for p in w.params)]
    checks = [{"id": c.id, "message": c.message, "refusal": _legacy(c.refusal or f"not ({c.python})"),
               "message_code": c.message_py or repr(c.message)} for c in w.preconditions]
    effects = [{"source": e.source, "python": [_legacy(line) for line in e.python]} for e in w.effects]
    return {
        "name": w.name, "label": w.label, "description": w.description.replace('"""', "'''"), "system": w.system,
        "params_class": naming.class_name(w.name) + "Params", "params": params, "signature": ", ".join(signature),
        "preconditions": checks, "effects": effects, "success": w.success,
        "refs": repr({p.name: p.ref for p in w.params if p.ref}), "ref_params": [p for p in params if p["ref"]],
        "roles": repr(tuple(w.roles)),
        "lookups": [{"var": p.var, "lookup_py": p.lookup_py} for p in w.params if p.lookup_py],
    }
