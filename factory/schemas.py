"""The JSON Schemas the factory ships, rendered one way: draft 2020-12, a stable `$id`, sorted keys.

`factory/seed/schema.json` (the seed format) and `docs/task-record.schema.json` (a tasks.jsonl
line) are both generated from their pydantic models here, so a test can compare the shipped file
with the code byte for byte.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel


def model_schema(model: type[BaseModel], name: str) -> dict[str, Any]:
    """The JSON Schema of `model`, identified as `<name>.schema.json`."""
    schema = model.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://world-factory.local/{name}.schema.json"
    return schema


def schema_text(model: type[BaseModel], name: str) -> str:
    """The exact text of the shipped schema file of `model`."""
    return json.dumps(model_schema(model, name), indent=2, sort_keys=True) + "\n"


__all__ = ["model_schema", "schema_text"]
