"""The sections of a seed a model drafts, in order, each a projection of the seed's pydantic model
(`Seed`): the response schema of a section is the seed's own definition of those keys, so a section
that validates is a piece of a seed, with the same bounds and names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

from factory.seed.model import Seed


@dataclass(frozen=True)
class Section:
    """Some top-level keys of a seed, drafted in one question."""

    name: str
    keys: tuple[str, ...]
    model: type[BaseModel]
    checked: bool = True  # False: the seed cannot be checked yet (no entities), the schema alone holds it

    @property
    def purpose(self) -> str:
        """The name the ledger and the logs use (`seed.entities`)."""
        return f"seed.{self.name}"

    @property
    def prompt(self) -> str:
        return f"seed/{self.name}.md.j2"

    def given_by(self, given: dict[str, Any]) -> bool:
        """The partial seed gives this section: every key it requires, or any key when none is required."""
        required = [k for k in self.keys if Seed.model_fields[k].is_required()]
        return all(k in given for k in required) if required else any(k in given for k in self.keys)


def _section(name: str, keys: tuple[str, ...], checked: bool = True) -> Section:
    fields: dict[str, Any] = {k: (Seed.model_fields[k].annotation, Seed.model_fields[k]) for k in keys}
    model = create_model(f"Seed{name.title()}", __config__=ConfigDict(extra="forbid"), **fields)
    return Section(name, keys, model, checked)


# Who and what first, then what people do with it, then the history, then how they ask for things.
SECTIONS: tuple[Section, ...] = (
    _section("app", ("world", "title", "scenario", "today", "random_seed", "users", "capabilities"), checked=False),
    _section("entities", ("entities",)),
    _section("workflows", ("workflows", "invariants")),
    _section("storyline", ("storyline",)),
    _section("tasks", ("tasks",)),
)
# The order of keys in a written seed (as in the hand-written ones).
KEY_ORDER = ("world", "title", "scenario", "today", "random_seed", "users", "entities", "workflows", "tasks",
             "capabilities", "storyline", "invariants")

__all__ = ["KEY_ORDER", "SECTIONS", "Section"]
