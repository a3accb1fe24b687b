"""The rollout record: one JSON line per finished episode, written by the episode server on request
(`POST /episodes/{id}/finish`) or by anyone else, read by rollout triage.

A record says who (agent) did what (actions with their time since the episode started) on which
task and episode, what it answered, what the grader gave, and the evidence triage needs when the
episode's state is gone: the row-level diff of the final state against the initial one, the grade's
checks, and the server's events (inline counts, the full list by reference to a side file).
`docs/rollout-record.schema.json` is its JSON Schema (`make schema`). Reference agents also name
the mistake they made on purpose (`seeded_cause`), so triage can be calibrated against it.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

SCHEMA_VERSION: Literal[1] = 1


class Action(BaseModel):
    """One thing the agent did: a click, a fill, a navigation, an HTTP call, an MCP tool call, an answer."""

    model_config = ConfigDict(extra="forbid")
    t: float = Field(ge=0, description="seconds since the episode started")
    kind: str = Field(min_length=1, description="click, fill, select, navigate, http, tool, answer, dismiss, ...")
    target: str | None = Field(None, description="what it acted on: a label, a test id, a URL path, a tool name")
    value: Any = Field(None, description="what it typed, chose or sent")
    url: str | None = Field(None, description="the page it was on")


class EventCounts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    requests: int = 0
    client_errors: int = Field(0, alias="4xx")
    server_errors: int = Field(0, alias="5xx")
    exceptions: int = 0


class Rollout(BaseModel):
    """One finished episode."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    schema_version: Literal[1] = SCHEMA_VERSION
    world: str
    task_id: str
    episode_id: str
    agent: str = Field(min_length=1, description="the agent's name and version, as the harness calls it")
    noise_seed: int | None = Field(None, description="the episode's noise seed, when noisy mode was on")
    actions: list[Action] = Field(default_factory=list)
    answer: str | None = None
    gave_up: bool = False
    reward: float | None = Field(None, ge=0, le=1, description="the grader's score; None when not graded")
    grade: dict[str, Any] | None = Field(None, description="the grade's explanation and checks")
    final_diff: dict[str, Any] | None = Field(None, description="row-level diff of the final against the initial state")
    events: EventCounts = Field(default_factory=EventCounts)
    events_file: str | None = Field(None, description="the server's events of the episode, relative to the rollouts file")
    screenshots: list[str] = Field(default_factory=list)
    seeded_cause: str | None = Field(None, description="reference agents only: the mistake made on purpose")


class RolloutLineError(Exception):
    """A line of a rollouts file that is not a rollout record (named by its line number)."""

    def __init__(self, path: Path, number: int, reason: str) -> None:
        self.path, self.number, self.reason = path, number, reason
        super().__init__(f"{path}:{number}: {reason}")


def read_rollouts(path: Path) -> tuple[list[Rollout], list[RolloutLineError]]:
    """Every valid record of a JSONL file, and one error per malformed line (which is skipped)."""
    records: list[Rollout] = []
    errors: list[RolloutLineError] = []
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(Rollout.model_validate_json(line))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "line"
            errors.append(RolloutLineError(path, number, f"{where}: {first.get('msg', 'invalid')}"))
    return records, errors


class RolloutWriter:
    """Appends records to one JSONL file, one whole line at a time (thread-safe); events go to a
    side folder `<file stem>.events/<episode>.json`."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.events_dir = self.path.with_name(self.path.stem + ".events")
        self._lock = threading.Lock()

    def write(self, record: Rollout, events: dict[str, Any] | None = None) -> Rollout:
        if events is not None:
            self.events_dir.mkdir(parents=True, exist_ok=True)
            target = self.events_dir / f"{record.episode_id}.json"
            target.write_text(json.dumps(events, indent=1, sort_keys=True) + "\n")
            record = record.model_copy(update={"events_file": str(target.relative_to(self.path.parent))})
        line = record.model_dump_json(by_alias=True) + "\n"
        with self._lock, self.path.open("a") as out:
            out.write(line)
        return record
