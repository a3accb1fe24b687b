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
from factory.claims.context import ClaimContext
from factory.claims.model import ClaimSet
from factory.claims.probe import Probe
from factory.claims.routes import route_claims
from factory.claims.state import state_claims
from factory.claims.witness import SeedRows, WitnessSearch
from factory.manifest import read_manifest
from factory.spec.model import Spec

log = logging.getLogger(__name__)
CLAIMS_FILE = "claims.json"


def claims_text(claims: ClaimSet) -> str:
    """Canonical JSON of a claim set: the bytes its lock hash is taken over."""
    return json.dumps(claims.model_dump(mode="json"), indent=1, sort_keys=True) + "\n"


def claims_sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def compile_claims(world: Path) -> ClaimSet:
    """Every claim about a built world."""
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    manifest = read_manifest(world / "manifest.json")
    probe = Probe(world)
    workflows = [w for w in spec.workflows if not w.system]
    witnesses = WitnessSearch(spec, probe).search_all(workflows)
    rows = SeedRows(spec, probe.db)
    ctx = ClaimContext(spec, rows, witnesses)
    claims = route_claims(ctx) + state_claims(ctx) + behaviour_claims(ctx) + browser_claims(ctx)
    ids = [c.id for c in claims]
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, f"claim ids must be unique: {sorted(duplicates)}"
    log.info("compiled %d claims with %d probe tries", len(claims), probe.calls)
    return ClaimSet(world=spec.world, spec_sha256=manifest.spec_sha256, seed_db_sha256=manifest.seed_db_sha256,
                    claims=claims, unwitnessed=ctx.unwitnessed)


def write_claims(world: Path, claims: ClaimSet) -> str:
    """Write `claims.json` and its lock; return the lock hash."""
    text = claims_text(claims)
    (world / CLAIMS_FILE).write_text(text)
    return claims_sha256(text)



__all__ = ["CLAIMS_FILE", "claims_sha256", "claims_text", "compile_claims", "shadowed_by_bounds", "write_claims"]
