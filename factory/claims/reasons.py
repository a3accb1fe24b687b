"""Why a rule has no boundary pair, in words a reviewer can check.

Run after the whole search (`WitnessSearch.boundaries`, then `factory.claims.setups`): a rule left
without a pair is dominated by an earlier rule, shadowed by visibility or by its parameter's own
validation, unreachable through the API, or simply not found within the search's bounds.
"""

from __future__ import annotations

import re

from factory.claims.search import Witness
from factory.claims.setups import REPEAT_MAX, creators, setters
from factory.spec.model import Spec, WorkflowSpec


def explain(spec: Spec, wf: WorkflowSpec, witness: Witness) -> None:
    """Why each rule without a pair has none, in words a reviewer can check."""
    for check in wf.preconditions:
        if check.id in witness.pairs:
            continue
        earlier = sorted(witness.dominated.get(check.id, set()))
        found_setters = setters(spec, wf, check.source)
        if earlier:
            witness.reasons[check.id] = (f"dominated: every call found that breaks `{check.source}` breaks "
                                         f"{', '.join(earlier)} first, which the app answers with")
        elif _shadowed_by_visibility(spec, wf, check.source):
            witness.reasons[check.id] = (f"shadowed by visibility: only another user's row breaks `{check.source}`, "
                                         "and the app answers 404 for a row the user cannot see before any check")
        elif not found_setters and _reads_scalar_param(wf, check.source):
            witness.reasons[check.id] = (f"shadowed: the values that break `{check.source}` (tried: empty, and one "
                                         "unit around every bound it names) are refused by the parameter's own "
                                         "validation first (422)")
        elif writers := _never_null(spec, wf, check.source):
            witness.reasons[check.id] = (f"unreachable through the API: every workflow that writes what `{check.source}` "
                                         f"reads ({', '.join(writers)}) sets it from a required reference or the "
                                         "acting user, so no call leaves it null, and none of the rows the searched "
                                         "users can name breaks it")
        elif refusal := _storage_refusal(spec, wf, check.source, witness.setup_refusals.get(check.id, [])):
            witness.reasons[check.id] = (f"unreachable through the API: the setup calls that would leave `{check.source}` "
                                         f"false are refused themselves ({refusal}), and none of the rows the searched "
                                         "users can name breaks it")
        elif not found_setters:
            witness.reasons[check.id] = (f"unreachable through the API: no workflow changes what `{check.source}` "
                                         "reads, and none of the rows the searched users can name breaks it")
        else:
            found_creators = creators(spec, check.source, wf)
            repeated = (f", or after up to {REPEAT_MAX} calls of {', '.join(found_creators)}"
                        if found_creators else "")
            witness.reasons[check.id] = (f"not found: no call breaks only `{check.source}`, alone or after a setup "
                                         f"call of {', '.join(found_setters)}{repeated}")


def _storage_refusal(spec: Spec, wf: WorkflowSpec, source: str, refusals: list[str]) -> str | None:
    """The first setup refusal that is about a field the rule reads ("Body is required")."""
    params = {p.name: p.ref for p in wf.params if p.type == "reference" and p.ref}
    words: set[str] = set()
    for obj, attr in re.findall(r"\b([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)", source):
        entity = params.get(obj)
        found = next((f for f in spec.entity(entity).fields if f.name == attr), None) if entity else None
        if found is not None:
            words |= {found.name.lower(), found.label.lower()}
    return next((r for r in refusals if any(re.search(rf"\b{re.escape(w)}\b", r.lower()) for w in words)), None)


_NOT_NULL = re.compile(r"\s*([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)\s*!=\s*null\s*")


def _never_null(spec: Spec, wf: WorkflowSpec, source: str) -> list[str]:
    """For `x.f != null`: the workflows writing `f` when every one of them (every create of the
    entity, every set of the field) takes it from a required reference parameter, `me`, or a field
    its own preconditions require to be non-null; else []."""
    match = _NOT_NULL.fullmatch(source)
    params = {p.name: p.ref for p in wf.params if p.type == "reference" and p.ref}
    if match is None or match[1] not in params:
        return []
    entity, field = params[match[1]], match[2]
    writers: list[str] = []
    for other in spec.workflows:
        required = {p.name for p in other.params if p.required and p.type == "reference"} | {"me"}
        required |= {f"{m[1]}.{m[2]}" for c in other.preconditions if (m := _NOT_NULL.fullmatch(c.source))}
        for eff in other.effects:
            if eff.entity != entity or eff.kind == "delete" or (eff.kind == "set" and eff.field != field):
                continue
            value = eff.to if eff.kind == "set" else (eff.values or {}).get(field)
            if value is None or value.strip() not in required:
                return []  # this writer can leave the field null (or its source is unknown)
            writers.append(other.name)
    return sorted(set(writers))


def _shadowed_by_visibility(spec: Spec, wf: WorkflowSpec, source: str) -> bool:
    """`x.owner == me` on an owned entity: a row that breaks it is one the user cannot load."""
    for p in wf.params:
        if p.type == "reference" and p.ref:
            e = spec.entity(p.ref)
            owned_by_me = (rf"\s*{p.name}\.{o}\s*==\s*me\s*|\s*me\s*==\s*{p.name}\.{o}\s*" for o in e.owner_fields)
            if e.visibility == "owner" and any(re.fullmatch(pattern, source) for pattern in owned_by_me):
                return True
    return False


def _reads_scalar_param(wf: WorkflowSpec, source: str) -> bool:
    """The rule reads a parameter's own value (not a row's field)."""
    names = {p.name for p in wf.params if p.type != "reference"}
    return any(re.search(rf"\b{n}\b(?!\.)", source) for n in names)
