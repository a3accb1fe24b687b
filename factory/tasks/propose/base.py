"""The proposer's state, the lookups its parts share, and what the parts call of one another.

`Proposer` (`proposer.py`) is made of parts, one module each, every one a class over the state held
here: values (`values.py`), the free texts among them (`texts.py`), setups (`setups.py`), reads
(`reads.py`), writes (`writes.py`), find-then-act (`read_writes.py`), the tasks that combine them
(`compound.py`) and the check that every text reads back as its task (`readback.py`). `Proposer`
inherits them all; a part imports this module alone, never another part, so the proposer is two
imports deep, not a stack of one layer on the next. What one part calls of another is declared at
the end of `ProposerBase`, with its signature, so a type checker sees it in every part (and checks
the definition against it). What several parts need (a row's label, the rows a user may pick) lives
in `ProposerBase` itself; the draft they make, `Draft`, in `factory/tasks/draft.py`.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from faker import Faker

from factory.errors import FactoryError
from factory.predict.effects import predict
from factory.predict.overlay import Prediction
from factory.predict.rows import Row, UserView
from factory.runtime.step import Step
from factory.spec.model import EntitySpec, FieldSpec, ParamSpec, Spec, WorkflowSpec
from factory.spec.roles import may_run
from factory.tasks.draft import Draft
from factory.tasks.language import grammar
from factory.tasks.language.asks import ONLY, Ask, AskStep, Cond, Question, RefText, joint_ref
from factory.tasks.language.intents import intent_forms, slot_key, slot_said
from factory.tasks.language.label_parts import own_code
from factory.tasks.language.lint import DATE_ISO, Change, Hit, lint_goal
from factory.tasks.language.render import bulk_sentence
from factory.tasks.language.resolve import find_rows, select
from factory.tasks.language.row_labels import object_person, person_split, person_template
from factory.tasks.language.spoken import said_once, spoken_label
from factory.tasks.language.values import currency_chooser

Options = Callable[[str, str, str], list[int]]  # (username, workflow, param) -> offered row ids
ORDERED = ("money", "int", "date")  # field types a superlative ranks by (reads, read-then-write)
# A found-and-acted-on row: the acting user, the step, its ask (with the question that picks the
# row) and the capabilities the question exercises.
FindAct = tuple[Any, Step, AskStep, list[str]]


PREDICTIONS_KEPT = 256  # recent predictions kept: a draft's gates ask for the same steps again
ONE_EACH_SHARE = 0.9  # of the holders of an entity's rows holding one: "my membership" names it


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
        self._why_not: dict[str, Counter[str]] = {}  # per workflow: why no draft of it could be made
        self._existing_cache: dict[str, list[str]] = {}
        self._written_rows: dict[tuple[str, str], list[tuple[str, str, Row]]] = {}
        self._kinds_of_rows: dict[tuple[str, Any, int], tuple[set[str], set[str]]] = {}
        # (entity, field) of every field some workflow sets: states, never kinds (`kinds.py`)
        self.moved = {(e.entity, e.field or "") for w in spec.workflows for e in w.effects if e.kind == "set"}
        self._one_each_cache: dict[str, bool] = {}
        self._keys: dict[str, int] = {}
        self._made: dict[tuple[str, int], Row] = {}  # rows the current draft's setup creates
        self._acting: Any = None  # the user whose run is being filled: whose voice its texts are in
        self._predicted: dict[Any, Prediction | None] = {}  # (user, steps) → prediction (`_prediction`)

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

    def _own_name(self, entity: str, row: Row, user_id: int, text: str) -> str | None:
        """A row's name without the user's own name in it, as they say it: "my shift "May 29
        Night"" (its label "Priya Raman, May 29 Night", said by Priya); None when the label does
        not name the user (`row_names.person_split`)."""
        ent = self.spec.entity(entity)
        shape = person_template(self.spec, ent)
        if shape is None or row.get(ent.field_named(shape[0]).column) != user_id:
            return None
        split = person_split(self.spec, ent, text)
        return split[1] if split is not None else None

    def _as_held(self, entity: str, row: Row, user_id: int, text: str, held: bool) -> tuple[str, bool]:
        """A row's name and whether it is said "my …": the user's own row without their name in
        it ("my shift "May 29 Night""); a row they hold but that is named after someone else is
        that person's ("Rachel Randolph's employee record", never "my employee record "Rachel
        Randolph"" said by her HR partner)."""
        own = self._own_name(entity, row, user_id, text)
        if own is not None:  # named after the user: theirs, held or not (a transfer sent to them)
            return own, True
        if not held:
            return text, False
        ent = self.spec.entity(entity)
        # named after where it goes ("… to Rachel Randolph"), it is still the sender's own
        return text, person_split(self.spec, ent, text) is None or object_person(self.spec, ent) is not None

    def _currency(self, entity: str, row: Row) -> str | None:
        """The ISO code of the row's amounts: its currency field's value, else a fixed one."""
        fields = self.spec.entity(entity).fields
        for f in fields:
            if f.type == "money" and f.currency_field and row.get(f.currency_field):
                return str(row[f.currency_field])
            if f.type == "money" and f.currency:
                return f.currency
        # a row with no amount of its own still says the currency its amounts are made in (an
        # event "priced in the event's currency")
        chooser = currency_chooser(fields)
        return str(row[chooser.column]) if chooser is not None and row.get(chooser.column) else None

    def _unique_label(self, entity: str, row: Row, user_id: int) -> bool:
        label = self._label(entity, row)
        return '"' not in label and len(find_rows(self.world, entity, user_id, RefText(label))) == 1

    def _spoken_name(self, entity: str, row: Row, user_id: int, new: bool = False) -> str:
        """How a goal names a row by its label: dates in words, this year's without the year, and
        without the time of day where the day alone tells it from every other row the user sees
        ("logged on May 11", not "logged on May 11 at 9:00 AM"); a `new` row (one the run makes)
        is in no row's way yet, so its day must name none, and a shorter name only where it is the
        row's own unique code ("the ticket INC-171")."""
        label = self._label(entity, row)
        full = spoken_label(label, self.spec.today[:4])
        ent = self.spec.entity(entity)
        for shorter in self.world.short_labels(entity, row):
            if new and not own_code(ent, shorter):
                continue  # a row the run makes is in no row's way yet; only its unique code names it for sure
            # the row it belongs to, or a row it names said by its own shorter name, where that
            # names this row alone ("my tenancy for Flat 5, Kelvin House", never "… from August 10")
            said_short = spoken_label(shorter, self.spec.today[:4])
            if [r["id"] for r in find_rows(self.world, entity, user_id, RefText(said_short))] == ([] if new else [row["id"]]):
                return said_short
        for short in (said_once(spoken_label(label, self.spec.today[:4], timeless=True)),
                      spoken_label(label, self.spec.today[:4], timeless=True), said_once(full)):
            # a label that repeats itself is said once ("my leg "PO-22515 · Busan to Hamburg"")
            # the short form names this row alone (a new one: none yet)
            found = [r["id"] for r in find_rows(self.world, entity, user_id, RefText(short))]
            if short != full and found == ([] if new else [row["id"]]):
                return short
        return full

    def _one_each(self, entity: str) -> bool:
        """Whether a user who holds rows of `entity` holds one, as a rule ("my contact details",
        "my membership"): every user who sees rows sees one, or nine in ten of the users the rows
        are held by (their first owner: the member, not the front desk that sees them all) hold
        exactly one. Only then does "my <entity>" name a row; a freelancer who happens to have one
        project still names it, since projects are many."""
        key = f"one_each:{entity}"
        if key not in self._one_each_cache:
            counts = [len(self._visible(entity, u.id)) for u in self.users]
            ent = self.spec.entity(entity)
            holder = ent.field_named(ent.owner_fields[0]).column if ent.owner_fields else None
            held = Counter(r.get(holder) for r in self.world.rows(entity)) if holder else Counter()
            held.pop(None, None)
            as_a_rule = bool(held) and sum(1 for n in held.values() if n == 1) >= ONE_EACH_SHARE * len(held)
            self._one_each_cache[key] = bool(counts) and (max(counts) == 1 or as_a_rule)
        return self._one_each_cache[key]

    def _users_with(self, entity: str) -> list[Any]:
        return [u for u in self.users if self._visible(entity, u.id)]

    def _entities(self) -> list[EntitySpec]:
        return [e for e in self.spec.entities if not e.builtin and "list" in e.operations]

    def _workflows(self) -> list[WorkflowSpec]:
        # a workflow without parameters too: one task says what its run does ("Mark every overdue …")
        return [w for w in self.spec.workflows if not w.system and (w.params or bulk_sentence(w) is not None)]

    def _runner(self, *workflows: WorkflowSpec) -> Any | None:
        """A user whose role may run every one of `workflows` (an errand is one person's), or None."""
        pool = [u for u in self.users if all(may_run(self.spec, w, u.id) for w in workflows)]
        return self.rng.choice(pool) if pool else None

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
        run them (a value it cannot read, a row that is not there). Kept for the draft being
        made: its gates ask the same steps and their prefixes again (`clashes.py`)."""
        try:
            key: Any = (user.id, tuple((s.workflow, tuple(sorted(s.params.items()))) for s in steps))
            hash(key)
        except TypeError:  # a value that cannot be a key (a list): predicted afresh
            key = None
        if key is not None and key in self._predicted:
            return self._predicted[key]
        try:
            found = predict(self.spec, self.seed_db, user.id, steps)
        except FactoryError:
            found = None
        if key is not None:
            if len(self._predicted) >= PREDICTIONS_KEPT:
                self._predicted.clear()
            self._predicted[key] = found
        return found

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

    def _holds(self, user_id: int, entity: str, row_id: Any, depth: int = 2) -> bool:
        """Whether the user holds the row, so a goal may call it "my …": it names the user in a
        reference to a user (the fine's member, the card's owner), or, naming no user at all, it
        belongs to a row the user holds (a card through its account). A row that names someone
        else (the fine of a member the user administers) is not the user's, nor is a row the user
        only shares as a later owner, nor a row that hangs off one the user runs without owning it."""
        ent = self.spec.entity(entity)
        row = self.world.row(entity, row_id) if row_id is not None else None
        if row is None:
            return False
        first = ent.field_named(ent.owner_fields[0]) if ent.owner_fields else None
        if first is not None and first.ref == "user" and row.get(first.column) is not None:
            # Of several owners the first holds the row: the employee's report is "my expense
            # report" to them, not to the manager who approves it (`owner: [employee, approver]`).
            return bool(row.get(first.column) == user_id)
        people = [f for f in ent.fields if f.type == "reference" and f.ref == "user" and row.get(f.column) is not None]
        if people:
            return any(row.get(f.column) == user_id for f in people)
        # Held through a row that has owners (a card through its account), never through one the
        # user only runs: a car parked at the branch a manager runs is the branch's, not "my car".
        return depth > 0 and any(self._holds(user_id, f.ref, row.get(f.column), depth - 1) for f in ent.fields
                                 if f.type == "reference" and f.ref and f.ref not in (entity, "user")
                                 and self.spec.entity(f.ref).owner_fields)

    def _scoped(self, q: Question, user_id: int) -> Question:
        """The question saying "the" of rows the user sees but does not hold (a manager's view of
        the team's leave requests: "the pending leave requests", never "my …")."""
        ent = self.spec.entity(q.entity)
        if q.op == "lookup" or ent.visibility == "public":
            return q
        try:
            rows = select(self.world, q, user_id)
        except FactoryError:
            return q
        return q if all(self._holds(user_id, q.entity, r["id"]) for r in rows) else replace(q, mine=False)

    def lint_hits(self, draft: Draft) -> list[Hit]:
        """The language rules on a draft's goal with what only the world knows: the values its
        steps move (comparative rule) and whether the user holds every row it calls "mine"."""
        return lint_goal(self.spec, draft.goal, self._changes(draft.steps), self._mine_held(draft))

    def _changes(self, steps: list[Step]) -> tuple[Change, ...]:
        """Before and after of every number or date a step sets on an existing row."""
        out: list[Change] = []
        for step in steps:
            workflow = next(w for w in self.spec.workflows if w.name == step.workflow)
            for effect in workflow.effects:
                if (effect.kind != "set" or effect.field is None or effect.target not in step.params
                        or effect.to not in step.params):
                    continue
                row = self.world.row(effect.entity, step.params[effect.target])
                column = self.spec.entity(effect.entity).field_named(effect.field).column
                old, new = (row or {}).get(column), step.params[effect.to]
                if isinstance(old, int | float) and isinstance(new, int | float) and not isinstance(new, bool):
                    out.append(Change(float(old), float(new)))
                elif isinstance(old, str) and isinstance(new, str) and DATE_ISO.match(old) and DATE_ISO.match(new):
                    out.append(Change(float(old[:10].replace("-", "")), float(new[:10].replace("-", ""))))
        return tuple(out)

    def _mine_held(self, draft: Draft) -> bool | None:
        """False when the goal calls a row "my" that the acting user does not hold; None when it
        says "my" of nothing it names (questions over several rows: every row must be held)."""
        ask = draft.ask
        if ask.question is not None:
            q = ask.question
            if self.spec.entity(q.entity).visibility == "public" or q.mine is False:
                return None  # "the …": nothing is said to be the user's
            try:
                rows = [r["id"] for r in select(self.world, q, draft.user_id)] if q.op != "lookup" else [
                    r["id"] for r in find_rows(self.world, q.entity, draft.user_id, q.target or RefText(""))]
            except FactoryError:
                return None
            return all(self._holds(draft.user_id, q.entity, i) for i in rows)
        said: list[bool] = []
        for ask_step, step in zip(ask.steps, draft.steps, strict=False):
            workflow = next(w for w in self.spec.workflows if w.name == step.workflow)
            for p in workflow.params:
                ref = ask_step.args.get(p.name)
                if not p.ref or not isinstance(ref, RefText) or p.name not in step.params:
                    continue
                mine = ref.mine if ref.mine is not None else self.spec.entity(p.ref).visibility != "public"
                if mine and ref.by != ONLY and self.world.row(p.ref, step.params[p.name]) is not None:
                    # (a row the setup makes is the user's own: it is not in the seed yet)
                    said.append(self._holds(draft.user_id, p.ref, step.params[p.name]))
        return all(said) if said else None

    @staticmethod
    def _nameable(ent: EntitySpec, name: str) -> bool:
        """A field an instruction can name: no other field of the entity has its label, and the
        label has a word that names something ("Out of" is only prepositions: "the lowest number
        out of" names nothing)."""
        field = ent.field_named(name)
        label = field.label.casefold()
        words = re.findall(r"[a-z]+", label)
        if not field.say and words and all(w in grammar.PREPOSITIONS or w in grammar.PARTICLES for w in words):
            return False
        return sum(1 for f in ent.fields if f.label.casefold() == label) == 1

    def _slot_texts(self, entity: str, row: Row, slots: dict[str, tuple[str, str, str | None]]
                    ) -> tuple[dict[str, str], RefText] | None:
        """The slots' texts for `row` (its field values as the app shows them) and the reference
        they make together; None when a field is empty."""
        texts: dict[str, str] = {}
        keys: list[tuple[str, str]] = []
        for slot, (_entity, fname, _param) in slots.items():
            text = self.world.value_text(entity, fname, row.get(self.world.field(entity, fname).column), row)
            if not text:
                return None
            # written as a person writes it ("June 22 at 7:30 PM"), compared as `parse_intent` reads it
            texts[slot] = slot_said(self.spec, entity, fname, text)
            keys.append((fname, slot_key(self.spec, entity, fname, text)))
        return texts, joint_ref(keys)

    # What the parts call of one another, declared once here so that each part imports only this
    # module. `Proposer` lists every part before `ProposerBase`, so these bodies never run.

    def _fill(self, workflow: WorkflowSpec, user: Any) -> Step | None:
        """Concrete values for the workflow's parameters (`values.py`)."""
        raise NotImplementedError

    def _fit_subject(self, workflow: WorkflowSpec, values: dict[str, Any], names_only: bool = False) -> None:
        """The run's texts drawn again to fit the row they are written on (`fitting.py`)."""
        raise NotImplementedError

    def _text(self, p: ParamSpec, workflow: str = "") -> str:
        """A text for a string or text parameter of a run of `workflow` (`texts.py`)."""
        raise NotImplementedError

    def _contact(self, name: str) -> str:
        """A phone number, email or address no row of the world holds (`texts.py`)."""
        raise NotImplementedError

    def _coded(self, name: str) -> bool:
        """Whether the world writes the field `name` as codes ("PO-40950") (`texts.py`)."""
        raise NotImplementedError

    def _feasible(self, user: Any, step: Step, before: list[Step] | None = None) -> list[Step] | None:
        """[] when the step passes as is, setup steps that make it pass, or None (`setups.py`)."""
        raise NotImplementedError

    def _needs_setup(self, workflow: WorkflowSpec, user: Any, step: Step) -> list[Step] | None:
        """The step pointed at a row it cannot act on yet, with its setup (`setups.py`)."""
        raise NotImplementedError

    def _mended(self, user: Any, step: Step) -> Step:
        """The step with rows re-chosen where a failing rule names them (`setups.py`)."""
        raise NotImplementedError

    def _made_by_setup(self, workflow: WorkflowSpec, user: Any, step: Step) -> list[Step] | None:
        """The step pointed at a row its setup creates first (`setups.py`)."""
        raise NotImplementedError

    def _solved(self, user: Any, step: Step) -> Step:
        """The step with the rows and numbers of its failing rules chosen jointly (`setups.py`)."""
        raise NotImplementedError

    def _conds(self, ent: EntitySpec, row: Row, user: Any, want_range: bool) -> tuple[tuple[Cond, ...], list[str]]:
        """Conditions the row itself meets, and the capabilities they exercise (`reads.py`)."""
        raise NotImplementedError

    def _find_candidates(self) -> list[tuple[WorkflowSpec, ParamSpec, EntitySpec, list[FieldSpec]]]:
        """The workflows whose subject row a superlative can find, with the fields it ranks by
        (`read_writes.py`)."""
        raise NotImplementedError

    def _find_act(self, workflow: WorkflowSpec, subject: ParamSpec, ent: EntitySpec,
                  ordered: list[FieldSpec]) -> FindAct | None:
        """A run of `workflow` on the row a superlative finds among the user's rows (`read_writes.py`)."""
        raise NotImplementedError

    def _ask_step(self, workflow: WorkflowSpec, step: Step, user: Any, trim: bool = True) -> AskStep | None:
        """How an instruction names the step's arguments, None when it cannot (`writes.py`)."""
        raise NotImplementedError

    def _written(self, workflow: str, param: str) -> list[str]:
        """The world's own values for a run's text parameter (`texts.py`)."""
        raise NotImplementedError

    def _apt_on(self, workflow: str, p: ParamSpec) -> list[tuple[str, str, Row]]:
        """`_written_on` narrowed to the texts fit for `p` (`texts.py`)."""
        raise NotImplementedError

    def _written_on(self, workflow: str, param: str) -> list[tuple[str, str, Row]]:
        """`_written` with the entity and the row that hold each value (`texts.py`)."""
        raise NotImplementedError

    def _reads_back(self, goal: str, ask: Ask) -> bool:
        """Whether the text parses back to the same ask (`readback.py`)."""
        raise NotImplementedError


def fits_param(p: ParamSpec, value: Any) -> bool:
    """Whether a value the world holds may be given to `p` as it is (a kind it offers, a number in
    its range, a text that fits and reads back inside quotes)."""
    if value is None:
        return False
    if p.type == "enum":
        return value in (p.values or [])
    if p.type == "int":
        return isinstance(value, int) and (p.min is None or value >= p.min) and (p.max is None or value <= p.max)
    if p.type == "money":  # stored in cents, bounded in units
        return (isinstance(value, int) and (p.min is None or value >= round(p.min * 100))
                and (p.max is None or value <= round(p.max * 100)))
    text = str(value)
    return len(text) <= text_limit(p) and '"' not in text and ";" not in text


def text_limit(p: ParamSpec) -> int:
    """How long a text a run types into `p` may be: its own `max_length`, else a line for a
    one-line field and a few sentences for a text box (the details of a new ticket: "It started
    this morning after the update. I've restarted twice and it's the same.")."""
    return p.max_length or (200 if p.type == "text" else 60)
