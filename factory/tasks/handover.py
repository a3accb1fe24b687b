"""World defects found by stage two, handed to the stage-one repairer.

A draft fails at the `world` layer when the app disagrees with its own spec: the golden state is
not what the declared effects predict, a second run differs, the app refuses what the spec allows,
or the UI cannot complete what the API can. Such a failure is no fault of the task, so stage two
does not discard it quietly: the failures are clustered in the stage-one triage format (same
`Cluster` model, same fixers), written to `reports/task_triage.json`, and given to
`factory.prove.repair.repair_round`, which applies each fixer as its own commit, re-verifies the locked
claims and, when a repair lowers their pass rate, escalates to the next fixers before reverting the
chain (reports survive a revert). Stage two then re-runs every gate of every
draft that stands or failed for the world (the app changed under all of them).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from factory.prove.repair import KEPT_OUTCOMES, RepairRecord, repair_round
from factory.prove.triage import Cluster, Triage
from factory.verify.model import VerifyReport
from factory.verify.run import verify_world
from factory.world.layout import BACKEND, FRONTEND, TASK_TRIAGE, VERIFICATION, World
from factory.world.manifest import read_manifest

log = logging.getLogger(__name__)



@dataclass(frozen=True)
class WorldFailure:
    """One draft's world-layer failure, as the hand-over sees it."""

    task: str
    workflow: str | None  # the workflow the draft runs (None for a READ)
    kind: str  # gate:golden | gate:determinism | gate:ui | infeasible
    message: str


@dataclass(frozen=True)
class _Shape:
    """A row of the hand-over's signature table: which failure points at which part of the app."""

    name: str
    kind: str
    pattern: str  # regex over the failure message
    layer: str
    fixer: str


# Ordered, first match wins. A UI failure whose API run passed (the golden gate did) lies in the
# frontend; a golden state the effects did not predict, or a refusal the spec does not make, in the
# backend.
_SHAPES: tuple[_Shape, ...] = (
    _Shape("task_server_error", "", r"Traceback|status 500|Internal Server Error", "backend", "regenerate_backend"),
    _Shape("task_ui_blocked", "gate:ui", r".", "frontend", "regenerate_frontend"),
    _Shape("task_effect_mismatch", "gate:golden", r".", "backend", "regenerate_backend"),
    _Shape("task_nondeterministic", "gate:determinism", r".", "backend", "regenerate_backend"),
    _Shape("task_refused", "infeasible", r".", "backend", "regenerate_backend"),
)
_SUSPECTS = {
    "backend": [f"{BACKEND}/workflows.py", f"{BACKEND}/routers/workflows.py", f"{BACKEND}/runtime.py"],
    "frontend": [f"{FRONTEND}/src/forms", f"{FRONTEND}/src/runtime", f"{FRONTEND}/dist/_app/app.js"],
}


def _shape(failure: WorldFailure) -> _Shape | None:
    return next((s for s in _SHAPES if (not s.kind or s.kind == failure.kind)
                 and re.search(s.pattern, failure.message)), None)


def world_triage(world: Path, failures: list[WorldFailure]) -> Triage:
    """The failures as stage-one clusters, one per (layer, shape, workflow); task ids stand where
    claim ids do, prefixed `task:`. A failure no row places goes to the backend's re-derivation
    and is marked for the LLM policy, as stage one's triager does."""
    clusters: dict[tuple[str, str, str], Cluster] = {}
    for f in failures:
        shape = _shape(f)
        layer = shape.layer if shape else "backend"
        name = shape.name if shape else "task_unplaced"
        subject = f.workflow or "read"
        key = (layer, name, subject)
        cluster = clusters.get(key)
        if cluster is None:
            cluster = Cluster(id=f"{layer}:{name}:{subject}", layer=layer, signature=name,
                              fixer=shape.fixer if shape else "regenerate_backend", needs_llm=shape is None,
                              claims=[], suspected_files=list(_SUSPECTS[layer]), example=f.message[:300])
            clusters[key] = cluster
        cluster.claims.append(f"task:{f.task}")
    return Triage(world=world.name, failed=len(failures),
                  clusters=sorted(clusters.values(), key=lambda c: (-len(c.claims), c.id)))


def _last_report(world: Path) -> VerifyReport | None:
    path = world / VERIFICATION
    return VerifyReport.model_validate_json(path.read_text()) if path.is_file() else None


def hand_over(world: Path, failures: list[WorldFailure], round_no: int, ui: bool) -> list[RepairRecord]:
    """Give the world-layer failures to the stage-one repairer; return what it did.

    The yardstick is the world's locked claims: each fixer's commit is re-verified against them; one
    that lowers their pass rate escalates to the next fixers and the chain is reverted only if it
    never gets back (a repair that touches the claims is refused). A world that was
    never proven has no claims; its repairs are then judged by the tasks' gates alone, which stage
    two re-runs after any kept repair.
    """
    triage = world_triage(world, failures)
    path = world / TASK_TRIAGE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(triage.model_dump(mode="json"), indent=1) + "\n")
    digest = read_manifest(World(world).manifest_file).claims_sha256
    before = _last_report(world) if digest else None
    if digest and before is not None:
        def verify() -> VerifyReport:
            return verify_world(world, ui=ui, expected_sha256=digest)
        records, _ = repair_round(world, round_no, triage, before, verify)
    else:
        log.info("%s has no locked claims: world repairs are judged by the tasks' gates alone", world.name)
        empty = VerifyReport(world=world.name, claims_sha256="", total=0, passed=0, seconds=0.0, results=[])
        records, _ = repair_round(world, round_no, triage, empty, lambda: empty)
    for r in records:
        log.info("world repair: %s → %s (%d files) %s", r.fixer, r.outcome, len(r.files), r.note)
    return records


def kept_repairs(records: list[RepairRecord]) -> list[RepairRecord]:
    """The repairs stage one kept (alone or together with the fixer after them)."""
    return [r for r in records if r.outcome in KEPT_OUTCOMES]


def records_json(records: list[RepairRecord]) -> list[dict[str, object]]:
    return [asdict(r) for r in records]
