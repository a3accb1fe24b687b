"""Stage one's node logic: build, compile claims, verify, triage, repair (the graph wires them).

Each node takes the loop state and returns the keys it changes. Everything a node decides is
also committed to the world's git repository, so `git log` tells the loop's story.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

from factory.claims.compile import compile_claims, write_claims
from factory.llm.ask import open_llm
from factory.llm.keep import add_usage
from factory.progress import DEFAULT_TARGET, say
from factory.prove.patcher import patch_round, unresolved
from factory.prove.placer import place_unplaced
from factory.prove.repair import KEPT_OUTCOMES, record_json, repair_round
from factory.prove.triage import Triage, triage, write_triage
from factory.verify.model import VerifyReport
from factory.verify.run import verify_world
from factory.world.assemble import build_world
from factory.world.history import commit_all
from factory.world.layout import CLAIMS, VERIFICATION, World
from factory.world.manifest import ClaimsSummary, read_manifest, write_manifest

log = logging.getLogger(__name__)
Say = Callable[[str], None]


class LoopState(TypedDict, total=False):
    """What the stage-one graph carries between nodes (and checkpoints)."""

    seed: str
    worlds: str
    world: str
    ui: bool
    recompile_claims: bool
    target: float
    max_rounds: int
    claims_sha256: str
    round: int
    history: list[dict[str, Any]]
    repairs: list[dict[str, Any]]
    progress_made: bool
    status: str


def _report(state: LoopState) -> VerifyReport:
    return VerifyReport.model_validate_json((Path(state["world"]) / VERIFICATION).read_text())


def build(state: LoopState) -> dict[str, Any]:
    """Builder and compiler: seed → world directory (an existing world is proven as it stands)."""
    if not state.get("seed"):
        world = Path(state["world"])
        commit_all(world, "snapshot: changes found before proving")
        return {"round": 0, "history": [], "repairs": [], "status": "existing"}
    result = build_world(state["seed"], state["worlds"], progress=say)
    return {"world": str(result.path), "round": 0, "history": [], "repairs": [], "status": "built"}


def claims(state: LoopState) -> dict[str, Any]:
    """Claims compiler: the yardstick, a deterministic function of the world's seed.

    A fresh build compiles them from its spec and seed database. Proving an existing world derives
    them again from `seed.yaml` (spec, then a freshly seeded database) and refuses a `claims.json`
    that differs: compiling from the world's own, possibly broken, files would let a defect lower
    the bar, and a hash kept beside the claims locks nothing (`factory.claims.lock`)."""
    from factory.claims.lock import check_lock, restore_claims

    world = Path(state["world"])
    manifest = read_manifest(World(world).manifest_file)
    if not state.get("seed"):
        missing = not (world / CLAIMS).is_file()
        result = restore_claims(world) if state.get("recompile_claims") or missing else check_lock(world)
        for drift in result.drift:
            say(f"claims: {drift} (the claims will show what that breaks)")
        manifest.claims_sha256 = result.digest  # recomputed, never trusted
        write_manifest(World(world).manifest_file, manifest)
        verb = "recompiled from the seed" if state.get("recompile_claims") or missing else "match what the seed compiles to"
        commit_all(world, f"claims: {len(result.claims.claims)} {verb} ({result.digest[:12]})")
        say(f"claims: {len(result.claims.claims)} {verb} ({result.digest[:12]})")
        return {"claims_sha256": result.digest}
    claim_set = compile_claims(world)
    digest = write_claims(world, claim_set)
    manifest.claims_sha256 = digest
    write_manifest(World(world).manifest_file, manifest)
    commit_all(world, f"claims: {len(claim_set.claims)} compiled ({digest[:12]}), {len(claim_set.unwitnessed)} unwitnessed")
    say(f"claims: {len(claim_set.claims)} compiled, {len(claim_set.unwitnessed)} statements without a witness")
    return {"claims_sha256": digest}


def _verify(state: LoopState) -> VerifyReport:
    world = Path(state["world"])
    return verify_world(world, ui=state.get("ui", True), expected_sha256=state["claims_sha256"])


def verify(state: LoopState) -> dict[str, Any]:
    """Verifier: every claim against the running world."""
    world = Path(state["world"])
    report = _verify(state)
    round_no = state.get("round", 0)
    say(f"verify: round {round_no}: {report.passed}/{report.total} passed ({100 * report.rate:.1f}%) in {report.seconds:.0f}s")
    commit_all(world, f"verify: round {round_no}: {report.passed}/{report.total} claims passed")
    history = [*state.get("history", []), {"round": round_no, "passed": report.passed, "total": report.total,
                                            "rate": round(report.rate, 4)}]
    return {"history": history}


def triage_node(state: LoopState) -> dict[str, Any]:
    """Triager: clusters of failures (read-only)."""
    world = Path(state["world"])
    report = _report(state)
    result = triage(report)
    llm = open_llm() if any(c.needs_llm for c in result.clusters) else None
    result = place_unplaced(result, report, llm)  # the table's leftovers, by the model when one is configured
    write_triage(world, result)
    if llm is not None:
        add_usage(world, llm.ledger)
    by_model = sum(c.model is not None and c.model.accepted for c in result.clusters)
    placed = sum(not c.needs_llm for c in result.clusters) - by_model
    say(f"triage: {result.failed} failures in {len(result.clusters)} clusters ({placed} placed by the signature table"
        + (f", {by_model} by the model" if llm is not None else "") + ")")
    return {}


def repair(state: LoopState) -> dict[str, Any]:
    """Repairer: fixers per cluster, each a commit, kept when the pass rate does not fall (alone, or
    together with the fixers the repairer escalates to after one that lowered it)."""
    world = Path(state["world"])
    result = Triage.model_validate_json(World(world).triage_report.read_text())
    round_no = state.get("round", 0) + 1
    records, current = repair_round(world, round_no, result, _report(state), lambda: _verify(state))
    llm = open_llm()
    if llm is not None and unresolved(result, current):
        # what the templates cannot fix: the model's patches, each kept only if it fixes and breaks nothing
        patched, current = patch_round(world, round_no, result, current, lambda: _verify(state), llm, say=say)
        records += patched
        add_usage(world, llm.ledger)
        say(llm.ledger.summary())
    kept = [r for r in records if r.outcome in KEPT_OUTCOMES]
    for r in records:
        step = f" (after {r.escalated_from})" if r.escalated_from else ""
        say(f"repair: round {round_no}: {r.fixer}{step} → {r.outcome} ({len(r.files)} files){': ' + r.note if r.note else ''}")
    # The repairer commits only its fixes' own files; the reports (triage, verification, the repair
    # log) are committed here, after the round, so no revert ever touches them.
    commit_all(world, f"repair: round {round_no}: {len(kept)} kept of {len(records)}")
    return {"round": round_no, "repairs": [*state.get("repairs", []), *map(record_json, records)], "progress_made": bool(kept)}


def route_after_verify(state: LoopState) -> str:
    """Stop at the target pass rate, at the round budget, or when a round made no progress."""
    last = state["history"][-1]
    if last["rate"] >= state.get("target", DEFAULT_TARGET):
        return "done"
    if state.get("round", 0) >= state.get("max_rounds", 3):
        return "done"
    if state.get("round", 0) >= 1 and not state.get("progress_made", True):
        return "done"
    return "triage"


def finish(state: LoopState) -> dict[str, Any]:
    """Record the final pass rate in the manifest, with the layers it covers.

    A run that skipped the browser (`--no-ui`) records what it checked and never a full-pass
    figure: `claims.complete` stays false and the skipped claims are counted."""
    world = Path(state["world"])
    last = state["history"][-1]
    manifest = read_manifest(World(world).manifest_file)
    report = _report(state)
    layers = sorted({r.layer for r in report.results})
    total_claims = _claim_count(world)
    skipped = max(total_claims - last["total"], 0)
    manifest.claims = ClaimsSummary(total=last["total"], passed=last["passed"], rounds=state.get("round", 0),
                                    layers=layers, browser=state.get("ui", True), skipped=skipped,
                                    complete=skipped == 0 and last["passed"] == last["total"])
    if "claims" not in manifest.stages:
        manifest.stages.append("claims")
    write_manifest(World(world).manifest_file, manifest)
    scope = "" if skipped == 0 else f" ({skipped} browser claims not checked)"
    commit_all(world, f"manifest: claims {last['passed']}/{last['total']}{scope} after {state.get('round', 0)} repair round(s)")
    return {"status": "done"}


def _claim_count(world: Path) -> int:
    from factory.claims.model import ClaimSet

    return len(ClaimSet.model_validate_json((world / CLAIMS).read_text()).claims)
