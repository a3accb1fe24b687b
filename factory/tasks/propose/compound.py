"""Drafts that combine actions the way a user's errand does, each phrased purpose first
(`language/errands.py`: "I'm going away soon: lock my card "Visa ··4599", then transfer …"):

- find-then-act errands (READ_WRITE): find a row by a superlative and act on it (as a READ_WRITE
  find-then-act does, `read_writes.py`), then a second action on a row related to the one found
  (its account, a card of it, the same payee);
- errands: two different workflows on related rows (lock a card, then move money away from its
  account);
- pairs: one workflow on two related rows (pay two bills from the same account, lock two cards of
  one account);
- redos: undo a row, then make it again with other values (cancel a scheduled payment, then
  schedule a new one to the same payee; cancel a booking, then book the same listing again);
- undos: make a row, then take it back (schedule a payment, then cancel it), the second action
  naming the row the first creates by its new label;
- two unrelated workflows (`multi_step`), the errand of someone with two things to do;
- act, then report (READ_WRITE `act_report`): one run, then a question about a value it changed,
  answered from the predicted database after the run.

Rows are related when one names the other (a card's account), or both name the same row (two bills
of one payee): `_related` collects them one reference away. A compound draft never takes a setup
(its actions are screened together, one after the other, by the effect interpreter), and it is
emitted only when its text reads back as exactly its steps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from factory.runtime.step import Step
from factory.spec.model import ParamSpec, WorkflowSpec
from factory.spec.roles import may_run
from factory.tasks.draft import Draft
from factory.tasks.language.asks import MADE, Ask, AskStep, RefText
from factory.tasks.language.errands import APART, GENERIC, SWAPPED, THEN, purposes_for, render_errand
from factory.tasks.language.frames import IT
from factory.tasks.language.resolve import find_rows
from factory.tasks.propose.act_report import ActReportMixin
from factory.tasks.propose.base import fits_param

COMPOUND_CATEGORIES = ("act_report", "undo", "redo", "swap", "find_errand", "errand", "pair", "multi_step")
# Where the categories' shortfall goes, in order: the same act on two rows reads as one errand
# ("rate my tickets INC-116 and INC-112"); two unrelated things to do come last.
FALLBACK = ("pair", "multi_step")
REPEATS = 2  # errands of one category running the same workflows in the same order




class CompoundMixin(ActReportMixin):
    """Part of `Proposer`: the errands of several actions."""

    # ------------------------------------------------------------------ errands ----------------

    def _compounds(self, plan: dict[str, int]) -> list[Draft]:
        """The errands of the plan, by category; a category that cannot fill its share (no
        workflow undoes what another makes, say) leaves it to the pairs, and what they cannot
        fill to two unrelated things to do (`FALLBACK`)."""
        makers: dict[str, Callable[[], Draft | None]] = {
            "undo": self._undo, "redo": self._redo, "swap": self._swap, "pair": self._pair, "find_errand": self._find_errand,
            "errand": self._errand, "multi_step": self._multi, "act_report": self._act_report}
        drafts: list[Draft] = []
        short = 0
        for category in COMPOUND_CATEGORIES:
            want = plan.get(category, 0) + (short if category in FALLBACK else 0)
            made = self._make(makers[category], want, {d.goal for d in drafts})
            if want and not made:
                self.skipped.append(f"{category}: no feasible errand found")
            short = want - len(made) if category in FALLBACK else short + want - len(made)
            drafts += made
        return drafts

    def _make(self, maker: Callable[[], Draft | None], n: int, goals: set[str]) -> list[Draft]:
        """Up to `n` drafts of one maker, at most `REPEATS` of each sequence of workflows (so that
        one easy pair, remove two payees, does not fill the category)."""
        made: list[Draft] = []
        seen: dict[tuple[str, ...], int] = {}
        for _attempt in range(n * 25):
            if len(made) >= n:
                break
            draft = maker()
            if draft is None or draft.goal in goals:
                continue
            hits = self.lint_hits(draft)  # an errand is held to the language rules like a single act
            if hits:
                self.skipped.append(f"language: {hits[0].rule}: {hits[0].why} ({draft.goal!r})")
                continue
            flow = tuple(s.workflow for s in draft.steps)
            if seen.get(flow, 0) >= REPEATS:
                continue
            seen[flow] = seen.get(flow, 0) + 1
            goals.add(draft.goal)
            made.append(draft)
        return made

    def _related(self, step: Step) -> dict[str, set[int]]:
        """Entity → ids of the rows `step` names, the rows they name (their parents), the rows
        naming either (a row's children, and its siblings under one parent: another application
        for the same flat, a viewing slot of it)."""
        workflow = self._workflow(step.workflow)
        related: dict[str, set[int]] = {}
        for p in workflow.params:
            if not p.ref or p.ref == "user" or step.params.get(p.name) is None:
                continue
            value = step.params[p.name]
            related.setdefault(p.ref, set()).add(value)
            row = self.world.row(p.ref, value)
            parents = [(f.ref, row[f.column]) for f in self.spec.entity(p.ref).fields
                       if row is not None and f.type == "reference" and f.ref and f.ref != "user" and row.get(f.column)]
            for ref, parent in parents:
                related.setdefault(ref, set()).add(parent)
            for entity, named in [(p.ref, value), *parents]:
                for ent in self._entities():
                    for f in ent.fields:
                        if f.type == "reference" and f.ref == entity:
                            related.setdefault(ent.name, set()).update(
                                r["id"] for r in self.world.rows(ent.name) if r.get(f.column) == named)
        return related

    def _point(self, workflow: WorkflowSpec, step: Step, user: Any, related: dict[str, set[int]],
               avoid: set[tuple[str, int]]) -> bool:
        """Point one of the step's row parameters at a related row (not one in `avoid`)."""
        params = [p for p in workflow.params if p.ref and p.name in step.params and p.ref in related]
        self.rng.shuffle(params)
        for p in params:
            assert p.ref is not None
            pool = sorted(i for i in set(self._candidates(user, workflow, p)) & related[p.ref]
                          if (p.ref, i) not in avoid)
            if pool:
                step.params[p.name] = self.rng.choice(pool)
                # the texts follow the row they are about: a ticket now filed under another issue
                # takes a summary of that issue, never the one drawn for the first
                self._fit_subject(workflow, step.params)
                return True
        return False

    def _errand(self) -> Draft | None:
        """Two different workflows on related rows: lock a card, then move money off its account."""
        drawn = self._two_calls()
        if drawn is None:
            return None
        user, second, a, b = drawn
        if not self._point(second, b, user, self._related(a), set()):
            return None
        return self._errand_draft("write", "errand", user, [a, b], None)

    def _pair(self) -> Draft | None:
        """One workflow on two related rows: the other rows named the same (the same account to
        pay from), or two rows of one parent (two cards of one account)."""
        workflow = self.rng.choice(self._workflows())
        subject = next((p for p in workflow.params if p.ref and p.name == workflow.subject), None)
        if subject is None or subject.ref is None:
            return None
        user = self._runner(workflow)
        if user is None:
            return None
        a, b = self._fill(workflow, user), self._fill(workflow, user)
        if a is None or b is None or subject.name not in a.params:
            return None
        shared = [p.name for p in workflow.params if p.ref and p.name != subject.name and p.name in a.params]
        for name in shared:
            b.params[name] = a.params[name]
        if not shared:
            # Siblings: rows of the subject's entity naming the same parent row as a's subject.
            related = self._related(a)
            row = self.world.row(subject.ref, a.params[subject.name])
            parents = [f for f in self.spec.entity(subject.ref).fields
                       if f.type == "reference" and f.ref and f.ref != "user" and row and row.get(f.column)]
            if not parents or row is None:
                return None
            siblings = {r["id"] for r in self.world.rows(subject.ref)
                        if any(r.get(f.column) == row[f.column] for f in parents)}
            related = {subject.ref: siblings - {a.params[subject.name]}}
            if not self._point(workflow, b, user, related, set()):
                return None
        if b.params.get(subject.name) == a.params[subject.name]:
            return None
        return self._errand_draft("write", "pair", user, [a, b], None)

    def _undo_makes(self) -> list[tuple[WorkflowSpec, ParamSpec, WorkflowSpec]]:
        """(a workflow that takes a row back, its row parameter, a workflow that makes a row of
        that kind): the acts a redo and a swap are made of."""
        workflows = self._workflows()
        pairs = []
        for undo in workflows:
            subject = self._taken_back(undo)
            if subject is None or subject.ref is None:
                continue
            for make in workflows:
                if make.name != undo.name and any(e.kind == "create" and e.entity == subject.ref for e in make.effects):
                    pairs.append((undo, subject, make))
        return pairs

    def _undo_then_make(self) -> tuple[WorkflowSpec, str, Any, Step, Step, dict[str, Any]] | None:
        """A drawn undo and make (`_undo_makes`), one user who may run both, a filled call of each
        and the row the undo takes back: (make, that row's entity, user, a, b, row), or None."""
        pairs = self._undo_makes()
        if not pairs:
            return None
        undo, subject, make = self.rng.choice(pairs)
        user = self._runner(undo, make)
        if user is None or subject.ref is None:
            return None
        a, b = self._fill(undo, user), self._fill(make, user)
        row = None if a is None else self.world.row(subject.ref, a.params[subject.name])
        if a is None or b is None or row is None:
            return None
        return make, subject.ref, user, a, b, row

    def _redo(self) -> Draft | None:
        """Undo a row, then make it again with other values: the second run creates a row of the
        entity the first acts on, naming the same rows the undone one names (its payee, its
        listing)."""
        drawn = self._undo_then_make()
        if drawn is None:
            return None
        make, entity, user, a, b, row = drawn
        copied = 0
        for p in make.params:
            was = self._was_for(entity, row, p)
            if was is not None and p.name in b.params and was in self._candidates(user, make, p):
                b.params[p.name] = was
                copied += 1
        if not copied:
            return None  # nothing ties the new row to the undone one: not a redo
        if all(p.ref and p.ref != "user" for p in make.params if p.name in b.params):
            return None  # nothing but the same rows again ("drop my enrollment in X, then enroll in X"): no redo
        again = self._same_kind(make, entity, row, b)
        if again is not None and self._passes(user, [a, again]):
            b = again  # else the old name is still taken (a removed row kept): a new one
        return self._errand_draft("write", "redo", user, [a, b], None, redo=True)

    def _swap(self) -> Draft | None:
        """Take a row back and make one like it for a row like the one it was for, said "instead"
        ("Cancel my booking for the HIIT class on 22 June at 6:30 AM, and book the HIIT class on
        18 June at 6:30 PM instead"): the row it was for and the new one share every part of their
        name but a day (`_alike`)."""
        drawn = self._undo_then_make()
        if drawn is None:
            return None
        make, entity, user, a, b, row = drawn
        moved = 0
        for p in make.params:
            was = self._was_for(entity, row, p)
            if was is None or p.ref is None or p.name not in b.params:
                continue
            pool = self._candidates(user, make, p)
            others = sorted(set(pool) & self._alike(p.ref, was))
            if others and not moved:
                b.params[p.name] = self.rng.choice(others)
                moved += 1
            elif was in pool:
                b.params[p.name] = was  # the same payee, the same membership
        if not moved:
            return None
        return self._errand_draft("write", "swap", user, [a, b], None, redo=True, generic=True, join=SWAPPED)

    def _was_for(self, entity: str, row: dict[str, Any], p: ParamSpec) -> Any | None:
        """The row of `p`'s entity that `row` (of `entity`) was for, through its one reference to
        that entity (the payee a payment was to, the class a booking was for), or None."""
        refs = [f for f in self.spec.entity(entity).fields if f.type == "reference" and f.ref == p.ref
                and p.ref != "user" and row.get(f.column)]
        return row[refs[0].column] if p.ref and len(refs) == 1 else None

    def _alike(self, entity: str, row_id: int) -> set[int]:
        """The other rows of `entity` named as the row is but for a day or time: the same class
        at another hour, the same route on another date (its display's other fields all equal);
        none where the display names no day."""
        ent = self.spec.entity(entity)
        row = self.world.row(entity, row_id)
        shown = [ent.field_named(n) for n in ent.display_fields if any(f.name == n for f in ent.fields)]
        days = [f for f in shown if f.type in ("date", "datetime")]
        if row is None or not days:
            return set()
        kept = [f for f in shown if f not in days]
        return {r["id"] for r in self.world.rows(entity) if r["id"] != row_id
                and all(r.get(f.column) == row.get(f.column) for f in kept)
                and any(r.get(f.column) != row.get(f.column) for f in days)}

    def _same_kind(self, make: WorkflowSpec, entity: str, row: dict[str, Any], step: Step) -> Step | None:
        """The row made again is the one taken back with new dates or numbers: its names, kinds
        and texts are the old row's ("remove the quiz "Big-O", then post "Big-O" due a week
        later"), never an unrelated new row. Only when some date or number of the run stays its own;
        None when nothing would change."""
        params = {p.name: p for p in make.params}
        ent = self.spec.entity(entity)
        names = {f.name for f in ent.fields}
        stored = {src: ent.field_named(fname) for e in make.effects if e.kind == "create" and e.entity == entity
                  for fname, src in (e.values or {}).items() if src in params and src in step.params and fname in names}
        own = [s for s, f in stored.items() if params[s].type in ("date", "datetime", "int", "money")]
        if not own:
            return None
        again = Step(step.workflow, dict(step.params))
        for src, f in stored.items():
            kept = params[src].type in ("enum", "string", "text") and not params[src].ref
            if kept and fits_param(params[src], row.get(f.column)):
                again.params[src] = row[f.column]
        return again if again.params != step.params else None

    def _undo(self) -> Draft | None:
        """Make a row, then take it back (schedule a payment, then cancel it): the second run acts
        on the row the first creates, named by its new label (reward-gen resolves it on the
        database the first run leaves)."""
        workflows = self._workflows()
        pairs = []
        for undo in workflows:
            subject = self._taken_back(undo)
            if subject is None or subject.ref is None:
                continue
            pairs += [(make, undo, subject) for make in workflows if make.name != undo.name
                      and any(e.kind == "create" and e.entity == subject.ref for e in make.effects)]
        if not pairs:
            return None
        make, undo, subject = self.rng.choice(pairs)
        assert subject.ref is not None
        ent = self.spec.entity(subject.ref)
        user = self._runner(make, undo)
        if user is None:
            return None
        a, b = self._fill(make, user), self._fill(undo, user)
        made = None if a is None else self._prediction(user, [a])
        if a is None or b is None or made is None or made.failed:
            return None
        new = [values for table, values in made.inserts if table == ent.table]
        if len(new) != 1:
            return None
        # SQLite (no AUTOINCREMENT) numbers the new row after the largest id in the table
        row = {**new[0], "id": max((r["id"] for r in self.world.rows(ent.name)), default=0) + 1}
        label = self._label(ent.name, row)
        if not label.strip() or '"' in label or find_rows(self.world, ent.name, user.id, RefText(label)):
            return None  # the new row's label must be new among the rows the user sees
        b.params[subject.name] = row["id"]
        both = self._prediction(user, [a, b])
        if both is None or not (both.updates or both.inserts or both.deletes):
            return None  # made and deleted again leaves nothing to check: the initial state would pass
        self._made = {(ent.name, row["id"]): row}
        try:
            return self._errand_draft("write", "undo", user, [a, b], None, undo=True)
        finally:
            self._made = {}

    def _said_it(self, ask: Ask) -> Ask | None:
        """`ask` (make a row, then take it back) with the row made said "it" in the last step
        (`asks.MADE`), or None when the last step names no row the first one makes."""
        made = {entity for entity, _id in self._made}
        last = ask.steps[-1]
        workflow = self._workflow(last.workflow)
        subject = next((p for p in workflow.params if p.name == workflow.subject and p.ref in made), None)
        if subject is None or not isinstance(last.args.get(subject.name), RefText):
            return None
        return replace(ask, steps=(*ask.steps[:-1], replace(last, args={**last.args, subject.name: RefText(IT, MADE)})))

    def _find_errand(self) -> Draft | None:
        """Find a row by a superlative, act on it, then act on a row related to it."""
        candidates = self._find_candidates()
        workflows = self._workflows()
        if not candidates or len(workflows) < 2:
            return None
        workflow, subject, ent, ordered = self.rng.choice(candidates)
        found = self._find_act(workflow, subject, ent, ordered)
        if found is None:
            return None
        user, step, ask_step, caps = found
        second = self.rng.choice([w for w in workflows if w.name != workflow.name])
        b = self._fill(second, user)
        if b is None or not self._point(second, b, user, self._related(step), set()):
            return None
        return self._errand_draft("read_write", "find_errand", user, [step, b], ask_step, caps=caps)

    def _multi(self) -> Draft | None:
        """Two unrelated workflows: someone with two things to do."""
        drawn = self._two_calls()
        if drawn is None:
            return None
        user, _second, a, b = drawn
        if not self._passes(user, [b]):
            # the second thing runs only because of the first ("freeze my membership, then
            # unfreeze it"): a sequence that takes itself back, not two things to do
            return None
        return self._errand_draft("write", "multi_step", user, [a, b], None, generic=True)

    def _two_calls(self) -> tuple[Any, WorkflowSpec, Step, Step] | None:
        """Two different workflows drawn, one user, and a filled call of each (the same draws, in the
        same order, for an errand and for two unrelated things to do): (user, second workflow, a, b)."""
        user = self.rng.choice(self.users)
        workflows = [w for w in self._workflows() if may_run(self.spec, w, user.id)]  # two things one person does
        if len(workflows) < 2:
            return None
        first, second = self.rng.sample(workflows, 2)
        a, b = self._fill(first, user), self._fill(second, user)
        if a is None or b is None:
            return None
        return user, second, a, b

    def _errand_draft(self, kind: str, category: str, user: Any, steps: list[Step], found: AskStep | None,
                      *, redo: bool = False, undo: bool = False, generic: bool = False,
                      caps: list[str] | None = None, join: str = "") -> Draft | None:
        """The draft of an errand whose steps pass one after the other on the seed, phrased
        purpose first; `found` is the first step's find-then-act ask (READ_WRITE)."""
        if len({(s.workflow, tuple(sorted(s.params.items()))) for s in steps}) < len(steps):
            return None  # the same action twice is one action
        if not (redo or undo) and self._redoes(steps):
            return None  # "drop my enrollment in X, then enroll in X" is a redo, said as one or not at all
        if not self._passes(user, steps):
            return None
        if not (redo or undo) and self._overrides(user, steps):
            return None  # "book the class, then freeze my membership" (which cancels the booking)
        asks: list[AskStep] = [found] if found is not None else []
        for step in steps[len(asks):]:
            ask_step = self._ask_step(self._workflow(step.workflow), step, user)
            if ask_step is None:
                return None
            asks.append(ask_step)
        if not undo and not self._names_hold(user, steps, asks):
            return None  # a name two rows fit once the acts before it ran
        ask = Ask(kind, steps=tuple(asks))
        purpose = self.rng.choice(GENERIC if generic else purposes_for(self.spec, ask, redo, undo))
        variant = self.rng.randrange(9)
        # "book a shipment …, then cancel it": the new row has no name the user has seen; where the
        # act has no sentence to say "it" in, the row's new label
        join = join or (APART if generic else THEN)
        for said in (self._said_it(ask) if undo else None, ask):
            goal = render_errand(self.spec, said, purpose, variant, join) if said is not None else ""
            if said is not None and self._reads_back(goal, said):
                ask = said
                break
        else:
            return None
        required: list[dict[str, Any]] = []
        for s in steps:  # a row two actions name (the account paid from twice) is required once
            required += [r for r in self._required(self._workflow(s.workflow), s) if r not in required]
        return Draft(self._key(kind.replace("_", "-"), category), kind, category, user.username, user.id,
                     ask, goal, steps, [], form="errand", capabilities=caps or [], required=required,
                     variant=variant)
