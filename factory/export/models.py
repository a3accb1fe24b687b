"""What the exports write, as strict pydantic models (no I/O here): an Echoverse task line and
registry, the export manifest every format writes beside its files, and a Harbor task's files' data."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from factory.tasks.model import Difficulty, Split, TaskType

SCHEMA_VERSION = 1
Format = Literal["echoverse", "harbor", "hf"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# ---- Echoverse -------------------------------------------------------------------------------------------
class EchoverseEntity(_Strict):
    """A row a task is about, as the harness names it."""

    table: str = Field(description="The SQLite table.")
    id: int = Field(description="The row's id.")


class EchoverseMetadata(_Strict):
    """Where the task starts, who acts, and what it is grounded in."""

    starting_url: str = Field(description="The page the agent starts on (a path on the frontend).")
    acting_user_id: int = Field(description="The id of the user the agent acts as (pass it as `--user`).")
    acting_user: str = Field(description="That user's username.")
    required_entities: list[EchoverseEntity] = Field(description="The rows the task is about.")
    grounding_evidence: list[dict[str, Any]] = Field(description="Up to five of those rows as they stand in the initial "
                                                                 "database: {table, id, row}.")
    state_change_summary: str = Field(description="`reference_state_change` in words, e.g. `account: 2 updated (balance)`.")
    verification_query_from: Literal["reward", "question", "grounding"] = Field(
        description="Where `verification_query` comes from: the reward program's checks (writes), the goal's question "
                    "(reads), or, when the question cannot be written as SQL, the rows the answer is grounded in.")
    reference_answer_from: Literal["reward", "question", "grounding", "none"] = Field(
        description="Where `reference_answer` comes from: the task record (reads), the row the goal finds "
                    "(read_write), its first grounded row (fallback), or none (writes).")
    split: Split = Field(description="The task's split in the world's corpus.")
    category: str = Field(description="The task's category (as the top-level field).")
    capabilities: list[str] = Field(description="What the task exercises beyond its workflow.")
    world: str = Field(description="The world the task belongs to.")


class EchoverseTask(_Strict):
    """One line of `tasks/test_tasks.jsonl` (or `train_tasks.jsonl`), as the Echoverse loader and judge read it."""

    id: str
    goal: str
    task_type: TaskType
    difficulty: Difficulty
    estimated_actions: int
    category: str
    reference_answer: str | None = Field(description="What a READ or READ_WRITE answer must say; null for a WRITE.")
    reference_state_change: str = Field(description="The sqldiff SQL from the initial to the golden database "
                                                     "(empty when nothing changes).")
    verification_query: str = Field(description="SQL to run on the final database to see what is graded.")
    metadata: EchoverseMetadata
    db_file: str = Field(description="The task's initial database, relative to the environment's folder.")

    @model_validator(mode="after")
    def _answers(self) -> EchoverseTask:
        if self.task_type != "write" and not self.reference_answer:
            raise ValueError(f"{self.id}: a {self.task_type} task needs a reference_answer")
        if self.task_type == "read" and not self.verification_query:
            raise ValueError(f"{self.id}: a read task needs a verification_query")
        return self


class Command(_Strict):
    """A process the launcher starts: its folder (relative to the registry) and argv; `{…}` are filled in."""

    cwd: str
    argv: list[str]
    env: dict[str, str] = Field(default_factory=dict)


class RegistryEntry(_Strict):
    """One environment of `registry.json`."""

    name: str
    title: str
    path: str = Field(description="The environment's folder, relative to the registry.")
    db: str = Field(description="Its seed database, relative to the environment's folder.")
    user: str = Field(description="The default acting user (username), passed as `--user`: without it the app "
                                  "shows its login page. Each task names its own in metadata.acting_user.")
    user_id: int
    today: str = Field(description="The world's frozen date.")
    backend: Command
    install: list[Command]
    frontend: Command
    tasks: dict[str, str] = Field(description="Split → task file, relative to the registry.")
    counts: dict[str, int]


class Registry(_Strict):
    """`<root>/registry.json`: every environment exported into this root."""

    schema_version: int = SCHEMA_VERSION
    environments: dict[str, RegistryEntry]


# ---- every format -----------------------------------------------------------------------------------------
class ExportManifest(_Strict):
    """`export.json`, written with every export: where it came from, what it holds, what was derived."""

    schema_version: int = SCHEMA_VERSION
    format: Format
    world: str
    title: str
    factory_version: str
    spec_sha256: str
    seed_db_sha256: str
    license: str | None
    tasks: dict[str, int] = Field(description="Counts by split and type (`test`, `train`, `read`, ...) and `total`.")
    derived: dict[str, dict[str, int]] = Field(default_factory=dict,
                                               description="Derived fields: how many of each came from where.")
    fallbacks: list[dict[str, str]] = Field(default_factory=list,
                                            description="Each derivation that fell back: task, field, why.")
    files: dict[str, str] = Field(description="Every other file's SHA-256.")
