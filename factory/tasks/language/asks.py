"""What an instruction asks, as data: the `Ask` the proposer renders and reward-gen parses back.

These types are the common ground of the instruction language (`phrasing.py`): the renderer
(`render.py`) turns them into text, the parser (`parse.py`, and the seed's own
phrasings in `intents.py`) turns text back into them, and `resolve.py` resolves them against a
database. They live apart from both directions so that each can import them without the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from factory.errors import TaskError

ONLY = "only"  # RefText.by for "my profile": the acting user's one and only row of the entity
# RefText.by for "it" in an errand: the row the action before created ("book a shipment …, then
# cancel it"). A new row has no name the user has seen yet, so a person says "it", not its label.
MADE = "made"


class ParseError(TaskError):
    """An instruction does not follow any phrasing the spec allows."""


@dataclass(frozen=True)
class Cond:
    """A condition on one field as written: equality (`value`) or a range (`value`, `upper`)."""

    field: str
    value: str
    upper: str | None = None


@dataclass(frozen=True)
class RefText:
    """A row named in an instruction: by its display label, or by one field's value (`by`).

    `also` holds more (field, value text) pairs the same row must match: a seed phrasing that
    names one row by several slots ("the payment to {payee} on {date}") names it by all of them."""

    text: str
    by: str | None = None
    also: tuple[tuple[str, str], ...] = ()
    # Whether the sentence says "my" (the acting user holds the row) or "the"; None: by the
    # entity's visibility. How the row is named, not which row: equal refs may differ in it.
    mine: bool | None = field(default=None, compare=False)
    # The ISO code the row's amounts are in, when it has one: an amount the run gives for this
    # row is said in it ("pay out £50 on the claim …", never "$50" for a sterling claim).
    currency: str | None = field(default=None, compare=False)


def joint_ref(pairs: list[tuple[str, str]]) -> RefText:
    """The reference made of (field, value text) pairs, in one canonical order (by field name), so
    the same row named by two phrasings' slots in another order is the same `RefText`."""
    ordered = sorted(pairs)
    (by, text), rest = ordered[0], ordered[1:]
    return RefText(text, by, tuple(rest))


@dataclass(frozen=True, eq=False)
class Question:
    """What a READ asks: `op` over the rows of `entity` that meet `conds`.

    Two questions are equal when they ask the same: the conditions are a conjunction, so their
    order is how a sentence says them ("my unread messages in the folder …"), not what is asked."""

    op: str  # lookup | count | sum | max | min
    entity: str
    field: str | None = None
    target: RefText | None = None
    conds: tuple[Cond, ...] = ()
    tie: bool = False  # superlatives: a tie goes to the first label alphabetically (said so)
    # Whether the sentence says "my" of the rows it asks over or "the" (a manager's view of the
    # team's requests); None: by the entity's visibility. How they are named, not which rows.
    mine: bool | None = None

    def _key(self) -> tuple[Any, ...]:
        conds = tuple(sorted(self.conds, key=lambda c: (c.field, c.value, c.upper or "")))
        return (self.op, self.entity, self.field, self.target, conds, self.tie)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Question) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


@dataclass(frozen=True)
class AskStep:
    """One workflow run: argument texts per parameter; `pick` names a parameter found by a question."""

    workflow: str
    args: dict[str, Any] = field(default_factory=dict)  # param -> RefText (refs) or value text
    pick: tuple[str, Question] | None = None


@dataclass(frozen=True)
class Ask:
    """Everything an instruction asks for."""

    kind: str  # read | write | read_write
    steps: tuple[AskStep, ...] = ()
    question: Question | None = None
