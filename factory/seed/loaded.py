"""A seed that passed validation, with its source text and the line of every key, so that any
later check can point its error at the file, line and key (`LoadedSeed.error`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from factory.errors import SeedError
from factory.seed.model import Seed
from factory.seed.yaml_lines import Path as KeyPath
from factory.seed.yaml_lines import dotted, line_of


@dataclass
class LoadedSeed:
    """A validated seed with what is needed to point errors back at its source."""

    seed: Seed
    file: str
    text: str
    lines: dict[KeyPath, int]

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    def error(self, path: KeyPath, message: str) -> SeedError:
        """A SeedError located at `path` in this file."""
        return SeedError(self.file, line_of(self.lines, path), dotted(path), message)
