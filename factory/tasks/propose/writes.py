"""WRITE drafts: one workflow run with concrete rows and values, phrased generically or in one of
the seed's own phrasings.

A seed phrasing is used only when it can say exactly the run chosen: its slots name the rows by
field values (one row of the user's, together), its literals carry the values, and the other
required parameters go in one appended sentence. Otherwise the generic phrasings name rows by
their full labels.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from factory.predict.rows import date_text, enum_text
from factory.runtime.step import Step
from factory.spec.model import ParamSpec, WorkflowSpec
from factory.tasks.draft import Draft
from factory.tasks.language.asks import ONLY, Ask, AskStep, RefText
from factory.tasks.language.frame_params import set_fields
from factory.tasks.language.intent_extras import extras_sentence
from factory.tasks.language.intents import IntentForm, literal_kind, render_intent
from factory.tasks.language.lint import DATE_ISO, Change, lint_goal
from factory.tasks.language.phrasing import render
from factory.tasks.language.registers import fits, reason_context, with_context
from factory.tasks.language.resolve import find_rows, qualified_name
from factory.tasks.language.row_labels import person_split, person_template
from factory.tasks.language.spoken import money_words
from factory.tasks.language.words import my_only
from factory.tasks.propose.base import ProposerBase, text_limit
from factory.tasks.propose.text_shapes import content_words, typed, typed_in


class WritesMixin(ProposerBase):
    """Part of `Proposer`: single-workflow writes and how their arguments are named."""

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
                why = self._why_not.get(workflow.name)
                reason = why.most_common(1)[0][0] if why else "no feasible candidate found"
                self.skipped.append(f"write {workflow.name}: {reason}")
        # Workflows that could not fill their share leave room: the others make more, each up to
        # twice its share, so that one workflow with endless values (a new limit for a budget)
        # does not stand for the whole world.
        productive = [w for w in workflows if any(d.category == w.name for d in drafts)]
        made_of = Counter(d.category for d in drafts)
        for attempt in range(n * 3):
            productive = [w for w in productive if made_of[w.name] < 2 * per]
            if len(drafts) >= n or not productive:
                break
            workflow = productive[attempt % len(productive)]
            draft = self._write(workflow, per * 6 + attempt)
            if draft is not None and draft.goal not in {d.goal for d in drafts}:
                drafts.append(draft)
                made_of[workflow.name] += 1
        # Round-robin so every workflow stays covered when the list is cut to size.
        return _round_robin(drafts, n)

    def _note_why(self, workflow: WorkflowSpec, reason: str) -> None:
        """Remember why a draft of `workflow` could not be made, in words a seed author can act on."""
        self._why_not.setdefault(workflow.name, Counter())[reason] += 1

    def _write(self, workflow: WorkflowSpec, attempt: int) -> Draft | None:
        users = [u for u in self.users if all(
            p.ref is None or not p.required or self._candidates(u, workflow, p) for p in workflow.params)]
        if not users:
            empty = [p for p in workflow.params if p.ref and p.required and not any(
                self._candidates(u, workflow, p) for u in self.users)]
            self._note_why(workflow, "no user who may run it sees a row to choose for " + (
                ", ".join(f"{p.label!r} ({p.ref}{', where ' + p.where if p.where else ''})" for p in empty)
                or "every parameter at once") + "; add storyline events or rows that leave some")
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
        for tries in range(4):  # other rows, values and date regimes before giving up on this user
            step = self._fill(workflow, user)
            if step is None:
                return None
            step = self._mended(user, step)
            if tries == 3:  # the slow joint search, once the quick draws have failed
                step = self._solved(user, step)
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
            refused = self._prediction(user, [step])
            if refused is not None and refused.messages:
                self._note_why(workflow, f"every candidate is refused: {refused.messages[0]!r}")
        if step is None or setup is None:
            return None
        ask_step, goal, form = None, "", "generic"
        if chosen is not None:
            # The phrasing says nothing of the other optional parameters: they keep their defaults.
            # What its words state (an enum value, a default written out) is what the step sends.
            said = chosen.params()
            trimmed = Step(step.workflow, {**{k: v for k, v in step.params.items() if k in said},
                                           **chosen.fixed, **self._on_topic(chosen, workflow, step)})
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
            context = reason_context(user.persona) if variant % 3 != 2 else None  # not before a question
            # goal-first: why the person asks, from the seed, when the persona speaks of what is asked
            if context is not None and self.rng.random() < 0.8 and fits(user.persona, goal):
                goal = with_context(context, goal)
        if not self._reads_back(goal, Ask("write", steps=(ask_step,))):
            return None
        caps = ["date_range"] if any(p.range_end for p in workflow.params if p.name in step.params) else []
        draft = Draft(self._key("write", workflow.name), "write", workflow.name, user.username, user.id,
                     Ask("write", steps=(ask_step,)), goal, [step], setup, form=form, capabilities=caps,
                     required=self._required(workflow, step), variant=variant)
        hits = self.lint_hits(draft)
        if hits:
            self.skipped.append(f"language: {hits[0].rule}: {hits[0].why} ({goal!r})")
            return None
        return draft

    def _unneeded(self, workflow: WorkflowSpec, step: Step) -> set[str]:
        """Parameters a person would not mention: a field set to the value the row already has
        (reward-gen reads the row's own value back, `resolve.steps_of`), or the form's default
        where a person assumes it too (a kind, a yes/no, a text): a number is said even when it is
        the form's ("buy 2 tickets", never "buy tickets" meaning the form's 2)."""
        out: set[str] = {p.name for p in workflow.params if p.default is not None and p.type in ("enum", "bool", "string")
                         and step.params.get(p.name) == p.default}
        subject = next((p for p in workflow.params if p.name == workflow.subject and p.ref), None)
        if subject is None or subject.ref is None or subject.name not in step.params:
            return out
        row = self.world.row(subject.ref, step.params[subject.name])
        if row is None:
            return out
        params = {p.name: p for p in workflow.params}
        for name, fname in set_fields(workflow).items():
            if params[name].default is not None:
                continue  # unsaid, the form's default is sent, not the row's value
            f = self.spec.entity(subject.ref).field_named(fname)
            current = row.get(f.column)
            value = step.params.get(name)
            if current is not None and (bool(current) if f.type == "bool" else current) == value:
                out.add(name)
        return out

    def _ask_step(self, workflow: WorkflowSpec, step: Step, user: Any, trim: bool = True) -> AskStep | None:
        """How the instruction names the step's arguments; with `trim`, only those it needs to say."""
        args: dict[str, Any] = {}
        unneeded = self._unneeded(workflow, step) if trim else set()
        settings = set(set_fields(workflow))
        if settings and settings & set(step.params) <= unneeded:
            return None  # every value it sets is already there: nothing to ask for
        for p in workflow.params:
            if p.name not in step.params or p.name in unneeded:
                continue
            value = step.params[p.name]
            if p.ref and (p.ref, value) in self._made:
                new_row = self._made[(p.ref, value)]
                made = self._spoken_name(p.ref, new_row, user.id, new=True)
                own = self._own_name(p.ref, new_row, user.id, made)
                # a row the run makes for someone else is theirs ("Jamie Osborne's … membership"),
                # when the label names its holder (a transfer's label names whom it goes to)
                ent = self.spec.entity(p.ref)
                shape = person_template(self.spec, ent)
                someone = (own is None and shape is not None and ent.owner_fields[:1] == [shape[0]]
                           and person_split(self.spec, ent, made) is not None)
                args[p.name] = RefText(own or made, mine=True if own else False if someone else None,
                                       currency=self._currency(p.ref, new_row))
                continue
            if p.ref:
                row = self.world.row(p.ref, value)
                ent = self.spec.entity(p.ref)
                if (row is not None and ent.visibility != "public" and ent.owner_fields
                        and [r["id"] for r in self._visible(p.ref, user.id)] == [value] and self._one_each(p.ref)):
                    args[p.name] = RefText(my_only(ent), ONLY)  # the user's only one: "my profile"
                    continue
                if row is None:
                    return None
                # A label other rows share is told apart by a status, a date or an amount.
                name = (self._spoken_name(p.ref, row, user.id)
                        if self._unique_label(p.ref, row, user.id) else qualified_name(self.world, p.ref, row, user.id))
                if name is None:
                    return None
                # "my" only of a row the user holds (the card they own, not one they administer), in
                # a public entity too (the host's own listing, the review they wrote)
                said, mine = self._as_held(p.ref, row, user.id, name, self._holds(user.id, p.ref, value))
                args[p.name] = RefText(said, mine=mine, currency=self._currency(p.ref, row))
            else:
                if isinstance(value, str) and ('"' in value or "; " in value):
                    return None
                args[p.name] = value
        return AskStep(workflow.name, args)

    def _on_topic(self, form: IntentForm, workflow: WorkflowSpec, step: Step) -> dict[str, Any]:
        """Free texts that agree with what a phrasing's own words say: "Dispute the invoice for …;
        the duty looks wrong. Set the reason to …" takes a reason about the duty ("The duty line
        is higher than the broker quoted us"), never one about the container size. Among the
        world's own values for the parameter, those sharing a word with the phrasing's fixed
        words; nothing changes when none does."""
        words = content_words(" ".join(t for kind, t in form.template if kind == "text"))
        out: dict[str, Any] = {}
        for p in workflow.params:
            if p.type not in ("string", "text") or p.name not in form.params() or p.name not in step.params \
                    or p.name in form.fixed:  # only what the phrasing says: no parameter it leaves out comes back
                continue
            fitting = [typed_in(v) for v in typed(self._written(workflow.name, p.name)) if words & content_words(v)
                       and len(v) <= text_limit(p)]
            if fitting and not words & content_words(str(step.params[p.name])):
                out[p.name] = self.rng.choice(fitting)
        return out

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
        currency = self._step_currency(workflow, step)
        for written, param in form.literals:
            p = params[param]
            if p.type == "money" and p.currency is None and currency:
                p = p.model_copy(update={"currency": currency})  # "£200" on a sterling claim
            text = self._literal_text(literal_kind(written), p, step.params[param])
            if text is None:
                return None
            literals.append(text)
            args[param] = step.params[param]
        if not self._says_direction(form.phrasing, workflow, step):
            return None  # "Lower the fine to $1" while raising it: the phrasing cannot say this step
        tail = ""
        if form.extras:
            # The phrasing's appended sentence says every value it leaves over, defaults included.
            rest = self._ask_step(workflow, Step(workflow.name, {p: step.params[p] for p in form.extras}), user, trim=False)
            if rest is None:
                return None
            args.update(rest.args)
            priced_wf = workflow if currency is None else workflow.model_copy(update={"params": [
                q.model_copy(update={"currency": currency}) if q.type == "money" and q.currency is None else q
                for q in workflow.params]})  # "Set the agreed loss to £250" on a sterling claim
            tail = extras_sentence(priced_wf, rest.args, self.spec)
        return AskStep(workflow.name, args), render_intent(form, slot_texts, literals, tail)

    def _says_direction(self, text: str, workflow: WorkflowSpec, step: Step) -> bool:
        """Whether a comparative verb in `text` (lower, raise, earlier …) agrees with every value the
        step moves: the new value against the row's current one, from the workflow's set effects."""
        changes = []
        for effect in workflow.effects:
            if (effect.kind != "set" or effect.target not in step.params or effect.to not in step.params
                    or effect.field is None):
                continue
            row = self.world.row(effect.entity, step.params[effect.target])
            column = self.spec.entity(effect.entity).field_named(effect.field).column
            old, new = (row or {}).get(column), step.params[effect.to]
            if isinstance(old, int | float) and isinstance(new, int | float):
                changes.append(Change(float(old), float(new)))
            elif isinstance(old, str) and isinstance(new, str) and DATE_ISO.match(old) and DATE_ISO.match(new):
                changes.append(Change(float(old[:10].replace("-", "")), float(new[:10].replace("-", ""))))
        return not [h for h in lint_goal(self.spec, text, tuple(changes)) if h.rule == "comparative"]

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

    def _step_currency(self, workflow: WorkflowSpec, step: Step) -> str | None:
        """The currency of the row the step acts on (its subject), which an amount it gives is in."""
        found = next((p for p in workflow.params if p.name == workflow.subject and p.ref), None)
        if found is None or found.ref is None or step.params.get(found.name) is None:
            return None
        key = (found.ref, step.params[found.name])
        row = self._made.get(key) or self.world.row(*key)
        return None if row is None else self._currency(found.ref, row)

    @staticmethod
    def _literal_text(kind: str, p: ParamSpec, value: Any) -> str | None:
        """A value written in place of a phrasing's literal; None when it cannot stand there."""
        if value is None:
            return None
        if kind == "money":
            return money_words(int(value), p.currency)  # "$200", as the seed's own phrasing writes it
        if kind == "int":
            return str(int(value))
        if kind == "date":
            return date_text(str(value))  # always with its year: "July 6, 2026" reads back alone
        text = enum_text(str(value)) if p.type == "enum" else str(value)
        # Inside the phrasing's own quotes: no quote may close it early, and it reads back whole.
        return None if not text.strip() or text != text.strip() or any(c in text for c in "'\"{}\n") else text


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

