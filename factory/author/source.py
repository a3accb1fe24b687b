"""A free-form seed: a markdown description, with an optional fenced YAML block holding a partial
seed (the sections given there are kept as written; the model drafts the others)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from factory.errors import SeedError
from factory.seed.model import Seed
from factory.seed.yaml_lines import load_with_lines

SUFFIXES = (".md", ".markdown")
_YAML_BLOCK = re.compile(r"^```ya?ml[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def is_freeform(path: str | Path) -> bool:
    """A seed file the model must turn into YAML first (a markdown file)."""
    return Path(path).suffix.lower() in SUFFIXES


@dataclass(frozen=True)
class Freeform:
    """What a free-form seed says: its prose, and the seed keys its YAML block fixes."""

    file: str
    description: str
    given: dict[str, Any] = field(default_factory=dict)


def read_freeform(path: str | Path) -> Freeform:
    """Read and split a free-form seed; a YAML block that does not parse is a located SeedError."""
    file = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SeedError(file, None, "", f"cannot read seed: {exc.strerror or exc}") from exc
    given: dict[str, Any] = {}
    for match in _YAML_BLOCK.finditer(text):
        first_line = text.count("\n", 0, match.start(1)) + 1
        try:
            data, _ = load_with_lines(match.group(1))  # dates stay strings, as in a seed file
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            raise SeedError(file, first_line + mark.line if mark else first_line, "",
                            f"YAML syntax error in the partial seed: {exc.problem or exc.context}") from exc
        if data is None:
            continue
        if not isinstance(data, dict):
            raise SeedError(file, first_line, "", "the YAML block must be a mapping of seed keys (world, entities, ...)")
        unknown = sorted(set(data) - set(Seed.model_fields))
        if unknown:
            raise SeedError(file, first_line, unknown[0],
                            f"unknown seed key (allowed: {', '.join(Seed.model_fields)})")
        given.update(data)
    description = _YAML_BLOCK.sub("", text).strip()
    if not description and not given:
        raise SeedError(file, 1, "", "empty: describe the world in a paragraph (who uses it, what they keep, what they do)")
    return Freeform(file=file, description=description, given=given)


__all__ = ["SUFFIXES", "Freeform", "is_freeform", "read_freeform"]
