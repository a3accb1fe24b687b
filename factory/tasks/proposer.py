"""The proposer: task drafts grounded in the live seed database.

Every draft names an acting user and rows that exist and that user can see, phrased the way a
user would (labels, field values; never ids). Kinds:

- READ: lookups, counts (filters, date ranges, nested filters), totals, and superlatives whose
  top row is unique (a tie makes the question unanswerable, so such candidates are skipped);
- WRITE: every workflow, with concrete rows and values (the seed's own phrasings where they can
  carry all the parameters, the generic phrasings otherwise), plus two-workflow tasks;
- READ_WRITE: find a row by a superlative, then act on it.

Feasibility is screened with the independent effect interpreter before a draft is emitted: a
draft whose preconditions would fail gets a setup (another workflow run first that makes them
hold), or another candidate. All choices come from one seeded generator, so the same world gives
the same drafts.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faker import Faker

from factory.errors import FactoryError
from factory.spec.model import EntitySpec, FieldSpec, ParamSpec, Spec, WorkflowSpec
from factory.tasks.effects import Step, predict
from factory.tasks.intents import (
    IntentForm,
    extras_sentence,
    intent_forms,
    literal_kind,
    render_intent,
    unusable_phrasings,
)
from factory.tasks.phrasing import (
    ONLY,
    Ask,
    AskStep,
    Cond,
    ParseError,
    Question,
    RefText,
    field_value_text,
    joint_ref,
    my_only,
    parse,
    render,
)
from factory.tasks.resolve import (
    AmbiguousError,
    Answer,
    UnresolvedError,
    answer,
    arg_value,
    extreme,
    find_rows,
    select,
)
from factory.tasks.rows import Row, World, enum_text, money_text

log = logging.getLogger(__name__)

Options = Callable[[str, str, str], list[int]]  # (username, workflow, param) -> offered row ids
ORDERED = ("money", "int", "date")
LOOKUP_TYPES = ("money", "int", "date", "enum", "string", "bool", "email")
MONEY_CHOICES = (5, 10, 12, 15, 20, 25, 30, 40, 45, 50, 60, 75, 80, 100, 120, 150, 200, 250)


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


@dataclass
class Plan:
    """How many drafts of each kind to make."""

    read: int = 60
    write: int = 88
    read_write: int = 36
    multi: int = 10

    @classmethod
    def for_total(cls, total: int) -> Plan:
        read = round(total * 0.31)
        read_write = round(total * 0.19)
        multi = max(1, round(total * 0.05))
        return cls(read, total - read - read_write - multi, read_write, multi)


class Proposer:
    """Deterministic proposer over one world (spec + seed database)."""

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

    # ------------------------------------------------------------------ public ----------------
    def propose(self, plan: Plan) -> list[Draft]:
        drafts: list[Draft] = []
        drafts += self._reads(plan.read)
        drafts += self._writes(plan.write)
        drafts += self._read_writes(plan.read_write)
        drafts += self._multis(plan.multi)
        return drafts

    def rephrase(self, draft: Draft) -> bool:
        """Repair of the task text: a seed phrasing named a row by a field value two rows share;
        say it with the generic phrasing, which names rows by their full labels. False when the
        draft has nothing to rephrase."""
        if draft.form == "generic" or draft.task_type != "write":
            return False
        workflow = next(w for w in self.spec.workflows if w.name == draft.steps[0].workflow)
        user = next(u for u in self.users if u.username == draft.user)
        step = self._ask_step(workflow, draft.steps[0], user)
        if step is None:
            return False
        draft.ask = Ask("write", steps=(step,))
        draft.goal = render(self.spec, draft.ask, draft.variant)
        draft.form = "generic"
        return True

    def regenerate(self, draft: Draft) -> Draft | None:
        """A new draft of the same kind and category (other rows, other values), or None."""
        for _ in range(8):
            if draft.task_type == "read":
                fresh = self._reads(1)
            elif draft.category == "multi_step":
                fresh = self._multis(1)
            elif draft.task_type == "read_write":
                fresh = [x for x in self._read_writes(4) if x.category == draft.category][:1]
            else:
                workflow = next(w for w in self.spec.workflows if w.name == draft.category)
                one = self._write(workflow, 1)
                fresh = [one] if one is not None else []
            if fresh and fresh[0].goal != draft.goal:
                return fresh[0]
        return None

    def unusable_intents(self) -> list[str]:
        """Seed phrasings the proposer cannot ground, each with the reason (reported, never
        silently dropped)."""
        return [f"{name}: {phrasing!r} ({why})" for name, phrasing, why in unusable_phrasings(self.spec)]

    # ------------------------------------------------------------------ helpers ---------------
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

    # ------------------------------------------------------------------ reads -----------------
    def _reads(self, n: int) -> list[Draft]:
        ops = ["lookup", "count", "sum", "extreme", "lookup", "count", "extreme", "range"]
        drafts: list[Draft] = []
        attempts = 0
        while len(drafts) < n and attempts < n * 12:
            attempts += 1
            op = ops[attempts % len(ops)]
            entities = self._entities()
            ent = entities[(attempts // len(ops)) % len(entities)] if entities else None
            if ent is None:
                break
            users = self._users_with(ent.name)
            if not users:
                continue
            user = self.rng.choice(users)
            draft = self._read(op, ent, user)
            if draft is not None and draft.goal not in {d.goal for d in drafts}:
                drafts.append(draft)
        if len(drafts) < n:
            self.skipped.append(f"read: only {len(drafts)} of {n} questions could be grounded")
        return drafts

    def _ask_read(self, q: Question, user: Any, category: str, caps: list[str]) -> Draft | None:
        try:
            found = answer(self.world, q, user.id)
        except (AmbiguousError, UnresolvedError) as exc:
            self.skipped.append(f"read {category}: {exc}")
            return None
        variant = self.rng.randrange(6)
        ask = Ask("read", question=q)
        goal = render(self.spec, ask, variant)
        if not self._reads_back(goal, ask):
            return None
        required = [{"entity": q.entity, "id": i} for i in found.rows[:10]]
        return Draft(self._key("read", category), "read", category, user.username, user.id, ask, goal,
                     answer=found, capabilities=caps, required=required, variant=variant)

    @staticmethod
    def _nameable(ent: EntitySpec, name: str) -> bool:
        """A field an instruction can name: no other field of the entity has its label."""
        label = ent.field_named(name).label.casefold()
        return sum(1 for f in ent.fields if f.label.casefold() == label) == 1

    def _lookup_fields(self, ent: EntitySpec) -> list[FieldSpec]:
        return [f for f in ent.fields if f.type in LOOKUP_TYPES and f.name not in ent.display_fields
                and f.name not in ent.owner_fields and self._nameable(ent, f.name)]

    def _read(self, op: str, ent: EntitySpec, user: Any) -> Draft | None:
        rows = self._visible(ent.name, user.id)
        row = self.rng.choice(rows)
        if op == "lookup":
            fields = [f for f in self._lookup_fields(ent) if row.get(f.column) not in (None, "")]
            if not fields or not self._unique_label(ent.name, row, user.id):
                return None
            f = self.rng.choice(fields)
            form = next((fm for fm in self.forms if fm.kind == "read" and fm.lookup == f.name
                         and next(iter(fm.slots.values()))[0] == ent.name), None)
            if form is not None and self.rng.random() < 0.7:
                draft = self._intent_read(form, ent, row, user)
                if draft is not None:
                    return draft
            return self._ask_read(Question("lookup", ent.name, f.name, RefText(self._label(ent.name, row))),
                                  user, "lookup", [])
        conds, caps = self._conds(ent, row, user, want_range=(op == "range"))
        if op in ("count", "range"):
            if not conds:
                return None
            return self._ask_read(Question("count", ent.name, conds=conds), user,
                                  "count" if op == "count" else "date-range", caps)
        if op == "sum":
            money = [f for f in ent.fields if f.type == "money" and row.get(f.column) is not None
                     and self._nameable(ent, f.name)]
            if not money:
                return None
            f = self.rng.choice(money)
            return self._ask_read(Question("sum", ent.name, f.name, conds=conds[:1]), user, "total", caps)
        ordered = [f for f in ent.fields if f.type in ORDERED and f.name not in ent.owner_fields
                   and row.get(f.column) is not None and self._nameable(ent, f.name)]
        if not ordered:
            return None
        f = self.rng.choice(ordered)
        q = Question(self.rng.choice(["max", "min"]), ent.name, f.name, conds=conds[:1], tie=True)
        return self._ask_read(q, user, "superlative", caps)

    def _intent_read(self, form: IntentForm, ent: EntitySpec, row: Row, user: Any) -> Draft | None:
        named = self._slot_texts(ent.name, row, form.slots)
        if named is None:
            return None
        slot_texts, ref = named
        if len(find_rows(self.world, ent.name, user.id, ref)) != 1:
            return None
        assert form.lookup is not None
        q = Question("lookup", ent.name, form.lookup, ref)
        try:
            found = answer(self.world, q, user.id)
        except (AmbiguousError, UnresolvedError):
            return None
        goal = render_intent(form, slot_texts, [])
        if not self._reads_back(goal, Ask("read", question=q)):
            return None
        return Draft(self._key("read", "lookup"), "read", "lookup", user.username, user.id,
                     Ask("read", question=q), goal, answer=found, form=f"intent:{form.intent}",
                     required=[{"entity": ent.name, "id": row["id"]}])

    def _conds(self, ent: EntitySpec, row: Row, user: Any, want_range: bool) -> tuple[tuple[Cond, ...], list[str]]:
        """Conditions the row itself meets (so the answer is never empty): a filter value, a
        nested pair (parent, child) or a date range around the row's date."""
        fields = {f.name: f for f in ent.fields}
        filters = [fl for fl in ent.filters if row.get(fields[fl.field].column) is not None
                   and fl.field not in ent.owner_fields and self._nameable(ent, fl.field)
                   and (fl.parent is None or self._nameable(ent, fl.parent))]
        nested = [fl for fl in filters if fl.parent and row.get(fields[fl.parent].column) is not None]
        ranges = [fl for fl in filters if fl.kind == "date_range"]
        if want_range and ranges:
            fl = self.rng.choice(ranges)
            day = dt.date.fromisoformat(str(row[fields[fl.field].column])[:10])
            low = day - dt.timedelta(days=self.rng.randint(2, 20))
            high = day + dt.timedelta(days=self.rng.randint(2, 20))
            cond = Cond(fl.field, field_value_text("date", low.isoformat()),
                        field_value_text("date", high.isoformat()))
            return (cond,), ["date_range"]
        if nested and self.rng.random() < 0.6:
            fl = self.rng.choice(nested)
            assert fl.parent is not None
            pair = [self._cond(ent, fields[fl.parent], row, user), self._cond(ent, fields[fl.field], row, user)]
            if all(pair):
                return tuple(c for c in pair if c), ["nested_filters"]
        equal = [fl for fl in filters if fl.kind in ("select", "bool", "reference")]
        self.rng.shuffle(equal)
        for fl in equal:
            cond = self._cond(ent, fields[fl.field], row, user)
            if cond is not None:
                return (cond,), []
        return (), []

    def _cond(self, ent: EntitySpec, f: FieldSpec, row: Row, user: Any) -> Cond | None:
        raw = row.get(f.column)
        if raw is None:
            return None
        if f.type == "reference" and f.ref:
            target = self.world.row(f.ref, raw)
            if target is None or not self._unique_label(f.ref, target, user.id):
                return None
            return Cond(f.name, f'"{self._label(f.ref, target)}"')
        if f.type in ("enum", "bool", "string", "int", "money", "date"):
            text = field_value_text(f.type, raw)
            return None if '"' in text.strip('"') else Cond(f.name, text)
        return None

    # ------------------------------------------------------------------ writes ----------------
    def _workflows(self) -> list[WorkflowSpec]:
        return [w for w in self.spec.workflows if not w.system and w.params]

    def _writes(self, n: int) -> list[Draft]:
        workflows = self._workflows()
        drafts: list[Draft] = []
        if not workflows:
            return drafts
        per = -(-n // len(workflows))
        for workflow in workflows:
            made = 0
            for attempt in range(per * 6):
                if made >= per or len(drafts) >= n + len(workflows):
                    break
                draft = self._write(workflow, attempt)
                if draft is not None and draft.goal not in {d.goal for d in drafts}:
                    drafts.append(draft)
                    made += 1
            if made == 0:
                self.skipped.append(f"write {workflow.name}: no feasible candidate found")
        # Workflows that could not fill their share leave room: the others make more.
        productive = [w for w in workflows if any(d.category == w.name for d in drafts)]
        for attempt in range(n * 3):
            if len(drafts) >= n or not productive:
                break
            draft = self._write(productive[attempt % len(productive)], per * 6 + attempt)
            if draft is not None and draft.goal not in {d.goal for d in drafts}:
                drafts.append(draft)
        # Round-robin so every workflow stays covered when the list is cut to size.
        return _round_robin(drafts, n)

    def _write(self, workflow: WorkflowSpec, attempt: int) -> Draft | None:
        users = [u for u in self.users if all(
            p.ref is None or not p.required or self._candidates(u, workflow, p) for p in workflow.params)]
        if not users:
            return None
        subject = next((p for p in workflow.params if p.ref and p.name == workflow.subject), None)
        if subject is not None and subject.ref and self.spec.entity(subject.ref).visibility == "public":
            owners = [u for u in users if any(self._owns(u.id, subject.ref, r["id"])
                                                for r in self.world.rows(subject.ref))]
            if owners and self.rng.random() < 0.8:
                users = owners
        user = self.rng.choice(users)
        step, setup = None, None
        self._made = {}
        # Two attempts in three speak one of the seed's own phrasings when it has some for the
        # workflow; attempts ≡ 1 (mod 3) use the generic forms and never ask for a setup (tests
        # rely on that to get a plain generic draft).
        forms = [f for f in self.forms if f.workflow == workflow.name]
        chosen = self.rng.choice(forms) if forms and attempt % 3 != 1 else None
        for _ in range(4):  # other rows, values and date regimes before giving up on this user
            step = self._fill(workflow, user)
            if step is None:
                return None
            if chosen is not None:
                self._namable_rows(chosen, workflow, step, user)
            if attempt % 3 == 2:
                # Now and then act on a row that is not ready yet (an active card to unlock, a
                # paid bill to pay) or not there yet (a draft to send, a payment to cancel):
                # setup-gen then has to build the state the task needs.
                ways = [self._needs_setup, self._made_by_setup]
                for way in ways if attempt % 6 == 2 else ways[::-1]:
                    setup = way(workflow, user, step)
                    if setup is not None:
                        break
            if setup is None:
                setup = self._feasible(user, step)
            if setup is not None:
                break
        if step is None or setup is None:
            return None
        ask_step, goal, form = None, "", "generic"
        if chosen is not None:
            # The phrasing says nothing of the other optional parameters: they keep their defaults.
            # What its words state (an enum value, a default written out) is what the step sends.
            said = chosen.params()
            trimmed = Step(step.workflow, {**{k: v for k, v in step.params.items() if k in said},
                                           **chosen.fixed})
            if trimmed.params != step.params and self._feasible(user, trimmed, setup) != []:
                trimmed = step
            built = self._intent_write(chosen, workflow, trimmed, user)
            if built is not None:
                step = trimmed
                ask_step, goal = built
                form = f"intent:{chosen.intent}"
        variant = self.rng.randrange(6)
        if ask_step is None:
            ask_step = self._ask_step(workflow, step, user)
            if ask_step is None:
                return None
            goal = render(self.spec, Ask("write", steps=(ask_step,)), variant)
        if not self._reads_back(goal, Ask("write", steps=(ask_step,))):
            return None
        caps = ["date_range"] if any(p.range_end for p in workflow.params if p.name in step.params) else []
        return Draft(self._key("write", workflow.name), "write", workflow.name, user.username, user.id,
                     Ask("write", steps=(ask_step,)), goal, [step], setup, form=form, capabilities=caps,
                     required=self._required(workflow, step), variant=variant)

    def _required(self, workflow: WorkflowSpec, step: Step) -> list[dict[str, Any]]:
        return [{"entity": p.ref, "id": step.params[p.name]} for p in workflow.params
                if p.ref and step.params.get(p.name) is not None]

    def _candidates(self, user: Any, workflow: WorkflowSpec, p: ParamSpec) -> list[int]:
        assert p.ref is not None
        visible = [r["id"] for r in self._visible(p.ref, user.id)]
        if self.options is not None and p.where_py:
            offered = set(self.options(user.username, workflow.name, p.name))
            visible = [i for i in visible if i in offered]
        return visible

    def _fill(self, workflow: WorkflowSpec, user: Any) -> Step | None:
        values: dict[str, Any] = {}
        # Dates: one regime per fill (soon, the past week, decades ago), since preconditions
        # ask for future bookings, recent returns or birth dates; the prediction screens them.
        regime = self.rng.choice(["soon", "soon", "soon", "recent", "long_ago"])
        ranges: list[tuple[dt.date, dt.date]] = []
        starts: dict[str, dt.date] = {}
        for p in workflow.params:
            if p.ref:
                if not p.required:
                    continue
                pool = [i for i in self._candidates(user, workflow, p) if i not in values.values()]
                if not pool:
                    return None
                # Rows everyone may read (listings, reviews) are mostly acted on by their owners.
                mine = [i for i in pool if self._owns(user.id, p.ref, i)]
                values[p.name] = self.rng.choice(mine if mine and self.rng.random() < 0.8 else pool)
            elif p.type in ("date", "datetime") and (p.required or p.range_of):
                if p.range_of and p.range_of in starts:
                    day = ranges[-1][1]
                else:
                    day = self._day(regime)
                    end = day + dt.timedelta(days=self.rng.randint(1, 6))
                    if ranges and self.rng.random() < 0.5:
                        day, end = ranges[-1]  # a range inside the previous one (a hotel in a trip)
                    starts[p.name] = day
                    ranges.append((day, end))
                values[p.name] = (day.isoformat() if p.type == "date" else
                                  f"{day.isoformat()}T{self.rng.choice(['09', '10', '14', '16'])}:00:00")
            elif not p.required and (p.type not in ("string", "text") or self.rng.random() < 0.7):
                continue
            else:
                value = self._scalar(p)
                if value is None:
                    return None
                values[p.name] = value
        return Step(workflow.name, values)

    def _day(self, regime: str) -> dt.date:
        if regime == "recent":
            return self.today - dt.timedelta(days=self.rng.randint(0, 6))
        if regime == "long_ago":
            return self.today - dt.timedelta(days=self.rng.randint(20 * 365, 60 * 365))
        return self.today + dt.timedelta(days=self.rng.randint(5, 40))

    def _scalar(self, p: ParamSpec) -> Any:
        rng = self.rng
        if p.type == "money":
            low = round((p.min if p.min is not None else 1) * 100)
            high = round((p.max if p.max is not None else 500) * 100)
            picks = [c * 100 for c in MONEY_CHOICES if low <= c * 100 <= high]
            return rng.choice(picks) if picks else max(low, 100)
        if p.type == "int":
            low = int(p.min) if p.min is not None else 1
            high = int(p.max) if p.max is not None else max(low + 4, 5)
            return rng.randint(low, min(high, low + 6))
        if p.type == "datetime":
            day = self.today + dt.timedelta(days=rng.randint(2, 30))
            return f"{day.isoformat()}T{rng.choice(['09', '10', '14', '16'])}:00:00"
        if p.type == "enum":
            return rng.choice(p.values or [""]) or None
        if p.type == "bool":
            return rng.random() < 0.5
        if p.type == "email":
            return self.fake.email()
        return self._text(p)

    def _existing(self, p: ParamSpec) -> list[str]:
        """Values the world already holds in fields named like the parameter (a wishlist's name,
        a category): what a user of this world would type."""
        if p.name not in self._existing_cache:
            values: set[str] = set()
            for ent in self.spec.entities:
                for f in ent.fields:
                    if f.name == p.name and f.type in ("string", "text"):
                        values |= {str(r[f.column]) for r in self.world.rows(ent.name) if r.get(f.column)}
            self._existing_cache[p.name] = sorted(v for v in values if '"' not in v and ";" not in v)
        return self._existing_cache[p.name]

    def _text(self, p: ParamSpec) -> str:
        name = p.name.lower()
        fake = self.fake
        existing = self._existing(p)
        if existing and self.rng.random() < 0.6:
            value = self.rng.choice(existing)
        elif "phone" in name:
            value = fake.numerify("(###) 555-0###")
        elif "postal" in name or "zip" in name:
            value = fake.postcode()
        elif "state" in name:
            value = fake.state_abbr()
        elif "city" in name:
            value = fake.city()
        elif "street" in name or "address" in name:
            value = fake.street_address()
        elif name in ("name", "title") or name.endswith("_name") or "nickname" in name:
            value = fake.catch_phrase() if "name" != name else fake.company()
        elif "number" in name:
            value = fake.numerify("##-####")
        elif p.type == "text":
            value = fake.sentence(nb_words=8).rstrip(".")
        else:
            value = fake.catch_phrase()
        limit = p.max_length or 60
        return value.replace('"', "").replace(";", ",")[:limit].strip()

    def _feasible(self, user: Any, step: Step, before: list[Step] | None = None) -> list[Step] | None:
        """[] when the step passes as is, setup steps that make it pass, or None."""
        before = before or []
        try:
            prediction = predict(self.spec, self.seed_db, user.id, before + [step])
        except FactoryError:
            return None
        if not prediction.failed:
            return []
        if before:
            return None
        workflow = next(w for w in self.spec.workflows if w.name == step.workflow)
        subject = next((p for p in workflow.params if p.ref and p.name in step.params
                        and p.name == (workflow.subject or p.name)), None)
        if subject is None:
            return None
        for other in self._workflows():
            if other.name == workflow.name:
                continue
            param = next((p for p in other.params if p.ref == subject.ref), None)
            if param is None or self._relabels(other, subject.ref):
                continue
            fill = self._fill(other, user)
            if fill is None:
                continue
            fill.params[param.name] = step.params[subject.name]
            try:
                both = predict(self.spec, self.seed_db, user.id, [fill, step])
            except FactoryError:
                continue
            if not both.failed:
                return [fill]
        return None

    def _owns(self, user_id: int, entity: str, row_id: int) -> bool:
        """Whether the row names the user in an owner field or any other reference to a user
        (a review's host, a booking's guest): the rows a user acts on."""
        ent = self.spec.entity(entity)
        row = self.world.row(entity, row_id)
        return row is not None and any(row.get(f.column) == user_id for f in ent.fields
                                       if f.type == "reference" and f.ref == "user")

    def _relabels(self, workflow: WorkflowSpec, entity: str) -> bool:
        """Whether `workflow` can change how rows of `entity` are named (a setup must not: the
        instruction is phrased from the seed's labels)."""
        shown = set(self.spec.entity(entity).display_fields)
        return any(e.kind == "set" and e.entity == entity and e.field in shown for e in workflow.effects)

    def _needs_setup(self, workflow: WorkflowSpec, user: Any, step: Step) -> list[Step] | None:
        """Point the step at a row it cannot act on yet, if a setup makes it possible."""
        subject = next((p for p in workflow.params if p.ref and p.name == workflow.subject), None)
        if subject is None or subject.ref is None:
            return None
        offered = set(self._candidates(user, workflow, subject))
        others = [r["id"] for r in self._visible(subject.ref, user.id) if r["id"] not in offered]
        if not others:
            return None
        trial = Step(step.workflow, {**step.params, subject.name: self.rng.choice(others)})
        setup = self._feasible(user, trial)
        if not setup:
            return None
        step.params.update(trial.params)
        return setup

    def _made_by_setup(self, workflow: WorkflowSpec, user: Any, step: Step) -> list[Step] | None:
        """Point the step at a row another workflow creates first, as the setup: the initial state
        then holds a row the seed does not (a draft to send, a payee just added). The new row is
        named by its label, which must be new among the rows the user sees."""
        subject = next((p for p in workflow.params if p.ref and p.name == workflow.subject), None)
        if subject is None or subject.ref is None:
            return None
        ent = self.spec.entity(subject.ref)
        makers = [w for w in self._workflows() if w.name != workflow.name and not self._relabels(w, ent.name)
                  and any(e.kind == "create" and e.entity == ent.name for e in w.effects)]
        for maker in [m for m in makers for _ in range(3)]:  # a few fills each: a new row's label may be taken
            fill = self._fill(maker, user)
            if fill is None:
                continue
            try:
                made = predict(self.spec, self.seed_db, user.id, [fill])
            except FactoryError:
                continue
            new = [values for table, values in made.inserts if table == ent.table]
            if made.failed or len(new) != 1:
                continue
            # SQLite (no AUTOINCREMENT) numbers the new row after the largest id in the table
            row = {**new[0], "id": max((r["id"] for r in self.world.rows(ent.name)), default=0) + 1}
            label = self._label(ent.name, row)
            if not label.strip() or '"' in label or find_rows(self.world, ent.name, user.id, RefText(label)):
                continue
            trial = Step(step.workflow, {**step.params, subject.name: row["id"]})
            try:
                both = predict(self.spec, self.seed_db, user.id, [fill, trial])
            except FactoryError:
                continue
            if both.failed:
                continue
            step.params.update(trial.params)
            self._made[(ent.name, row["id"])] = row
            return [fill]
        return None

    def _ask_step(self, workflow: WorkflowSpec, step: Step, user: Any) -> AskStep | None:
        args: dict[str, Any] = {}
        for p in workflow.params:
            if p.name not in step.params:
                continue
            value = step.params[p.name]
            if p.ref and (p.ref, value) in self._made:
                args[p.name] = RefText(self._label(p.ref, self._made[(p.ref, value)]))  # new, so unique
                continue
            if p.ref:
                row = self.world.row(p.ref, value)
                ent = self.spec.entity(p.ref)
                if (row is not None and ent.visibility != "public" and ent.owner_fields
                        and [r["id"] for r in self._visible(p.ref, user.id)] == [value]):
                    args[p.name] = RefText(my_only(ent), ONLY)  # the user's only one: "my profile"
                    continue
                if row is None or not self._unique_label(p.ref, row, user.id):
                    return None
                args[p.name] = RefText(self._label(p.ref, row))
            else:
                if isinstance(value, str) and ('"' in value or "; " in value):
                    return None
                args[p.name] = value
        return AskStep(workflow.name, args)

    def _intent_write(self, form: IntentForm, workflow: WorkflowSpec, step: Step,
                      user: Any) -> tuple[AskStep, str] | None:
        """The seed phrasing `form` said of `step`: slots name its rows by field values (one row of
        the user's, together), literals carry its values, the rest goes in the appended sentence.
        None when the phrasing cannot say exactly this step."""
        if set(step.params) != form.params() or any(step.params[k] != v for k, v in form.fixed.items()):
            return None  # the phrasing cannot say every chosen value, or says another
        params = {p.name: p for p in workflow.params}
        slot_texts: dict[str, str] = {}
        args: dict[str, Any] = dict(form.fixed)
        by_param: dict[str, dict[str, tuple[str, str, str | None]]] = {}
        for slot, (entity, fname, param) in form.slots.items():
            assert param is not None
            by_param.setdefault(param, {})[slot] = (entity, fname, param)
        for param, slots in by_param.items():
            entity = next(iter(slots.values()))[0]
            made = self._made.get((entity, step.params[param]))
            row = made or self.world.row(entity, step.params[param])
            named = None if row is None else self._slot_texts(entity, row, slots)
            if named is None:
                return None
            texts, ref = named
            # A row the setup makes is not in the seed yet: no seed row may answer to its name.
            if len(find_rows(self.world, entity, user.id, ref)) != (0 if made else 1):
                return None
            slot_texts.update(texts)
            args[param] = ref
        literals = []
        for written, param in form.literals:
            text = self._literal_text(literal_kind(written), params[param], step.params[param])
            if text is None:
                return None
            literals.append(text)
            args[param] = step.params[param]
        tail = ""
        if form.extras:
            rest = self._ask_step(workflow, Step(workflow.name, {p: step.params[p] for p in form.extras}), user)
            if rest is None:
                return None
            args.update(rest.args)
            tail = extras_sentence(workflow, rest.args)
        return AskStep(workflow.name, args), render_intent(form, slot_texts, literals, tail)

    def _namable_rows(self, form: IntentForm, workflow: WorkflowSpec, step: Step, user: Any) -> None:
        """Point the step's rows at ones the phrasing's slots name alone among the user's rows
        ("my Electric bill" when the user has one), where the filled row is not one of them and
        such a row can be acted on as is (a few are tried; else the step stays as filled)."""
        by_param = {param: [(slot, spec) for slot, spec in form.slots.items() if spec[2] == param]
                    for _e, _f, param in form.slots.values() if param is not None}
        for param, slots in by_param.items():
            entity, current = slots[0][1][0], step.params.get(param)
            if self._names_one(entity, current, dict(slots), user):
                continue
            p = next(p for p in workflow.params if p.name == param)
            taken = {v for k, v in step.params.items() if k != param}
            pool = [i for i in self._candidates(user, workflow, p) if i not in taken
                    and self._names_one(entity, i, dict(slots), user)]
            for row_id in self.rng.sample(pool, min(3, len(pool))):
                trial = Step(step.workflow, {**step.params, param: row_id})
                if self._feasible(user, trial) == []:
                    step.params[param] = row_id
                    break

    def _names_one(self, entity: str, row_id: Any, slots: dict[str, tuple[str, str, str | None]],
                   user: Any) -> bool:
        row = self.world.row(entity, row_id) if row_id is not None else None
        named = None if row is None else self._slot_texts(entity, row, slots)
        return named is not None and len(find_rows(self.world, entity, user.id, named[1])) == 1

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

    @staticmethod
    def _literal_text(kind: str, p: ParamSpec, value: Any) -> str | None:
        """A value written in place of a phrasing's literal; None when it cannot stand there."""
        if value is None:
            return None
        if kind == "money":
            return money_text(int(value))
        if kind == "int":
            return str(int(value))
        text = enum_text(str(value)) if p.type == "enum" else str(value)
        # Inside the phrasing's own quotes: no quote may close it early, and it reads back whole.
        return None if not text.strip() or text != text.strip() or any(c in text for c in "'\"{}\n") else text

    # ------------------------------------------------------------------ read-write ------------
    def _read_writes(self, n: int) -> list[Draft]:
        candidates = []
        for workflow in self._workflows():
            subject = next((p for p in workflow.params if p.ref and p.required
                            and p.name == (workflow.subject or p.name)), None)
            if subject is None or subject.ref is None:
                continue
            ent = self.spec.entity(subject.ref)
            ordered = [f for f in ent.fields if f.type in ORDERED and f.name not in ent.owner_fields
                       and self._nameable(ent, f.name)]
            if ordered:
                candidates.append((workflow, subject, ent, ordered))
        drafts: list[Draft] = []
        if not candidates:
            self.skipped.append("read_write: no workflow acts on a row that can be found by a superlative")
            return drafts
        for attempt in range(n * 10):
            if len(drafts) >= n:
                break
            workflow, subject, ent, ordered = candidates[attempt % len(candidates)]
            draft = self._read_write(workflow, subject, ent, ordered)
            if draft is not None and draft.goal not in {d.goal for d in drafts}:
                drafts.append(draft)
        return drafts

    def _read_write(self, workflow: WorkflowSpec, subject: ParamSpec, ent: EntitySpec,
                    ordered: list[FieldSpec]) -> Draft | None:
        users = [u for u in self.users if self._candidates(u, workflow, subject)]
        if not users:
            return None
        user = self.rng.choice(users)
        offered = self._candidates(user, workflow, subject)
        rows = [r for r in self._visible(ent.name, user.id) if r["id"] in offered]
        if not rows:
            return None
        anchor = self.rng.choice(rows)
        f = self.rng.choice(ordered)
        conds, caps = self._conds(ent, anchor, user, want_range=False)
        q = Question(self.rng.choice(["max", "min"]), ent.name, f.name, conds=conds[:1])
        if len(select(self.world, q, user.id)) < 2:
            return None  # "find the one with the highest …" among one row finds nothing
        try:
            target = extreme(self.world, q, user.id)
        except (AmbiguousError, UnresolvedError):
            return None
        step = self._fill(workflow, user)
        if step is None:
            return None
        step.params[subject.name] = target["id"]
        if any(v == target["id"] for k, v in step.params.items() if k != subject.name
               and next(p for p in workflow.params if p.name == k).ref == ent.name):
            return None
        setup = self._feasible(user, step)
        if setup is None or setup:
            return None  # a setup could change which row is the extreme: keep these setup-free
        other = self._ask_step(workflow, Step(workflow.name, {k: v for k, v in step.params.items()
                                                                 if k != subject.name}), user)
        if other is None:
            return None
        ask_step = AskStep(workflow.name, other.args, (subject.name, q))
        ask = Ask("read_write", steps=(ask_step,))
        goal = render(self.spec, ask, 0)
        if not self._reads_back(goal, ask):
            return None
        return Draft(self._key("read-write", workflow.name), "read_write", workflow.name, user.username,
                     user.id, ask, goal, [step], [], capabilities=caps,
                     required=self._required(workflow, step))

    # ------------------------------------------------------------------ multi-step ------------
    def _multis(self, n: int) -> list[Draft]:
        workflows = self._workflows()
        drafts: list[Draft] = []
        if len(workflows) < 2:
            return drafts
        for attempt in range(n * 12):
            if len(drafts) >= n:
                break
            first, second = self.rng.sample(workflows, 2)
            users = self.users[:]
            self.rng.shuffle(users)
            user = users[0]
            a, b = self._fill(first, user), self._fill(second, user)
            if a is None or b is None:
                continue
            try:
                prediction = predict(self.spec, self.seed_db, user.id, [a, b])
            except FactoryError:
                continue
            if prediction.failed:
                continue
            sa, sb = self._ask_step(first, a, user), self._ask_step(second, b, user)
            if sa is None or sb is None:
                continue
            ask = Ask("write", steps=(sa, sb))
            goal = render(self.spec, ask, 0)
            if goal in {d.goal for d in drafts} or not self._reads_back(goal, ask):
                continue
            drafts.append(Draft(self._key("write", "two-steps"), "write", "multi_step", user.username,
                                user.id, ask, goal, [a, b], [],
                                required=self._required(first, a) + self._required(second, b)))
        return drafts


def _round_robin(drafts: list[Draft], n: int) -> list[Draft]:
    by: dict[str, list[Draft]] = {}
    for d in drafts:
        by.setdefault(d.category, []).append(d)
    out: list[Draft] = []
    while len(out) < n and any(by.values()):
        for name in list(by):
            if by[name] and len(out) < n:
                out.append(by[name].pop(0))
    return out
