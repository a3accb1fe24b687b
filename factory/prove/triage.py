"""Triager: groups failed claims into clusters by layer and signature, and names suspected files.

Read-only: it changes nothing. An ordered signature table comes first (the first matching row
wins); a failure no row places is marked `needs_llm`, for the model policy (`placer.py`) when a
model is configured.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from factory.verify.model import ClaimResult, VerifyReport
from factory.world.layout import BACKEND, FRONTEND, SEED_DB, TRIAGE


@dataclass(frozen=True)
class Signature:
    """One row of the table: a named failure shape, the layer it implicates and the fixer to try."""

    name: str
    layer: str | None  # None: keep the claim's own layer
    pattern: str  # regex over "<kind> | <message> | <error> | <server log>"
    fixer: str


# Ordered: specific shapes before general ones.
SIGNATURES: tuple[Signature, ...] = (
    Signature("no_witness", "db", r"^\S+ \| no witness", "regenerate_data"),
    Signature("server_error", "backend", r"Traceback|status 500", "regenerate_backend"),
    Signature("db_violation", "db", r"^db_\w+ \| \d+\+ violating rows", "regenerate_data"),
    Signature("db_query_error", "db", r"^db_\w+ \| query failed", "regenerate_data"),
    Signature("login_broken", "backend", r"cannot log in as", "regenerate_backend"),
    Signature("console_error", "frontend", r"console error|Uncaught|pageerror", "regenerate_frontend"),
    Signature("ui_locator", "frontend", r"not found on|Timeout|locator|test id|get_by_label|no (button|field)",
              "regenerate_frontend"),
    Signature("ui_effect", "backend", r"^ui_workflow \| (changed|inserted|deleted|no row)", "regenerate_backend"),
    Signature("exact_effects", "backend", r"the spec's effects give|which the call must not (change|create)|deleted \[",
              "regenerate_backend"),
    Signature("ui_toast", "frontend", r"^ui_\w+ \|", "regenerate_frontend"),
    Signature("page_missing", "frontend", r"^page_status \|", "regenerate_frontend"),
    Signature("list_wrong_rows", "backend", r"^(list_query|search_planted) \| (rows|total|status)", "regenerate_backend"),
    Signature("ownership_leak", "backend",
              r"^ownership_\w+ \| .*(must not see|must see|expected exactly|shows|lacks|entries in the order)",
              "regenerate_backend"),
    Signature("route_missing", "backend", r"status 40[45], expected (200|401|409|422)", "regenerate_backend"),
    Signature("effects_wrong", "backend", r"which its effects do not|no row was (created|deleted)|no row of \w+ changed",
              "regenerate_backend"),
    Signature("refused_but_changed", "backend", r"refused but changed", "regenerate_backend"),
    Signature("wrong_message", "backend", r"\| message .* expected", "regenerate_backend"),
    Signature("wrong_precondition", "backend", r"failed precondition", "regenerate_backend"),
    Signature("wrong_status", "backend", r"status \d+.*expected \d+", "regenerate_backend"),
)
_LAYER_FIXERS = {"backend": "regenerate_backend", "frontend": "regenerate_frontend", "db": "regenerate_data"}
_FILE_IN_TRACE = re.compile(r'File "[^"]*/app/(backend/[\w/]+\.py)"')


class Placement(BaseModel):
    """What the model said of a cluster the table could not place (`factory.prove.placer`)."""

    model_config = ConfigDict(extra="forbid")
    cause: str = Field(description="the cause it named: a signature's name, `unknown`, or '' when it gave none")
    rationale: str
    accepted: bool = Field(description="whether the cluster now carries that cause (a known one, not `unknown`)")
    note: str = ""


class Cluster(BaseModel):
    """Failed claims that share a cause."""

    model_config = ConfigDict(extra="forbid")
    id: str
    layer: str
    signature: str
    fixer: str | None
    needs_llm: bool
    claims: list[str]
    suspected_files: list[str]
    example: str
    model: Placement | None = None  # only with a model configured, and only for clusters the table left unplaced


class Triage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: int = 1
    world: str
    failed: int
    clusters: list[Cluster] = Field(default_factory=list)


def failure_text(result: ClaimResult) -> str:
    """What the signature table matches: `<kind> | <message> | <error> | <console errors> | <server log>`."""
    ev = result.evidence
    return " | ".join([result.kind, result.message, ev.error or "", " ".join(ev.console_errors), "\n".join(ev.server_log)])


def classify(result: ClaimResult) -> Signature | None:
    text = failure_text(result)
    return next((s for s in SIGNATURES if re.search(s.pattern, text)), None)


def _subject(claim_id: str) -> str:
    """The route, workflow or entity a claim is about (its id's middle part)."""
    parts = claim_id.split(":")
    return parts[1] if len(parts) > 2 else parts[-1]


def suspected_files(result: ClaimResult, layer: str) -> list[str]:
    files = sorted(set(_FILE_IN_TRACE.findall("\n".join(result.evidence.server_log))))
    files = [f"app/{f}" for f in files]
    subject = _subject(result.id).split(".")[0]
    if layer == "db":
        files += [f"{BACKEND}/seed.py", f"{BACKEND}/seed_plan.json", SEED_DB]
    elif layer == "backend":
        if result.kind.startswith("wf_") or result.kind == "ui_workflow":
            files += [f"{BACKEND}/workflows.py", f"{BACKEND}/routers/workflows.py"]
        elif result.kind in ("route_status", "ownership_read"):
            router = subject.split('_', 1)[-1] if '_' in subject else subject
            files += [f"{BACKEND}/routers/{router}.py", f"{BACKEND}/runtime.py"]
        files += [f"{BACKEND}/runtime.py"]
    else:
        if result.kind == "ui_workflow":
            files.append(f"{FRONTEND}/src/forms/{''.join(p.capitalize() for p in subject.split('_'))}Form.jsx")
        files += [f"{FRONTEND}/src/runtime", f"{FRONTEND}/dist/_app/app.js"]
    return list(dict.fromkeys(files))


_UI_VALUES = Signature("ui_values", "frontend", "", "regenerate_frontend")


def _classify_in(result: ClaimResult, passed: set[str]) -> Signature | None:
    """A failure's signature, knowing what else passed: a form whose stored values are wrong while
    the same workflow called over HTTP stores the right ones is the frontend's fault (a unit
    conversion, swapped fields), not the backend's."""
    if result.kind == "ui_workflow" and f"behaviour:{result.id.split(':')[-1]}:effects" in passed:
        return _UI_VALUES
    return classify(result)


def triage(report: VerifyReport) -> Triage:
    """Cluster every failure of a report."""
    clusters: dict[tuple[str, str, str], Cluster] = {}
    passed = {r.id for r in report.results if r.passed}
    for result in report.failures():
        sig = _classify_in(result, passed)
        layer = (sig.layer if sig and sig.layer else result.layer)
        name = sig.name if sig else "unplaced"
        key = (layer, name, _subject(result.id))
        cluster = clusters.get(key)
        if cluster is None:
            # unplaced failures still get their layer's re-derivation; the LLM policy may do better later
            fixer = sig.fixer if sig else _LAYER_FIXERS.get(layer)
            cluster = Cluster(id=f"{layer}:{name}:{key[2]}", layer=layer, signature=name, fixer=fixer,
                              needs_llm=sig is None, claims=[], suspected_files=[], example=result.message)
            clusters[key] = cluster
        cluster.claims.append(result.id)
        for f in suspected_files(result, layer):
            if f not in cluster.suspected_files:
                cluster.suspected_files.append(f)
    return Triage(world=report.world, failed=len(report.failures()),
                  clusters=sorted(clusters.values(), key=lambda c: (-len(c.claims), c.id)))


def write_triage(world: Path, result: Triage) -> None:
    path = world / TRIAGE
    path.parent.mkdir(parents=True, exist_ok=True)
    data = result.model_dump(mode="json")
    for cluster in data["clusters"]:
        if cluster["model"] is None:  # a world triaged without a model writes the report it always did
            del cluster["model"]
    path.write_text(json.dumps(data, indent=1) + "\n")

