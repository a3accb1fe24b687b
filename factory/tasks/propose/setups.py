"""Feasibility and setups: whether a workflow run passes on the seed, and what runs first if not.

The effect interpreter (`effects.predict`) screens every run before a draft is emitted. A run
whose preconditions fail gets a setup (another workflow run first that makes them hold), and now
and then a write is pointed on purpose at a row that is not ready yet or not there yet, so
setup-gen has to build the state the task needs. A setup never renames rows: instructions are
phrased from the seed's labels.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from factory.expr.syntax import names_in, parse
from factory.predict.solve import descend, ladder, rule_weights
from factory.runtime.step import Step
from factory.spec.model import WorkflowSpec
from factory.tasks.language.asks import RefText
from factory.tasks.language.resolve import find_rows
from factory.tasks.propose.base import ProposerBase

MEND_TRIES = 12  # candidates tried per parameter when mending a run's rows
_DAYS_AHEAD = (7, 10, 14, 21, 30, 45, 60, 90, 120)  # dates the joint search tries


class SetupsMixin(ProposerBase):
    """Part of `Proposer`: feasibility screening and the setups that make a run feasible."""

    def _feasible(self, user: Any, step: Step, before: list[Step] | None = None) -> list[Step] | None:
        """[] when the step passes as is, setup steps that make it pass, or None."""
        before = before or []
        prediction = self._prediction(user, before + [step])
        if prediction is None:
            return None
        if not prediction.failed:
            return []
        if before:
            return None
        workflow = next(w for w in self.spec.workflows if w.name == step.workflow)
        subject = next((p for p in workflow.params if p.ref and p.name in step.params
                        and p.name == (workflow.subject or p.name)), None)
        if subject is None or subject.ref is None:  # `ref` is set (picked for it): said for mypy
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
            if self._passes(user, [fill, step]):
                return [fill]
        return None

    def _mended(self, user: Any, step: Step) -> Step:
        """The step with its rows re-chosen where a failing rule names them: a report sent "to your
        own manager" and "charged to your team's budget" is one right pair among many, which a
        random draw of each rarely hits; so is a stay still to review among one's bookings. One
        parameter at a time (in the workflow's order, the row acted on included), the first
        candidate that leaves fewer rules failing is kept; values that are not rows stay."""
        prediction = self._prediction(user, [step])
        if prediction is None or not prediction.failed:
            return step
        workflow = next(w for w in self.spec.workflows if w.name == step.workflow)
        # every rule's parameters, not only the failing ones': a flat whose route is complete is
        # swapped for one with none only if the port and the times it then needs can move too
        named = set().union(*(names_in(parse(c.source)) for c in workflow.preconditions))
        best, left = step, len(prediction.failed)
        for p in workflow.params:
            if not p.ref or p.name not in step.params or p.name not in named:
                continue
            pool = [i for i in self._candidates(user, workflow, p) if i != best.params[p.name]]
            for value in self.rng.sample(pool, min(len(pool), MEND_TRIES)):
                trial = Step(step.workflow, {**best.params, p.name: value})
                tried = self._prediction(user, [trial])
                if tried is not None and len(tried.failed) < left:
                    best, left = trial, len(tried.failed)
                    break
            if left == 0:
                break
        return best

    def _solved(self, user: Any, step: Step) -> Step:
        """The step with the rows and numbers its failing rules name re-chosen together, one at a
        time (`predict.solve.descend`): an offer within 10% of the rent and an income 30 times the
        offer hold only jointly, which `_mended`'s one-row swaps never reach. Unchanged when no
        choice makes every rule hold."""
        prediction = self._prediction(user, [step])
        if prediction is None or not prediction.failed:
            return step
        workflow = next(w for w in self.spec.workflows if w.name == step.workflow)
        # every rule's parameters, not only the failing ones': a flat whose route is complete is
        # swapped for one with none only if the port and the times it then needs can move too
        named = set().union(*(names_in(parse(c.source)) for c in workflow.preconditions))
        domains: dict[str, list[Any]] = {}
        for p in workflow.params:
            if p.name not in step.params or p.name not in named:
                continue
            if p.ref:
                pool = self._candidates(user, workflow, p)
                domains[p.name] = self.rng.sample(pool, min(len(pool), 3 * MEND_TRIES))
            elif p.type in ("money", "int"):
                domains[p.name] = ladder(p)
            elif p.type == "date" and not p.range_of and not p.range_end:  # days ahead, as a request gives them
                domains[p.name] = [(self.today + dt.timedelta(days=d)).isoformat() for d in _DAYS_AHEAD]
            elif p.type == "datetime" and not p.range_of and not p.range_end:  # a leg departing after pickup
                domains[p.name] = [f"{(self.today + dt.timedelta(days=d)).isoformat()}T{h:02d}:00:00"
                                   for d in _DAYS_AHEAD for h in (10, 16)]

        weights = rule_weights(workflow, set(domains))
        start = self._ahead(workflow, step.params)

        def failures(params: dict[str, Any]) -> float | None:
            found = self._prediction(user, [Step(step.workflow, params)])
            return None if found is None else sum(weights.get(m, 1.0) for m in found.failed)

        solved = descend(start, domains, failures)
        return step if solved is None else Step(step.workflow, solved)

    def _ahead(self, workflow: WorkflowSpec, params: dict[str, Any]) -> dict[str, Any]:
        """The call with its moments moved together, gaps kept, so the first is a week ahead: a leg
        copied from a past one ("departs May 2, arrives May 4") must move both to depart after
        pickup, and one at a time each move breaks the other rule ("the ETA after departure")."""
        moments = {p.name: params[p.name] for p in workflow.params
                   if p.type in ("date", "datetime") and isinstance(params.get(p.name), str)}
        if not moments:
            return params
        try:
            parsed = {k: dt.datetime.fromisoformat(v) for k, v in moments.items()}
        except ValueError:
            return params
        first = min(parsed.values())
        shift = dt.datetime.combine(self.today + dt.timedelta(days=7), first.time()) - first
        if shift <= dt.timedelta(0):
            return params
        moved = {k: (v + shift).isoformat() if "T" in moments[k] else (v + shift).date().isoformat()
                 for k, v in parsed.items()}
        return {**params, **moved}

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
            fill = self._mended(user, fill)
            made = self._prediction(user, [fill])
            if made is None:
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
            if not self._passes(user, [fill, trial]):
                continue
            step.params.update(trial.params)
            self._made[(ent.name, row["id"])] = row
            return [fill]
        return None
