"""`make bundle WORLD=worlds/<name>` → `dist/<name>-<version>.tar.gz`: a world as a benchmark that
serves and grades without the factory.

The bundle holds, under one top folder `<name>-<version>/`:

    bundle.json           the manifest: identity, counts, pass rates, splits, every file's SHA-256
    README.md             for benchmark users: install, serve, run an episode, grade rollouts
    requirements.txt      pinned packages for serving and grading
    grade_rollouts.py     offline grading of a rollouts file (factory/bundle/grade_rollouts.py)
    spec.json  data/seed.db  tasks/tasks.jsonl
    app/backend/**        the generated app (no caches)
    app/frontend/dist/**  its built frontend (never node_modules or sources)
    episodes/** verifiers/**   the episode server and the grader, copied from this checkout
    LICENSE               only when the world's seed names a license

Each task's initial state stays as its setup patch (replayed on the seed database when an episode
starts), never a database per task. Nothing of the world's history, reports, claims or scratch is
shipped. Same world, same bytes (`factory.bundle.archive`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factory import __version__
from factory.bundle.archive import frozen_mtime, write_tarball
from factory.bundle.errors import BundleError
from factory.bundle.manifest import (
    BUNDLE_JSON,
    bundle_info,
    default_version,
    dump,
    read_tasks,
    redteam_figure,
    seed_license,
    with_files,
)
from factory.bundle.texts import pinned_requirements, readme_text, requirements_text
from factory.world.layout import BACKEND, FRONTEND, SEED_DB, SPEC, TASKS, World

REPO = Path(__file__).resolve().parents[2]  # the checkout holding verifiers/ and episodes/
RUNTIME = ("verifiers", "episodes")
GRADE_SCRIPT = "grade_rollouts.py"
DIST = f"{FRONTEND}/dist"
REDTEAM_REPORT = "reports/redteam.json"  # a red-team result kept beside the world's other reports, if any
SKIP_PARTS = frozenset({"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules", ".git"})
SKIP_SUFFIXES = (".pyc", ".pyo")
VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}")


@dataclass(frozen=True)
class BuiltBundle:
    path: Path
    name: str
    version: str
    files: int  # files listed in bundle.json (every file but bundle.json)
    size: int  # bytes of the .tar.gz
    info: dict[str, Any]


def tree(base: Path, prefix: str) -> dict[str, bytes]:
    """Every file under `base` as `<prefix>/<relative path>` → bytes, caches and compiled files left out."""
    found: dict[str, bytes] = {}
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(base)
        if SKIP_PARTS.intersection(rel.parts) or path.suffix in SKIP_SUFFIXES or not path.is_file():
            continue
        found[f"{prefix}/{rel.as_posix()}"] = path.read_bytes()
    return found


def world_payload(world: World) -> dict[str, bytes]:
    """The world's files a bundle ships; a BundleError naming what a bundle needs and is missing."""
    world.require_built()
    for needed, how in ((world.root / SPEC, "make world SEED=..."), (world.root / TASKS, f"make tasks WORLD={world.root}"),
                        (world.root / DIST / "index.html", "make world SEED=... (the frontend build)")):
        if not needed.is_file():
            raise BundleError(f"{world.root}: {world.relative(needed)} is missing; a bundle needs it ({how})")
    deps = world.backend_dir / "deps.py"
    if not deps.is_file() or "ENGINE_SCOPE_KEY" not in deps.read_text():
        raise BundleError(f"{world.root} was built before episodes could be served (its app/backend/deps.py has no "
                          f"per-episode engine) and a bundle serves episodes; rebuild it: make world SEED={world.seed_file}")
    files = {SPEC: world.spec_file.read_bytes(), SEED_DB: world.seed_db.read_bytes(), TASKS: world.tasks_file.read_bytes()}
    files.update(tree(world.root / BACKEND, BACKEND))
    files.update(tree(world.root / DIST, DIST))
    return files


def runtime_payload(repo: Path = REPO) -> dict[str, bytes]:
    """`verifiers/` and `episodes/` from this checkout, the offline grader and the pinned requirements."""
    files: dict[str, bytes] = {}
    for package in RUNTIME:
        files.update(tree(repo / package, package))
    files[GRADE_SCRIPT] = (Path(__file__).resolve().parent / GRADE_SCRIPT).read_bytes()
    files["requirements.txt"] = requirements_text(pinned_requirements()).encode()
    return files


def assemble(world_path: Path, version: str | None = None, redteam: Path | None = None) -> tuple[str, str, dict[str, bytes]]:
    """The bundle's name, version and every file (bundle.json included), without writing anything."""
    world = World(world_path)
    payload = {**world_payload(world), **runtime_payload()}
    records = read_tasks(payload[TASKS].decode(), str(world.tasks_file))
    if not records:
        raise BundleError(f"{world.tasks_file}: no tasks; a bundle is a world with a task corpus")
    license_name = seed_license(world)
    if license_name:
        payload["LICENSE"] = (f"{world.manifest.title} ({world.manifest.world}) is published under: {license_name}\n"
                              "(the license named in the world's seed)\n").encode()
    chosen = version or default_version(__version__, payload)
    if not VERSION.fullmatch(chosen):
        raise BundleError(f"version {chosen!r}: letters, digits and . + _ - only, starting with a letter or digit")
    kept = world.root / REDTEAM_REPORT
    red = redteam_figure(redteam if redteam is not None else (kept if kept.is_file() else None))
    name = world.manifest.world
    info = bundle_info(world, name, chosen, records, payload, red, license_name)
    payload["README.md"] = readme_text(info, f"{name}-{chosen}").encode()
    payload[BUNDLE_JSON] = dump(with_files(info, payload))
    return name, chosen, payload


def build_bundle(world_path: str | Path, out: str | Path = "dist", version: str | None = None,
                 redteam: str | Path | None = None) -> BuiltBundle:
    """Write `<out>/<name>-<version>.tar.gz` from a built world with a task corpus (only read)."""
    name, chosen, files = assemble(Path(world_path), version, Path(redteam) if redteam is not None else None)
    info = _json(files[BUNDLE_JSON])
    target = Path(out) / f"{name}-{chosen}.tar.gz"
    write_tarball(target, f"{name}-{chosen}", files, frozen_mtime(str(info["today"])))
    return BuiltBundle(target, name, chosen, int(info["file_count"]), target.stat().st_size, info)


def _json(data: bytes) -> dict[str, Any]:
    loaded: Mapping[str, Any] = json.loads(data)
    return dict(loaded)
