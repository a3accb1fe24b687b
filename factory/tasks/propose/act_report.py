"""Act, then report: one workflow run, then a question about a value it changed, answered from
the predicted database after the run (a READ_WRITE errand: "Buy 4 General admission tickets for
Brixton Beats Weekender. Afterwards, how many tickets have been sold in …?"). Part of the
errands (`compound.py`), kept apart for its own gate: the answer must differ from the value
before the run, so only the act answers it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from factory.errors import FactoryError
from factory.predict.after import view_after
from factory.spec.naming import identifier
from factory.tasks.draft import Draft
from factory.tasks.language.asks import Ask, Question, RefText
from factory.tasks.language.errands import purposes_for, render_report
from factory.tasks.language.resolve import AmbiguousError, UnresolvedError, answer
from factory.tasks.language.spoken import spoken_label
from factory.tasks.propose.clashes import ClashesMixin

# Effect values that are the action's own word, not a result worked out ("today()" is a date stamp).
_LITERALS = frozenset(["true", "false", "today()", "now()", "me"])


class ActReportMixin(ClashesMixin):
    """Part of `Proposer`: act-then-report errands."""

    def _act_report(self) -> Draft | None:
        """Act, then report: one workflow run, then a question about a value it changed on a row
        it changed ("… Afterwards, what is the balance of my account "Emergency Fund ··5290"?").
        The answer is read from the predicted database after the run and differs from the
        value before it, so only the action answers it."""
        workflow = self.rng.choice(self._workflows())
        user = self._runner(workflow)
        if user is None:
            return None
        step = self._fill(workflow, user)
        if step is None:
            return None
        prediction = self._prediction(user, [step])
        if prediction is None or prediction.failed or not prediction.updates:
            return None
        tables = {e.table: e for e in self.spec.entities if not e.builtin}
        choices = [(tables[table], row_id, f) for (table, row_id), columns in prediction.updates.items()
                   if table in tables for f in tables[table].fields
                   if f.column in columns and f.type not in ("reference", "bool")  # "what is the reviewed of …"
                   and f.name not in tables[table].owner_fields
                   and f.name not in tables[table].display_fields and not identifier(f)
                   and self._nameable(tables[table], f.name)]
        if not choices:
            return None
        # A value the action itself names is no question: a status it sets to a constant ("cancel"
        # → cancelled), a value the user typed ("extend to June 12" → its end date). Only a value
        # the run works out ("its fees owed" after a waiver, a balance after a transfer) is asked.
        said = {*(p.name for p in workflow.params), *_LITERALS}
        told = {(e.entity, e.field) for e in workflow.effects if e.kind == "set" and e.field and (
            (e.to or "").strip() in said or re.fullmatch(r"'[^']*'|\d+(?:\.\d+)?", (e.to or "").strip()))}
        choices = [c for c in choices if (c[0].name, c[2].name) not in told]
        if not choices:
            return None
        # An amount or a count the run changed says more of the result than a status it set.
        amounts = [c for c in choices if c[2].type in ("money", "int")]
        ent, row_id, f = self.rng.choice(amounts or choices)
        before = self.world.row(ent.name, row_id)
        if before is None or not self._unique_label(ent.name, before, user.id):
            return None
        q = Question("lookup", ent.name, f.name, RefText(spoken_label(self._label(ent.name, before))))
        try:
            after = view_after(self.spec, self.seed_db, prediction)
        except FactoryError:
            return None
        try:
            found = answer(after, q, user.id)
            if found.value == answer(self.world, q, user.id).value:
                return None  # the report must need the action
        except (AmbiguousError, UnresolvedError):
            return None
        finally:
            after.close()
        ask_step = self._ask_step(workflow, step, user)
        if ask_step is None:
            return None
        # the row acted on keeps the name the action gave it, so the report can say "its"
        same = [ask_step.args[p.name] for p in workflow.params
                if p.ref == ent.name and step.params.get(p.name) == row_id and isinstance(ask_step.args.get(p.name), RefText)
                and ask_step.args[p.name].by is None]
        if same:
            q = replace(q, target=same[0])
        ask = Ask("read_write", steps=(ask_step,), question=q)
        variant = self.rng.randrange(9)
        goal = render_report(self.spec, ask, self.rng.choice(purposes_for(self.spec, ask)), variant)
        if not self._reads_back(goal, ask):
            return None
        return Draft(self._key("read-write", "act-report"), "read_write", "act_report", user.username, user.id,
                     ask, goal, [step], [], answer=found, form="errand", required=self._required(workflow, step),
                     variant=variant)
