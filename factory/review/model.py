"""What the review site shows, as strict data: a world read into view models (no I/O here).

`collect` fills these from a world directory, `screens` and `strips` add the pictures, `render`
turns them into HTML. Every list is in a stable order, so the same world renders the same bytes.
Paths of pictures are relative to the site's root (`screens/maya/home.png`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Bar(Strict):
    """One bar of a chart: `value` of `total` (a rate), or a plain count when `total` is None."""

    label: str
    value: int
    total: int | None = None

    @property
    def rate(self) -> float:
        return self.value / self.total if self.total else 0.0


# ---- claims -------------------------------------------------------------------------------------
class RequestView(Strict):
    """One HTTP exchange of a claim's evidence, the response body as indented JSON text."""

    method: str
    path: str
    user: str | None
    status: int
    body: str


class RowChange(Strict):
    """One changed row of a database diff: what it was and what it became (None: absent)."""

    change: str  # inserted | deleted | updated
    key: str
    columns: list[str]
    before: list[str] | None
    after: list[str] | None
    changed: list[str] = Field(default_factory=list)


class TableDiff(Strict):
    table: str
    schema_change: str
    rows: list[RowChange]


class ClaimView(Strict):
    """A claim with its outcome and evidence."""

    id: str
    anchor: str
    layer: str
    kind: str
    description: str
    provenance: str
    outcome: str  # passed | failed | not run
    message: str
    getter: str
    predicate: str
    requests: list[RequestView] = Field(default_factory=list)
    sql_rows: list[list[str]] | None = None
    diff: list[TableDiff] = Field(default_factory=list)
    screenshot: str | None = None  # relative to the site
    console_errors: list[str] = Field(default_factory=list)
    server_log: list[str] = Field(default_factory=list)
    error: str | None = None


# ---- tasks --------------------------------------------------------------------------------------
class GateView(Strict):
    name: str
    passed: bool
    score: float | None
    detail: str


class Frame(Strict):
    """One picture of a golden trajectory: the page after action `n` (0: the final state)."""

    n: int
    image: str
    caption: str


class ActionView(Strict):
    n: int
    action: str
    target: str
    value: str | None
    url: str


class TaskView(Strict):
    id: str
    anchor: str
    task_type: str
    workflow: str  # the golden steps' workflows joined with "+", or "read" for a question
    category: str
    difficulty: str
    split: str
    user: str
    goal: str
    reward_mode: str
    reward_words: list[str]
    gates: list[GateView]
    counterfactuals: list[GateView]
    reference_answer: str | None
    state_change: str
    state_sql: str
    setup: str
    actions: list[ActionView]
    frames: list[Frame] = Field(default_factory=list)
    replayed: bool = False  # the strip was replayed for this site (else: the recorded final frame, if any)
    replay_message: str = ""


# ---- history -----------------------------------------------------------------------------------
class FileChange(Strict):
    path: str
    insertions: int
    deletions: int


class CommitView(Strict):
    sha: str
    short: str
    anchor: str
    subject: str
    body: str
    files: list[FileChange]
    diff: str
    diff_truncated: bool
    rate_before: float | None
    rate_after: float | None
    repair_note: str = ""


class ModelPatchView(Strict):
    """One diff a model proposed for a cluster the templates could not fix (`factory.prove.patcher`),
    whatever became of it: kept, reverted, refused (a forbidden path) or not applied."""

    round: int
    clusters: list[str]
    outcome: str
    files: list[str]
    before: float
    after: float | None
    note: str
    rationale: str
    diff: str


# ---- pages as personas see them -------------------------------------------------------------------
class PageShot(Strict):
    page_id: str
    path: str
    title: str
    persona: str
    image: str | None
    note: str = ""


class Persona(Strict):
    username: str
    name: str
    why: str


# ---- figures --------------------------------------------------------------------------------------
class Figure(Strict):
    """A red-team or mutation table: column names and rows of text, and a chart."""

    title: str
    summary: str
    columns: list[str]
    rows: list[list[str]]
    chart: str = ""


class Count(Strict):
    label: str
    value: str


class Review(Strict):
    """The whole site's data."""

    world: str
    title: str
    scenario: str
    factory_version: str
    spec_sha256: str
    counts: list[Count]
    charts: dict[str, str]  # name → inline SVG
    erd: str
    claims: list[ClaimView]
    claim_filters: dict[str, list[str]]
    tasks: list[TaskView]
    task_filters: dict[str, list[str]]
    strips_note: str
    commits: list[CommitView]
    personas: list[Persona]
    shots: list[PageShot]
    shots_note: str
    figures: list[Figure]
    patches: list[ModelPatchView] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)
