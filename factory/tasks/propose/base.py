"""The proposer's state, the lookups its parts share, and what the parts call of one another.

`Proposer` (`proposer.py`) is made of parts, one module each, every one a class over the state held
here: values (`values.py`), setups (`setups.py`), reads (`reads.py`), writes (`writes.py`), the
tasks that combine them (`compound.py`) and the check that every text reads back as its task
(`readback.py`). `Proposer` inherits them all; a part imports this module alone, never another
part, so the proposer is two imports deep, not a stack of one layer on the next. What one part
calls of another is declared at the end of `ProposerBase`, with its signature, so a type checker
sees it in every part (and checks the definition against it). What several parts need (a row's
label, the rows a user may pick) lives in `ProposerBase` itself; the draft they make, `Draft`,
in `factory/tasks/draft.py`.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from faker import Faker

from factory.errors import FactoryError
from factory.predict.effects import predict
from factory.predict.overlay import Prediction
from factory.predict.rows import Row, UserView
from factory.runtime.step import Step
from factory.spec.model import EntitySpec, ParamSpec, Spec, WorkflowSpec
from factory.tasks.language.asks import Ask, AskStep, Cond, RefText, joint_ref
from factory.tasks.language.intents import intent_forms
from factory.tasks.language.resolve import find_rows

Options = Callable[[str, str, str], list[int]]  # (username, workflow, param) -> offered row ids
ORDERED = ("money", "int", "date")  # field types a superlative ranks by (reads, read-then-write)


class ProposerBase:
    """The state of a proposer over one world (spec + seed database), and shared lookups."""

    def __init__(self, spec: Spec, seed_db: Path, options: Options | None = None) -> None:
        self.spec, self.seed_db = spec, seed_db
        self.world = UserView.open(spec, seed_db)
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

    # What the parts call of one another, declared once here so that each part imports only this
    # module. `Proposer` lists every part before `ProposerBase`, so these bodies never run.

    def _fill(self, workflow: WorkflowSpec, user: Any) -> Step | None:
        """Concrete values for the workflow's parameters (`values.py`)."""
        raise NotImplementedError

    def _feasible(self, user: Any, step: Step, before: list[Step] | None = None) -> list[Step] | None:
        """[] when the step passes as is, setup steps that make it pass, or None (`setups.py`)."""
        raise NotImplementedError

    def _needs_setup(self, workflow: WorkflowSpec, user: Any, step: Step) -> list[Step] | None:
        """The step pointed at a row it cannot act on yet, with its setup (`setups.py`)."""
        raise NotImplementedError

    def _made_by_setup(self, workflow: WorkflowSpec, user: Any, step: Step) -> list[Step] | None:
        """The step pointed at a row its setup creates first (`setups.py`)."""
        raise NotImplementedError

    def _conds(self, ent: EntitySpec, row: Row, user: Any, want_range: bool) -> tuple[tuple[Cond, ...], list[str]]:
        """Conditions the row itself meets, and the capabilities they exercise (`reads.py`)."""
        raise NotImplementedError

    def _ask_step(self, workflow: WorkflowSpec, step: Step, user: Any, trim: bool = True) -> AskStep | None:
        """How an instruction names the step's arguments, None when it cannot (`writes.py`)."""
        raise NotImplementedError

    def _reads_back(self, goal: str, ask: Ask) -> bool:
        """Whether the text parses back to the same ask (`readback.py`)."""
        raise NotImplementedError
