"""Boundary pairs that need calls in front: one setup call that changes the state a rule reads
("already locked" after a lock), or N calls that create the rows a rule counts (the 21st label).

These are the costly part of the witness search, so they run only for rules `WitnessSearch.boundaries`
left without a pair, and only from the first `SETUP_BASES` bases. Every try is answered by the
search's oracle, like the rest of the search.
"""

from __future__ import annotations

import re
from typing import Any

from factory.claims.oracle import Call, Outcome
from factory.claims.search import NUMBER, Pair, Witness, WitnessSearch
from factory.spec.model import Spec, WorkflowSpec

SETUP_BASES = 2  # bases tried with setup calls in front (the costly part of the search)
SETUP_TRIES = 200  # two-call tries per rule and base: a prove recompiles the claims, so this stays cheap
REPEAT_MAX = 120  # the most setup calls in front of one call: a count rule's limit is reached within this
COMPUTED_REPEATS = 6  # calls tried in front of a rule on a computed field whose limit no named row holds


def with_setups(search: WitnessSearch, wf: WorkflowSpec, witness: Witness, examples: dict[str, Call]) -> None:
    """Rules still without a pair, tried after one setup call that changes the state they read:
    the same call before (allowed) and after (refused) is the boundary "status just changed".

    Only workflows that set a field the rule reads (or create or delete rows of an entity it
    queries) are tried as setups, by the base's user and aimed at the rows the call names."""
    for check in wf.preconditions:
        if check.id in witness.pairs:
            continue
        relevant = [examples[name] for name in setters(search.spec, wf, check.source) if name in examples]
        for base in witness.bases[:SETUP_BASES]:
            # each setup workflow's likeliest calls first, taken in turn, so the budget reaches every one
            variants = _in_turn([_setup_variants(search, wf, example, base) for example in relevant])
            per_param: dict[str, int] = {}
            candidates = [base.params]
            for p, params in search.variations(wf, base):
                if p.type in ("reference", "enum", "bool") and per_param.get(p.name, 0) < 12:
                    per_param[p.name] = per_param.get(p.name, 0) + 1
                    candidates.append(params)
            if _first_pair(search, wf, witness, check.id, base.user, variants, candidates):
                break


def with_repeats(search: WitnessSearch, wf: WorkflowSpec, witness: Witness, examples: dict[str, Call]) -> None:
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
        found = [examples[name] for name in creators(search.spec, check.source, wf) if name in examples]
        for base in witness.bases[:SETUP_BASES]:
            limit = _repeat_limit(search, wf, base, check.source)
            if limit < 2 or not search.oracle.outcome([base]).ok:
                continue
            if any(_repeat_pair(search, wf, witness, check.id, base, _setup_variants(search, wf, example, base)[0], limit)
                   for example in found):
                break


def _repeat_pair(search: WitnessSearch, wf: WorkflowSpec, witness: Witness, rule: str, base: Call, setup: Call,
                 limit: int) -> bool:
    copies = [_copy(search.spec, setup, i) for i in range(1, limit + 1)]

    def run(n: int) -> Outcome:
        return search.oracle.outcome([*copies[:n], base])

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
    search.note_dominated(wf, witness, outcome)
    if not (outcome.status == 409 and outcome.setups_ok and outcome.precondition == rule):
        return False
    witness.pairs[rule] = Pair(rule, [*copies[:high - 1], base], [*copies[:high], base], None,
                               f"allowed after {high - 1} calls of {setup.workflow}, refused after {high}")
    return True


def _copy(spec: Spec, call: Call, index: int) -> Call:
    """The `index`-th copy of a setup call, its text values told apart by a number."""
    wf = next(w for w in spec.workflows if w.name == call.workflow)
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


def _repeat_limit(search: WitnessSearch, wf: WorkflowSpec, base: Call, source: str) -> int:
    """How many calls may be needed: one more than the largest number the rule or the rows it names hold."""
    numbers = [round(float(n)) for n in NUMBER.findall(source)]
    numbers += [v for v in search.row_values(wf, base, "int") if isinstance(v, int) and not isinstance(v, bool)]
    fitting = [n for n in numbers if 0 < n < REPEAT_MAX]
    if not fitting and with_computed(search.spec, wf, source) != source:
        # a computed count read from a row a lookup finds: its limit is on no row the call names
        return COMPUTED_REPEATS
    return max(fitting) + 1 if fitting else 0


def queried(source: str) -> set[str]:
    """The entities a rule's queries range over (`count(l in tag where ...)` → tag)."""
    return set(re.findall(r"\bin ([a-z_][a-z0-9_]*)", source))


def with_computed(spec: Spec, wf: WorkflowSpec, source: str) -> str:
    """A rule's source with the expressions of the computed fields it reads appended: a rule on
    `membership.loans_out` reads the loans that field counts."""
    params = {p.name: p.ref for p in wf.params if p.type == "reference" and p.ref}
    extra = []
    for obj, attr in re.findall(r"\b([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)", source):
        entity = next((e for e in spec.entities if e.name == params.get(obj)), None)
        field = entity.computed_named(attr) if entity is not None else None
        if field is not None and field.compute:
            extra.append(field.compute)
    return " ".join([source, *extra])


def creators(spec: Spec, source: str, wf: WorkflowSpec | None = None) -> list[str]:
    """Workflows that create rows of an entity the rule counts or queries (or a computed field it reads does)."""
    entities = queried(with_computed(spec, wf, source) if wf is not None else source)
    return [w.name for w in spec.workflows
            if not w.system and any(e.kind == "create" and e.entity in entities for e in w.effects)]


def setters(spec: Spec, wf: WorkflowSpec, source: str) -> list[str]:
    """Workflows whose effects change what a rule reads."""
    read: set[tuple[str, str]] = set()
    params = {p.name: p.ref for p in wf.params if p.type == "reference" and p.ref}
    for obj, attr in re.findall(r"\b([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)", source):
        if obj in params:
            read.add((params[obj] or "", attr))
    entities = queried(source)
    # rows a computed field the rule reads ranges over: any change to them may change its value
    computed = queried(with_computed(spec, wf, source)) - entities
    entities |= computed
    out = []
    for other in spec.workflows:
        if other.system:
            continue
        for eff in other.effects:
            if (eff.kind == "set" and ((eff.entity, eff.field or "") in read or eff.entity in computed)) or (
                    eff.kind != "set" and eff.entity in entities):
                out.append(other.name)
                break
    return out


def _in_turn(lists: list[list[Call]]) -> list[Call]:
    """The first of each list, then the second of each, and so on."""
    out: list[Call] = []
    for i in range(max((len(x) for x in lists), default=0)):
        out += [x[i] for x in lists if i < len(x)]
    return out


def _first_pair(search: WitnessSearch, wf: WorkflowSpec, witness: Witness, rule: str, user: int,
                variants: list[Call], candidates: list[dict[str, Any]]) -> bool:
    budget = SETUP_TRIES  # per rule and base: the search is bounded, and its reason says so
    for params in candidates:
        call = Call(wf.name, user, params)
        if not search.oracle.outcome([call]).ok:
            continue
        for setup in variants:
            budget -= 1
            if budget < 0:
                return False
            outcome = search.oracle.outcome([setup, call])
            search.note_dominated(wf, witness, outcome)
            if not outcome.setups_ok and outcome.error and setup is not variants[0]:
                witness.setup_refusals.setdefault(rule, []).append(f"{setup.workflow}: {outcome.error.split(': ', 1)[-1]}")
            if outcome.status == 409 and outcome.setups_ok and outcome.precondition == rule:
                witness.pairs[rule] = Pair(rule, [call], [setup, call], None,
                                           f"allowed before {setup.workflow}, refused after it")
                return True
    return False


def _setup_variants(search: WitnessSearch, wf: WorkflowSpec, example: Call, base: Call) -> list[Call]:
    """A setup call by the base's user aimed at the rows the call names (report *this* card
    lost), its other references at that user's first options, then with each amount one unit
    around the differences of the named rows' numbers (leave a balance one cent short)."""
    setup_wf = next(w for w in search.spec.workflows if w.name == example.workflow)
    named: dict[str, list[int]] = {}
    by_name: dict[tuple[str, str], int] = {}
    for p in wf.params:
        if p.type == "reference" and p.ref and base.params.get(p.name) is not None:
            named.setdefault(p.ref, []).append(base.params[p.name])
            by_name[(p.name, p.ref)] = base.params[p.name]
    params = dict(example.params)
    used: dict[str, int] = {}
    for p in setup_wf.params:
        if p.type != "reference" or not p.ref:
            continue
        if (p.name, p.ref) in by_name:  # the same role (pay *this* card from *that* account), not the first row named
            params[p.name] = by_name[(p.name, p.ref)]
        elif p.ref in named:  # otherwise the rows of that entity in the order the call names them
            rows = named[p.ref]
            params[p.name] = rows[min(used.get(p.ref, 0), len(rows) - 1)]
            used[p.ref] = used.get(p.ref, 0) + 1
        elif example.user != base.user:
            options = search.oracle.options(setup_wf, p.name, base.user)
            params[p.name] = options[0] if options else None
    aimed = Call(setup_wf.name, base.user, params)
    out = [aimed]
    for p in setup_wf.params:  # an optional field left empty: "a draft with no recipient"
        if not p.required and params.get(p.name) is not None:
            out.append(Call(setup_wf.name, base.user, {**params, p.name: None}))
        if p.type in ("string", "text") and params.get(p.name):
            out.append(Call(setup_wf.name, base.user, {**params, p.name: ""}))
    for p in setup_wf.params:
        if p.type in ("int", "money"):
            out += [Call(setup_wf.name, base.user, {**params, p.name: v}) for v in _amounts(search, wf, base)[:90]]
    return out


def _amounts(search: WitnessSearch, wf: WorkflowSpec, base: Call) -> list[int]:
    """Setup amounts, likeliest first: each named row's number whole (pay the card off), then the
    differences between them (leave a balance equal to a bill), then one unit either side of those.
    Reference ids are not amounts, so only the call's own numbers and the rows' are used."""
    own = {base.params.get(p.name) for p in wf.params if p.type in ("int", "money")}
    numbers = sorted({v for v in search.row_values(wf, base, "money") if isinstance(v, int)}
                     | {v for v in own if isinstance(v, int) and not isinstance(v, bool)})
    whole = [a for a in numbers if a > 0]
    differences = sorted({a - b for a in numbers for b in numbers if a - b > 0})
    near = sorted({v + d for v in [*whole, *differences] for d in (-1, 1) if v + d > 0})
    out: list[int] = []
    for v in [*whole, *differences, *near]:
        if v not in out:
            out.append(v)
    return out
