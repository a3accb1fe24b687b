"""The seed: the short hand-written description of a world, as strict pydantic models.

The JSON Schema shipped in `schema.json` is generated from these models
(`python -m factory.seed.schema`), so the file and the models cannot drift apart.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FieldType = Literal[
    "string", "text", "int", "money", "date", "datetime", "enum", "bool", "email", "reference"
]
Identifier = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=40)
Operation = Literal["list", "read", "create", "update", "delete"]
Capability = Literal[
    "date_picker", "date_range_picker", "nested_filters", "pagination", "search", "sort",
    "modal_confirm", "number_stepper", "money_input", "select", "textarea", "toast",
]


class Strict(BaseModel):
    """Base for seed models: unknown keys are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


class GenRule(Strict):
    """How the seed-data plan fills one field (all optional; type-based defaults otherwise)."""

    faker: str | None = Field(None, description="Faker provider, e.g. 'company' or 'city'")
    choices: list[Any] | None = Field(None, description="pick uniformly among these values")
    pool: list[str] | None = Field(None, description="strings and texts: phrases a person would type, replacing the built-in "
                                   "pool the field's name selects (memo, reason, note, message, merchant, ...)")
    weights: list[float] | None = Field(None, description="weights for `choices`")
    min: float | None = None
    max: float | None = None
    days_from: int | None = Field(None, description="dates: earliest offset from `today` in days")
    days_to: int | None = Field(None, description="dates: latest offset from `today` in days")
    template: str | None = Field(None, description="format string over earlier fields, {n} is the row number")
    same_owner: bool = Field(True, description="references: pick a row with the same owner")
    null_rate: float = Field(0.0, ge=0, le=1, description="share of rows left empty (optional fields)")
    copy_from: str | None = Field(None, description="copy from a referenced row: '<reference field>.<its field>'")


class FieldDef(Strict):
    """A typed field of an entity."""

    name: str = Identifier
    type: FieldType
    label: str | None = None
    say: str | None = Field(None, description="how a sentence names the field when its label is no noun phrase "
                            "('Spent this year' → 'amount spent this year', 'To' → 'end date')")
    required: bool = True
    unique: bool = False
    to: str | None = Field(None, description="references: the target entity")
    values: list[str] | None = Field(None, description="enums: the allowed values")
    min: float | None = None
    max: float | None = None
    max_length: int | None = None
    default: Any = None
    searchable: bool = Field(False, description="matched by the list page's search box")
    filter: bool = Field(False, description="offered as a filter on the list page")
    filter_parent: str | None = Field(None, description="nested filters: the field whose value narrows this filter's options")
    filter_group: str | None = Field(None, description="nested filters: the panel section holding this filter")
    editable: bool = Field(True, description="offered in create/update forms")
    hidden: bool = Field(False, description="never shown in lists")
    gen: GenRule | None = None
    compute: str | None = Field(None, description="a computed, read-only field: an expression over the row's own fields "
                                "(`count(h in hold where h.copy == copy and h.placed_at < placed_at) + 1`), "
                                "worked out by the app on every read and never stored")
    currency: str | None = Field(None, description="money: the ISO code of the currency (USD, EUR, GBP, ...; default USD)")
    currency_field: str | None = Field(None, description="money: an enum field of the row whose value is the currency code")


class SeedRule(Strict):
    """How many rows the seed-data plan makes, and explicit rows."""

    per_user: int | None = Field(None, ge=0, description="rows per user (owned entities)")
    per_user_max: int | None = Field(None, ge=0, description="with per_user: a random count in [per_user, per_user_max]")
    count: int | None = Field(None, ge=0, description="rows in total")
    rows: list[dict[str, Any]] = Field(default_factory=list, description="explicit rows, made first")


def _default_operations() -> list[Operation]:
    return ["list", "read"]


class EntityDef(Strict):
    """A kind of record the app stores, lists and shows."""

    name: str = Identifier
    label: str | None = None
    plural: str | None = None
    say: str | None = Field(None, description="how a sentence names one row when the label is no plain noun "
                            "('HR ticket' → 'help request'); its plural comes from the grammar")
    display: str = Field(..., description="label of a row: a field name or a '{field} …' template")
    owner: list[str] = Field(default_factory=list, description="reference-to-user fields; a row is visible to each of them")
    visibility: Literal["owner", "public"] = Field("owner", description="public: every logged-in user can read")
    operations: list[Operation] = Field(default_factory=_default_operations)
    fields: list[FieldDef]
    sort: str | None = Field(None, description="default sort, e.g. '-posted_on'")
    page_size: int = Field(10, ge=1, le=100)
    nav: bool = True
    roles: list[str] = Field(default_factory=list, description="the user roles that see it (nav, list, pages); empty: every role")
    seed: SeedRule = Field(default_factory=SeedRule)


class ParamDef(Strict):
    """A workflow parameter: a form field in the UI, a JSON key in the API."""

    name: str = Identifier
    type: FieldType
    label: str | None = None
    say: str | None = Field(None, description="how a sentence names the parameter when its label is no noun phrase")
    required: bool = True
    to: str | None = None
    values: list[str] | None = None
    min: float | None = None
    max: float | None = None
    max_length: int | None = None
    default: Any = None
    range_end: str | None = Field(None, description="dates: the parameter holding the end of a range picked with this one")
    currency: str | None = Field(None, description="money: the ISO code of the amount's currency (absent: the currency of "
                                 "the field an effect sets from it, else USD)")
    where: str | None = Field(None, description="references: an expression over `it` limiting the offered rows")
    lookup: str | None = Field(None, description="references: a row lookup (`first(c in copy where c.book == book)`) "
                               "that gives the row when the call leaves the parameter out; the form does not ask")


class Precondition(Strict):
    """A check a workflow makes before it acts, with the message a user sees when it fails."""

    check: str
    message: str


class Effect(Strict):
    """One change a workflow makes: set a field, create a row, or delete a row; optionally only `when` a
    condition holds, and optionally once for each row of a `for_each` row selector."""

    set: str | None = Field(None, description="'row.field' to assign: a reference parameter or the for_each "
                            "row, followed through references ('loan.copy.status')")
    to: str | None = Field(None, description="with set: the new value (an expression)")
    create: str | None = Field(None, description="entity to create a row of")
    values: dict[str, str] | None = Field(None, description="with create: field → expression")
    delete: str | None = Field(None, description="row to delete: a reference parameter, the for_each row, or a path "
                               "through references ('loan.copy')")
    when: str | None = Field(None, description="apply the effect only when this bool expression holds (evaluated "
                             "where the effect runs, after the earlier effects)")
    for_each: str | None = Field(None, description="'x in entity where cond': apply the effect once to each matching "
                                 "row (selected once, before any is changed), `x` naming it")


class WorkflowDef(Strict):
    """A user action with parameters, preconditions and effects, applied in one transaction."""

    name: str = Identifier
    label: str
    say: str | None = Field(None, description="the workflow as a person asks for it, an imperative verb phrase "
                            "('Deny refill' → 'deny the refill request'; 'Comp' → 'comp the bill'): its first word "
                            "is the verb")
    description: str | None = None
    subject: str | None = Field(None, description="reference parameter naming the row acted on; puts a button on its detail page")
    params: list[ParamDef] = Field(default_factory=list)
    preconditions: list[Precondition] = Field(default_factory=list)
    effects: list[Effect]
    confirm: str | None = Field(None, description="ask for confirmation in a modal with this text")
    success: str = "Done"
    system: bool = Field(False, description="storyline-only: no endpoint, no form")
    roles: list[str] = Field(default_factory=list, description="the user roles that may run it; empty: every role")


class UserDef(Strict):
    """A hand-written persona."""

    username: str = Identifier
    name: str
    email: str | None = None
    password: str | None = None
    persona: str | None = None
    role: str | None = Field(None, description="one of `users.roles` (default: the first)")


class UsersDef(Strict):
    """Hand-written personas plus generated users."""

    roles: list[str] = Field(default_factory=list, description="the roles users hold, the first the default")
    accounts: list[UserDef] = Field(default_factory=list)
    generate: int = Field(0, ge=0, le=500)


class TaskIntent(Strict):
    """A kind of task users ask for, with phrasings whose {slots} name entities or values."""

    name: str = Identifier
    kind: Literal["read", "write", "read_write"]
    workflow: str | None = None
    phrasings: list[str] = Field(min_length=1)
    slots: dict[str, str] = Field(default_factory=dict, description="slot → what fills it")


class StoryEvent(Strict):
    """A dated, possibly repeating event that runs a workflow to build history."""

    name: str = Identifier
    workflow: str
    start: dt.date
    every: Literal["day", "week", "month"] | None = None
    until: dt.date | None = Field(None, description="default: the seed's today")
    for_each: str | None = Field(None, description="'x in entity [where cond]': run once per matching row")
    actor: str = Field(..., description="expression giving the acting user")
    params: dict[str, str] = Field(default_factory=dict)
    chance: float = Field(1.0, gt=0, le=1, description="probability each occurrence happens")


class InvariantDef(Strict):
    """A statement every row of the seed database must satisfy (checked by a claim)."""

    name: str = Identifier
    for_each: str = Field(..., description="'x in entity [where cond]': the rows it is about")
    check: str = Field(..., description="a bool expression over the row variable")
    message: str


class HomePanel(Strict):
    """A panel of the home page: a few of the user's rows of one entity, each with one value, as the
    product's dashboard shows them (balances, bills due, recent activity)."""

    title: str
    entity: str
    show: str | None = Field(None, description="the field shown beside each row's label (an amount, a date)")
    where: dict[str, Any] = Field(default_factory=dict, description="list filters by field: a value, or for a "
                                  "date or number range {min, max}; 'today' is the world's today")
    sort: str | None = Field(None, description="a field the list sorts by, '-' first for descending")
    limit: int = Field(5, ge=1, le=20)
    total: bool = Field(False, description="a money `show`: add up the rows under the panel")


Layout = Literal["sidebar", "topnav", "inbox", "calendar"]
Theme = Literal["harbor", "meadow", "ember", "graphite", "orchid", "paper"]


class LookDef(Strict):
    """How the app looks: a layout family and a theme. Either left out is drawn from `random_seed`
    among those that fit the world (an inbox needs message-like rows, a calendar dated ones)."""

    layout: Layout | None = Field(None, description="sidebar app, top-navigation site, three-pane inbox or calendar")
    theme: Theme | None = Field(None, description="palette, typography, density and corner radius")
    focus: str | None = Field(None, description="inbox and calendar: the entity they show (default: the best fit)")
    dates: list[str] | None = Field(None, min_length=1, max_length=2,
                                    description="calendar: the focus entity's date field, or its start and end fields")


class Seed(Strict):
    """A whole seed file."""

    world: str = Field(pattern=r"^[a-z][a-z0-9_-]*$", max_length=40)
    title: str
    scenario: str
    today: dt.date
    random_seed: int = 7
    users: UsersDef
    entities: list[EntityDef] = Field(min_length=1)
    workflows: list[WorkflowDef] = Field(default_factory=list)
    tasks: list[TaskIntent] = Field(default_factory=list)
    capabilities: list[Capability] = Field(default_factory=list)
    storyline: list[StoryEvent] = Field(default_factory=list)
    invariants: list[InvariantDef] = Field(default_factory=list)
    look: LookDef | None = None
    home: list[HomePanel] | None = Field(None, description="the home page's panels (default: drawn from the entities)")
