"""The world manifest: machine-readable state of a world (see DESIGN.md, "Machine-readable results")."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

# 2: `tasks.spread` (the corpus's spread over workflows, entities, difficulty, steps and registers).
MANIFEST_VERSION = 2


LLM_USAGE = "reports/llm_usage.json"  # a model's tokens and cost, summed into the manifest


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ClaimsSummary(Strict):
    """The last verification: claims checked and passed, and how much of the world that covers."""

    total: int = Field(0, description="claims checked in the last run")
    passed: int = 0
    rounds: int = 0
    layers: list[str] = Field(default_factory=list, description="layers the checked claims belong to")
    browser: bool = Field(True, description="browser claims were run (false after --no-ui)")
    skipped: int = Field(0, description="claims of claims.json the last run did not check")
    complete: bool = Field(False, description="every claim was checked and passed: the only full-pass figure")


class TasksByType(Strict):
    read: int = 0
    write: int = 0
    read_write: int = 0


class TasksSpread(Strict):
    """How the accepted tasks spread (issue 15, point 6); written by `factory.tasks.diversity`."""

    workflows: dict[str, int] = Field(description="tasks per workflow a golden step runs (reads: `read:<category>`)")
    entities: dict[str, int] = Field(description="tasks per entity whose rows a task names")
    difficulty: dict[str, int] = Field(description="tasks per difficulty (from golden steps and UI actions)")
    steps: dict[str, int] = Field(description="tasks per number of golden steps")
    registers: dict[str, int] = Field(description="tasks per instruction register: errand (purpose first), seed, "
                                                  "question, polite, request, terse")
    evenness: dict[str, float] = Field(description="normalised entropy per dimension above: 1.0 is even, 0.0 one kind")
    writes: int = Field(ge=0, description="accepted write and read_write tasks")
    multi_action: int = Field(ge=0, description="of those, tasks whose golden run takes two or more distinct actions")
    mixed_workflows: int = Field(ge=0, description="of those, tasks whose golden run mixes two or more workflows")
    multi_action_share: float = Field(ge=0.0, le=1.0, description="multi_action / writes")
    uncovered_workflows: list[str] = Field(description="user workflows no accepted task runs")
    near_duplicates_removed: int = Field(ge=0, description="drafts dropped as near-duplicates (same workflow, "
                                                          "rows and values, free text aside; or the same question)")


class TasksSummary(Strict):
    drafted: int = 0
    accepted: int = 0
    by_type: TasksByType = Field(default_factory=TasksByType)
    spread: TasksSpread | None = Field(None, description="the accepted tasks' spread (schema 2 on)")


class Manifest(Strict):
    """What a world holds and how far it has been proven."""

    schema_version: int = MANIFEST_VERSION
    world: str
    title: str
    factory_version: str
    seed_sha256: str
    spec_sha256: str
    seed_db_sha256: str
    stages: list[str] = Field(description="stages completed, in order")
    counts: dict[str, int] = Field(description="rows per table in the seed database")
    users: int
    entities: int
    workflows: int
    pages: int
    routes: int
    storyline: dict[str, int] = Field(description="storyline occurrences ran / rejected / skipped")
    claims: ClaimsSummary = Field(default_factory=ClaimsSummary)
    claims_sha256: str | None = Field(None, description="lock: hash of claims.json as the claims compiler wrote it")
    tasks: TasksSummary = Field(default_factory=TasksSummary)
    gates: dict[str, int] = Field(default_factory=dict)
    rewardgen_sandbox: str | None = Field(
        None, description="how stage two isolated reward-gen: bwrap (Linux namespaces, one task per "
                          "sandbox) or unsafe (--unsafe-sandbox: a plain process with an audit hook)")
    llm: LLMSummary | None = Field(None, description="a model's use for this world (reports/llm_usage.json), "
                                   "absent when no model was used")


class LLMSummary(Strict):
    """What a configured model cost this world, summed over every agent that asked it."""

    model: str
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_manifest(path: Path, manifest: Manifest) -> None:
    """Write the manifest beside the world's files, with the model usage the world's reports hold
    (none without a model: the manifest is then byte for byte what it was before models existed)."""
    usage = path.parent / LLM_USAGE
    if usage.is_file():
        data = json.loads(usage.read_text())
        manifest = manifest.model_copy(update={"llm": LLMSummary(**{k: data[k] for k in LLMSummary.model_fields})})
    dumped = manifest.model_dump(mode="json")
    if dumped.get("llm") is None:
        dumped.pop("llm", None)
    path.write_text(json.dumps(dumped, indent=2, sort_keys=True) + "\n")


def read_manifest(path: Path) -> Manifest:
    return Manifest.model_validate(json.loads(path.read_text()))

