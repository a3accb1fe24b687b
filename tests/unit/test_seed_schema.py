"""The shipped seed JSON Schema is the one the models generate, and every repository seed passes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.seed.loader import load_seed
from factory.seed.schema import SCHEMA_PATH, render

SEEDS = sorted((Path(__file__).resolve().parents[2] / "seeds").rglob("*.yaml"))


def test_shipped_schema_is_current() -> None:
    assert SCHEMA_PATH.read_text() == render(), "run `make schema` to regenerate factory/seed/schema.json"


@pytest.mark.parametrize("seed", SEEDS, ids=[s.stem for s in SEEDS])
def test_repository_seeds_build_specs(seed: Path) -> None:
    spec = build_spec(load_seed(seed))
    assert spec.world and spec.entities and spec.users
    assert spec.model_dump_json() == build_spec(load_seed(seed)).model_dump_json()  # deterministic
