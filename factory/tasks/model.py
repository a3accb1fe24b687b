"""The task record written to `tasks/tasks.jsonl`, as strict pydantic models (no I/O here).

Echoverse-compatible: id, goal, task_type, difficulty, estimated_actions, category,
reference_answer, reference_state_change, verification_query, metadata{starting_url,
acting_user_id, required_entities, grounding_evidence}, db_file. Ours: setup (steps and the
replayable patch), golden_steps (the API calls), reward (the program `verifiers` grades), gates
(every executed gate with its score), trajectory (the verified UI demonstration), repairs, split.

`docs/task-record.schema.json` is generated from `TaskRecord` (`render_schema`, `make schema`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from factory.schemas import model_schema, schema_text

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "task-record.schema.json"

TaskType = Literal["read", "write", "read_write"]
Difficulty = Literal["easy", "medium", "hard"]
Split = Literal["train", "test"]


class _Strict(BaseModel):
    # strict: a value of the wrong type is an error, never quietly converted (a bool read as 1
    # would change the bytes of tasks.jsonl); extra="forbid": a key nobody declared is an error.
    model_config = ConfigDict(extra="forbid", strict=True)


class StepRecord(_Strict):
    """One workflow call as the app's API takes it."""

    workflow: str = Field(description="The workflow's name in the spec.")
    params: dict[str, Any] = Field(
        description="API-level parameters: references as int ids (or null), money as int cents, dates "
                    "'YYYY-MM-DD', datetimes 'YYYY-MM-DDTHH:MM:SS', enums as text, booleans.")


class StateChange(_Strict):
    """What the golden run changes in the database."""

    summary: str = Field(description="One clause per changed table, e.g. `account: 2 updated (balance)`, "
                                     "or `no changes`.")
    sql: str = Field(description="The sqldiff SQL that turns the initial database into the golden one "
                                 "(empty when nothing changes).")


class RequiredEntity(_Strict):
    """A row the task is about."""

    entity: str = Field(description="The entity's name in the spec.")
    id: int = Field(description="The row's id in the initial database.")
    label: str | None = Field(description="The row's display label as the app shows it; null if the row "
                                          "is not in the initial database.")


class Evidence(_Strict):
    """A row the task is grounded in, as it stands in the initial database."""

    entity: str = Field(description="The entity's name in the spec.")
    id: int = Field(description="The row's id.")
    row: dict[str, Any] | None = Field(description="The row's columns and values; null if it is missing.")


class Metadata(_Strict):
    """Where the task starts and what it is grounded in."""

    starting_url: str = Field(description="The page the agent starts on.")
    acting_user_id: int = Field(description="The id of the user the agent acts as.")
    acting_user: str = Field(description="That user's username (the login).")
    required_entities: list[RequiredEntity] = Field(description="The rows the task is about.")
    grounding_evidence: list[Evidence] = Field(description="Up to five of those rows, with their values.")
    capabilities: list[str] = Field(description="What the task exercises beyond its workflow, e.g. "
                                                "`date_range`.")
    phrasing: str = Field(description="Which phrasing wrote the goal: `generic`, `errand`, or `intent:<name>` "
                                      "for the seed's task intent of that name; prefixed `model:` when a model "
                                      "reworded that text and the rewording passed the same gates.")


class SetupRecord(_Strict):
    """How the task's initial state is made from `data/seed.db`."""

    steps: list[StepRecord] = Field(description="The workflow calls, run as the acting user, that made it.")
    patch: str = Field(description="Their effect as sqldiff SQL, replayed on data/seed.db; empty when the "
                                   "task starts from the seed database itself.")
    patch_sha256: str = Field(description="The SHA-256 of `patch` (hex).")
    how: str = Field(description="How to make the initial state, in one sentence.")


class GateRecord(_Strict):
    """One executed gate."""

    name: str = Field(description="The gate: initial, golden, determinism, ui, or counterfactual:<kind>.")
    passed: bool = Field(description="Whether it held.")
    score: float | None = Field(description="The reward the gate saw; null when it grades nothing (a "
                                            "counterfactual that does not apply).")
    detail: str = Field(description="What it was run on and what it saw.")


class Trajectory(_Strict):
    """The UI demonstration: the scripted solver's run through the real UI in Chromium."""

    ok: bool = Field(description="Whether every step went through.")
    message: str = Field(description="Why not, when it did not.")
    answer: str | None = Field(description="A READ's answer as read off the page it reached.")
    actions: list[dict[str, Any]] = Field(description="The UI actions in order: n, action, target, value, url, "
                                                      "and a screenshot under trajectories/<id>/.")


class TaskRecord(_Strict):
    """One accepted task: a line of `tasks/tasks.jsonl`."""

    id: str = Field(description="The task id, `<world>-<kind>-<category>-<n>`.")
    goal: str = Field(description="The instruction, naming rows the way a user would (never by id).")
    task_type: TaskType = Field(description="What the task asks for.")
    difficulty: Difficulty = Field(
        description="From the number of UI actions, one level up for read_write or several workflows.")
    estimated_actions: int = Field(description="UI actions: the trajectory's, or an estimate without one.")
    category: str = Field(description="The question's kind for a READ (lookup, count, date-range, superlative), "
                                      "the workflow otherwise, or multi_step for two workflows.")
    reference_answer: str | None = Field(description="A READ's answer as a person would type it; null for "
                                                     "a WRITE.")
    reference_state_change: StateChange = Field(description="What the golden run changes.")
    verification_query: str = Field(description="SQL a person can run on the final database to see what "
                                                "the reward looks at.")
    metadata: Metadata = Field(description="Where the task starts and what it is grounded in.")
    db_file: str = Field(description="The seed database, relative to the world.")
    setup: SetupRecord = Field(description="How the initial state is made.")
    golden_steps: list[StepRecord] = Field(description="The API calls that do the task.")
    reward: dict[str, Any] = Field(description="The reward program `verifiers.grade` runs (its checks and "
                                               "weights), written by the isolated reward-gen process.")
    gates: list[GateRecord] = Field(description="Every executed gate, all passed.")
    trajectory: Trajectory | None = Field(description="The verified UI demonstration; null when the UI gate "
                                                      "was not run.")
    repairs: list[str] = Field(description="The repairs the task went through, in order.")
    split: Split = Field(description="A stable 80/20 split by the hash of the id.")

    def to_line(self) -> str:
        """The record's line in tasks.jsonl: every key, sorted, nulls kept."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True) + "\n"


def task_record_schema() -> dict[str, Any]:
    """The JSON Schema of a tasks.jsonl line, as the models define it."""
    return model_schema(TaskRecord, "task-record")


def render_schema() -> str:
    """The exact text of `docs/task-record.schema.json`."""
    return schema_text(TaskRecord, "task-record")


if __name__ == "__main__":  # regenerate: python -m factory.tasks.model (make schema)
    SCHEMA_PATH.write_text(render_schema())
