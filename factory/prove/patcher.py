"""The repairer's model policy: a unified diff for the clusters the deterministic fixers leave failing.

The deterministic fixers re-derive the app from its templates, so a fault in a template itself
survives them (their records read `no-op`, or `reverted`). For each cluster whose claims still
fail after them, a configured model is shown the failures and the suspected files and asked for a
diff (`PatchReply`); the diff is

1. refused, whole, when it touches a file outside the allow-list (`diff_apply.allowed`): never the
   claims, the spec, reward programs, tests or the data;
2. applied in the world's repository (`git apply`, all or nothing), the frontend rebuilt when its
   source changed, and committed as `repair(model_patch): round N, ...` with the rationale in the
   commit body;
3. verified again, and kept only when it fixes at least one failing claim and breaks none that
   passed; otherwise its files are restored and the revert committed, as the repairer does.

A diff that is refused or does not apply is shown to the model with the reason, up to `tries`
replies. Every reply becomes a `RepairRecord` with the diff and the rationale, in the repair log
and, through it, in the review site's history. A model that gives no usable reply leaves the
cluster as it was: the loop carries on without it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from factory.compiler.frontend import build_frontend
from factory.errors import BuildError
from factory.llm.ask import LLM, Message
from factory.llm.errors import LLMError
from factory.llm.prompts import render_prompt
from factory.prove import diff_apply
from factory.prove.diff_apply import PatchError
from factory.prove.repair import RepairRecord, append_log, changed_paths, is_report, restore_files
from factory.prove.triage import Cluster, Triage
from factory.verify.model import ClaimResult, VerifyReport
from factory.world.history import commit_paths, head
from factory.world.layout import CLAIMS, World

FIXER = "model_patch"
PURPOSE = "repair.patch"
DEFAULT_TRIES = 2
MAX_FILE_CHARS = 40_000  # a file cut short invites a diff that does not apply: longer ones are named, not shown
MAX_SHOWN_CHARS = 90_000
MAX_FAILURES = 10

Verify = Callable[[], VerifyReport]
Say = Callable[[str], None]


class PatchReply(BaseModel):
    """What the model answers: a unified diff to the app's files, and why."""

    model_config = ConfigDict(extra="forbid")

    rationale: str = Field(min_length=1, description="why the claims fail and what the diff changes, in a sentence or two")
    diff: str = Field(min_length=1, description="a unified diff (git diff format, a/ and b/ prefixes) against the "
                                                "world's repository root")


@dataclass(frozen=True)
class _Outcome:
    """What became of one reply: its record, the report the world now answers to, and whether to ask again."""

    record: RepairRecord
    report: VerifyReport
    problem: str = ""  # a refusal or git's reason the diff did not apply: shown to the model


def failing(report: VerifyReport) -> set[str]:
    return {r.id for r in report.failures()}


def unresolved(triage: Triage, report: VerifyReport) -> list[Cluster]:
    """The clusters some of whose claims still fail in `report`, in the triager's order."""
    failed = failing(report)
    return [c for c in triage.clusters if failed & set(c.claims)]


def patch_round(world: Path, round_no: int, triage: Triage, report: VerifyReport, verify: Verify, llm: LLM,
                tries: int = DEFAULT_TRIES, say: Say | None = None) -> tuple[list[RepairRecord], VerifyReport]:
    """Ask the model for a patch for each cluster still failing in `report`; returns every reply's
    record (also appended to the repair log) and the report of the world as it now stands."""
    note = say or (lambda _text: None)
    records: list[RepairRecord] = []
    current = report
    for cluster in unresolved(triage, report):
        if not failing(current) & set(cluster.claims):
            continue  # an earlier patch of this round fixed it too
        shown = _files(world, cluster)
        if not shown[0]:
            note(f"repair: round {round_no}: {cluster.id}: no file the model may change is suspected; left as it is")
            continue
        found, current = _patch_cluster(world, round_no, cluster, current, verify, llm, tries, shown)
        records += found
    append_log(world, records)
    return records, current


def _patch_cluster(world: Path, round_no: int, cluster: Cluster, report: VerifyReport, verify: Verify, llm: LLM,
                   tries: int, shown: tuple[list[tuple[str, str]], list[str]]) -> tuple[list[RepairRecord], VerifyReport]:
    files, skipped = shown
    failures = [r for r in report.failures() if r.id in set(cluster.claims)][:MAX_FAILURES]
    messages: list[Message] = [
        {"role": "system", "content": render_prompt(
            "repair/system.md.j2", allowed=[f"{folder}**/*{'|'.join(s)}" for folder, s in diff_apply.ALLOWED],
            forbidden=sorted(diff_apply.FORBIDDEN))},
        {"role": "user", "content": render_prompt(
            "repair/patch.md.j2", cluster=cluster, failures=[_failure(r) for r in failures], files=files,
            skipped=skipped)},
    ]
    records: list[RepairRecord] = []
    for attempt in range(1, tries + 1):
        try:
            answer = llm.ask(PURPOSE, messages, PatchReply)
        except LLMError as exc:
            records.append(RepairRecord(round_no, FIXER, [cluster.id], [], "no-reply", report.rate, None, str(exc)))
            break
        outcome = _try(world, round_no, cluster, report, verify, answer.value)
        records.append(outcome.record)
        report = outcome.report
        if not outcome.problem:
            break
        messages = [*answer.messages, {"role": "user", "content": render_prompt(
            "repair/patch_failed.md.j2", problem=outcome.problem, attempt=attempt, attempts=tries)}]
    return records, report


def _try(world: Path, round_no: int, cluster: Cluster, report: VerifyReport, verify: Verify,
         reply: PatchReply) -> _Outcome:
    """Check, apply, commit and verify one diff; revert it when it fixes nothing or breaks something."""
    def record(outcome: str, files: list[str], note: str, after: float | None = None) -> RepairRecord:
        return RepairRecord(round_no, FIXER, [cluster.id], files, outcome, report.rate, after, note,
                            diff=reply.diff, rationale=reply.rationale)

    with tempfile.TemporaryDirectory(prefix="model-patch-") as tmp:
        try:
            touched = diff_apply.touched(world, reply.diff, Path(tmp))
        except PatchError as exc:
            return _Outcome(record("not-applied", [], f"git cannot read the diff: {exc}"), report, str(exc))
        if touched.refused:
            why = (f"it touches {', '.join(touched.refused)}, which a repair may not change (allowed: the backend's "
                   f"Python modules and the frontend's source, except {', '.join(sorted(diff_apply.FORBIDDEN))})")
            return _Outcome(record("refused", list(touched.paths), why), report, why)
        base, dirty = head(world), changed_paths(world)
        try:
            diff_apply.apply(world, reply.diff, Path(tmp))
        except PatchError as exc:
            return _Outcome(record("not-applied", list(touched.paths), f"the diff does not apply: {exc}"), report,
                            f"the diff does not apply: {exc}")
    if any(p.startswith(diff_apply.FRONTEND_SRC) for p in touched.paths):
        try:
            build_frontend(World(world).app_dir)
        except BuildError as exc:
            changed = _changed(world, dirty, touched.paths)
            restore_files(world, base, changed)
            why = f"the frontend no longer builds: {exc}"
            return _Outcome(record("not-applied", changed, why), report, why)
    files = _changed(world, dirty, touched.paths)
    if CLAIMS in files:  # the allow-list keeps it out; this says so again where it matters most
        restore_files(world, base, files)
        return _Outcome(record("refused", files, "a repair may not change claims.json"), report,
                        "a repair may not change claims.json")
    if not files or not commit_paths(world, files, f"repair({FIXER}): round {round_no}, {len(files)} file(s) for "
                                                   f"{cluster.id}\n\n{reply.rationale}"):
        return _Outcome(record("no-op", [], "the diff changes nothing"), report, "the diff changes nothing")
    after = verify()
    before_failed, after_failed = failing(report), failing(after)
    broken = sorted(after_failed - before_failed)
    fixed = sorted(before_failed - after_failed)
    if not broken and fixed:
        return _Outcome(record("kept", files, f"fixed {len(fixed)} claim(s) ({', '.join(fixed[:3])}), broke none",
                               after.rate), after)
    why = (f"regression: {len(broken)} claim(s) that passed now fail ({', '.join(broken[:3])})" if broken
           else "fixed none of the failing claims")
    restore_files(world, base, files)
    commit_paths(world, files, f"revert({FIXER}): round {round_no}, {why}; {len(files)} file(s) restored from "
                               f"{base[:12]}")
    return _Outcome(record("reverted", files, why, after.rate), report)


def _changed(world: Path, dirty: set[str], touched: tuple[str, ...]) -> list[str]:
    """What applying changed: the diff's own files, and whatever else changed with them (the rebuilt bundle)."""
    return [f for f in dict.fromkeys([*touched, *sorted(changed_paths(world) - dirty)]) if not is_report(f)]


def _files(world: Path, cluster: Cluster) -> tuple[list[tuple[str, str]], list[str]]:
    """The suspected files the model may change, with their text, and the ones named but not shown."""
    shown: list[tuple[str, str]] = []
    skipped: list[str] = []
    budget = MAX_SHOWN_CHARS
    for name in cluster.suspected_files:
        path = world / name
        if not path.is_file() or not diff_apply.allowed(name):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if len(text) > min(MAX_FILE_CHARS, budget):
            skipped.append(name)
            continue
        budget -= len(text)
        shown.append((name, text if text.endswith("\n") else text + "\n"))
    return shown, skipped


def _failure(result: ClaimResult) -> dict[str, str]:
    return {"id": result.id, "kind": result.kind, "message": result.message, "error": result.evidence.error or ""}


__all__ = ["DEFAULT_TRIES", "FIXER", "PURPOSE", "PatchReply", "patch_round", "unresolved"]
