"""What every fault injector shares: the world view, targets, and anchored text edits that fail loudly."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import git

from factory.errors import FactoryError
from factory.spec.model import Spec

Layer = Literal["db", "backend", "frontend"]


class MutationError(FactoryError):
    """A fault cannot be injected: unknown kind, no eligible target, or a generated file lacks its anchor."""


@dataclass(frozen=True)
class Target:
    """One place a fault of some kind can hit: `name` goes into reports, `ref` is what the injector needs."""

    name: str
    ref: Any = None


@dataclass(frozen=True)
class Applied:
    """What an injector did: a one-line description and the world-relative paths it wrote."""

    description: str
    paths: tuple[str, ...]


@dataclass(frozen=True)
class Mutation:
    """A fault kind: where it lives, which targets it may hit, and how to apply it to one of them."""

    kind: str
    layer: Layer
    targets: Callable[[WorldView], list[Target]]
    apply: Callable[[WorldView, Target, random.Random], Applied]
    summary: str = ""  # one line for listings and reports: what a fault of this kind does


@dataclass
class WorldView:
    """A built world seen by the injectors: its spec, its git repository and guarded file writes."""

    root: Path
    spec: Spec
    written: list[str] = field(default_factory=list)

    @cached_property
    def repo(self) -> git.Repo:
        return git.Repo(self.root)

    def read(self, rel: str) -> str:
        path = self.root / rel
        if not path.is_file():
            raise MutationError(f"{self.root}: {rel} is missing; rebuild the world before mutating it")
        return path.read_text()

    def ensure_clean(self, rel: str) -> None:
        """Refuse to touch a path with uncommitted changes: the mutation commit must hold the fault alone."""
        if self.repo.git.status("--porcelain", "--", rel).strip():
            raise MutationError(f"{self.root}: {rel} has uncommitted changes; commit or discard them before "
                                "injecting a fault")

    def write(self, rel: str, text: str) -> None:
        self.ensure_clean(rel)
        (self.root / rel).write_text(text)
        self.written.append(rel)

    def entity(self, name: str) -> Any:
        return next(e for e in self.spec.entities if e.name == name)


def replace_once(text: str, old: str, new: str, where: str) -> str:
    """`text` with its single occurrence of `old` replaced; a MutationError when the anchor is absent or ambiguous."""
    count = text.count(old)
    if count != 1:
        found = "not found" if count == 0 else f"found {count} times"
        raise MutationError(f"{where}: anchor {old.strip()[:120]!r} {found}; the generated code changed shape")
    return text.replace(old, new, 1)


def match_once(pattern: str, text: str, where: str, flags: int = re.MULTILINE) -> re.Match[str]:
    """The single match of `pattern` in `text`, or a MutationError naming the anchor."""
    matches = list(re.finditer(pattern, text, flags))
    if len(matches) != 1:
        found = "not found" if not matches else f"found {len(matches)} times"
        raise MutationError(f"{where}: anchor /{pattern[:120]}/ {found}; the generated code changed shape")
    return matches[0]


def splice(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def span_between(text: str, start_anchor: str, end_anchor: str, where: str) -> tuple[int, int]:
    """(start, end) offsets of the region from the single `start_anchor` up to the next `end_anchor` (inclusive)."""
    start = match_once(re.escape(start_anchor), text, where, flags=0).start()
    end = text.find(end_anchor, start)
    if end < 0:
        raise MutationError(f"{where}: no {end_anchor.strip()!r} after {start_anchor.strip()!r}")
    return start, end + len(end_anchor)
