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
from factory.spec.model import ParamSpec, Spec, WorkflowSpec

SAMPLES_PER_USER = 40
BASES = 4  # successful calls, of different users, that the boundary search varies
SETUP_BASES = 2  # bases tried with setup calls in front (the costly part of the search)
SETUP_TRIES = 200  # two-call tries per rule and base: a prove recompiles the claims, so this stays cheap
REPEAT_MAX = 120  # the most setup calls in front of one call: a count rule's limit is reached within this
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])")
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
                domains[p.name] = range_candidates(self.today)
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
        return witness

    # ---- boundaries -------------------------------------------------------------------------
    def _near(self, wf: WorkflowSpec, base: Call, p: ParamSpec) -> list[Any]:
        """Values one unit either side of every bound the rules and the named rows suggest."""
        sources = " ".join(c.source for c in wf.preconditions)
        numbers = [float(n) for n in _NUMBER.findall(sources)]
        out: list[Any] = []
        if p.type in ("int", "money"):
            marks: list[int] = []
            for n in numbers:
                marks += [round(n * 100), round(n)] if p.type == "money" else [round(n)]
            scale = 100 if p.type == "money" else 1
            marks += [round(b * scale) for b in (p.min, p.max) if b is not None]
            marks += [v for v in self._row_values(wf, base, p.type) if isinstance(v, int)]
            for m in marks:
                out += [m - 1, m, m + 1]
        elif p.type == "date":
            marks_d = [self.today] + [dt.date.fromisoformat(str(v)[:10]) for v in self._row_values(wf, base, "date")]
            marks_d += [self.today + dt.timedelta(days=sign * int(n)) for n in _DAYS.findall(sources) for sign in (1, -1)]
            for day in marks_d:
                out += [(day + dt.timedelta(days=d)).isoformat() for d in (-1, 0, 1)]
        elif p.type in ("string", "text", "email"):
            lengths = sorted({round(n) for n in numbers if n < 1000} | ({p.max_length} if p.max_length else set()))
            for n in lengths:
                for size in (n - 1, n, n + 1):
                    if size >= 0:
                        out.append(("a" * size) if p.type != "email" else ("a" * max(size - 12, 1)) + "@example.com")
            for v in self._row_values(wf, base, p.type):
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

    def _row_values(self, wf: WorkflowSpec, base: Call, kind: str) -> list[Any]:
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

    def _variations(self, wf: WorkflowSpec, base: Call) -> list[tuple[ParamSpec, dict[str, Any]]]:
        out: list[tuple[ParamSpec, dict[str, Any]]] = []
        for p in wf.params:
            if p.range_of is not None:
                continue
            if p.range_end is not None:
                for start, end in range_candidates(self.today)[:12] + [(self.today.isoformat(), self.today.isoformat())]:
                    out.append((p, {**base.params, p.name: start, p.range_end: end}))
                continue
            for value in self._near(wf, base, p):
                out.append((p, {**base.params, p.name: value}))
        return out

    def boundaries(self, wf: WorkflowSpec, witness: Witness) -> None:
        """A boundary pair for every precondition that has one, within the bases' reach."""
        wanted = [c.id for c in wf.preconditions]
        best: dict[str, tuple[float, Pair]] = {}
        for base in witness.bases:
            tried = [(p, params, self.oracle.outcome([Call(wf.name, base.user, params)]))
                     for p, params in self._variations(wf, base)]
            for _, _, outcome in tried:
                self._note_dominated(wf, witness, outcome)
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

    def with_setups(self, wf: WorkflowSpec, witness: Witness, examples: dict[str, Call]) -> None:
        """Rules still without a pair, tried after one setup call that changes the state they read:
        the same call before (allowed) and after (refused) is the boundary "status just changed".

        Only workflows that set a field the rule reads (or create or delete rows of an entity it
        queries) are tried as setups, by the base's user and aimed at the rows the call names."""
        for check in wf.preconditions:
            if check.id in witness.pairs:
                continue
            relevant = [examples[name] for name in self._setters(wf, check.source) if name in examples]
            for base in witness.bases[:SETUP_BASES]:
                variants = [v for example in relevant for v in self._setup_variants(wf, example, base)]
                per_param: dict[str, int] = {}
                candidates = [base.params]
                for p, params in self._variations(wf, base):
                    if p.type in ("reference", "enum", "bool") and per_param.get(p.name, 0) < 12:
                        per_param[p.name] = per_param.get(p.name, 0) + 1
                        candidates.append(params)
                if self._first_pair(wf, witness, check.id, base.user, variants, candidates):
                    break

    def with_repeats(self, wf: WorkflowSpec, witness: Witness, examples: dict[str, Call]) -> None:
        """Rules still without a pair that count rows (`count(l in tag where l.owner == me) < 20`),
        tried after N calls of a workflow that creates such rows: N - 1 calls in front are allowed,
        N refused, so the boundary is the limit itself (the 20th label allowed, the 21st refused).

        Each repeated call gets its own text values ("Taxes 2", "Taxes 3"...), since a rule that
        names must be unique would refuse the second copy first. The smallest N is found by halving
        up to the largest number the rule and the named rows give (at most REPEAT_MAX); a pair is
        kept only when the oracle confirms both sides."""
        for check in wf.preconditions:
            if check.id in witness.pairs:
                continue
            creators = [examples[name] for name in self._creators(check.source) if name in examples]
            for base in witness.bases[:SETUP_BASES]:
                limit = self._repeat_limit(wf, base, check.source)
                if limit < 2 or not self.oracle.outcome([base]).ok:
                    continue
                if any(self._repeat_pair(wf, witness, check.id, base, self._setup_variants(wf, example, base)[0], limit)
                       for example in creators):
                    break

    def _repeat_pair(self, wf: WorkflowSpec, witness: Witness, rule: str, base: Call, setup: Call, limit: int) -> bool:
        copies = [self._copy(setup, i) for i in range(1, limit + 1)]

        def run(n: int) -> Outcome:
            return self.oracle.outcome([*copies[:n], base])

        if run(limit).ok:
            return False  # the rule is not reached within the limit
        low, high = 0, limit  # run(low) is allowed, run(high) is not
        while high - low > 1:
            middle = (low + high) // 2
            if run(middle).ok:
                low = middle
            else:
                high = middle
        outcome = run(high)
        self._note_dominated(wf, witness, outcome)
        if not (outcome.status == 409 and outcome.setups_ok and outcome.precondition == rule):
            return False
        witness.pairs[rule] = Pair(rule, [*copies[:high - 1], base], [*copies[:high], base], None,
                                   f"allowed after {high - 1} calls of {setup.workflow}, refused after {high}")
        return True

    def _copy(self, call: Call, index: int) -> Call:
        """The `index`-th copy of a setup call, its text values told apart by a number."""
        wf = next(w for w in self.spec.workflows if w.name == call.workflow)
        params = dict(call.params)
        for p in wf.params:
            value = params.get(p.name)
            if not isinstance(value, str) or not value:
                continue
            if p.type == "email":
                params[p.name] = f"n{index}.{value}"
            elif p.type in ("string", "text"):
                suffix = f" {index}"
                keep = (p.max_length or len(value) + len(suffix)) - len(suffix)
                params[p.name] = value[:max(keep, 0)] + suffix
        return Call(call.workflow, call.user, params)

    def _repeat_limit(self, wf: WorkflowSpec, base: Call, source: str) -> int:
        """How many calls may be needed: one more than the largest number the rule or the rows it names hold."""
        numbers = [round(float(n)) for n in _NUMBER.findall(source)]
        numbers += [v for v in self._row_values(wf, base, "int") if isinstance(v, int) and not isinstance(v, bool)]
        fitting = [n for n in numbers if 0 < n < REPEAT_MAX]
        return max(fitting) + 1 if fitting else 0

    def _creators(self, source: str) -> list[str]:
        """Workflows that create rows of an entity the rule counts or queries."""
        queried = set(re.findall(r"\bin ([a-z_][a-z0-9_]*)", source))
        return [w.name for w in self.spec.workflows
                if not w.system and any(e.kind == "create" and e.entity in queried for e in w.effects)]

    def _first_pair(self, wf: WorkflowSpec, witness: Witness, rule: str, user: int, variants: list[Call],
                    candidates: list[dict[str, Any]]) -> bool:
        budget = SETUP_TRIES  # per rule and base: the search is bounded, and its reason says so
        for params in candidates:
            call = Call(wf.name, user, params)
            if not self.oracle.outcome([call]).ok:
                continue
            for setup in variants:
                budget -= 1
                if budget < 0:
                    return False
                outcome = self.oracle.outcome([setup, call])
                self._note_dominated(wf, witness, outcome)
                if not outcome.setups_ok and outcome.error and setup is not variants[0]:
                    witness.setup_refusals.setdefault(rule, []).append(f"{setup.workflow}: {outcome.error.split(': ', 1)[-1]}")
                if outcome.status == 409 and outcome.setups_ok and outcome.precondition == rule:
                    witness.pairs[rule] = Pair(rule, [call], [setup, call], None,
                                               f"allowed before {setup.workflow}, refused after it")
                    return True
        return False

    @staticmethod
    def _note_dominated(wf: WorkflowSpec, witness: Witness, outcome: Outcome) -> None:
        if outcome.status != 409 or outcome.prediction is None:
            return
        for check in wf.preconditions:
            if check.id != outcome.precondition and check.message in outcome.prediction.failed:
                witness.dominated.setdefault(check.id, set()).add(outcome.precondition or "")

    def explain(self, wf: WorkflowSpec, witness: Witness) -> None:
        """Why each rule without a pair has none, in words a reviewer can check."""
        for check in wf.preconditions:
            if check.id in witness.pairs:
                continue
            earlier = sorted(witness.dominated.get(check.id, set()))
            setters = self._setters(wf, check.source)
            if earlier:
                witness.reasons[check.id] = (f"dominated: every call found that breaks `{check.source}` breaks "
                                             f"{', '.join(earlier)} first, which the app answers with")
            elif self._shadowed_by_visibility(wf, check.source):
                witness.reasons[check.id] = (f"shadowed by visibility: only another user's row breaks `{check.source}`, "
                                             "and the app answers 404 for a row the user cannot see before any check")
            elif not setters and self._reads_scalar_param(wf, check.source):
                witness.reasons[check.id] = (f"shadowed: the values that break `{check.source}` (tried: empty, and one "
                                             "unit around every bound it names) are refused by the parameter's own "
                                             "validation first (422)")
            elif refusal := self._storage_refusal(wf, check.source, witness.setup_refusals.get(check.id, [])):
                witness.reasons[check.id] = (f"unreachable through the API: the setup calls that would leave `{check.source}` "
                                             f"false are refused themselves ({refusal}), and none of the rows the searched "
                                             "users can name breaks it")
            elif not setters:
                witness.reasons[check.id] = (f"unreachable through the API: no workflow changes what `{check.source}` "
                                             "reads, and none of the rows the searched users can name breaks it")
            else:
                creators = self._creators(check.source)
                repeated = f", or after up to {REPEAT_MAX} calls of {', '.join(creators)}" if creators else ""
                witness.reasons[check.id] = (f"not found: no call breaks only `{check.source}`, alone or after a setup "
                                             f"call of {', '.join(setters)}{repeated}")

    def _storage_refusal(self, wf: WorkflowSpec, source: str, refusals: list[str]) -> str | None:
        """The first setup refusal that is about a field the rule reads ("Body is required")."""
        params = {p.name: p.ref for p in wf.params if p.type == "reference" and p.ref}
        words: set[str] = set()
        for obj, attr in re.findall(r"\b([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)", source):
            entity = params.get(obj)
            found = next((f for f in self.spec.entity(entity).fields if f.name == attr), None) if entity else None
            if found is not None:
                words |= {found.name.lower(), found.label.lower()}
        return next((r for r in refusals if any(re.search(rf"\b{re.escape(w)}\b", r.lower()) for w in words)), None)

    def _shadowed_by_visibility(self, wf: WorkflowSpec, source: str) -> bool:
        """`x.owner == me` on an owned entity: a row that breaks it is one the user cannot load."""
        for p in wf.params:
            if p.type == "reference" and p.ref:
                e = self.spec.entity(p.ref)
                owned_by_me = (rf"\s*{p.name}\.{o}\s*==\s*me\s*|\s*me\s*==\s*{p.name}\.{o}\s*" for o in e.owner_fields)
                if e.visibility == "owner" and any(re.fullmatch(pattern, source) for pattern in owned_by_me):
                    return True
        return False

    @staticmethod
    def _reads_scalar_param(wf: WorkflowSpec, source: str) -> bool:
        """The rule reads a parameter's own value (not a row's field)."""
        names = {p.name for p in wf.params if p.type != "reference"}
        return any(re.search(rf"\b{n}\b(?!\.)", source) for n in names)

    def _setters(self, wf: WorkflowSpec, source: str) -> list[str]:
        """Workflows whose effects change what a rule reads."""
        read: set[tuple[str, str]] = set()
        params = {p.name: p.ref for p in wf.params if p.type == "reference" and p.ref}
        for obj, attr in re.findall(r"\b([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)", source):
            if obj in params:
                read.add((params[obj] or "", attr))
        queried = set(re.findall(r"\bin ([a-z_][a-z0-9_]*)", source))
        out = []
        for other in self.spec.workflows:
            if other.system:
                continue
            for eff in other.effects:
                if (eff.kind == "set" and (eff.entity, eff.field or "") in read) or (
                        eff.kind != "set" and eff.entity in queried):
                    out.append(other.name)
                    break
        return out

    def _setup_variants(self, wf: WorkflowSpec, example: Call, base: Call) -> list[Call]:
        """A setup call by the base's user aimed at the rows the call names (report *this* card
        lost), its other references at that user's first options, then with each amount one unit
        around the differences of the named rows' numbers (leave a balance one cent short)."""
        setup_wf = next(w for w in self.spec.workflows if w.name == example.workflow)
        named: dict[str, list[int]] = {}
        for p in wf.params:
            if p.type == "reference" and p.ref and base.params.get(p.name) is not None:
                named.setdefault(p.ref, []).append(base.params[p.name])
        params = dict(example.params)
        for p in setup_wf.params:
            if p.type != "reference" or not p.ref:
                continue
            if p.ref in named:
                params[p.name] = named[p.ref][0]
            elif example.user != base.user:
                options = self.oracle.options(setup_wf, p.name, base.user)
                params[p.name] = options[0] if options else None
        aimed = Call(setup_wf.name, base.user, params)
        out = [aimed]
        for p in setup_wf.params:  # an optional field left empty: "a draft with no recipient"
            if not p.required and params.get(p.name) is not None:
                out.append(Call(setup_wf.name, base.user, {**params, p.name: None}))
            if p.type in ("string", "text") and params.get(p.name):
                out.append(Call(setup_wf.name, base.user, {**params, p.name: ""}))
        numbers = sorted({v for v in self._row_values(wf, base, "money") if isinstance(v, int)}
                         | {v for v in base.params.values() if isinstance(v, int) and not isinstance(v, bool)})
        amounts = sorted({a - b + d for a in numbers for b in [*numbers, 0] if a - b > 0 for d in (-1, 0, 1)})
        for p in setup_wf.params:
            if p.type in ("int", "money"):
                out += [Call(setup_wf.name, base.user, {**params, p.name: v}) for v in amounts[:90]]
        return out
