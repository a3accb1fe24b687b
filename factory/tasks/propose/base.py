"""The proposer's state and the lookups every kind of draft shares; `Draft`, what it proposes.

`Proposer` (`proposer.py`) is built in layers, one module each, all over the state held here:
values (`propose_values.py`), setups (`propose_setups.py`), reads (`propose_reads.py`), writes
(`propose_writes.py`), and the tasks that combine them (`propose_compound.py`). Each layer is a
class that inherits the layers it calls, so every attribute and method it uses is declared where
a type checker can see it. What two layers need (a row's label, whether a text reads back as
the same task, the rows a user may pick) lives in `ProposerBase` below.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faker import Faker

from factory.errors import FactoryError
from factory.runtime.step import Step
from factory.spec.model import EntitySpec, ParamSpec, Spec, WorkflowSpec
from factory.tasks.effects import predict
from factory.tasks.language.intents import intent_forms
from factory.tasks.language.phrasing import Ask, ParseError, RefText, joint_ref, parse
from factory.tasks.language.resolve import Answer, arg_value, find_rows
from factory.tasks.overlay import Prediction
from factory.tasks.rows import Row, World

Options = Callable[[str, str, str], list[int]]  # (username, workflow, param) -> offered row ids


@dataclass
class Draft:
    """One proposed task, before setup-gen, reward-gen and the gates."""

    key: str
    task_type: str  # read | write | read_write
    category: str
    user: str
    user_id: int
    ask: Ask
    goal: str
    steps: list[Step] = field(default_factory=list)
    setup: list[Step] = field(default_factory=list)
    answer: Answer | None = None
    form: str = "generic"
    capabilities: list[str] = field(default_factory=list)
    required: list[dict[str, Any]] = field(default_factory=list)
    variant: int = 0


class ProposerBase:
    """The state of a proposer over one world (spec + seed database), and shared lookups."""

    def __init__(self, spec: Spec, seed_db: Path, options: Options | None = None) -> None:
        self.spec, self.seed_db = spec, seed_db
        self.world = World.open(spec, seed_db)
        self.rng = random.Random(f"{spec.random_seed}:tasks")
        self.fake = Faker("en_US")
        self.fake.seed_instance(spec.random_seed)
        self.options = options
        self.today = dt.date.fromisoformat(spec.today)
        self.users = [u for u in spec.users if u.password]
        self.forms = intent_forms(spec)
        self.skipped: list[str] = []  # why candidates were passed over (for the report)
        self._existing_cache: dict[str, list[str]] = {}
        self._keys: dict[str, int] = {}
        self._made: dict[tuple[str, int], Row] = {}  # rows the current draft's setup creates

    def close(self) -> None:
        self.world.close()

    def _key(self, kind: str, category: str) -> str:
        name = f"{kind}-{category}"
        self._keys[name] = self._keys.get(name, 0) + 1
        return f"{self.spec.world}-{name}-{self._keys[name]:03d}".replace("_", "-")

    def _reads_back(self, goal: str, ask: Ask) -> bool:
        """The text parses back to the same ask (else it is not emitted): reward-gen reads nothing
        but the text, so the same question, or the same workflows with every row named the same
        way and every value the same (a seed phrasing may also fit a generic text, and the
        other way round)."""
        try:
            back = parse(self.spec, goal)
        except ParseError as exc:
            self.skipped.append(f"phrasing: {exc}")
            return False
        if not self._same_ask(back, ask):
            self.skipped.append(f"phrasing: {goal!r} reads back as another task")
            return False
        return True

    def _same_ask(self, back: Ask, ask: Ask) -> bool:
        """`back` (texts, as parsed) asks what `ask` (API values, as proposed) asks."""
        if back.kind != ask.kind or back.question != ask.question or len(back.steps) != len(ask.steps):
            return False
        for got, want in zip(back.steps, ask.steps, strict=True):
            if got.workflow != want.workflow or got.pick != want.pick or set(got.args) != set(want.args):
                return False
            workflow = next(w for w in self.spec.workflows if w.name == want.workflow)
            params = {p.name: p for p in workflow.params}
            for name, value in want.args.items():
                text = got.args[name]
                if isinstance(value, RefText) or isinstance(text, RefText):
                    if text != value:
                        return False
                    continue
                try:
                    if arg_value(params[name], text) != value:
                        return False
                except FactoryError:  # a value that does not read as its type is not the same
                    return False
        return True

    def _visible(self, entity: str, user_id: int) -> list[Row]:
        return self.world.visible(entity, user_id)

    def _label(self, entity: str, row: Row) -> str:
        return self.world.label(entity, row)

    def _unique_label(self, entity: str, row: Row, user_id: int) -> bool:
        label = self._label(entity, row)
        return '"' not in label and len(find_rows(self.world, entity, user_id, RefText(label))) == 1

    def _users_with(self, entity: str) -> list[Any]:
        return [u for u in self.users if self._visible(entity, u.id)]

    def _entities(self) -> list[EntitySpec]:
        return [e for e in self.spec.entities if not e.builtin and "list" in e.operations]

    def _workflows(self) -> list[WorkflowSpec]:
        return [w for w in self.spec.workflows if not w.system and w.params]

    def _candidates(self, user: Any, workflow: WorkflowSpec, p: ParamSpec) -> list[int]:
        assert p.ref is not None
        visible = [r["id"] for r in self._visible(p.ref, user.id)]
        if self.options is not None and p.where_py:
            offered = set(self.options(user.username, workflow.name, p.name))
            visible = [i for i in visible if i in offered]
        return visible

    def _required(self, workflow: WorkflowSpec, step: Step) -> list[dict[str, Any]]:
        return [{"entity": p.ref, "id": step.params[p.name]} for p in workflow.params
                if p.ref and step.params.get(p.name) is not None]

    def _prediction(self, user: Any, steps: list[Step]) -> Prediction | None:
        """What the effect interpreter predicts the steps do on the seed, None when it cannot
        run them (a value it cannot read, a row that is not there)."""
        try:
            return predict(self.spec, self.seed_db, user.id, steps)
        except FactoryError:
            return None

    def _passes(self, user: Any, steps: list[Step]) -> bool:
        """Whether every step's preconditions hold, one after the other, on the seed."""
        prediction = self._prediction(user, steps)
        return prediction is not None and not prediction.failed

    def _owns(self, user_id: int, entity: str, row_id: int) -> bool:
        """Whether the row names the user in an owner field or any other reference to a user
        (a review's host, a booking's guest): the rows a user acts on."""
        ent = self.spec.entity(entity)
        row = self.world.row(entity, row_id)
        return row is not None and any(row.get(f.column) == user_id for f in ent.fields
                                       if f.type == "reference" and f.ref == "user")

    @staticmethod
    def _nameable(ent: EntitySpec, name: str) -> bool:
        """A field an instruction can name: no other field of the entity has its label."""
        label = ent.field_named(name).label.casefold()
        return sum(1 for f in ent.fields if f.label.casefold() == label) == 1

    def _slot_texts(self, entity: str, row: Row, slots: dict[str, tuple[str, str, str | None]]
                    ) -> tuple[dict[str, str], RefText] | None:
        """The slots' texts for `row` (its field values as the app shows them) and the reference
        they make together; None when a field is empty."""
        texts: dict[str, str] = {}
        for slot, (_entity, fname, _param) in slots.items():
            text = self.world.value_text(entity, fname, row.get(self.world.field(entity, fname).column))
            if not text:
                return None
            texts[slot] = text
        return texts, joint_ref([(slots[s][1], t) for s, t in texts.items()])
