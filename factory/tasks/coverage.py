"""Coverage of a world's workflows and stated preconditions by its tasks and claims, with reasons.

Written at the end of stage two as `tasks/coverage.json` and summed up as a table: every
workflow a user can run and every precondition it states, with how many accepted tasks run it and
how many claims prove it; for each one without a task or a claim, why, taken from the claims'
`unwitnessed` list (claims.json) and from the proposer's and the gates' rejections
(tasks/report.json). `coverage` is pure; `write_coverage` reads and writes the world's files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from factory.spec.model import Spec, WorkflowSpec
from factory.world.layout import CLAIMS, World

COVERAGE = "coverage.json"  # under the world's tasks/ folder, beside report.json
COVERAGE_TABLE = "coverage.txt"  # under reports/: the same as a table to read
SCHEMA_VERSION = 1
_PROVENANCE = re.compile(r"workflows\[([a-z0-9_]+)\](?:\.preconditions\[([a-z0-9_.]+)\])?")


class Covered(BaseModel):
    """One workflow or precondition: its task and claim counts, and why a count is zero."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["workflow", "precondition"]
    name: str = Field(description="workflow name, or '<workflow>.preN' for a precondition")
    workflow: str
    statement: str = Field("", description="a precondition's check as the seed states it")
    tasks: int = Field(description="accepted tasks whose golden steps run the workflow (a precondition: that must pass it)")
    claims: int = Field(description="claims proven about it")
    reasons: list[str] = Field(default_factory=list, description="why there is no task or no claim")


class Coverage(BaseModel):
    """A world's coverage report."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    world: str
    rows: list[Covered]

    def gaps(self) -> list[Covered]:
        """The rows with no task or no claim."""
        return [r for r in self.rows if r.tasks == 0 or r.claims == 0]

    def table(self) -> str:
        """A plain-text table, one line per row, gaps marked."""
        width = max((len(r.name) for r in self.rows), default=10)
        lines = [f"{'workflow / precondition'.ljust(width)}  tasks  claims  why not covered"]
        for r in self.rows:
            why = "; ".join(r.reasons) if (r.tasks == 0 or r.claims == 0) else ""
            lines.append(f"{r.name.ljust(width)}  {r.tasks:5d}  {r.claims:6d}  {why}".rstrip())
        return "\n".join(lines)


def coverage(spec: Spec, claims: dict[str, Any], tasks: list[dict[str, Any]], report: dict[str, Any]) -> Coverage:
    """Count tasks and claims per workflow and precondition of `spec`, with the reasons for each gap."""
    workflows = [w for w in spec.workflows if not w.system]
    claim_counts: dict[str, int] = {}
    for claim in claims.get("claims", []):
        found = _PROVENANCE.search(str(claim.get("provenance", "")))
        if found:
            claim_counts[found.group(1)] = claim_counts.get(found.group(1), 0) + 1
            if found.group(2):
                claim_counts[found.group(2)] = claim_counts.get(found.group(2), 0) + 1
    task_counts: dict[str, int] = {}
    for task in tasks:
        for name in {s.get("workflow") for s in task.get("golden_steps", [])}:
            task_counts[str(name)] = task_counts.get(str(name), 0) + 1
    unwitnessed = [str(u) for u in claims.get("unwitnessed", [])]
    rows: list[Covered] = []
    for wf in workflows:
        n_tasks, n_claims = task_counts.get(wf.name, 0), claim_counts.get(wf.name, 0)
        rows.append(Covered(kind="workflow", name=wf.name, workflow=wf.name, tasks=n_tasks, claims=n_claims,
                            reasons=_task_reasons(wf, report) if n_tasks == 0 else []))
        for check in wf.preconditions:
            n_pre = claim_counts.get(check.id, 0)
            reasons = [] if n_tasks else [f"no task runs {wf.name}"]
            if n_pre == 0:
                said = [u.split(": ", 1)[1] for u in unwitnessed if u.startswith(f"{check.id}:")]
                reasons += [f"no claim: {s}" for s in said] or ["no claim, and no reason recorded"]
            rows.append(Covered(kind="precondition", name=check.id, workflow=wf.name, statement=check.source,
                                tasks=n_tasks, claims=n_pre, reasons=reasons))
    return Coverage(world=spec.world, rows=rows)


def _task_reasons(wf: WorkflowSpec, report: dict[str, Any]) -> list[str]:
    """Why no accepted task runs the workflow: the proposer's skips and the discarded drafts naming it."""
    word = re.compile(rf"(^|[^a-z0-9_]){re.escape(wf.name)}([^a-z0-9_]|$)")
    key = re.compile(rf"-{re.escape(wf.name.replace('_', '-'))}-\d+$")
    examples = [text for texts in report.get("proposer_skipped_examples", {}).values() for text in texts]
    reasons = [f"proposer: {s}" for s in examples if word.search(s)] or [
        f"proposer: {s}" for s in report.get("proposer_skipped", []) if word.search(str(s))]
    for d in report.get("discarded", []):
        if key.search(str(d.get("id", ""))):
            reasons.append(f"discarded {d.get('id')} ({d.get('layer')}/{d.get('kind')}): {str(d.get('reason', ''))[:160]}")
    if not wf.params:
        reasons.append("a workflow without parameters is asked for by the first sentence of its description, "
                       "which must be a request that starts with a verb (\"Mark every overdue invoice as overdue.\")")
    return reasons or ["no draft was proposed for it (no feasible candidate recorded)"]


def coverage_file(world: Path) -> Path:
    """Where a world's coverage report lives."""
    return World(world).tasks_dir / COVERAGE


def write_coverage(world: Path, spec: Spec) -> Coverage:
    """Compute the world's coverage from claims.json, tasks.jsonl and report.json; write coverage.json."""
    layout = World(world)
    claims_path = Path(world) / CLAIMS
    claims = json.loads(claims_path.read_text()) if claims_path.is_file() else {}
    tasks = ([json.loads(line) for line in layout.tasks_file.read_text().splitlines() if line.strip()]
             if layout.tasks_file.is_file() else [])
    report = json.loads(layout.tasks_report.read_text()) if layout.tasks_report.is_file() else {}
    result = coverage(spec, claims, tasks, report)
    coverage_file(world).write_text(result.model_dump_json(indent=2) + "\n")
    layout.reports_dir.mkdir(parents=True, exist_ok=True)
    (layout.reports_dir / COVERAGE_TABLE).write_text(result.table() + "\n")
    return result


__all__ = ["COVERAGE", "Coverage", "Covered", "coverage", "coverage_file", "write_coverage"]
