"""READ drafts: lookups, counts (filters, date ranges, nested filters), totals, superlatives.

Every question is asked of rows the acting user can see, with conditions the chosen row itself
meets (so an answer is never empty); a superlative whose top row is not unique has no single
answer, so such candidates are skipped. Lookups use the seed's own phrasings where one asks for
the field.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from factory.errors import FactoryError
from factory.predict.rows import Row
from factory.spec.model import EntitySpec, FieldSpec
from factory.spec.naming import identifier
from factory.tasks.draft import Draft
from factory.tasks.language import grammar
from factory.tasks.language.asks import ONLY
from factory.tasks.language.intents import IntentForm, render_intent
from factory.tasks.language.modifiers import repeats_noun
from factory.tasks.language.phrasing import (
    Ask,
    Cond,
    Question,
    RefText,
    field_value_text,
    render,
)
from factory.tasks.language.resolve import AmbiguousError, UnresolvedError, answer, comparable, find_rows, select
from factory.tasks.language.spoken import additive, noun, said
from factory.tasks.language.words import my_only
from factory.tasks.propose.base import ORDERED, ProposerBase
from factory.tasks.propose.unit_rates import unit_rates

LOOKUP_TYPES = ("money", "int", "date", "enum", "string", "bool", "email")


class ReadsMixin(ProposerBase):
    """Part of `Proposer`: questions about the seed database, with their answers."""

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
        q = self._scoped(q, user.id)
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
        draft = Draft(self._key("read", category), "read", category, user.username, user.id, ask, goal,
                      answer=found, capabilities=caps, required=required, variant=variant)
        hits = self.lint_hits(draft)  # "my bills" over rows the user does not hold (an administrator's view)
        if hits:
            self.skipped.append(f"language: {hits[0].rule}: {hits[0].why} ({goal!r})")
            return None
        return draft

    def _lookup_fields(self, ent: EntitySpec) -> list[FieldSpec]:
        return [f for f in ent.fields if f.type in LOOKUP_TYPES and f.name not in ent.display_fields and not identifier(f)
                and f.name not in ent.owner_fields and self._nameable(ent, f.name)]

    def _read(self, op: str, ent: EntitySpec, user: Any) -> Draft | None:
        rows = self._visible(ent.name, user.id)
        row = self.rng.choice(rows)
        if op == "lookup":
            label = self._label(ent.name, row).lower()
            # a value the row's own name says is no question ("the city of the branch "London King's Cross"")
            fields = [f for f in self._lookup_fields(ent) if row.get(f.column) not in (None, "")
                      and not (f.type in ("string", "enum") and str(row[f.column]).replace("_", " ").lower() in label)
                      # nor a yes/no its name answers ("Is the Docklands Off-Peak plan off-peak only?")
                      and not (f.type == "bool" and any(re.search(rf"\b{re.escape(w)}\b", label)
                                                        for w in f.label.lower().split()
                                                        if w not in grammar.CLOSED and "ADV" not in grammar.tags(w)))]
            if not fields or not self._unique_label(ent.name, row, user.id):
                return None
            f = self.rng.choice(fields)
            form = next((fm for fm in self.forms if fm.kind == "read" and fm.lookup == f.name
                         and next(iter(fm.slots.values()))[0] == ent.name), None)
            if form is not None and self.rng.random() < 0.7:
                draft = self._intent_read(form, ent, row, user)
                if draft is not None:
                    return draft
            if len(rows) == 1 and ent.visibility != "public" and ent.owner_fields and self._one_each(ent.name):
                target = RefText(my_only(ent), ONLY)
            else:
                text = self._spoken_name(ent.name, row, user.id)
                # "my" only of a row the user holds: the manager asks of "Jill Gay's employee record"
                held = self._holds(user.id, ent.name, row["id"]) if ent.visibility != "public" else None
                # "my shift "May 29 Night"", never "my shift "Priya Raman, May 29 Night""
                said, mine = self._as_held(ent.name, row, user.id, text, bool(held))
                target = RefText(said, mine=mine if held is not None else None)
            return self._ask_read(Question("lookup", ent.name, f.name, target), user, "lookup", [])
        if len(rows) < 2:
            return None  # counting, totalling or ranking one row is no question a person asks
        conds, caps = self._conds(ent, row, user, want_range=(op == "range"))
        if op in ("count", "range"):
            if not conds:
                return None
            q = Question("count", ent.name, conds=conds)
            if len(select(self.world, q, user.id)) < 2:
                return None  # a count of one is a yes/no ("my enrollments for the BIOL2300-A-W26 section")
            return self._ask_read(q, user, "date-range" if "date_range" in caps else "count", caps)
        if op == "sum":
            money = [f for f in ent.fields if f.type == "money" and row.get(f.column) is not None
                     and additive(f) and f.name not in unit_rates(self.spec) and self._nameable(ent, f.name)]
            if not money:
                return None
            f = self.rng.choice(money)
            q = Question("sum", ent.name, f.name, conds=conds[:1])
            return self._ask_read(q, user, "total", caps) if comparable(self.world, q, user.id) else None
        ordered = [f for f in ent.fields if f.type in ORDERED and f.name not in ent.owner_fields
                   and not identifier(f) and row.get(f.column) is not None and self._nameable(ent, f.name)]
        if not ordered:
            return None
        f = self.rng.choice(ordered)
        # A tie is avoided, not broken by a rule the user must be told: `answer` refuses a tie.
        q = Question(self.rng.choice(["max", "min"]), ent.name, f.name, conds=conds[:1])
        if not comparable(self.world, q, user.id):
            return None
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

    def _same_rows(self, ent: EntitySpec, fewer: tuple[Cond, ...], more: tuple[Cond, ...], user: Any) -> bool:
        """Whether two sets of conditions pick the same rows the user sees."""
        try:
            return ({r["id"] for r in select(self.world, Question("count", ent.name, conds=fewer), user.id)}
                    == {r["id"] for r in select(self.world, Question("count", ent.name, conds=more), user.id)})
        except FactoryError:
            return False

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
            span = Cond(fl.field, field_value_text("date", low.isoformat()),
                        field_value_text("date", high.isoformat()))
            return (span,), ["date_range"]
        if nested and self.rng.random() < 0.6:
            fl = self.rng.choice(nested)
            assert fl.parent is not None
            pair = [self._cond(ent, fields[fl.parent], row, user), self._cond(ent, fields[fl.field], row, user)]
            if all(pair):
                both = tuple(c for c in pair if c)
                # a parent the child implies goes unsaid ("the ports in Germany", never "in the
                # region "europe" with the country "Germany""); the app still asks for it first
                return (both[1:] if self._same_rows(ent, both[1:], both, user) else both), ["nested_filters"]
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
            label = self._label(f.ref, target)
            if self._own_name(f.ref, target, user.id, label) is not None:
                # a row named after the asker is theirs: "my payments for Ashley Vega's membership"
                # said by Ashley is no one's way to ask; a condition names the rows of others
                return None
            # the row as goals name it: by its code alone where that names it ("replies for the
            # ticket INC-114", never "… INC-114 (Outlook or mailbox problem)")
            return Cond(f.name, f'"{self._spoken_name(f.ref, target, user.id)}"')
        if f.type == "money" and f.currency_field:
            return None  # an amount compared across rows in several currencies says nothing
        if f.type == "enum" and repeats_noun(str(raw).replace("_", " "), noun(said(ent)).split()):
            return None  # "my enrollments whose status is "enrolled"": no way to say it a person has
        if f.type in ("enum", "bool", "string", "int", "money", "date"):
            text = field_value_text(f.type, raw, f.currency)
            return None if '"' in text.strip('"') else Cond(f.name, text)
        return None
