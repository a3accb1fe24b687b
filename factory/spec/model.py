"""Spec models: everything the compiler, claims and tasks derive from, written as `spec.json`.

Pure data, no I/O. `schema_version` changes whenever a field's meaning changes.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

SCHEMA_VERSION = 1

Widget = Literal[
    "text", "textarea", "email", "number", "money", "date", "datetime", "select", "checkbox",
    "reference", "date_range",
]


class Strict(BaseModel):
    """Base for spec models: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")
    # Keys added for constructs a seed may not use (computed fields, lookups, messages with values,
    # currencies): left out of spec.json while empty, so a seed that uses none of them keeps the
    # byte-identical spec it had before they existed.
    UNUSED_OMITTED: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _omit_unused(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if self.UNUSED_OMITTED and isinstance(data, dict):
            for key in self.UNUSED_OMITTED:
                if key in data and data[key] in (None, [], {}):
                    del data[key]
        return data


class FieldSpec(Strict):
    """A stored field: its column, API key, type and how the UI shows and edits it."""

    name: str
    column: str = Field(description="database column and API key (`<name>_id` for references)")
    label: str
    type: str = Field(description="seed field type")
    py_type: str = Field(description="Python annotation in the generated models")
    required: bool
    unique: bool
    ref: str | None = None
    values: list[str] | None = None
    min: float | None = Field(None, description="lower bound (money in major units)")
    max: float | None = None
    max_length: int | None = None
    default: Any = None
    widget: Widget
    editable: bool
    in_list: bool
    copy_of: str | None = Field(None, description="seed data copied from '<reference field>.<its field>' (`gen.copy_from`)")
    compute: str | None = Field(None, description="a computed field: its expression over the row, as written in the seed")
    compute_py: str | None = Field(None, description="a computed field: the compiled expression (`row` is the row)")
    currency: str | None = Field(None, description="money: the ISO code of its currency (absent: USD)")
    currency_field: str | None = Field(None, description="money: the enum field of the row naming its currency")
    say: str | None = Field(None, description="how a sentence says it, where the label is no plain phrase (seed `say:`)")

    UNUSED_OMITTED: ClassVar[frozenset[str]] = frozenset({"compute", "compute_py", "currency", "currency_field", "say"})


class FilterSpec(Strict):
    """A list-page filter; `parent` makes it nested (its options narrow with the parent's value)."""

    field: str
    param: str = Field(description="query parameter name (ranges add `_min`/`_max`)")
    label: str
    kind: Literal["select", "reference", "range", "date_range", "bool"]
    group: str
    parent: str | None = None


class EntitySpec(Strict):
    """A stored entity with everything the backend and the list/detail pages need."""

    name: str
    label: str
    plural: str
    path: str = Field(description="URL segment of its pages and API routes")
    model: str = Field(description="SQLModel class name")
    table: str
    display: str = Field(description="label template over field names")
    display_fields: list[str]
    owner_fields: list[str]
    visibility: Literal["owner", "public"]
    operations: list[str]
    fields: list[FieldSpec]
    search_fields: list[str]
    filters: list[FilterSpec]
    sort_fields: list[str]
    default_sort: str
    page_size: int
    nav: bool
    builtin: bool = False
    roles: list[str] = Field(default_factory=list, description="the roles that see it; empty: every role")
    computed: list[FieldSpec] = Field(default_factory=list, description="read-only fields the app computes on read "
                                      "(no column; `compute` holds the expression)")
    say: str | None = Field(None, description="how a sentence says it, where the label is no plain phrase (seed `say:`)")

    UNUSED_OMITTED: ClassVar[frozenset[str]] = frozenset({"computed", "say"})

    def computed_named(self, name: str) -> FieldSpec | None:
        """The computed field called `name`, or None."""
        return next((f for f in self.computed if f.name == name), None)

    def field_named(self, name: str) -> FieldSpec:
        """The field called `name`; KeyError (naming the entity) when there is none."""
        found = next((f for f in self.fields if f.name == name), None)
        if found is None:
            raise KeyError(f"entity {self.name} has no field {name!r}")
        return found

    def filter_on(self, name: str) -> FilterSpec:
        """The list filter on field `name`; KeyError (naming the entity) when there is none."""
        found = next((f for f in self.filters if f.field == name), None)
        if found is None:
            raise KeyError(f"entity {self.name} has no filter on {name!r}")
        return found


class ParamSpec(Strict):
    """A workflow parameter: JSON key, form widget and validation bounds."""

    name: str
    var: str = Field(description="Python variable name in generated code")
    label: str
    type: str
    py_type: str
    required: bool
    ref: str | None = None
    values: list[str] | None = None
    min: float | None = None
    max: float | None = None
    max_length: int | None = None
    default: Any = None
    widget: Widget
    range_end: str | None = None
    range_of: str | None = Field(None, description="set on the end parameter of a date range")
    where_py: str | None = Field(None, description="compiled option filter (SQL context, row model `it`)")
    # The filter's source as written in the seed, so the claims compiler can work out the rows a
    # form offers without the app (optional: spec.json files written before it still load).
    where: str | None = Field(None, description="option filter as written in the seed (`it` is the row)")
    lookup: str | None = Field(None, description="a row lookup (`first(...)`) giving the row when the call leaves it out")
    lookup_py: str | None = Field(None, description="the compiled lookup")
    currency: str | None = Field(None, description="money: the ISO code of the amount's currency (absent: USD)")
    say: str | None = Field(None, description="how a sentence says it, where the label is no plain phrase (seed `say:`)")

    UNUSED_OMITTED: ClassVar[frozenset[str]] = frozenset({"lookup", "lookup_py", "currency", "say"})


class CheckSpec(Strict):
    """A compiled precondition."""

    id: str
    source: str
    message: str
    python: str
    # The generated `if` tests this, the condition simplified and negated (`amount <= 0` for `amount > 0`).
    # Optional: spec.json files written before it still load, and render `not (python)`.
    refusal: str | None = Field(None, description="compiled condition under which the precondition fails")
    message_py: str | None = Field(None, description="a message with {expression} holes: the compiled code of its text")

    UNUSED_OMITTED: ClassVar[frozenset[str]] = frozenset({"message_py"})


class EffectSpec(Strict):
    """A compiled effect: a readable Python statement block plus what it touches."""

    kind: Literal["set", "create", "delete"]
    source: str
    entity: str
    field: str | None = None
    python: list[str]
    # The expression sources as written in the seed, so an independent interpreter (stage two's
    # reward generation) can predict an effect without running the generated Python. Optional:
    # spec.json files written before they existed still load.
    target: str | None = Field(None, description="set/delete: the row touched: a reference parameter, the for_each "
                               "row, or a path through references from one ('loan.copy')")
    to: str | None = Field(None, description="set: the expression source of the new value")
    values: dict[str, str] | None = Field(None, description="create: field name → expression source")
    # Conditional and bulk effects. Left out of spec.json when unset, so a spec without them keeps
    # its bytes (and its hash) and a spec.json written before they existed still loads.
    when: str | None = Field(None, description="the condition the effect applies under (expression source)")
    for_each: str | None = Field(None, description="row selector `x in entity where …`: the effect applies to each row")

    @model_serializer(mode="wrap")
    def _without_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in ("when", "for_each"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


class WorkflowSpec(Strict):
    """A workflow with compiled preconditions and effects, its endpoint and its form."""

    name: str
    label: str
    description: str
    subject: str | None
    subject_entity: str | None
    params: list[ParamSpec]
    preconditions: list[CheckSpec]
    effects: list[EffectSpec]
    confirm: str | None
    success: str
    system: bool
    path: str
    operation_id: str
    form_path: str | None
    roles: list[str] = Field(default_factory=list, description="the roles that may run it; empty: every role")
    say: str | None = Field(None, description="how a sentence says it, where the label is no plain phrase (seed `say:`)")

    UNUSED_OMITTED: ClassVar[frozenset[str]] = frozenset({"say"})


class PageSpec(Strict):
    """A frontend page."""

    id: str
    path: str
    kind: Literal["login", "home", "list", "detail", "form"]
    title: str
    entity: str | None = None
    workflow: str | None = None
    nav: bool = False


class RouteSpec(Strict):
    """An API route with a stable operation id."""

    method: Literal["GET", "POST", "PATCH", "DELETE"]
    path: str
    operation_id: str
    auth: bool
    kind: str
    entity: str | None = None
    workflow: str | None = None


class UserSpec(Strict):
    """A user account of the world."""

    id: int
    username: str
    name: str
    email: str
    password: str
    persona: str
    role: str = Field("", description="one of the spec's roles; empty when the world has none")


class StorySpec(Strict):
    """A compiled storyline event."""

    name: str
    workflow: str
    dates: list[str]
    rows_py: str | None = Field(None, description="compiled row selector")
    row_var: str | None = None
    actor_py: str
    params_py: dict[str, str]
    chance: float


class InvariantSpec(Strict):
    """A compiled invariant: rows to check and the condition each must meet."""

    name: str
    source: str
    message: str
    entity: str
    rows_py: str
    row_var: str
    check_py: str
    violation_py: str | None = Field(None, description="compiled condition under which a row breaks the invariant "
                                     "(the check negated and simplified; older spec.json files lack it)")
    # The row selector as written in the seed (`source` keeps the check), so the verifier evaluates
    # the invariant itself instead of running the app's generated checker, which a repair may edit.
    # Optional: spec.json files written before it still load.
    for_each: str | None = Field(None, description="row selector as written in the seed (`x in entity [where …]`)")


class PlanTable(Strict):
    """The planned rows of one entity."""

    entity: str
    rows: list[dict[str, Any]]


class SeedPlan(Strict):
    """Base rows per entity before the storyline runs. A list, not a mapping: the order is the
    insertion order (parents before children) and must survive canonical, key-sorted JSON."""

    tables: list[PlanTable]

    def rows_of(self, entity: str) -> list[dict[str, Any]]:
        return next((t.rows for t in self.tables if t.entity == entity), [])

    def total(self) -> int:
        return sum(len(t.rows) for t in self.tables)


class LookSpec(Strict):
    """The app's look (`factory/builder/look.py`): a layout family, a theme and, for an inbox or a
    calendar, the entity it shows and that entity's date fields."""

    layout: Literal["sidebar", "topnav", "inbox", "calendar"] = "sidebar"
    theme: str = "harbor"
    focus: str | None = None
    start: str | None = Field(None, description="calendar: the date field a row sits on (or starts on)")
    end: str | None = Field(None, description="calendar: the date field a row ends on, for rows spanning days")


class HomePanelSpec(Strict):
    """A home-page panel, resolved (`factory/builder/home.py`): the list query that fetches its rows."""

    title: str
    entity: str
    show: str | None = Field(None, description="the API key of the value shown beside each row")
    query: dict[str, str] = Field(default_factory=dict, description="list query parameters; 'today' is the world's today")
    sort: str | None = None
    limit: int = 5
    total: bool = False


class Spec(Strict):
    """The whole spec."""

    schema_version: int = SCHEMA_VERSION
    factory_version: str
    seed_sha256: str
    world: str
    title: str
    scenario: str
    today: str
    random_seed: int
    users: list[UserSpec]
    roles: list[str] = Field(default_factory=list, description="the roles users hold (`users.roles`), the first the default")
    entities: list[EntitySpec]
    workflows: list[WorkflowSpec]
    pages: list[PageSpec]
    routes: list[RouteSpec]
    storyline: list[StorySpec]
    invariants: list[InvariantSpec] = Field(default_factory=list)
    capabilities: list[str]
    task_intents: list[dict[str, Any]]
    seed_plan: SeedPlan
    look: LookSpec = Field(default_factory=LookSpec)
    home: list[HomePanelSpec] = Field(default_factory=list)

    def entity(self, name: str) -> EntitySpec:
        return next(e for e in self.entities if e.name == name)
