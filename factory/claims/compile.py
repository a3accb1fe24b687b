"""Claims compiler: spec + seed database → `claims.json` (routes, state, behaviour, UI).

Deterministic: claims come out in a fixed order with stable ids, and witnesses are found by a
seeded search, so compiling the same world twice gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from factory.claims.behaviour import behaviour_claims, shadowed_by_bounds
from factory.claims.browser import browser_claims
from factory.claims.computed import computed_claims, currency_claims
from factory.claims.context import ClaimContext
from factory.claims.data import data_claims
from factory.claims.lookups import lookup_claims
from factory.claims.model import ClaimSet
from factory.claims.oracle import Call, Oracle
from factory.claims.ownership import ownership_claims
from factory.claims.planting import Plantings
from factory.claims.reasons import explain
from factory.claims.roles import role_claims
from factory.claims.routes import route_claims
from factory.claims.search import Witness, WitnessSearch
from factory.claims.setups import with_repeats, with_setups
from factory.claims.state import state_claims
from factory.claims.validation import validation_claims
from factory.claims.witness import SeedRows
from factory.spec.model import Spec
from factory.world.assemble import spec_json, text_sha256
from factory.world.layout import CLAIMS, World
from factory.world.manifest import sha256_file

log = logging.getLogger(__name__)


def claims_text(claims: ClaimSet) -> str:
    """Canonical JSON of a claim set: the bytes its lock hash is taken over."""
    return json.dumps(claims.model_dump(mode="json"), indent=1, sort_keys=True) + "\n"


def claims_sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def compile_claims(world: Path, spec: Spec | None = None, db: Path | None = None) -> ClaimSet:
    """Every claim about a world: a deterministic function of its spec and its seed database.

    Nothing here runs the world's app, so compiling again from the same spec and database gives the
    same bytes; `prove` does exactly that to check the lock (see `factory.claims.lock`)."""
    spec = spec or World(world).spec
    db = db or World(world).seed_db
    oracle = Oracle(spec, db)
    plantings = Plantings(spec, oracle)
    try:
        witnesses = find_witnesses(spec, oracle, plantings)
        rows = SeedRows(spec, db)
        ctx = ClaimContext(spec, rows, witnesses, oracle)
        claims = (route_claims(ctx) + ownership_claims(ctx) + role_claims(ctx) + state_claims(ctx) + data_claims(ctx)
                  + computed_claims(ctx) + currency_claims(ctx) + behaviour_claims(ctx) + lookup_claims(ctx)
                  + validation_claims(ctx) + browser_claims(ctx))
    finally:
        plantings.close()
        oracle.close()
    ids = [c.id for c in claims]
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, f"claim ids must be unique: {sorted(duplicates)}"
    log.info("compiled %d claims with %d oracle tries", len(claims), oracle.tries)
    # the hashes of what the claims were compiled from, computed here: a manifest is never trusted
    return ClaimSet(world=spec.world, spec_sha256=text_sha256(spec_json(spec)), seed_db_sha256=sha256_file(db),
                    claims=claims, unwitnessed=ctx.unwitnessed)


def find_witnesses(spec: Spec, oracle: Oracle, plantings: Plantings | None = None) -> dict[str, Witness]:
    """A witness per user-facing workflow, each precondition at its boundary where one is found;
    with `plantings`, a workflow the seed data gives no call for is witnessed on planted rows."""
    search = WitnessSearch(spec, oracle)
    workflows = [w for w in spec.workflows if not w.system]
    witnesses = {wf.name: search.search(wf) for wf in workflows}
    for wf in workflows:
        planted = plantings.witness(wf) if plantings is not None and witnesses[wf.name].params is None else None
        if planted is not None:
            witnesses[wf.name] = planted  # its boundaries and branches were searched on the planted copy
            continue
        search.boundaries(wf, witnesses[wf.name])
        search.branches(wf, witnesses[wf.name])
    # setup calls start from each workflow's own witness (re-aimed at the rows a rule reads); a
    # planted witness's calls hold only on its planted copy, so none start from it
    examples = {name: Call(name, w.user, w.params) for name, w in witnesses.items()
                if w.user is not None and w.params is not None and not w.plant}
    for wf in workflows:
        if witnesses[wf.name].plant:
            explain(spec, wf, witnesses[wf.name])
            continue
        with_setups(search, wf, witnesses[wf.name], examples)
        with_repeats(search, wf, witnesses[wf.name], examples)
        explain(spec, wf, witnesses[wf.name])
    return witnesses


def write_claims(world: Path, claims: ClaimSet) -> str:
    """Write `claims.json` and its lock; return the lock hash."""
    text = claims_text(claims)
    (world / CLAIMS).write_text(text)
    return claims_sha256(text)



__all__ = ["claims_sha256", "claims_text", "compile_claims", "shadowed_by_bounds", "write_claims"]
