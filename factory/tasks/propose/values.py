"""The values a draft's workflow run sends: rows the user may pick, dates, amounts, texts (the free
texts themselves are drawn in `texts.py`).

A fill draws every choice from the proposer's one seeded generator, in a fixed order, so the same
world gives the same values; whether the values pass the workflow's preconditions is screened
afterwards (`setups.py`), never assumed here.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from factory.errors import ExpressionError
from factory.expr.syntax import Binary, Name, Node, Unary, parse
from factory.runtime.step import Step
from factory.spec.model import EntitySpec, ParamSpec, WorkflowSpec
from factory.spec.naming import identifier
from factory.tasks.language.frame_params import set_fields
from factory.tasks.language.values import currency_chooser
from factory.tasks.propose.base import fits_param, text_limit
from factory.tasks.propose.fitting import FittingMixin
from factory.tasks.propose.kind_prices import kind_prices
from factory.tasks.propose.sentiment import agreeing, is_rating, leaning
from factory.tasks.propose.stored import stored_in, times_like_stored
from factory.tasks.propose.text_shapes import fit_text, in_series, next_of, typed_in

MONEY_CHOICES = (5, 10, 12, 15, 20, 25, 30, 40, 45, 50, 60, 75, 80, 100, 120, 150, 200, 250)
NEAR_FACTORS = (0.5, 0.8, 1.0, 1.2, 1.5, 2.0)  # an amount beside one the rows already hold
CHANGE_FACTORS = (0.8, 0.9, 1.1, 1.15, 1.2, 1.25)  # a value a run sets, from the row's own


def round_amount(cents: float) -> int:
    """Cents rounded as a person would write the amount: whole dollars, and to two significant
    figures above $100 ($1,234.56 becomes $1,200)."""
    dollars = max(1, round(cents / 100))
    if dollars > 100:
        step = 10 ** (len(str(dollars)) - 2)
        dollars = round(dollars / step) * step
    return dollars * 100


# Words of a date parameter that lies years back by nature (a birth date, when a company was
# founded): only such a parameter is ever given a date decades ago.
_HISTORY_WORDS = frozenset({"birth", "birthday", "born", "dob", "founded", "established", "built", "since",
                            "anniversary", "hired", "incorporated"})


def _of_history(p: ParamSpec) -> bool:
    words = {*p.name.lower().split("_"), *re.findall(r"[a-z]+", p.label.lower())}
    return bool(words & _HISTORY_WORDS)


class ValuesMixin(FittingMixin):
    """Part of `Proposer`: concrete values for a workflow's parameters."""

    def _fill(self, workflow: WorkflowSpec, user: Any) -> Step | None:
        values: dict[str, Any] = {}
        self._acting = user
        # Dates: one regime per fill (soon, the past week, decades ago), since preconditions
        # ask for future bookings, recent returns or birth dates; the prediction screens them.
        regime = self.rng.choice(["soon", "soon", "soon", "recent", "long_ago"])
        if regime == "long_ago" and not any(_of_history(p) for p in workflow.params if p.type in ("date", "datetime")):
            regime = "past"  # a hold placed, a bill paid in 1984 is no one's errand: only a birth date goes that far back
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
                    # A period (a trip, an expense report's dates) is soon or just past, never
                    # decades ago: "the period from September 18, 2001" is no one's errand.
                    ranged = any(q.range_of == p.name for q in workflow.params)
                    day = self._day("past" if ranged and regime != "soon" else regime)
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
                value = self._scalar(p, workflow.name)
                if value is None:
                    return None
                values[p.name] = value
        values.update(times_like_stored(self.spec, self.world, workflow, values, self.rng))
        _in_order(workflow, values)
        self._gaps_like_stored(workflow, values)
        self._like_stored(workflow, values)
        self._near_amounts(workflow, values)
        self._near_counts(workflow, values)
        self._near_current(workflow, values)
        values.update(kind_prices(self.spec, self.world, workflow, values))  # a monthly fee is the monthly fee
        self._fit_subject(workflow, values)  # before the rating is made to agree with the text it picks
        self._agree(workflow, values)
        if not self._from_one_row(workflow, values):
            self._pair_kinds(workflow, values)
        else:  # a ticket's summary says its own issue, even where its details came from another's
            self._fit_subject(workflow, values, names_only=True)
        self._texts_fit_kinds(workflow, values)
        self._keep_most(workflow, values)
        return Step(workflow.name, values)

    def _pair_kinds(self, workflow: WorkflowSpec, values: dict[str, Any]) -> None:
        """A new row named like one the world holds takes that row's kinds: adding the payee
        "City Power & Light" files it under the category the world gives that name, not a
        category drawn on its own ("telecom"); a name the world does not hold ("Harbor Veterinary
        Clinic") takes a kind its words say ("insurance" in "Keystone Insurance"), else "other"
        where there is one. Only where a create effect stores both the text and the enum in
        fields of its row."""
        params = {p.name: p for p in workflow.params}
        for effect in workflow.effects:
            if effect.kind != "create" or not effect.values:
                continue
            ent = self.spec.entity(effect.entity)
            stored = {source: fname for fname, source in effect.values.items() if source in values}
            # the row's name ("Lakeside Apartments"), never another text it shares (an account number)
            texts = [(fname, values[src]) for src, fname in stored.items() if fname in ent.display_fields
                     and params[src].type in ("string", "text") and ent.field_named(fname).type in ("string", "text")]
            kinds = [(src, ent.field_named(fname)) for src, fname in stored.items()
                     if params[src].type == "enum" and ent.field_named(fname).type == "enum"]
            if not texts or not kinds:
                continue
            for fname, text in texts:
                column = ent.field_named(fname).column
                row = next((r for r in self.world.rows(ent.name) if r.get(column) == text), None)
                for src, f in kinds:
                    choices = params[src].values or []
                    if row is not None and row.get(f.column) in choices:
                        values[src] = row[f.column]
                    elif row is None:  # a name the world does not hold: a kind its words say, else "other"
                        said = [c for c in choices if re.search(rf"\b{re.escape(c.replace('_', ' '))}", str(text).lower())]
                        values[src] = said[0] if said else "other" if "other" in choices else values[src]
                break

    def _from_one_row(self, workflow: WorkflowSpec, values: dict[str, Any]) -> bool:
        """The kinds, numbers and texts a new row is made with come together from one row the
        world holds, so they agree with each other ("glass" damage with "Spilled paint across the
        carpet" is two claims' halves; an essay out of 100, not out of 3); of the world's rows, one
        whose referenced rows are most like the run's (a claim on a pet policy for a run on a pet
        policy, an assignment of the same course). A name is a new one of that row's kind
        ("Book review" → "Book review 2"), and unique fields stay the run's own. True when done."""
        params = {p.name: p for p in workflow.params}
        checked = " ".join(c.source for c in workflow.preconditions)
        for effect in workflow.effects:
            if effect.kind != "create" or not effect.values:
                continue
            ent = self.spec.entity(effect.entity)
            names = {f.name for f in ent.fields}
            copied = {src: ent.field_named(fname) for fname, src in effect.values.items()
                      if src in values and src in params and fname in names and not params[src].ref
                      and (params[src].type in ("enum", "text", "string")
                           or (params[src].type == "int" and not re.search(rf"\b{re.escape(src)}\b", checked)))
                      and not ent.field_named(fname).unique and not self._own_text(params[src])
                      and not _chooses_currency(params[src])}  # the amounts are already sized in the run's
            if len(copied) < 2 or not any(params[s].type == "enum" for s in copied):
                continue
            refs = {fname: values[src] for fname, src in effect.values.items()
                    if src in values and src in params and params[src].ref and fname in names}
            fits = [r for r in self.world.rows(ent.name)
                    if all(fits_param(params[s], r.get(f.column)) for s, f in copied.items())]
            if not fits:
                continue
            scores = [self._likeness(ent, refs, r) for r in fits]
            best = [r for r, sc in zip(fits, scores, strict=True) if sc == max(scores)]
            row = self.rng.choice(best)
            for src, f in copied.items():
                value = row[f.column]
                if params[src].type in ("text", "string"):
                    value = typed_in(str(value))
                    if f.name in ent.display_fields and (in_series(value) or len(ent.display_fields) == 1):
                        # a name: a new one of its kind ("Midterm 2"); a summary shown beside the
                        # row's own code ("INC-171 VPN keeps dropping") stays as people write it
                        value = fit_text(next_of(value), text_limit(params[src]))
                values[src] = value
            return True
        return False

    def _own_text(self, p: ParamSpec) -> bool:
        """A text that is the new row's own and never another row's: a name ("Skyline Cable 2" is
        no payee's name; `_pair_kinds` files a name), an account number, a code."""
        name = p.name.lower()
        return p.type == "string" and (name == "name" or name.endswith("_name") or "number" in name
                                       or identifier(p) or self._coded(name))

    def _likeness(self, ent: EntitySpec, refs: dict[str, Any], row: dict[str, Any]) -> int:
        """How many kinds the rows `row` points at share with the rows the run points at (`refs`:
        the ids the run gives, by the field of `ent` they go in)."""
        score = 0
        for fname, wanted in refs.items():
            f = ent.field_named(fname)
            pointed = row.get(f.column)
            if f.ref is None or not isinstance(pointed, int):
                continue
            theirs, ours = self.world.row(f.ref, pointed), self.world.row(f.ref, wanted)
            if theirs is None or ours is None:
                continue
            if theirs["id"] == ours["id"]:
                score += 4  # the very row the run names (the same section)
            # a row they point at in turn weighs most (the same course), then a kind they share
            score += sum(2 if g.ref else 1 for g in self.spec.entity(f.ref).fields
                         if (g.type == "enum" or (g.ref and g.ref != "user"))
                         and theirs.get(g.column) is not None and theirs.get(g.column) == ours.get(g.column))
        return score

    def _agree(self, workflow: WorkflowSpec, values: dict[str, Any]) -> None:
        """A rating sent with a text agrees with it: a one-star review does not praise the place.
        The text stays (it is the world's own words); the rating moves into the part of its range
        the text leans to (`sentiment.agreeing`)."""
        texts = [str(values[p.name]) for p in workflow.params if p.type in ("string", "text") and p.name in values]
        lean = next((lean for t in texts if (lean := leaning(t)) is not None), None)
        if lean is None:
            return
        for p in workflow.params:
            # a rating left to its default (5 stars) would be sent beside the text all the same
            if is_rating(p) and (p.name in values or p.default is not None):
                choices = agreeing(p, lean)
                if choices and values.get(p.name, p.default) not in choices:
                    values[p.name] = self.rng.choice(choices)

    def _keep_most(self, workflow: WorkflowSpec, values: dict[str, Any]) -> None:
        """A form that sets many fields of a row (contact details) is used to change one to three
        of them: the others keep the row's values, and the instruction leaves them unsaid."""
        subject = next((p for p in workflow.params if p.name == workflow.subject and p.ref), None)
        row = self.world.row(subject.ref, values[subject.name]) if subject and subject.ref and subject.name in values else None
        if subject is None or subject.ref is None or row is None:
            return
        ent = self.spec.entity(subject.ref)
        params = {p.name: p for p in workflow.params}
        for name, fname in set_fields(workflow).items():  # an optional field left out keeps the row's value
            current = row.get(ent.field_named(fname).column)
            if name not in values and params[name].default is None and current is not None:
                values[name] = bool(current) if ent.field_named(fname).type == "bool" else current
        fields = {n: f for n, f in set_fields(workflow).items() if n in values}
        if len(fields) < 3:
            return
        changed = set(self.rng.sample(sorted(fields), self.rng.randint(1, min(3, len(fields) - 1))))
        for name, fname in fields.items():
            f = ent.field_named(fname)
            current = row.get(f.column)
            if name not in changed and current is not None:
                values[name] = bool(current) if f.type == "bool" else current

    def _near_amounts(self, workflow: WorkflowSpec, values: dict[str, Any]) -> None:
        """Half the time, a money parameter takes a round amount near an amount on the rows the run
        names (a budget's limit near what it has spent, a payment near the bill): the fixed
        choices stop at $250, and a rule such as "the new limit covers what is spent" asks for
        thousands."""
        # Not the source of the money: a payment near the paying account's balance is no bill.
        source = {p.name for p in workflow.params if "from" in p.name.lower().split("_") + p.label.lower().split()}
        amounts = sorted({int(row[f.column]) for p in workflow.params if p.ref and p.name in values and p.name not in source
                          for row in [self.world.row(p.ref, values[p.name])] if row is not None
                          for f in self.spec.entity(p.ref).fields
                          if f.type == "money" and isinstance(row.get(f.column), int) and row[f.column] > 0})
        if not amounts:
            return
        for p in workflow.params:
            if p.type != "money" or p.name not in values or self.rng.random() < 0.5:
                continue
            low = round((p.min if p.min is not None else 1) * 100)
            high = round((p.max if p.max is not None else 500) * 100)
            near = round_amount(self.rng.choice(amounts) * self.rng.choice(NEAR_FACTORS))
            if low <= near <= high:
                values[p.name] = near

    def _near_current(self, workflow: WorkflowSpec, values: dict[str, Any]) -> None:
        """A number or an amount the run sets on a row (`set model.daily_rate = new_rate`) moves
        from the row's own value, as a person changes one: a car repriced from £64 to £70 a day,
        an allowance from 25 days to 28, never to £12 or 3 days; the rules screen it after."""
        params = {p.name: p for p in workflow.params}
        for effect in workflow.effects:
            p = params.get(effect.to or "")
            ref = params.get(effect.target or "")
            if (effect.kind != "set" or effect.field is None or p is None or ref is None or not ref.ref
                    or p.type not in ("money", "int") or p.name not in values or ref.name not in values):
                continue
            row = self.world.row(ref.ref, values[ref.name])
            column = self.spec.entity(effect.entity).field_named(effect.field).column
            current = None if row is None else row.get(column)
            if not isinstance(current, int) or isinstance(current, bool) or current <= 0:
                continue
            factor = self.rng.choice(CHANGE_FACTORS)
            value = round_amount(current * factor) if p.type == "money" else round(current * factor)
            if value == current:
                value = current + (1 if factor > 1 else -1) * (100 if p.type == "money" else 1)
            scale = 100 if p.type == "money" else 1
            if (p.min is None or value >= round(p.min * scale)) and (p.max is None or value <= round(p.max * scale)):
                values[p.name] = value

    def _gaps_like_stored(self, workflow: WorkflowSpec, values: dict[str, Any]) -> None:
        """Two moments a check orders and the run stores on one row keep the gap the world's rows
        keep between those fields: doors an hour before the show, as on every other event, never
        eighteen days before it; a return a few days after its pickup."""
        types = {p.name: p.type for p in workflow.params}
        for check in workflow.preconditions:
            try:
                pairs = _orderings(parse(check.source))
            except ExpressionError:
                continue
            for later, earlier in pairs:
                if later not in values or earlier not in values or types.get(later) not in ("date", "datetime") \
                        or types.get(earlier) != types.get(later):
                    continue
                gap = self._stored_gap(workflow, later, earlier)
                if gap is not None:
                    moved = dt.datetime.fromisoformat(str(values[later])) - gap
                    values[earlier] = moved.date().isoformat() if types[later] == "date" else moved.isoformat()

    def _stored_gap(self, workflow: WorkflowSpec, later: str, earlier: str) -> dt.timedelta | None:
        """The median gap the world's rows keep between the fields `later` and `earlier` are
        stored in (on one entity), or None when fewer than three rows say, or any says otherwise."""
        for entity, late_field in stored_in(workflow, later):
            for other, early_field in stored_in(workflow, earlier):
                if other != entity:
                    continue
                ent = self.spec.entity(entity)
                late_col, early_col = ent.field_named(late_field).column, ent.field_named(early_field).column
                gaps = sorted(dt.datetime.fromisoformat(str(r[late_col])) - dt.datetime.fromisoformat(str(r[early_col]))
                              for r in self.world.rows(entity) if r.get(late_col) and r.get(early_col))
                if len(gaps) >= 3 and gaps[0] > dt.timedelta(0):
                    return gaps[len(gaps) // 2]
        return None

    def _like_stored(self, workflow: WorkflowSpec, values: dict[str, Any]) -> None:
        """An amount or a count a run stores takes the size of those the world keeps in that field:
        a repair estimate near the estimates on other damage reports (hundreds of pounds), an ocean
        freight quote near other quotes, payment terms of 30 days, never the fixed $5 to $250 or
        2 to 8 of `_scalar`."""
        for p in workflow.params:
            if p.type not in ("money", "int") or p.name not in values:
                continue
            currency = self._run_currency(workflow, values)
            stored = sorted({int(row[f.column]) for entity, fname in stored_in(workflow, p.name)
                             for f in [self.spec.entity(entity).field_named(fname)]
                             for row in self._same_kind_rows(workflow, values, entity)
                             if isinstance(row.get(f.column), int) and row[f.column] > 0
                             # amounts in another currency are another size (₹ against $)
                             and (not f.currency_field or row.get(f.currency_field) in (currency, None))})
            if len(stored) < 3:  # too few to say what size such an amount is
                continue
            scale = 100 if p.type == "money" else 1
            # a count takes one the world holds (payment terms of 30 days, an allowance of 25)
            near = (round_amount(self.rng.choice(stored) * self.rng.choice(NEAR_FACTORS)) if p.type == "money"
                    else self.rng.choice(stored))
            low = round((p.min if p.min is not None else 1 / scale) * scale)
            high = round(p.max * scale) if p.max is not None else near
            if low <= near <= high:
                values[p.name] = near

    def _same_kind_rows(self, workflow: WorkflowSpec, values: dict[str, Any], entity: str) -> list[dict[str, Any]]:
        """The rows of `entity` of the kind the run makes or sets: those whose fields the run also
        stores an enum in hold the run's value there (a monthly fee payment is sized by other
        monthly fees, never by day passes); all rows where the run stores no kind, or none is of it."""
        kinds = [(fname, values[q.name]) for q in workflow.params if q.type == "enum" and q.name in values
                 for ent, fname in stored_in(workflow, q.name) if ent == entity]
        rows = self.world.rows(entity)
        columns = [(self.spec.entity(entity).field_named(fname).column, value) for fname, value in kinds]
        alike = [r for r in rows if all(r.get(c) == v for c, v in columns)]
        return alike or rows

    def _run_currency(self, workflow: WorkflowSpec, values: dict[str, Any]) -> str:
        """The currency a run's amounts are in: the one it chooses (a three-letter enum), else
        the row it acts on's, else US dollars."""
        for p in workflow.params:
            if _chooses_currency(p):
                return str(values.get(p.name, p.default or "USD"))
        subject = next((p for p in workflow.params if p.name == workflow.subject and p.ref), None)
        row = self.world.row(subject.ref or "", values[subject.name]) if subject and subject.name in values else None
        if subject is not None:
            return (self._currency(subject.ref or "", row) if row else None) or "USD"
        # no row acted on: the one currency the rows the run names share ("a tier for my event",
        # priced in the event's currency)
        found = {c for p in workflow.params if p.ref and p.ref != "user" and p.name in values
                 for r in [self.world.row(p.ref, values[p.name])] if r is not None
                 for c in [self._currency(p.ref, r)] if c}
        return found.pop() if len(found) == 1 else "USD"

    def _near_counts(self, workflow: WorkflowSpec, values: dict[str, Any]) -> None:
        """Half the time, a whole number a rule compares with a row's ("the odometer reads at least
        what it read at pick-up") takes a value at or a little above a number on the rows the run
        names: the fixed small choices never reach 38,000 miles."""
        compared = {p.name for p in workflow.params if p.type == "int" and any(
            re.search(rf"\b{re.escape(p.name)}\b", c.source) and "." in c.source for c in workflow.preconditions)}
        if not compared:
            return
        counts = sorted({int(row[f.column]) for p in workflow.params if p.ref and p.name in values
                         for row in [self.world.row(p.ref, values[p.name])] if row is not None
                         for f in self.spec.entity(p.ref).fields
                         if f.type == "int" and isinstance(row.get(f.column), int) and row[f.column] > 0})
        for p in workflow.params:
            if p.name not in compared or p.name not in values or not counts or self.rng.random() < 0.5:
                continue
            value = self.rng.choice(counts) + self.rng.choice((0, 1, 5, 12, 40, 120, 350))
            if (p.min is None or value >= p.min) and (p.max is None or value <= p.max):
                values[p.name] = value

    def _day(self, regime: str) -> dt.date:
        if regime == "recent":
            return self.today - dt.timedelta(days=self.rng.randint(0, 6))
        if regime == "past":  # a period that ended a few days or weeks ago
            return self.today - dt.timedelta(days=self.rng.randint(9, 45))
        if regime == "long_ago":
            return self.today - dt.timedelta(days=self.rng.randint(20 * 365, 60 * 365))
        return self.today + dt.timedelta(days=self.rng.randint(5, 40))

    def _scalar(self, p: ParamSpec, workflow: str = "") -> Any:
        rng = self.rng
        if p.type == "money":
            low = round((p.min if p.min is not None else 1) * 100)
            high = round((p.max if p.max is not None else 500) * 100)
            picks = [c * 100 for c in MONEY_CHOICES if low <= c * 100 <= high]
            return rng.choice(picks) if picks else max(low, 100)
        if p.type == "int":
            low = int(p.min) if p.min is not None else 1
            high = int(p.max) if p.max is not None else max(low + 4, 5)
            if isinstance(p.default, int) and not isinstance(p.default, bool) and p.default > low + 6:
                # a number with a usual value is mostly that or a round step from it: payment
                # terms of 30, 15 or 60 days, never 9
                picks = [v for v in (p.default, p.default, p.default // 2, p.default * 2) if low <= v <= high]
                return rng.choice(picks or [p.default])
            return rng.randint(low, min(high, low + 6))
        if p.type == "datetime":
            day = self.today + dt.timedelta(days=rng.randint(2, 30))
            return f"{day.isoformat()}T{rng.choice(['09', '10', '14', '16'])}:00:00"
        if p.type == "enum":
            return rng.choice(p.values or [""]) or None
        if p.type == "bool":
            return rng.random() < 0.5
        if p.type == "email":
            return self._contact(p.name.lower() if "email" in p.name.lower() else "email")
        return self._text(p, workflow)


def _chooses_currency(p: ParamSpec) -> bool:
    """Whether the parameter picks the currency of the run's amounts (an enum of ISO codes)."""
    return currency_chooser([p]) is not None


def _orderings(node: Node) -> list[tuple[str, str]]:
    """(later, earlier) for every comparison of two plain names under `node` ("arrives_at >
    departs_at" → (arrives_at, departs_at)), read from the expression's syntax tree."""
    found: list[tuple[str, str]] = []
    if isinstance(node, Binary):
        if node.op in (">", ">=", "<", "<=") and isinstance(node.left, Name) and isinstance(node.right, Name):
            pair = (node.left.id, node.right.id)
            found.append(pair if node.op.startswith(">") else pair[::-1])
        found += _orderings(node.left) + _orderings(node.right)
    elif isinstance(node, Unary):  # "not (a <= b)" orders them the other way round
        inner = _orderings(node.operand)
        found += [(b, a) for a, b in inner] if node.op == "not" else inner
    return found


def _in_order(workflow: WorkflowSpec, values: dict[str, Any]) -> None:
    """Moments a precondition orders ("arrives_at > departs_at") drawn in that order: the later
    one moved past the earlier, so no draft is refused for "The ETA has to be after departure."
    (a range declared with `range_end` is drawn in order already)."""
    moments = {p.name for p in workflow.params if p.type in ("date", "datetime") and p.name in values}
    for check in workflow.preconditions:
        try:
            pairs = _orderings(parse(check.source))
        except ExpressionError:
            continue  # a check the compiler took is parsed; a stale spec's odd one is left alone
        for later, earlier in pairs:
            if {later, earlier} <= moments and str(values[later]) <= str(values[earlier]):
                start = dt.datetime.fromisoformat(str(values[earlier]))
                moved = start + dt.timedelta(days=1 + len(later) % 3)  # a day or three after
                values[later] = moved.date().isoformat() if "T" not in str(values[earlier]) else moved.isoformat()

