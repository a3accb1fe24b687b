"""`factory check`'s validation of a seed text: load (YAML, JSON Schema, structure) and build the
spec (expressions type-checked); the first problem as the one line the command prints."""

from __future__ import annotations

from factory.builder.build import build_spec
from factory.errors import FactoryError
from factory.seed.loader import load_seed_text


def check_text(text: str, file: str) -> str | None:
    """None when the seed passes; else the checker's `file:line: key: message`."""
    try:
        build_spec(load_seed_text(text, file))
    except FactoryError as exc:
        return str(exc)
    return None


__all__ = ["check_text"]
