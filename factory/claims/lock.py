"""The lock on a world's claims, kept outside the world: what the seed says, derived again.

A hash stored beside what it locks proves nothing (an edited `claims.json` plus the new hash in
`manifest.json` would pass). Claims are a deterministic function of the spec and the seed
database, and both are deterministic functions of `seed.yaml` and the factory, so the lock is
re-derivation: `prove` builds the spec from the seed again, seeds a fresh database with a freshly
rendered backend, compiles the claims from those two, and compares the bytes with `claims.json`.
Nothing the world directory holds is trusted: not the manifest's hashes, not `spec.json`, not
`data/seed.db` (their drift is reported, and the claims then show what it breaks).

The regenerated database is cached under the user's cache directory (never inside the world), by
the hash of the spec text and of the backend templates that seed it: the same world and the same
factory give the same bytes, so a cache hit is exact. The compiled claims are cached the same way,
by the spec's and database's hashes and the factory's own source.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from factory.claims.compile import claims_sha256, claims_text, compile_claims
from factory.claims.model import ClaimSet
from factory.errors import ClaimsTampered, WorldError
from factory.spec.model import Spec
from factory.world.layout import CLAIMS, World
from factory.world.manifest import sha256_file

__all__ = ["ClaimsTampered", "LockResult", "Truth", "check_lock", "derive_truth", "restore_claims"]
log = logging.getLogger(__name__)
TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "backend"


@dataclass
class Truth:
    """The spec and seed database as the world's seed gives them today."""

    spec: Spec
    spec_text: str
    spec_sha256: str
    db: Path
    db_sha256: str


@dataclass
class LockResult:
    """The recompiled claims, their hash, and where the world's files drifted from the truth."""

    claims: ClaimSet
    text: str
    digest: str
    drift: list[str] = field(default_factory=list)


def _cache_dir(kind: str = "truth") -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "world-factory" / kind


def _factory_sha256() -> str:
    """Every source file of the factory: a compiled claim set is reused only by the same factory."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _compiled(world: Path, truth: Truth) -> tuple[ClaimSet, str]:
    """The claims the truth compiles to, cached by what they are a function of.

    Compiling searches witnesses with thousands of interpreter runs (a minute and more for a world
    of thousands of rows), and a mutation run or a repair checks the lock once per fault. The key is
    the spec's hash, the database's hash and the factory's own source, so a hit is exactly what a
    compile would give; the cache sits beside the truth database, never inside the world."""
    key = hashlib.sha256(f"{truth.spec_sha256}:{truth.db_sha256}:{_factory_sha256()}".encode()).hexdigest()[:32]
    cached = _cache_dir("claims") / f"{key}.json"
    if cached.is_file():
        text = cached.read_text()
        try:
            claims = ClaimSet.model_validate_json(text)
        except ValueError:
            claims = None
        if claims is not None and claims_text(claims) == text:
            return claims, text
    claims = compile_claims(world, spec=truth.spec, db=truth.db)
    text = claims_text(claims)
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(f".{os.getpid()}.part")
    partial.write_text(text)
    partial.replace(cached)
    return claims, text


def _templates_sha256() -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in TEMPLATES.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(TEMPLATES)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def derive_truth(world: Path) -> Truth:
    """Build the spec from `seed.yaml` and seed a database from it, as a fresh build would."""
    from factory.builder.build import build_spec
    from factory.compiler.backend import render_backend
    from factory.seed.loader import load_seed
    from factory.world.assemble import seed_database, spec_json, text_sha256

    seed = World(world).seed_file
    if not seed.is_file():
        raise WorldError(f"{seed} is missing: a world's claims are derived from its seed")
    spec = build_spec(load_seed(seed))
    text = spec_json(spec)
    spec_sha = text_sha256(text)
    key = hashlib.sha256(f"{spec_sha}:{_templates_sha256()}".encode()).hexdigest()[:32]
    cached = _cache_dir() / f"{key}.db"
    if not cached.is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="truth-") as tmp:
            app = Path(tmp) / "app"
            render_backend(spec, app, spec_sha)
            db = Path(tmp) / "seed.db"
            seed_database(app, db)
            partial = cached.with_suffix(f".{os.getpid()}.part")
            shutil.copyfile(db, partial)
            partial.replace(cached)  # atomic: a concurrent prove never reads half a file
        log.info("seeded the truth database for %s (%s)", spec.world, cached)
    return Truth(spec=spec, spec_text=text, spec_sha256=spec_sha, db=cached, db_sha256=sha256_file(cached))


def check_lock(world: Path) -> LockResult:
    """Recompile the claims from the truth; raise ClaimsTampered when `claims.json` differs."""
    truth = derive_truth(world)
    drift = []
    spec_file = World(world).spec_file
    if not spec_file.is_file() or spec_file.read_text() != truth.spec_text:
        drift.append("spec.json differs from the spec seed.yaml gives")
    seed_db = World(world).seed_db
    if not seed_db.is_file() or sha256_file(seed_db) != truth.db_sha256:
        drift.append("data/seed.db differs from the database the spec seeds")
    claims, text = _compiled(world, truth)
    path = world / CLAIMS
    current = path.read_text() if path.is_file() else ""
    if current != text:
        raise ClaimsTampered(f"{path} is not what the world's seed compiles to ({_first_difference(current, claims)}); "
                             "claims are the yardstick and are never edited by hand or by a repair. "
                             "Rewrite them from the seed with `factory prove --recompile-claims`.")
    return LockResult(claims=claims, text=text, digest=claims_sha256(text), drift=drift)


def restore_claims(world: Path) -> LockResult:
    """Write `claims.json` as the world's seed compiles it (the explicit way to replace an edited one)."""
    truth = derive_truth(world)
    claims, text = _compiled(world, truth)
    (world / CLAIMS).write_text(text)
    return LockResult(claims=claims, text=text, digest=claims_sha256(text))


def _first_difference(current: str, expected: ClaimSet) -> str:
    """The first claim that is missing, extra or different, for the error message."""
    try:
        found = ClaimSet.model_validate_json(current)
    except ValueError:
        return "it does not parse as a claim set" if current else "it is missing"
    mine = {c.id: c for c in expected.claims}
    theirs = {c.id: c for c in found.claims}
    for cid in mine:
        if cid not in theirs:
            return f"claim {cid} is missing"
        if theirs[cid] != mine[cid]:
            return f"claim {cid} differs"
    extra = sorted(set(theirs) - set(mine))
    if extra:
        return f"claim {extra[0]} is not one the seed gives"
    return "its header or order differs"
