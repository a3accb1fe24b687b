"""The rollout record's JSON Schema, as shipped in `docs/rollout-record.schema.json`.

The record itself is `episodes.rollouts.Rollout` (the episode server writes it, and has to stand
alone); the schema is rendered here the one way the factory renders schemas (`factory.schemas`),
so a test can compare the shipped file with the code byte for byte. Regenerate with
`python -m factory.rollouts.record` (`make schema`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from episodes.rollouts import Rollout
from factory.schemas import model_schema, schema_text

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "rollout-record.schema.json"
NAME = "rollout-record"


def rollout_record_schema() -> dict[str, Any]:
    """The JSON Schema of one line of a rollouts file."""
    return model_schema(Rollout, NAME)


def render_schema() -> str:
    """The exact text of `docs/rollout-record.schema.json`."""
    return schema_text(Rollout, NAME)


if __name__ == "__main__":  # regenerate: python -m factory.rollouts.record (make schema)
    SCHEMA_PATH.write_text(render_schema())
