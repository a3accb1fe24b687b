"""Repairer: per-layer deterministic fixers, each applied as a commit, kept only if it does not hurt.

Fixers re-derive generated artifacts from their sources (seed → spec → app → seed database), which
undoes drift and hand edits; `rederive_spec` also repairs a spec that lost a form field or a route.
After each repair commit the world is re-verified: a repair that lowers the pass rate, or that
touches the claims, is reverted with git and recorded.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import git

from factory.builder import build_spec
from factory.claims.compile import CLAIMS_FILE
from factory.compiler.backend import render_backend
from factory.compiler.frontend import build_frontend, render_frontend
from factory.manifest import sha256_file
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.triage import Triage
from factory.verify.model import VerifyReport
from factory.world import seed_database, spec_json, text_sha256

REPAIR_LOG = "reports/repairs.jsonl"
Verify = Callable[[], VerifyReport]


@dataclass
class RepairRecord:
    """What one repair attempt did and what became of it."""

    round: int
    fixer: str
    clusters: list[str]
    files: list[str]
    outcome: str  # kept | reverted | refused | no-op
    before: float
    after: float | None
    note: str = ""


def _spec(world: Path) -> tuple[Spec, str]:
    text = (world / "spec.json").read_text()
    return Spec.model_validate_json(text), text_sha256(text)


def _sync(generated: Path, target: Path, world: Path) -> list[str]:
    """Copy every file of `generated` over `target` where it differs; return world-relative paths."""
    changed = []
    for src in sorted(p for p in generated.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        dst = target / src.relative_to(generated)
        if not dst.is_file() or dst.read_bytes() != src.read_bytes():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            changed.append(str(dst.relative_to(world)))
    for dst in sorted(p for p in target.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        if not (generated / dst.relative_to(target)).exists():  # a file the templates do not make
            dst.unlink()
            changed.append(str(dst.relative_to(world)))
    return changed


def regenerate_backend(world: Path) -> list[str]:
    """Re-render the backend package from spec.json and the templates."""
    spec, digest = _spec(world)
    with tempfile.TemporaryDirectory() as tmp:
        render_backend(spec, Path(tmp), digest)
        return _sync(Path(tmp) / "backend", world / "app" / "backend", world)


def regenerate_frontend(world: Path) -> list[str]:
    """Re-render the frontend source and rebuild its bundle."""
    spec, digest = _spec(world)
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp)
        render_frontend(spec, app, digest)
        build_frontend(app)
        changed = _sync(app / "frontend" / "src", world / "app" / "frontend" / "src", world)
        changed += _sync(app / "frontend" / "dist", world / "app" / "frontend" / "dist", world)
        index = world / "app" / "frontend" / "index.html"
        if not index.is_file() or index.read_bytes() != (app / "frontend" / "index.html").read_bytes():
            shutil.copyfile(app / "frontend" / "index.html", index)
            changed.append("app/frontend/index.html")
        return changed


def regenerate_data(world: Path) -> list[str]:
    """Rebuild the seed database from the spec's plan with a freshly rendered backend."""
    spec, digest = _spec(world)
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "app"
        render_backend(spec, app, digest)
        db = Path(tmp) / "seed.db"
        seed_database(app, db)
        target = world / "data" / "seed.db"
        if target.is_file() and sha256_file(target) == sha256_file(db):
            return []
        shutil.copyfile(db, target)
        return ["data/seed.db"]


def rederive_spec(world: Path) -> list[str]:
    """Re-run the builder on the world's seed; if the spec drifted, restore it and everything after it."""
    spec = build_spec(load_seed(world / "seed.yaml"))
    text = spec_json(spec)
    if (world / "spec.json").read_text() == text:
        return []
    (world / "spec.json").write_text(text)
    return ["spec.json", *regenerate_backend(world), *regenerate_frontend(world), *regenerate_data(world)]


FIXERS: dict[str, Callable[[Path], list[str]]] = {
    "regenerate_backend": regenerate_backend,
    "regenerate_frontend": regenerate_frontend,
    "regenerate_data": regenerate_data,
    "rederive_spec": rederive_spec,
}


def commit_all(world: Path, message: str) -> bool:
    """Commit every change in the world; False when there was nothing to commit."""
    repo = git.Repo(world)
    repo.git.add(A=True)
    if not repo.is_dirty(index=True, untracked_files=True):
        return False
    actor = git.Actor("world-factory", "factory@world-factory.local")
    repo.index.commit(message, author=actor, committer=actor)
    return True


def _touches_claims(world: Path) -> bool:
    repo = git.Repo(world)
    return CLAIMS_FILE in repo.git.diff("HEAD~1", "HEAD", "--name-only").split()


def _revert(world: Path) -> None:
    git.Repo(world).git.reset("--hard", "HEAD~1")


def repair_round(world: Path, round_no: int, triage: Triage, report: VerifyReport, verify: Verify,
                 extra: dict[str, Callable[[Path], list[str]]] | None = None) -> tuple[list[RepairRecord], VerifyReport]:
    """Apply each cluster's fixer (escalating to `rederive_spec` when it finds nothing to fix)."""
    fixers = {**FIXERS, **(extra or {})}
    records: list[RepairRecord] = []
    plan: dict[str, list[str]] = {}
    for cluster in triage.clusters:
        if cluster.fixer:
            plan.setdefault(cluster.fixer, []).append(cluster.id)
    if plan:
        plan.setdefault("rederive_spec", [])
    current = report
    for name, clusters in plan.items():
        before = current.rate
        files = fixers[name](world)
        if not files:
            records.append(RepairRecord(round_no, name, clusters, [], "no-op", before, None, "already as generated"))
            continue
        commit_all(world, f"repair({name}): round {round_no}, {len(files)} file(s) for {', '.join(clusters[:3]) or 'drift'}")
        if _touches_claims(world):
            _revert(world)
            records.append(RepairRecord(round_no, name, clusters, files, "refused", before, None,
                                        "a repair may not change claims.json"))
            continue
        after = verify()
        if after.rate < before:
            _revert(world)
            records.append(RepairRecord(round_no, name, clusters, files, "reverted", before, after.rate,
                                        f"pass rate fell from {before:.3f} to {after.rate:.3f}"))
            continue
        records.append(RepairRecord(round_no, name, clusters, files, "kept", before, after.rate))
        current = after
    log = world / REPAIR_LOG
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as handle:
        for record in records:
            handle.write(json.dumps(asdict(record)) + "\n")
    return records, current
