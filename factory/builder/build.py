"""Builder: seed → spec (deterministic default policy).

Expands every entity, workflow and storyline event into the spec the compiler renders:
fields with widgets, filters, pages, routes, and preconditions/effects compiled from the
expression language into readable Python. Expression problems become located SeedErrors.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import Any, Protocol

from factory import __version__
from factory.builder.derived import (
    add_computed_types,
    computed_field,
    lookup_param,
    message_code,
    param_currency,
    reads_computed,
    stored_seed,
)
from factory.builder.effects import EffectCompiler
from factory.builder.home import plan_home
from factory.builder.look import choose_look
from factory.builder.seeddata import plan_seed_data, plan_users
from factory.errors import ExpressionError
from factory.expr.pycode import PyGen
from factory.expr.syntax import Attr, Binary, Call, Node, Query, Unary, parse, parse_rows
from factory.expr.typecheck import BOOL, Schema, Scope, Type, check, field_type
from factory.seed.check import USER_FIELDS
from factory.seed.loaded import LoadedSeed
from factory.seed.model import EntityDef, FieldDef, ParamDef, StoryEvent, WorkflowDef
from factory.spec import naming
from factory.spec.model import (
    CheckSpec,
    EntitySpec,
    FieldSpec,
    FilterSpec,
    InvariantSpec,
    PageSpec,
    ParamSpec,
    RouteSpec,
    Spec,
    StorySpec,
    UserSpec,
    WorkflowSpec,
)

_WIDGETS = {"string": "text", "text": "textarea", "email": "email", "int": "number", "money": "money",
            "date": "date", "datetime": "datetime", "enum": "select", "bool": "checkbox", "reference": "reference"}
_PY_TYPES = {"string": "str", "text": "str", "email": "str", "int": "int", "money": "int", "date": "date",
             "datetime": "datetime", "enum": "str", "bool": "bool", "reference": "int"}
_TEMPLATE_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


class BuilderPolicy(Protocol):
    """How a seed is expanded into a spec. The LLM policy (a later issue) plugs in here."""

    name: str

    def expand(self, loaded: LoadedSeed) -> Spec: ...


class DeterministicBuilder:
    """The default policy: rules only, offline, byte-for-byte reproducible."""

    name = "deterministic"

    def expand(self, loaded: LoadedSeed) -> Spec:
        return _Builder(loaded).build()


def build_spec(loaded: LoadedSeed, policy: BuilderPolicy | None = None) -> Spec:
    """Expand a validated seed into its spec; raises SeedError on any expression problem."""
    return (policy or DeterministicBuilder()).expand(loaded)


class _Builder(EffectCompiler):
    def __init__(self, loaded: LoadedSeed) -> None:
        self.loaded = loaded
        self.seed = loaded.seed
        self.entities = {e.name: e for e in self.seed.entities}
        self.models = {"user": "User", **{e.name: naming.class_name(e.name) for e in self.seed.entities}}
        # fields that may be empty: the generated code passes their values through present()/required()
        # where None would fail, so it says so and type-checks
        self.optional_fields = {(e.name, f.name) for e in self.seed.entities for f in e.fields if not f.required}
        self.schema: Schema = {"user": {"id": Type("int"), **{f: Type("str") for f in USER_FIELDS}}}
        if self.seed.users.roles:  # `me.role` in rules and option filters
            self.schema["user"]["role"] = Type("str", values=tuple(self.seed.users.roles))
        for entity in self.seed.entities:
            self.schema[entity.name] = {"id": Type("int"), **{f.name: field_type(f.type, f.to, f.values) for f in entity.fields}}
        add_computed_types(self.schema, self.seed)
        # a row lookup takes the first row in its entity's list order (then by id)
        self.orders = {e.name: [_sort_column(e)] for e in self.seed.entities if e.sort}
        # what the seed-data plan, the look and the home page see: stored fields only
        self.stored = LoadedSeed(stored_seed(self.seed), loaded.file, loaded.text, loaded.lines)

    # ---- top level --------------------------------------------------------------------
    def build(self) -> Spec:
        entities = [self._user_entity()] + [self._entity(e) for e in self.seed.entities]
        workflows = [self._workflow(i, w) for i, w in enumerate(self.seed.workflows)]
        users = plan_users(self.seed)
        storyline = [self._story(i, s) for i, s in enumerate(self.seed.storyline)]
        return Spec(
            factory_version=__version__,
            seed_sha256=self.loaded.sha256,
            world=self.seed.world,
            title=self.seed.title,
            scenario=self.seed.scenario.strip(),
            today=self.seed.today.isoformat(),
            random_seed=self.seed.random_seed,
            users=[UserSpec(**u) for u in users],
            roles=list(self.seed.users.roles),
            entities=entities,
            workflows=workflows,
            pages=self._pages(entities, workflows),
            routes=self._routes(entities, workflows),
            storyline=storyline,
            invariants=[self._invariant(i, inv) for i, inv in enumerate(self.seed.invariants)],
            capabilities=sorted(set(self.seed.capabilities)),
            task_intents=[t.model_dump(mode="json") for t in self.seed.tasks],
            seed_plan=plan_seed_data(self.stored.seed, users, self.stored),
            look=choose_look(self.stored),
            home=plan_home(self.stored, entities),
        )

    # ---- entities ---------------------------------------------------------------------
    def _user_entity(self) -> EntitySpec:
        fields = [
            FieldSpec(name=n, column=n, label=naming.title(n), type="email" if n == "email" else "string", py_type="str",
                      required=True, unique=n != "name", widget="email" if n == "email" else "text", editable=False, in_list=True)
            for n in USER_FIELDS
        ]
        if self.seed.users.roles:
            fields.append(FieldSpec(name="role", column="role", label="Role", type="enum", py_type="str", required=True,
                                    unique=False, values=list(self.seed.users.roles), widget="select", editable=False,
                                    in_list=True))
        return EntitySpec(
            name="user", label="User", plural="Users", path="users", model="User", table="user", display="{name}",
            display_fields=["name"], owner_fields=[], visibility="public", operations=["list"], fields=fields,
            search_fields=["username", "name", "email"], filters=[], sort_fields=["name", "username"], default_sort="name",
            page_size=25, nav=False, builtin=True,
        )

    def _field(self, f: FieldDef) -> FieldSpec:
        return FieldSpec(
            name=f.name, column=f"{f.name}_id" if f.type == "reference" else f.name, label=f.label or naming.title(f.name),
            type=f.type, py_type=_PY_TYPES[f.type], required=f.required, unique=f.unique, ref=f.to, values=f.values,
            min=f.min, max=f.max, max_length=f.max_length, default=f.default,
            widget=_WIDGETS[f.type],  # type: ignore[arg-type]  # _WIDGETS holds only widget names
            editable=f.editable, in_list=not f.hidden and f.type != "text",
            copy_of=f.gen.copy_from if f.gen is not None else None, currency=f.currency, currency_field=f.currency_field,
            say=f.say,
        )

    def _entity(self, e: EntityDef) -> EntitySpec:
        fields = [self._field(f) for f in e.fields if f.compute is None]
        computed = [computed_field(self.loaded, self.schema, self.models, e, f, self._field_path(e, f),
                                   lambda names, maybe: self._gen(names, maybe), self._field(f))
                    for f in e.fields if f.compute is not None]
        # a computed value that may be None is passed through present() where read, like an optional field
        self.optional_fields |= {(e.name, f.name) for f in computed if not f.required}
        if e.visibility == "owner" and len(e.owner) == 1:
            # the sole owner is always the viewer: a column repeating their own name says nothing
            for f in fields:
                if f.name == e.owner[0]:
                    f.in_list = False
        by_name = {f.name: f for f in fields}
        display_fields = _TEMPLATE_FIELD.findall(e.display) if "{" in e.display else [e.display]
        filters = [self._filter(e, f, by_name) for f in e.fields if f.filter and f.compute is None]
        sortable = [f.column for f in fields if f.type not in ("text",) and f.in_list]
        default_sort = e.sort or "id"
        if e.sort:
            desc = e.sort.startswith("-")
            default_sort = ("-" if desc else "") + by_name[e.sort.lstrip("-")].column
        return EntitySpec(
            name=e.name, label=e.label or naming.title(e.name), plural=e.plural or naming.title(naming.plural(e.name)),
            path=naming.kebab(naming.plural(e.name)), model=self.models[e.name], table=e.name,
            display=e.display if "{" in e.display else "{" + e.display + "}", display_fields=display_fields,
            owner_fields=list(e.owner), visibility=e.visibility, operations=list(dict.fromkeys(e.operations)),
            fields=fields, search_fields=[f.name for f in e.fields if f.searchable],
            filters=filters, sort_fields=sortable, default_sort=default_sort, page_size=e.page_size, nav=e.nav,
            roles=list(e.roles), computed=computed, say=e.say,
        )

    def _filter(self, e: EntityDef, f: FieldDef, by_name: dict[str, FieldSpec]) -> FilterSpec:
        kind = {"enum": "select", "string": "select", "email": "select", "reference": "reference", "bool": "bool",
                "int": "range", "money": "range", "date": "date_range", "datetime": "date_range"}.get(f.type)
        if kind is None:
            raise self.loaded.error(self._field_path(e, f) + ("filter",), f"a {f.type} field cannot be a filter")
        column = by_name[f.name].column
        return FilterSpec(field=f.name, param=column, label=f.label or naming.title(f.name),
                          kind=kind,  # type: ignore[arg-type]  # the table above maps to filter kinds only
                          group=f.filter_group or "Filters", parent=f.filter_parent)

    def _field_path(self, e: EntityDef, f: FieldDef) -> tuple:
        return ("entities", self.seed.entities.index(e), "fields", e.fields.index(f))

    # ---- expressions ------------------------------------------------------------------
    def _compile(self, source: str, path: tuple, scope: Scope, expect: Type | None = None,
                 nullable: bool = False) -> Node:
        try:
            node = parse(source)
            check(source, node, scope, expect, nullable)
        except ExpressionError as exc:
            raise self.loaded.error(path, str(exc)) from exc
        return node

    def _rows(self, source: str, path: tuple) -> Query:
        """A checked row selector `x in entity [where …]` (never random: it picks rows, not values)."""
        try:
            query = parse_rows(source)
            check(source, query, Scope(self.schema, {}))
        except ExpressionError as exc:
            raise self.loaded.error(path, str(exc)) from exc
        return query

    def _gen(self, names: dict[str, str], optional_names: set[str] | None = None) -> PyGen:
        return PyGen(names=names, models=self.models, optional=self.optional_fields, optional_names=optional_names or set(),
                     orders=self.orders)

    # ---- workflows --------------------------------------------------------------------
    def _param(self, wf: WorkflowDef, p: ParamDef, ends: dict[str, str], path: tuple) -> ParamSpec:
        widget = "date_range" if p.range_end else _WIDGETS[p.type]
        where_py = None
        if p.where is not None:
            if p.type != "reference":
                raise self.loaded.error(path + ("where",), "`where` only applies to reference parameters")
            scope = Scope(self.schema, {"it": Type("ref", entity=p.to), "me": Type("ref", entity="user")})
            node = self._compile(p.where, path + ("where",), scope, BOOL)
            if _has_query(node):
                # the option list is one SQL filter over the referenced table, and the claims'
                # oracle asks it as one query too: a query inside it would nest, which neither has
                raise self.loaded.error(path + ("where",), "a parameter's `where` cannot hold a query (count, "
                                        "exists, sum): filter on the row's own fields here (`it.status == 'open'`) "
                                        "and state the rest as a precondition of the workflow")
            computed = reads_computed(node, "it")
            if computed is not None:
                raise self.loaded.error(path + ("where",), f"it.{computed} is a computed field: an option list filters "
                                        "on stored fields (state the rest as a precondition)")
            where_py = self._gen({"me": "ctx.actor"}).sql(node, "it", self.models[p.to or ""])
        return ParamSpec(
            name=p.name, var=naming.py_var(p.name), label=p.label or naming.title(p.name), type=p.type,
            py_type=_PY_TYPES[p.type], required=p.required and p.lookup is None, ref=p.to, values=p.values, min=p.min, max=p.max,
            max_length=p.max_length, default=p.default,
            widget=widget,  # type: ignore[arg-type]  # a widget name: date_range or one from _WIDGETS
            range_end=p.range_end, range_of=ends.get(p.name), where_py=where_py, where=p.where,
            currency=param_currency(wf, p, self.entities), say=p.say,
        )

    def _workflow(self, wi: int, wf: WorkflowDef) -> WorkflowSpec:
        base = ("workflows", wi)
        ends = {p.range_end: p.name for p in wf.params if p.range_end}
        params = [self._param(wf, p, ends, base + ("params", i)) for i, p in enumerate(wf.params)]
        names = {p.name: field_type(p.type, p.to, p.values) for p in wf.params}
        scope = Scope(self.schema, {"me": Type("ref", entity="user"), **names})
        # a parameter with a lookup is never None once the lookup ran (before any check)
        gen = self._gen({"me": "ctx.actor", **{p.name: p.var for p in params}},
                        {p.name for p, d in zip(params, wf.params, strict=True) if not p.required and d.lookup is None})
        for pi, (pdef, pspec) in enumerate(zip(wf.params, params, strict=True)):
            if pdef.lookup is not None:
                pspec.lookup, pspec.lookup_py = lookup_param(self.loaded, pdef, base + ("params", pi), scope, gen,
                                                             self._compile)
        checks = []
        for ci, pre in enumerate(wf.preconditions):
            node = self._compile(pre.check, base + ("preconditions", ci, "check"), scope, BOOL)
            checks.append(CheckSpec(id=f"{wf.name}.pre{ci + 1}", source=pre.check, message=pre.message,
                                    python=gen.expr(node), refusal=gen.refusal(node),
                                    message_py=message_code(self.loaded, pre.message, base + ("preconditions", ci, "message"),
                                                            scope, gen, self.entities)))
        effects = [self._effect(wf, base + ("effects", i), eff, scope, gen) for i, eff in enumerate(wf.effects)]
        subject_entity = next((p.to for p in wf.params if p.name == wf.subject), None)
        return WorkflowSpec(
            name=wf.name, label=wf.label, description=wf.description or wf.label, subject=wf.subject,
            subject_entity=subject_entity, params=params, preconditions=checks, effects=effects, confirm=wf.confirm,
            success=wf.success, system=wf.system, path=f"/api/workflows/{wf.name}", operation_id=f"run_{wf.name}",
            form_path=None if wf.system else f"/actions/{naming.kebab(wf.name)}", roles=list(wf.roles),
            say=wf.say,
        )

    def _story(self, si: int, ev: StoryEvent) -> StorySpec:
        base = ("storyline", si)
        wf = next(w for w in self.seed.workflows if w.name == ev.workflow)
        scope = Scope(self.schema, {}, random=True)
        rows_py, row_var = None, None
        names: dict[str, str] = {}
        if ev.for_each is not None:
            query = self._rows(ev.for_each, base + ("for_each",))
            row_var = naming.py_var(query.var)
            rows_py = self._gen({}).expr(query)
            scope = scope.child(query.var, Type("ref", entity=query.entity))
            names[query.var] = row_var
        gen = self._gen(names)
        actor = self._compile(ev.actor, base + ("actor",), scope, Type("ref", entity="user"))
        params_py: dict[str, str] = {}
        declared = {p.name: p for p in wf.params}
        for name, source in ev.params.items():
            p = declared.get(name)
            if p is None:
                raise self.loaded.error(base + ("params", name), f"workflow {wf.name} has no parameter {name!r}")
            want = field_type(p.type, p.to, p.values)
            node = self._compile(str(source), base + ("params", name), scope, want, not p.required)
            code = gen.expr(node, want)
            params_py[name] = f"row_id({code})" if p.type == "reference" else code
        missing = [p.name for p in wf.params if p.required and p.name not in ev.params and p.default is None
                   and p.lookup is None]
        if missing:
            raise self.loaded.error(base + ("params",), f"missing parameter(s) of {wf.name}: {', '.join(missing)}")
        # sorted: the seeder draws random values in this order, and spec.json stores keys sorted, so
        # a seeder re-rendered from spec.json must see the same order to rebuild the same database
        return StorySpec(name=ev.name, workflow=ev.workflow, dates=_dates(ev, self.seed.today), rows_py=rows_py,
                         row_var=row_var, actor_py=gen.row(actor), params_py=dict(sorted(params_py.items())),
                         chance=ev.chance)

    def _invariant(self, index: int, inv: Any) -> InvariantSpec:
        base = ("invariants", index)
        query = self._rows(inv.for_each, base + ("for_each",))
        var = naming.py_var(query.var)
        scope = Scope(self.schema, {query.var: Type("ref", entity=query.entity)})
        node = self._compile(inv.check, base + ("check",), scope, BOOL)
        gen = self._gen({query.var: var})
        return InvariantSpec(name=inv.name, source=inv.check, message=inv.message, entity=query.entity,
                             rows_py=self._gen({}).expr(query), row_var=var, check_py=gen.expr(node),
                             violation_py=gen.refusal(node), for_each=inv.for_each)

    # ---- pages and routes -------------------------------------------------------------
    def _pages(self, entities: list[EntitySpec], workflows: list[WorkflowSpec]) -> list[PageSpec]:
        pages = [PageSpec(id="login", path="/login", kind="login", title="Sign in"),
                 PageSpec(id="home", path="/", kind="home", title=self.seed.title, nav=True)]
        for e in entities:
            if e.builtin:
                continue
            if "list" in e.operations:
                pages.append(PageSpec(id=f"list-{e.name}", path=f"/{e.path}", kind="list", title=e.plural, entity=e.name,
                                      nav=e.nav))
            if "read" in e.operations:
                pages.append(PageSpec(id=f"detail-{e.name}", path=f"/{e.path}/:id", kind="detail", title=e.label, entity=e.name))
        for w in workflows:
            if w.form_path:
                pages.append(PageSpec(id=f"form-{w.name}", path=w.form_path, kind="form", title=w.label, workflow=w.name))
        return pages

    def _routes(self, entities: list[EntitySpec], workflows: list[WorkflowSpec]) -> list[RouteSpec]:
        routes = [RouteSpec(method="GET", path="/api/health", operation_id="health", auth=False, kind="health"),
                  RouteSpec(method="POST", path="/api/auth/login", operation_id="login", auth=False, kind="auth"),
                  RouteSpec(method="POST", path="/api/auth/logout", operation_id="logout", auth=False, kind="auth"),
                  RouteSpec(method="GET", path="/api/auth/me", operation_id="me", auth=True, kind="auth"),
                  RouteSpec(method="GET", path="/api/auth/session", operation_id="session", auth=False, kind="auth")]
        for e in entities:
            base = f"/api/{e.path}"
            ops = {"list": ("GET", base, f"list_{naming.plural(e.name)}"),
                   "read": ("GET", base + "/{id}", f"get_{e.name}"),
                   "create": ("POST", base, f"create_{e.name}"),
                   "update": ("PATCH", base + "/{id}", f"update_{e.name}"),
                   "delete": ("DELETE", base + "/{id}", f"delete_{e.name}")}
            for op in e.operations:
                method, path, op_id = ops[op]
                routes.append(RouteSpec(method=method,  # type: ignore[arg-type]  # `ops` holds HTTP methods only
                                        path=path, operation_id=op_id, auth=True, kind=op, entity=e.name))
            if e.filters:
                routes.append(RouteSpec(method="GET", path=base + "/options/{field}", operation_id=f"options_{e.name}",
                                        auth=True, kind="options", entity=e.name))
        for w in workflows:
            if w.system:
                continue
            routes.append(RouteSpec(method="POST", path=w.path, operation_id=w.operation_id, auth=True, kind="workflow",
                                    workflow=w.name))
            for p in w.params:
                if p.type == "reference":
                    routes.append(RouteSpec(method="GET", path=f"{w.path}/options/{p.name}",
                                            operation_id=f"options_{w.name}_{p.name}",
                                            auth=True, kind="param_options", workflow=w.name))
        return routes


def _sort_column(e: EntityDef) -> str:
    """An entity's `sort` as a column with its direction (`-posted_on`, `account_id`)."""
    assert e.sort is not None
    name = e.sort.lstrip("-")
    field = next((f for f in e.fields if f.name == name), None)
    column = f"{name}_id" if field is not None and field.type == "reference" else name
    return ("-" if e.sort.startswith("-") else "") + column


def _dates(ev: StoryEvent, today: dt.date) -> list[str]:
    """Every date a storyline event happens on, from start to until (default today)."""
    until = ev.until or today
    out: list[str] = []
    day, n = ev.start, 0
    while day <= until:
        out.append(day.isoformat())
        if ev.every is None:
            break
        n += 1
        if ev.every == "day":
            day = ev.start + dt.timedelta(days=n)
        elif ev.every == "week":
            day = ev.start + dt.timedelta(weeks=n)
        else:  # the same day of each month, or the month's last day (Jan 31 → Feb 28 → Mar 31)
            month = ev.start.month - 1 + n
            year, month = ev.start.year + month // 12, month % 12 + 1
            day = dt.date(year, month, min(ev.start.day, calendar.monthrange(year, month)[1]))
    return out


def _has_query(node: Node | None) -> bool:
    """Whether an expression holds a query (`count`, `exists`, `sum` over an entity's rows)."""
    if node is None or isinstance(node, Query):
        return node is not None
    if isinstance(node, Attr):
        return _has_query(node.obj)
    if isinstance(node, Unary):
        return _has_query(node.operand)
    if isinstance(node, Binary):
        return _has_query(node.left) or _has_query(node.right)
    if isinstance(node, Call):
        return any(_has_query(a) for a in node.args)
    return False
