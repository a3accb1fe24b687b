"""`bundle.json`: what a bundle is (name, version, where it came from), what it holds (the SHA-256
of every other file), and how far its world was proven (counts, claim and gate pass rates, the red
team's figure when there is one, the splits).

The version is chosen here, from the world itself: `<factory version>+<content id>`, where the
content id is the first 12 hex digits of the SHA-256 over every payload file's path and hash (the
world's files, the shipped runtime, the pinned requirements). The same world and factory give the
same version; any change to what a user runs gives another. A publisher may name a version instead.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from factory import __version__
from factory.bundle.errors import BundleError
from factory.world.layout import World

BUNDLE_JSON = "bundle.json"
BUNDLE_FORMAT = 1
TYPES = ("read", "write", "read_write")
SPLITS = ("train", "test")
PER_TASK_GATES = ("initial", "golden", "determinism", "ui")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_id(files: Mapping[str, bytes]) -> str:
    """12 hex digits naming the payload: the SHA-256 over each file's path and hash, in path order."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(f"{path}\0{sha256(files[path])}\n".encode())
    return digest.hexdigest()[:12]


def default_version(factory_version: str, files: Mapping[str, bytes]) -> str:
    return f"{factory_version}+{content_id(files)}"


def read_tasks(text: str, where: str) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise BundleError(f"{where}:{number}: not JSON ({exc.msg})") from exc
    return records


def seed_license(world: World) -> str | None:
    """The license the world's seed names (a top-level `license:`), if it names one."""
    if not world.seed_file.is_file():
        return None
    seed = yaml.safe_load(world.seed_file.read_text())
    named = seed.get("license") if isinstance(seed, dict) else None
    text = str(named).strip() if named else ""
    return text or None


def redteam_figure(report: Path | None) -> dict[str, Any] | None:
    """The red team's figure from a `factory redteam --json FILE` result: probes graded, false positives."""
    if report is None:
        return None
    try:
        data = json.loads(Path(report).read_text())
        return {"tasks": int(data["tasks"]), "seed": int(data["seed"]), "probes": int(data["probes"]),
                "graded": int(data["graded"]), "false_positives": int(data["false_positive_count"])}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BundleError(f"{report}: not a red-team result (`factory redteam WORLD --json FILE` writes one): "
                          f"{type(exc).__name__}: {exc}") from exc


def _rate(passed: int, total: int) -> float | None:
    return round(passed / total, 4) if total else None


def _task_counts(records: list[dict[str, Any]]) -> dict[str, Any]:
    by_type = Counter(str(r["task_type"]) for r in records)
    by_split = Counter(str(r.get("split")) for r in records)
    both = Counter((str(r["task_type"]), str(r.get("split"))) for r in records)
    return {"total": len(records),
            "by_type": {t: by_type.get(t, 0) for t in TYPES},
            "by_split": {s: by_split.get(s, 0) for s in SPLITS},
            "by_type_and_split": {t: {s: both.get((t, s), 0) for s in SPLITS} for t in TYPES}}


def _gates(world: World, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per gate family: executed and passed over the bundled tasks; and stage two's acceptance."""
    executed: Counter[str] = Counter()
    passed: Counter[str] = Counter()
    for record in records:
        for gate in record.get("gates") or []:
            family = str(gate["name"]).split(":", 1)[0]
            if family == "counterfactual" and gate.get("score") is None:
                continue  # a counterfactual that does not apply grades nothing
            executed[family] += 1
            passed[family] += bool(gate.get("passed"))
    m = world.manifest
    return {"families": {f: {"executed": executed[f], "passed": passed[f], "rate": _rate(passed[f], executed[f])}
                         for f in sorted(executed)},
            "tasks_with_all_gates": sum(1 for r in records if all(g.get("passed") for g in r.get("gates") or [])),
            "manifest_counts": dict(m.gates),
            "stage_two": {"drafted": m.tasks.drafted, "accepted": m.tasks.accepted,
                          "rate": _rate(m.tasks.accepted, m.tasks.drafted)}}


def bundle_info(world: World, name: str, version: str, records: list[dict[str, Any]], files: Mapping[str, bytes],
                red_team: dict[str, Any] | None, license_name: str | None) -> dict[str, Any]:
    """Everything `bundle.json` says but the file list (added by `with_files`)."""
    m = world.manifest
    spec = json.loads(files["spec.json"])
    patched = [r for r in records if str((r.get("setup") or {}).get("patch", "")).strip()]
    patch_bytes = sum(len(str(r["setup"]["patch"]).encode()) for r in patched)
    return {
        "bundle_format": BUNDLE_FORMAT,
        "name": name,
        "version": version,
        "version_scheme": "<factory version>+<first 12 hex digits of the SHA-256 over every payload file's path "
                          "and hash> (unless the publisher named a version)",
        "title": m.title,
        "today": str(spec.get("today", "")),
        "factory_version": __version__,
        "world_factory_version": m.factory_version,
        "spec_sha256": sha256(files["spec.json"]),
        "seed_sha256": m.seed_sha256,
        "seed_db_sha256": sha256(files["data/seed.db"]),
        "counts": {"entities": m.entities, "workflows": m.workflows, "users": m.users, "pages": m.pages,
                   "routes": m.routes, "rows": sum(m.counts.values()), "tasks": _task_counts(records)},
        "claims": {"total": m.claims.total, "passed": m.claims.passed, "rate": _rate(m.claims.passed, m.claims.total),
                   "rounds": m.claims.rounds, "complete": m.claims.complete, "layers": list(m.claims.layers)},
        "gates": _gates(world, records),
        "red_team": red_team,
        "splits": {s: sorted(str(r["id"]) for r in records if r.get("split") == s) for s in SPLITS},
        "initial_states": {
            "how": "each task's initial state is its setup patch (tasks.jsonl: setup.patch, sqldiff SQL) replayed on "
                   "data/seed.db in one transaction (episodes.dbfiles.apply_patch); no per-task database is shipped, "
                   "a patch being smaller than a database",
            "tasks_with_patch": len(patched), "tasks_on_seed": len(records) - len(patched),
            "patch_bytes": patch_bytes, "seed_db_bytes": len(files["data/seed.db"])},
        "license": license_name,
        "license_note": "named in the world's seed, shipped as LICENSE" if license_name
                        else "none: the world's seed names no license",
        "requirements": "requirements.txt",
        "commands": {"install": "python -m pip install -r requirements.txt",
                     "serve": "python -m episodes serve . --port 8000 --eval-port 8001 --token TOKEN",
                     "grade": "python grade_rollouts.py ROLLOUTS.jsonl"},
    }


def with_files(info: dict[str, Any], files: Mapping[str, bytes]) -> dict[str, Any]:
    """`info` with the SHA-256 and size of every file but bundle.json itself, by path."""
    listed = {path: {"sha256": sha256(files[path]), "bytes": len(files[path])} for path in sorted(files)
              if path != BUNDLE_JSON}
    return {**info, "files": listed, "file_count": len(listed), "payload_bytes": sum(len(files[p]) for p in listed)}


def dump(info: dict[str, Any]) -> bytes:
    return (json.dumps(info, indent=2, sort_keys=True) + "\n").encode()
