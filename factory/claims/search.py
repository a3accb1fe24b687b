"""Witnesses from the spec alone: a call that completes each workflow, and each rule at its boundary.

Every try is answered by the `Oracle` (the expression interpreter over the seed database), never by
the app, so the witnesses (and the claims made from them) are a deterministic function of the spec
and the seed database.

For each precondition the search looks for a *pair*: the last call allowed and the first refused,
differing in one parameter by one unit where the parameter is ordered (a cent, a day, a character),
or, where the rule is about a row's state ("already locked"), the same call before and after a setup
call that changes that state ("status just changed"). Candidate values come from the rule itself
(its literals, `days(N)`, the lengths it compares), from the rows the call names (a balance, a due
date, a current name), and from the parameter's declared bounds, each one unit either side.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field
from typing import Any

from factory.claims.oracle import Call, Oracle, Outcome
from factory.claims.witness import range_candidates, scalar_candidates
from factory.expr.syntax import names_in, parse
from factory.predict.derived import LOOKUP_CODE
from factory.predict.solve import descend, ladder, rule_weights
from factory.spec.model import ParamSpec, Spec, WorkflowSpec

SAMPLES_PER_USER = 40
JOINT_ROWS = 40  # rows per parameter the joint search tries, per user
BASES = 4  # successful calls, of different users, that the boundary search varies
NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])")
_DAYS = re.compile(r"days\((\d+)\)")


@dataclass
class Pair:
    """A rule at its boundary: calls (setups, then the call) allowed and refused."""

    rule: str
    allowed: list[Call]
    refused: list[Call]
    param: str | None
    note: str


@dataclass
class Witness:
    """A workflow's successful call, its other bases, and a boundary pair per precondition."""

    workflow: str
    user: int | None = None
    params: dict[str, Any] | None = None
    outcome: Outcome | None = None
    bases: list[Call] = field(default_factory=list)
    pairs: dict[str, Pair] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    # rule → earlier rules seen refusing calls that break it too (the app answers with the first)
    dominated: dict[str, set[str]] = field(default_factory=dict)
    # rule → why setup calls that would break it were refused themselves (the app's own storage rules)
    setup_refusals: dict[str, list[str]] = field(default_factory=dict)
    # "effect<N>:when:true" / "effect<N>:when:false" / "effect<N>:rows" → a successful call on which a
    # conditional effect's `when` holds / does not hold, or a bulk effect selects two rows or more
    branches: dict[str, Call] = field(default_factory=dict)
    # a call refused because a row lookup found nothing, with the message it answers (409)
    lookup_refused: tuple[Call, str] | None = None
    # a witness the seed data cannot give: SQL that plants the rows it acts on, and the oracle of the
    # planted copy that predicts its effects (`factory.claims.planting`)
    plant: list[str] = field(default_factory=list)
    oracle: Oracle | None = None


# Steps above a number a named row holds, tried in order (whole numbers; amounts in cents).
_INT_STEPS = (0, 1, 5, 12, 40, 120, 350, 1000)
NEAR_USERS, NEAR_SAMPLES, NEAR_MARKS = 6, 4, 10
_MONEY_STEPS = (0, 100, 500, 1000, 5000, 25000, 100000, 500000)


def _distance(p: ParamSpec, a: Any, b: Any) -> float:
    """How far apart two values of a parameter are, in its own unit (1 = adjacent)."""
    if a is None or b is None:
        return 1.0
    if p.type in ("int", "money"):
        return float(abs(a - b))
    if p.type == "date":
        return float(abs((dt.date.fromisoformat(a) - dt.date.fromisoformat(b)).days))
    if p.type in ("string", "text", "email") and isinstance(a, str) and isinstance(b, str):
        return float(abs(len(a) - len(b))) or 0.5
    return 1.0


class WitnessSearch:
    """Searches witnesses and boundary pairs for every user-facing workflow of a spec."""

    def __init__(self, spec: Spec, oracle: Oracle) -> None:
        self.spec, self.oracle = spec, oracle
        self.today = dt.date.fromisoformat(spec.today)

    # ---- successful calls -------------------------------------------------------------------
    def _domains(self, wf: WorkflowSpec, user: int) -> dict[str, list[Any]] | None:
        domains: dict[str, list[Any]] = {}
        for p in wf.params:
            if p.range_of is not None:
                continue
            if p.range_end is not None:
                domains[p.name] = range_candidates(self.today, p.type)
            elif p.type == "reference":
                ids = self.oracle.options(wf, p.name, user)
                if not ids and p.required:
                    return None
                domains[p.name] = ids + ([None] if not p.required else [])
            else:
                domains[p.name] = scalar_candidates(p, self.today)
                if p.type == "date":
                    domains[p.name] += [d for d in self._rule_dates(wf) if d not in domains[p.name]]
        return domains

    def _rule_dates(self, wf: WorkflowSpec) -> list[str]:
        offsets: list[int] = []
        for check in wf.preconditions:
            for n in map(int, _DAYS.findall(check.source)):
                offsets += [-n - 1, -n, -n + 1, n - 1, n, n + 1]
        offsets += [-365 * years for years in (1, 10, 30, 60)]
        return [(self.today + dt.timedelta(days=o)).isoformat() for o in offsets]

    @staticmethod
    def _params(wf: WorkflowSpec, choice: dict[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {}
        for p in wf.params:
            if p.range_of is not None:
                continue
            value = choice[p.name]
            if p.range_end is not None:
                params[p.name], params[p.range_end] = value
            else:
                params[p.name] = value
        return params

    def _samples(self, wf: WorkflowSpec, domains: dict[str, list[Any]], rng: random.Random) -> list[dict[str, Any]]:
        names = sorted(domains)
        first = {n: domains[n][0] for n in names}
        samples = [first] + [{n: rng.choice(domains[n]) for n in names} for _ in range(SAMPLES_PER_USER - 1)]
        for n in names:  # every value of one parameter with the others at their first choice
            samples += [{**first, n: value} for value in domains[n][1:12]]
        seen: list[dict[str, Any]] = []
        for s in samples:
            params = self._params(wf, s)
            if params not in seen:
                seen.append(params)
        return seen

    def _complete(self, wf: WorkflowSpec, outcome: Outcome) -> bool:
        """Every table the workflow sets really changes (a set to the value already held shows nothing)."""
        wanted = {self.spec.entity(e.entity).table for e in wf.effects if e.kind == "set"}
        if not wanted or outcome.prediction is None:
            return True
        changed = {r.table for r in self.oracle.expected(outcome.prediction).updated}
        return wanted <= changed

    def search(self, wf: WorkflowSpec) -> Witness:
        witness = Witness(workflow=wf.name)
        for user in [u.id for u in self.spec.users]:
            if witness.params is not None and (len(witness.bases) >= BASES or not wf.preconditions):
                break
            domains = self._domains(wf, user)
            if domains is None:
                continue
            rng = random.Random(f"{self.spec.random_seed}:{wf.name}:{user}")
            found_for_user = False
            for params in self._samples(wf, domains, rng):
                outcome = self.oracle.outcome([Call(wf.name, user, params)])
                if not outcome.ok:
                    continue
                if not found_for_user:
                    witness.bases.append(Call(wf.name, user, params))
                    found_for_user = True
                complete = self._complete(wf, outcome)
                if witness.params is None or (complete and not self._complete(wf, witness.outcome or outcome)):
                    witness.user, witness.params, witness.outcome = user, params, outcome
                if complete and witness.user == user:
                    break
        if witness.params is None:
            self._near_rows(wf, witness)
        if witness.params is None:
            self._jointly(wf, witness)
        return witness

    def _jointly(self, wf: WorkflowSpec, witness: Witness) -> None:
        """Rules that hold only together (a flat the user viewed, an offer within 10% of its rent,
        an income 30 times the offer): the rows and numbers they name are re-chosen one at a time
        (`predict.solve.descend`), for each user in turn, until every rule holds."""
        named = set().union(*(names_in(parse(c.source)) for c in wf.preconditions))
        for user in [u.id for u in self.spec.users]:
            domains = self._domains(wf, user)
            if domains is None:
                continue
            start = self._params(wf, {n: values[0] for n, values in domains.items()})
            search = {p.name: (ladder(p) if p.type in ("int", "money") else domains[p.name][:JOINT_ROWS])
                      for p in wf.params if p.name in named and p.name in domains and p.range_end is None}

            weights = rule_weights(wf, set(search))

            def failures(params: dict[str, Any], user: int = user, weights: dict[str, float] = weights) -> float | None:
                outcome = self.oracle.outcome([Call(wf.name, user, params)])
                if outcome.ok:
                    return 0
                if outcome.prediction is None or not outcome.prediction.failed:
                    return None
                return sum(weights.get(m, 1.0) for m in outcome.prediction.failed)

            found = descend(start, search, failures)
            if found is not None:
                call = Call(wf.name, user, found)
                outcome = self.oracle.outcome([call])
                witness.bases.append(call)
                witness.user, witness.params, witness.outcome = user, found, outcome
                return

    # A whole number or an amount compared with a row's ("the odometer reads at least what it read
    # at pick-up") lies near that row's value, far from the fixed candidates: a second pass tries
    # values around the numbers the named rows hold.
    def _near_rows(self, wf: WorkflowSpec, witness: Witness) -> None:
        numeric = [p for p in wf.params if p.type in ("int", "money") and p.range_of is None]
        timed = [p for p in wf.params if p.type == "datetime" and p.range_of is None and p.range_end is None]
        if timed and self._near_moments(wf, witness, timed):
            return
        if not numeric:
            return
        for user in [u.id for u in self.spec.users][:NEAR_USERS]:  # bounded: a workflow nothing completes
            domains = self._domains(wf, user)                      # must not cost minutes
            if domains is None:
                continue
            rng = random.Random(f"{self.spec.random_seed}:{wf.name}:{user}:near")
            for params in self._samples(wf, domains, rng)[:NEAR_SAMPLES]:
                base = Call(wf.name, user, params)
                marks = sorted({v for p in numeric for v in self.row_values(wf, base, p.type) if isinstance(v, int)})
                for mark in marks[:NEAR_MARKS]:
                    for ints, cents in zip(_INT_STEPS, _MONEY_STEPS, strict=True):
                        trial = {**params}
                        for p in numeric:
                            value = mark + (ints if p.type == "int" else cents)
                            lo = None if p.min is None else round(p.min * (100 if p.type == "money" else 1))
                            hi = None if p.max is None else round(p.max * (100 if p.type == "money" else 1))
                            if (lo is None or value >= lo) and (hi is None or value <= hi):
                                trial[p.name] = value
                        outcome = self.oracle.outcome([Call(wf.name, user, trial)])
                        if outcome.ok:
                            witness.user, witness.params, witness.outcome = user, trial, outcome
                            witness.bases.append(Call(wf.name, user, trial))
                            return

    def _near_moments(self, wf: WorkflowSpec, witness: Witness, timed: list[ParamSpec]) -> bool:
        """Moments a rule compares with a row's ("the leg departs after pickup", "the ETA after the
        departure"): each datetime parameter a little after a moment the named rows hold, in the
        parameters' order (the second later than the first)."""
        for user in [u.id for u in self.spec.users][:NEAR_USERS]:
            domains = self._domains(wf, user)
            if domains is None:
                continue
            rng = random.Random(f"{self.spec.random_seed}:{wf.name}:{user}:moments")
            for params in self._samples(wf, domains, rng)[:NEAR_SAMPLES]:
                base = Call(wf.name, user, params)
                marks = sorted({str(v)[:19] for v in self.row_values(wf, base, "datetime") if isinstance(v, str)})
                for mark in [m for m in marks if len(m) >= 16][:NEAR_MARKS]:
                    start = dt.datetime.fromisoformat(mark)
                    for days in (0, 1, 2, 7):
                        trial = {**params, **{p.name: (start + dt.timedelta(days=days + i, hours=1)).isoformat()
                                              for i, p in enumerate(timed)}}
                        outcome = self.oracle.outcome([Call(wf.name, user, trial)])
                        if outcome.ok:
                            witness.user, witness.params, witness.outcome = user, trial, outcome
                            witness.bases.append(Call(wf.name, user, trial))
                            return True
        return False

    # ---- conditional and bulk effects -----------------------------------------------------------
    @staticmethod
    def branch_keys(wf: WorkflowSpec) -> list[str]:
        """What the claims want witnessed of a workflow's conditional and bulk effects, in effect order."""
        keys: list[str] = []
        for number, effect in enumerate(wf.effects, 1):
            if effect.when is not None:
                keys += [f"effect{number}:when:true", f"effect{number}:when:false"]
            if effect.for_each is not None:
                keys.append(f"effect{number}:rows")
        return keys

    def branches(self, wf: WorkflowSpec, witness: Witness) -> None:
        """Successful calls that take each side of every `when`, and reach two rows or more of every
        `for_each` (so a loop cut to its first row shows), read from the interpreter's trace."""
        wanted = self.branch_keys(wf)
        if not wanted:
            return
        tried = [Call(wf.name, witness.user, witness.params)] if witness.user is not None and witness.params else []
        for user in [u.id for u in self.spec.users]:
            if set(wanted) <= set(witness.branches):
                break
            domains = self._domains(wf, user)
            if domains is None:
                continue
            rng = random.Random(f"{self.spec.random_seed}:{wf.name}:{user}:branches")
            for call in tried + [Call(wf.name, user, params) for params in self._samples(wf, domains, rng)]:
                outcome = self.oracle.outcome([call])
                if outcome.ok and outcome.prediction is not None:
                    for _, effect, what in outcome.prediction.trace:
                        key = f"effect{effect + 1}:{what}"
                        if what.startswith("rows:"):
                            key = f"effect{effect + 1}:rows" if int(what[5:]) >= 2 else ""
                        if key in wanted and key not in witness.branches:
                            witness.branches[key] = call
                if set(wanted) <= set(witness.branches):
                    break
            tried = []
        for key in wanted:
            if key not in witness.branches:
                witness.reasons[key] = ("no successful call selects two rows or more" if key.endswith(":rows") else
                                        f"no successful call on the seed data where the condition is {key.rsplit(':', 1)[1]}")

    # ---- boundaries -------------------------------------------------------------------------
    def _near(self, wf: WorkflowSpec, base: Call, p: ParamSpec) -> list[Any]:
        """Values one unit either side of every bound the rules and the named rows suggest."""
        sources = " ".join(c.source for c in wf.preconditions)
        numbers = [float(n) for n in NUMBER.findall(sources)]
        out: list[Any] = []
        if p.type in ("int", "money"):
            marks: list[int] = []
            for n in numbers:
                marks += [round(n * 100), round(n)] if p.type == "money" else [round(n)]
            scale = 100 if p.type == "money" else 1
            marks += [round(b * scale) for b in (p.min, p.max) if b is not None]
            marks += [v for v in self.row_values(wf, base, p.type) if isinstance(v, int)]
            for m in marks:
                out += [m - 1, m, m + 1]
        elif p.type == "date":
            marks_d = [self.today] + [dt.date.fromisoformat(str(v)[:10]) for v in self.row_values(wf, base, "date")]
            marks_d += [self.today + dt.timedelta(days=sign * int(n)) for n in _DAYS.findall(sources) for sign in (1, -1)]
            for day in marks_d:
                out += [(day + dt.timedelta(days=d)).isoformat() for d in (-1, 0, 1)]
        elif p.type in ("string", "text", "email"):
            lengths = sorted({round(n) for n in numbers if n < 1000} | ({p.max_length} if p.max_length else set()))
            for n in lengths:
                for size in (n - 1, n, n + 1):
                    if size >= 0:
                        out.append(("a" * size) if p.type != "email" else ("a" * max(size - 12, 1)) + "@example.com")
            for v in self.row_values(wf, base, p.type):
                if isinstance(v, str):
                    out += [v, v.upper(), v.lower()]
            out.append("")
        elif p.type == "reference" and p.ref:
            out += self.oracle.options(wf, p.name, base.user) + self.oracle.visible_ids(p.ref, base.user)[:200]
        elif p.type == "enum":
            out += list(p.values or [])
        elif p.type == "bool":
            out += [True, False]
        if not p.required:
            out.append(None)
        unique: list[Any] = []
        for v in out:
            if v not in unique and v != base.params.get(p.name):
                unique.append(v)
        return unique

    def row_values(self, wf: WorkflowSpec, base: Call, kind: str) -> list[Any]:
        """Values of that type in the rows the call names (and the rows those rows name)."""
        out: list[Any] = []
        for ref in wf.params:
            if ref.type != "reference" or ref.ref is None or base.params.get(ref.name) is None:
                continue
            entity = self.spec.entity(ref.ref)
            row = self.oracle.row(ref.ref, base.params[ref.name])
            for f in entity.fields:
                value = row.get(f.column)
                if value is None:
                    continue
                if f.type == kind or (kind in ("int", "money") and f.type in ("int", "money")):
                    out.append(value)
                elif f.type == "reference" and f.ref and kind in ("int", "money", "date"):
                    sub = self.oracle.row(f.ref, value)
                    out += [sub[g.column] for g in self.spec.entity(f.ref).fields
                            if sub.get(g.column) is not None
                            and (g.type == kind or (kind in ("int", "money") and g.type in ("int", "money")))]
        return out

    def variations(self, wf: WorkflowSpec, base: Call) -> list[tuple[ParamSpec, dict[str, Any]]]:
        out: list[tuple[ParamSpec, dict[str, Any]]] = []
        for p in wf.params:
            if p.range_of is not None:
                continue
            if p.range_end is not None:
                for start, end in range_candidates(self.today, p.type)[:12] + self._ranges_around_today(p.type):
                    out.append((p, {**base.params, p.name: start, p.range_end: end}))
                continue
            for value in self._near(wf, base, p):
                out.append((p, {**base.params, p.name: value}))
        return out

    def _ranges_around_today(self, kind: str = "date") -> list[tuple[str, str]]:
        """Periods one day either side of today at each end: a period that must have ended (ends
        today vs tomorrow) or must not have begun (starts tomorrow vs today)."""
        day = dt.timedelta(days=1)
        clock = "T10:00:00" if kind == "datetime" else ""
        return [(a.isoformat() + clock, b.isoformat() + clock) for a, b in (
            (self.today, self.today), (self.today - 7 * day, self.today), (self.today - 7 * day, self.today + day),
            (self.today + day, self.today + 7 * day), (self.today - day, self.today))]

    def boundaries(self, wf: WorkflowSpec, witness: Witness) -> None:
        """A boundary pair for every precondition that has one, within the bases' reach."""
        wanted = [c.id for c in wf.preconditions]
        best: dict[str, tuple[float, Pair]] = {}
        for base in witness.bases:
            tried = [(p, params, self.oracle.outcome([Call(wf.name, base.user, params)]))
                     for p, params in self.variations(wf, base)]
            for _, params, outcome in tried:
                self.note_dominated(wf, witness, outcome)
                if (witness.lookup_refused is None and outcome.status == 409 and outcome.setups_ok
                        and outcome.precondition == LOOKUP_CODE):
                    witness.lookup_refused = (Call(wf.name, base.user, params), outcome.message)
            for p, allowed, refused in self._pairs(base, tried):
                rule = refused[1].precondition or ""
                d = _distance(p, allowed[p.name], refused[0][p.name])
                if rule in wanted and (rule not in best or d < best[rule][0]):
                    note = f"{p.name}: {allowed[p.name]!r} allowed, {refused[0][p.name]!r} refused"
                    best[rule] = (d, Pair(rule, [Call(wf.name, base.user, allowed)],
                                          [Call(wf.name, base.user, refused[0])], p.name, note))
        for rule, (_, pair) in best.items():
            witness.pairs[rule] = pair

    @staticmethod
    def _pairs(base: Call, tried: list[tuple[ParamSpec, dict[str, Any], Outcome]]
               ) -> list[tuple[ParamSpec, dict[str, Any], tuple[dict[str, Any], Outcome]]]:
        """(parameter, allowed call, (refused call, its outcome)), closest first per parameter."""
        by_param: dict[str, tuple[ParamSpec, list[dict[str, Any]], list[tuple[dict[str, Any], Outcome]]]] = {}
        for p, params, outcome in tried:
            entry = by_param.setdefault(p.name, (p, [base.params], []))
            if outcome.ok:
                entry[1].append(params)
            elif outcome.status == 409 and outcome.setups_ok:
                entry[2].append((params, outcome))
        out = []
        for p, allowed, refused in by_param.values():
            for r in refused:
                closest = min(allowed, key=lambda a: _distance(p, a[p.name], r[0][p.name]))
                out.append((p, closest, r))
        return out

    @staticmethod
    def note_dominated(wf: WorkflowSpec, witness: Witness, outcome: Outcome) -> None:
        """Record the other rules a refused call breaks too: the app answered with an earlier one."""
        if outcome.status != 409 or outcome.prediction is None:
            return
        for check in wf.preconditions:
            if check.id != outcome.precondition and check.message in outcome.prediction.failed:
                witness.dominated.setdefault(check.id, set()).add(outcome.precondition or "")
