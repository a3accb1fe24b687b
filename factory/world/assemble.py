"""World assembly: seed → spec → app → seed database, as a git repository under `worlds/<name>/`.

Layout of a world directory:

    seed.yaml        the seed it was built from (copied verbatim)
    spec.json        the builder's spec (canonical JSON; its sha256 is the spec hash)
    app/backend/     generated FastAPI package (python -m backend.app ...)
    app/frontend/    generated React source (src/) and build (dist/)
    data/seed.db     the deterministic seed database
    manifest.json    machine-readable state (hashes, counts, claims, tasks)
    README.md        how to run it and the login accounts

A build happens in a temporary sibling directory and replaces the world only when every stage
succeeded, so a failed build never leaves a half-written world behind.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from factory.builder.build import build_spec
from factory.compiler.backend import render_backend
from factory.compiler.frontend import build_frontend, render_frontend
from factory.compiler.render import render
from factory.errors import BuildError
from factory.seed.loaded import LoadedSeed
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.world import history
from factory.world.idle_workflows import idle_workflow_warnings
from factory.world.layout import World
from factory.world.manifest import Manifest, sha256_file, write_manifest
from factory.world.storyline_counts import EventCount, event_counts, totals

log = logging.getLogger(__name__)
Progress = Callable[[str], None]
_GITIGNORE = "run/\n__pycache__/\n*.pyc\napp/frontend/node_modules/\n"


@dataclass
class WorldResult:
    """What `build_world` made."""

    path: Path
    manifest: Manifest
    seconds: dict[str, float] = field(default_factory=dict)
    events: list[EventCount] = field(default_factory=list)  # what each storyline event did
    warnings: list[str] = field(default_factory=list)  # `file:line: key: message`, as `factory check` words them


def spec_json(spec: Spec) -> str:
    """Canonical JSON of a spec: the bytes its hash is taken over."""
    return json.dumps(spec.model_dump(mode="json"), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def build_world(seed_path: str | Path, worlds_dir: str | Path = "worlds", progress: Progress | None = None,
                frontend: bool = True) -> WorldResult:
    """Build a world from a seed; raise FactoryError (and leave nothing behind) on failure."""
    say = progress or (lambda message: log.info(message))
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[stage] = round(now - clock, 3)
        clock = now

    loaded = load_seed(seed_path)
    spec = build_spec(loaded)
    lap("builder")
    worlds = Path(worlds_dir)
    final = worlds / spec.world
    temp = worlds / f".building-{spec.world}"
    if temp.exists():
        shutil.rmtree(temp)
    temp.mkdir(parents=True)
    try:
        manifest, events, warnings = _assemble(loaded, spec, temp, say, lap, timings, frontend)
        _replace(temp, final)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    return WorldResult(path=final, manifest=manifest, seconds=timings, events=events, warnings=warnings)


def _assemble(loaded: LoadedSeed, spec: Spec, root: Path, say: Progress, lap: Callable[[str], None],
              timings: dict[str, float], frontend: bool) -> tuple[Manifest, list[EventCount], list[str]]:
    """Write the world into `root`: its manifest, what each storyline event did, and the warnings."""
    seed_text = loaded.text
    repo = history.init(root)

    def commit(message: str) -> None:  # dated by the world's frozen today: same seed, same history
        repo.git.add(A=True)
        history.commit_index(repo, message)

    (root / ".gitignore").write_text(_GITIGNORE)
    World(root).seed_file.write_text(seed_text)
    text = spec_json(spec)
    World(root).spec_file.write_text(text)
    spec_hash = text_sha256(text)
    say(f"builder: spec {spec_hash[:12]} ({len(spec.entities) - 1} entities, {len(spec.workflows)} workflows, "
        f"{len(spec.pages)} pages, {len(spec.routes)} routes)")
    commit(f"builder: seed → spec ({spec_hash[:12]})")

    app = World(root).app_dir
    render_backend(spec, app, spec_hash)
    lap("compile_backend")
    commit("compiler: backend")
    if frontend:
        render_frontend(spec, app, spec_hash)
        build_frontend(app)
        lap("compile_frontend")
        say(f"compiler: frontend built in {timings['compile_frontend']:.1f}s")
        commit("compiler: frontend")

    seed_db = World(root).seed_db
    seed_db.parent.mkdir()
    report = run_seeder(app, seed_db)
    stats = totals(report)
    counts = _table_counts(seed_db)
    lap("seed_database")
    say(f"data: seed database with {sum(counts.values())} rows ({stats['ran']} storyline events)")
    events = event_counts(report, spec)
    for event in events:
        say(f"data: {event.line()}")
    # which workflows the storyline left with nothing to act on is known only now (the seeder is
    # too slow for `factory check`), so the build says it, in the checker's words
    warnings = idle_workflow_warnings(loaded, spec, seed_db)
    for warning in warnings:
        say(f"warning {warning}")
    commit("data: seed database")

    manifest = Manifest(
        world=spec.world, title=spec.title, factory_version=spec.factory_version, seed_sha256=spec.seed_sha256,
        spec_sha256=spec_hash, seed_db_sha256=sha256_file(seed_db),
        stages=["builder", "compiler", "data"], counts=counts, users=len(spec.users),
        entities=len(spec.entities) - 1, workflows=len(spec.workflows), pages=len(spec.pages), routes=len(spec.routes),
        storyline=stats,
    )  # no timings here: the committed tree must be byte-identical for the same seed
    write_manifest(World(root).manifest_file, manifest)
    render("world/README.md.j2", {"spec": spec, "manifest": manifest, "counts": counts}, spec_hash, World(root).readme)
    commit("manifest: world built")
    return manifest, events, warnings


def seed_database(app: Path, db: Path) -> dict[str, int]:
    """Run the generated seeder in its own interpreter, as a user of the world would; the
    storyline's occurrences ran, rejected and skipped."""
    return totals(run_seeder(app, db))


def run_seeder(app: Path, db: Path) -> dict[str, Any]:
    """Run the generated seeder; everything it reports (the totals, and per event `events`)."""
    result = subprocess.run([sys.executable, "-m", "backend.seed", "--db", str(db.resolve())], cwd=app,
                            capture_output=True, text=True, timeout=600, check=False)
    if result.returncode != 0:
        tail = "\n".join(result.stderr.strip().splitlines()[-12:])
        raise BuildError(f"seeding the database failed:\n{tail}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _table_counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        return {t: conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}


def _replace(temp: Path, final: Path) -> None:
    """Swap the finished build into place; the old world is removed only after the swap."""
    old = final.with_name(f".old-{final.name}")
    if old.exists():
        shutil.rmtree(old)
    if final.exists():
        final.rename(old)
    temp.rename(final)
    if old.exists():
        shutil.rmtree(old)


def text_sha256(text: str) -> str:
    """The sha256 of a text's UTF-8 bytes (spec hashes)."""
    return hashlib.sha256(text.encode()).hexdigest()


def open_world(path: str | Path) -> Path:
    """A built world's directory, or a WorldError saying what is missing."""
    return World(path).require_built().root
