"""Claim models: what is fetched (getter), how it is judged (predicate), where it came from.

Pure data. Claims are hash-locked: `claims.json` is only ever written by the claims compiler,
and a repair that changes it is refused.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

CLAIMS_VERSION = 1
Layer = Literal["db", "backend", "frontend"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- getters -------------------------------------------------------------------------------
class HttpStep(Strict):
    """One request, as `user` (a username) or anonymously."""

    method: Literal["GET", "POST", "PATCH", "DELETE"]
    path: str
    user: str | None = None
    query: dict[str, Any] | None = None
    body: dict[str, Any] | None = None


class HttpGetter(Strict):
    """Requests against a running app; the last step's response is judged.

    With `fresh_db` the claim runs on its own copy of the seed database and the row-level
    difference it caused is part of the evidence; with `plant`, that copy is planted first and the
    difference is taken from the planted copy.
    """

    type: Literal["http"] = "http"
    steps: list[HttpStep]
    fresh_db: bool = False
    plant: list[str] = Field(default_factory=list, description="SQL run on the fresh copy before the requests "
                             "(a value planted for a search to find); needs fresh_db")


class SqlGetter(Strict):
    """A read-only query over the seed database; it selects the rows that would be violations."""

    type: Literal["sql"] = "sql"
    query: str


class InvariantGetter(Strict):
    """A seed invariant, evaluated over the seed database by the app's generated checker."""

    type: Literal["invariant"] = "invariant"
    name: str


class UiGetter(Strict):
    """A browser script run in a fresh Chromium context on a fresh database copy."""

    type: Literal["ui"] = "ui"
    script: Literal["page", "workflow", "date_range_filter", "nested_filter", "pagination", "filter", "labels"]
    user: str
    args: dict[str, Any] = Field(default_factory=dict)
    plant: list[str] = Field(default_factory=list, description="SQL run on the fresh copy before the browser opens "
                             "it (rows planted for a workflow the seed data gives nothing to act on)")


Getter = Annotated[HttpGetter | SqlGetter | InvariantGetter | UiGetter, Field(discriminator="type")]


# ---- predicates ----------------------------------------------------------------------------
class StatusIs(Strict):
    """The response has this status (and, if given, these top-level JSON values)."""

    type: Literal["status"] = "status"
    status: int
    json_subset: dict[str, Any] | None = None
    html: bool = False  # the body is the app's HTML page


class NoRows(Strict):
    """The query returns no rows (each row is a violation)."""

    type: Literal["no_rows"] = "no_rows"


class Footprint(Strict):
    """What a workflow may change in one table."""

    update: list[str] = Field(default_factory=list)
    insert: bool = False
    delete: bool = False


class RowValues(Strict):
    """One row of an expected change: its table, its id (None for a created row) and its values."""

    table: str
    id: int | None = None
    values: dict[str, Any] = Field(default_factory=dict)


class Expected(Strict):
    """The exact row-level change a call leaves behind, computed from the spec's expressions:
    updated rows with each changed column's new value, created rows field by field, deleted rows."""

    updated: list[RowValues] = Field(default_factory=list)
    inserted: list[RowValues] = Field(default_factory=list)
    deleted: list[RowValues] = Field(default_factory=list)


class EffectsExactly(Strict):
    """Status 200, every declared create/delete happened, and nothing outside the footprint changed;
    with `expect`, the change is exactly that one, value by value."""

    type: Literal["effects"] = "effects"
    footprint: dict[str, Footprint]
    must_update: list[str] = Field(default_factory=list, description="tables where some row must change value")
    must_insert: list[str] = Field(default_factory=list)
    must_delete: list[str] = Field(default_factory=list)
    expect: Expected | None = None


class RejectedUnchanged(Strict):
    """A 4xx answer (with this message, if given) and a database left exactly as it was, or, after
    setup calls, exactly as `expect` (what the setups changed) says."""

    type: Literal["rejected"] = "rejected"
    status: int
    detail: str | None = None
    precondition: str | None = None
    expect: Expected | None = None


class ListIs(Strict):
    """A list answer with this total and exactly these row ids, in this order (page, filter, sort)."""

    type: Literal["list"] = "list"
    total: int
    ids: list[int]


class IdsAmong(Strict):
    """A 200 answer whose `field` list names rows or values by `key`: none of `forbidden` appears, every
    one of `required` does, and with `exact` the keys are exactly those, in that order."""

    type: Literal["ids_among"] = "ids_among"
    field: str = "items"
    key: str = "id"
    forbidden: list[Any] = Field(default_factory=list)
    required: list[Any] = Field(default_factory=list)
    exact: list[Any] | None = None


class EntriesAre(Strict):
    """A 200 answer whose `field` list, each entry cut down to `keys`, is exactly `entries`, in order
    (a filter's values with their counts); a `forbidden` value of the first key is named as a leak."""

    type: Literal["entries"] = "entries"
    field: str = "values"
    keys: list[str]
    entries: list[dict[str, Any]]
    forbidden: list[Any] = Field(default_factory=list)


class UiPasses(Strict):
    """The browser script completed its checks (and, for workflows, the effects predicate holds)."""

    type: Literal["ui"] = "ui"
    effects: EffectsExactly | None = None


Predicate = Annotated[StatusIs | NoRows | EffectsExactly | RejectedUnchanged | ListIs | IdsAmong | EntriesAre | UiPasses,
                      Field(discriminator="type")]


class Claim(Strict):
    """One machine-checkable statement about the world."""

    id: str = Field(description="stable id: kind and subject, never a counter")
    layer: Layer
    kind: str
    description: str
    getter: Getter
    predicate: Predicate
    provenance: str = Field(description="where in the spec the claim comes from")
    gates: bool = True


class ClaimSet(Strict):
    """Everything in `claims.json`."""

    schema_version: int = CLAIMS_VERSION
    world: str
    spec_sha256: str
    seed_db_sha256: str
    claims: list[Claim]
    unwitnessed: list[str] = Field(default_factory=list, description="statements no witness could be found for")
