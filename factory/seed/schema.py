"""The seed JSON Schema: generated from the pydantic models, shipped as `schema.json`."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from factory.schemas import model_schema, schema_text
from factory.seed.model import Seed

SCHEMA_PATH = Path(__file__).with_name("schema.json")


def generate() -> dict[str, Any]:
    """The schema as the models define it."""
    return model_schema(Seed, "seed")


def render() -> str:
    """The schema file's exact text."""
    return schema_text(Seed, "seed")


@lru_cache(maxsize=1)
def shipped() -> dict[str, Any]:
    """The schema file that ships with the package."""
    return json.loads(SCHEMA_PATH.read_text())


if __name__ == "__main__":  # regenerate: python -m factory.seed.schema
    SCHEMA_PATH.write_text(render())
