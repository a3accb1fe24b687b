"""Mutation score: inject seeded faults into copies of a proven world; measure kill and repair rates.

Kill: some locked claim fails on the faulty world. Repair: the stage-one loop (at most three
rounds) brings the world back to every claim the clean world passed. Frontend faults are
verified with the browser claims; backend and data faults with the HTTP and SQL claims only,
which is where they show (and keeps a run to minutes).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from factory.graph import run_stage_one
from factory.manifest import read_manifest
from factory.mutate import inject, plan
from factory.verify.run import verify_world

MUTATION_REPORT = "reports/mutation.json"


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


@dataclass
class MutationScore:
    world: str
    faults: list[FaultOutcome] = field(default_factory=list)

    @property
    def kill_rate(self) -> float:
        return sum(f.killed for f in self.faults) / len(self.faults) if self.faults else 0.0

    @property
    def repair_rate(self) -> float:
        return sum(f.repaired for f in self.faults) / len(self.faults) if self.faults else 0.0


def score_world(world: Path, kinds: Sequence[str] | None = None, per_kind: int = 1, seed: int = 0,
                progress: Callable[[FaultOutcome], None] | None = None) -> MutationScore:
    """Score a proven world (claims locked and passing) against a deterministic plan of faults."""
    manifest = read_manifest(world / "manifest.json")
    if not manifest.claims_sha256:
        raise ValueError(f"{world} has no locked claims; run `factory world` or `factory prove` first")
    result = MutationScore(world=manifest.world)
    for kind, fault_seed in plan(world, kinds, per_kind, seed):
        with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
            copy = Path(tmp) / world.name
            shutil.copytree(world, copy, ignore=shutil.ignore_patterns("run"))
            fault = inject(copy, kind, fault_seed)
            ui = fault.layer == "frontend"
            report = verify_world(copy, ui=ui, expected_sha256=manifest.claims_sha256)
            killed_by = [r.id for r in report.failures()]
            # what the unbroken world passes of the claims checked here (its failures, if any, still count)
            clean_failures = manifest.claims.total - manifest.claims.passed
            clean = (manifest.claims.passed if ui else report.total - clean_failures)
            state = run_stage_one(world=str(copy), ui=ui, target=1.0, max_rounds=3, fresh=True)
            last = state["history"][-1]
            outcome = FaultOutcome(kind=kind, layer=fault.layer, target=fault.target, killed=bool(killed_by),
                                   killed_by=killed_by[:5], repaired=last["passed"] >= clean,
                                   rounds=state.get("round", 0), final_rate=last["rate"])
        result.faults.append(outcome)
        if progress:
            progress(outcome)
    out = world / MUTATION_REPORT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"world": result.world, "kill_rate": result.kill_rate, "repair_rate": result.repair_rate,
                               "faults": [asdict(f) for f in result.faults]}, indent=1) + "\n")
    return result
