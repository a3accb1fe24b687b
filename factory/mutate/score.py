"""Mutation score: inject seeded faults into copies of a proven world; measure kill and repair rates.

Kill: some locked claim fails on the faulty world. Repair: the stage-one loop (at most three
rounds) brings the world back to every claim the clean world passed. Frontend faults are
verified with the browser claims; backend and data faults with the HTTP and SQL claims only,
which is where they show (and keeps a run to minutes). Only killed faults go to repair (a survivor
has no failing claim to start from), so the repair rate is over the killed faults.

Either suite of `factory.mutate.run` can be scored ("classic", the default, or "independent"); the
rates are given overall, per kind (`MutationScore.by_kind`) and per layer (`by_layer`).
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from factory.errors import FactoryError
from factory.mutate.mutations.base import MutationError
from factory.mutate.run import DEFAULT_SUITE, inject, plan, suite_kinds
from factory.prove.graph import run_stage_one
from factory.verify.run import verify_world
from factory.world.layout import MUTATION, World
from factory.world.manifest import read_manifest

log = logging.getLogger(__name__)

LAYERS = ("db", "backend", "frontend")


@dataclass
class FaultOutcome:
    kind: str
    layer: str
    target: str
    killed: bool
    killed_by: list[str]
    repaired: bool
    rounds: int
    final_rate: float
    description: str = ""
    repair_tried: bool = True  # False when the run measured kills only
    repair_error: str = ""     # the repair loop stopped on an error (counted as not repaired)


@dataclass
class KindSummary:
    """The faults of one kind (or one layer): how many were injected, killed and repaired."""

    kind: str
    layer: str
    faults: int = 0
    killed: int = 0
    repaired: int = 0

    @property
    def kill_rate(self) -> float:
        return self.killed / self.faults if self.faults else 0.0

    @property
    def repair_rate(self) -> float:
        """Of the faults the claims killed: a survivor has no failing claim to repair from."""
        return self.repaired / self.killed if self.killed else 0.0

    def as_dict(self, repair_tried: bool = True) -> dict[str, Any]:
        return {"layer": self.layer, "faults": self.faults, "killed": self.killed,
                "repaired": self.repaired if repair_tried else None, "kill_rate": round(self.kill_rate, 4),
                "repair_rate": round(self.repair_rate, 4) if repair_tried else None}


@dataclass
class MutationScore:
    world: str
    suite: str = DEFAULT_SUITE
    faults: list[FaultOutcome] = field(default_factory=list)
    # planned faults that could not be injected (the generated code changed shape) or verified (the app
    # did not start): kind, seed, stage, error
    errors: list[dict[str, Any]] = field(default_factory=list)
    repair_tried: bool = True

    @property
    def kill_rate(self) -> float:
        return sum(f.killed for f in self.faults) / len(self.faults) if self.faults else 0.0

    @property
    def repair_rate(self) -> float:
        """Repaired over killed faults (a survivor is not tried: no claim fails to repair from)."""
        killed = sum(f.killed for f in self.faults)
        return sum(f.repaired for f in self.faults) / killed if killed else 0.0

    def by_kind(self) -> dict[str, KindSummary]:
        """Per kind, in the suite's order (kinds with no fault in this run are left out)."""
        order = {kind: i for i, kind in enumerate(suite_kinds(self.suite))}
        return _tally(self.faults, lambda f: f.kind, lambda kind: order.get(kind, len(order)))

    def by_layer(self) -> dict[str, KindSummary]:
        """Per layer (db, backend, frontend)."""
        return _tally(self.faults, lambda f: f.layer, lambda layer: LAYERS.index(layer) if layer in LAYERS else 99)

    def as_dict(self) -> dict[str, Any]:
        return {"world": self.world, "suite": self.suite, "kill_rate": round(self.kill_rate, 4),
                "repair_rate": round(self.repair_rate, 4) if self.repair_tried else None,
                "repair_tried": self.repair_tried,
                "by_kind": {k: s.as_dict(self.repair_tried) for k, s in self.by_kind().items()},
                "by_layer": {k: s.as_dict(self.repair_tried) for k, s in self.by_layer().items()},
                "faults": [asdict(f) for f in self.faults], "errors": self.errors}


def _tally(faults: list[FaultOutcome], key: Callable[[FaultOutcome], str],
           rank: Callable[[str], int]) -> dict[str, KindSummary]:
    found: dict[str, KindSummary] = {}
    for fault in faults:
        name = key(fault)
        summary = found.setdefault(name, KindSummary(kind=name, layer=fault.layer))
        summary.faults += 1
        summary.killed += fault.killed
        summary.repaired += fault.repaired
    return {name: found[name] for name in sorted(found, key=lambda n: (rank(n), n))}


def score_world(world: Path, kinds: Sequence[str] | None = None, per_kind: int = 1, seed: int = 0,
                progress: Callable[[FaultOutcome], None] | None = None, *, suite: str = DEFAULT_SUITE,
                repair: bool = True, report_path: Path | None = None) -> MutationScore:
    """Score a proven world (claims locked and passing) against a deterministic plan of faults.

    Each fault goes into its own copy of the world; the world itself gets only the JSON report, at
    `report_path` (by default its reports/mutation.json; give another path to leave it untouched).
    `repair=False` measures kills only (no stage-one loop).
    """
    manifest = read_manifest(World(world).manifest_file)
    if not manifest.claims_sha256:
        raise ValueError(f"{world} has no locked claims; run `factory world` or `factory prove` first")
    result = MutationScore(world=manifest.world, suite=suite, repair_tried=repair)
    for kind, fault_seed in plan(world, kinds, per_kind, seed, suite=suite):
        with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
            copy = Path(tmp) / world.name
            shutil.copytree(world, copy, ignore=shutil.ignore_patterns("run"))
            try:
                fault = inject(copy, kind, fault_seed, suite=suite)
            except MutationError as exc:
                # a planned fault that no longer applies is a finding about the suite, not about the
                # world: it is reported, and the other faults still run
                log.warning("mutation %s (seed %d) could not be injected: %s", kind, fault_seed, exc)
                result.errors.append({"kind": kind, "seed": fault_seed, "stage": "inject", "error": str(exc)})
                continue
            ui = fault.layer == "frontend"
            try:
                report = verify_world(copy, ui=ui, expected_sha256=manifest.claims_sha256)
            except FactoryError as exc:
                # e.g. the faulty app never came up: neither killed nor survived, so not counted
                log.warning("mutation %s (%s) could not be verified: %s", kind, fault.target, exc)
                result.errors.append({"kind": kind, "seed": fault_seed, "stage": "verify", "error": str(exc)})
                continue
            killed_by = [r.id for r in report.failures()]
            outcome = FaultOutcome(kind=kind, layer=fault.layer, target=fault.target, killed=bool(killed_by),
                                   killed_by=killed_by[:5], repaired=False, rounds=0, final_rate=report.rate,
                                   description=fault.description, repair_tried=repair)
            if repair and outcome.killed:
                # what the unbroken world passes of the claims checked here (its failures, if any, still count)
                clean_failures = manifest.claims.total - manifest.claims.passed
                clean = (manifest.claims.passed if ui else report.total - clean_failures)
                try:
                    state = run_stage_one(world=str(copy), ui=ui, target=1.0, max_rounds=3, fresh=True)
                except FactoryError as exc:
                    log.warning("repairing %s (%s) stopped: %s", kind, fault.target, exc)
                    outcome.repair_error = str(exc)
                else:
                    last = state["history"][-1]
                    outcome.repaired = last["passed"] >= clean
                    outcome.rounds = state.get("round", 0)
                    outcome.final_rate = last["rate"]
        result.faults.append(outcome)
        if progress:
            progress(outcome)
    out = report_path if report_path is not None else world / MUTATION
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result.as_dict(), indent=1) + "\n")
    return result
