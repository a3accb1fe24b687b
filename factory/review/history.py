"""A world's repair history from its git repository: each commit, its diff, and the claims' pass rate
before and after it (read from `reports/verification.json` as committed at the parent and at the commit).

Repair commits (`repair(<fixer>): round N, ...`) are matched with their record in
`reports/repairs.jsonl` (outcome, pass rate before and after the fixer, note). A model's patches
are also listed from the log on their own (`read_model_patches`), the refused ones included, which
never became commits. Diffs are cut at
`MAX_DIFF_LINES` lines: the first commits hold the whole generated app.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import git

from factory.review.errors import ReviewError
from factory.review.model import Bar, CommitView, FileChange, ModelPatchView
from factory.world.layout import REPAIRS, VERIFICATION

MAX_DIFF_LINES = 400
MODEL_PATCH = "model_patch"  # the repairer's model policy (`factory.prove.patcher.FIXER`)
MAX_DIFF_CHARS = 60_000
_REPAIR = re.compile(r"^repair\((?P<fixer>[^)]+)\): round (?P<round>\d+)")
_VERIFY = re.compile(r"^verify: round (?P<round>\d+)")


def _rate_at(commit: git.Commit, cache: dict[str, tuple[int, int] | None]) -> tuple[int, int] | None:
    """(passed, total) of the verification report committed at `commit`, or None without one."""
    try:
        blob = commit.tree / VERIFICATION
    except KeyError:
        return None
    if blob.hexsha not in cache:
        try:
            data = json.loads(blob.data_stream.read())
            cache[blob.hexsha] = (int(data["passed"]), int(data["total"]))
        except (ValueError, KeyError, TypeError):
            cache[blob.hexsha] = None  # an older or broken report: no figure rather than a wrong one
    return cache[blob.hexsha]


def _ratio(found: tuple[int, int] | None) -> float | None:
    return found[0] / found[1] if found and found[1] else None


def _repair_records(root: Path) -> list[dict[str, Any]]:
    path = root / REPAIRS
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _committed(record: dict[str, Any], fixer: str, round_no: str, subject: str) -> bool:
    """Whether `record` is the one of the repair commit `subject`. A model patch is told apart by its
    cluster (a round may hold several) and by having been committed (a refused one never is)."""
    if record.get("fixer") != fixer or str(record.get("round")) != round_no or not record.get("files"):
        return False
    if fixer == MODEL_PATCH:
        clusters = record.get("clusters") or [""]
        return record.get("outcome") in ("kept", "reverted") and subject.endswith(f" for {clusters[0]}")
    return True


def _repair_note(subject: str, records: list[dict[str, Any]]) -> str:
    match = _REPAIR.match(subject)
    if not match:
        return ""
    for r in records:
        if _committed(r, match["fixer"], match["round"], subject):
            after = "—" if r.get("after") is None else f"{100 * float(r['after']):.1f}%"
            note = f"; {r['note']}" if r.get("note") else ""
            return f"{r.get('outcome')}: pass rate {100 * float(r.get('before', 0)):.1f}% → {after}{note}"
    return ""


def read_model_patches(root: Path) -> list[ModelPatchView]:
    """Every diff a model proposed, in the order of the repair log, with its rationale and outcome."""
    return [ModelPatchView(round=int(r["round"]), clusters=list(r.get("clusters", [])), outcome=str(r["outcome"]),
                           files=list(r.get("files", [])), before=float(r.get("before", 0)),
                           after=None if r.get("after") is None else float(r["after"]), note=str(r.get("note", "")),
                           rationale=str(r.get("rationale", "")), diff=str(r.get("diff", "")))
            for r in _repair_records(root) if r.get("fixer") == MODEL_PATCH]


def _diff(repo: git.Repo, commit: git.Commit) -> tuple[str, bool]:
    text = repo.git.show("--format=", "--no-color", "--no-ext-diff", "-U2", commit.hexsha)
    lines = text.splitlines()
    cut = len(lines) > MAX_DIFF_LINES or len(text) > MAX_DIFF_CHARS
    if cut:
        text = "\n".join(lines[:MAX_DIFF_LINES])[:MAX_DIFF_CHARS]
    return text, cut


def read_history(root: Path) -> tuple[list[CommitView], list[Bar]]:
    """Every commit of the world's repository, oldest first, and the pass rate of each verification round."""
    try:
        repo = git.Repo(root)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise ReviewError(f"{root} is not a git repository: a built world is one (make world SEED=...)") from exc
    if not repo.head.is_valid():
        return [], []
    records = _repair_records(root)
    cache: dict[str, tuple[int, int] | None] = {}
    commits: list[CommitView] = []
    rounds: list[Bar] = []
    for commit in repo.iter_commits("HEAD", reverse=True, first_parent=True):
        message = str(commit.message)
        subject, _, body = message.partition("\n")
        after = _rate_at(commit, cache)
        before = _rate_at(commit.parents[0], cache) if commit.parents else None
        diff, cut = _diff(repo, commit)
        stats = commit.stats.files
        files = [FileChange(path=str(path), insertions=int(s["insertions"]), deletions=int(s["deletions"]))
                 for path, s in sorted(stats.items(), key=lambda item: str(item[0]))]
        commits.append(CommitView(sha=commit.hexsha, short=commit.hexsha[:8], anchor=f"commit-{commit.hexsha[:12]}",
                                  subject=subject.strip(), body=body.strip(), files=files, diff=diff, diff_truncated=cut,
                                  rate_before=_ratio(before), rate_after=_ratio(after),
                                  repair_note=_repair_note(subject, records)))
        verify = _VERIFY.match(subject)
        if verify and after is not None:
            rounds.append(Bar(label=f"round {verify['round']} ({commit.hexsha[:7]})", value=after[0], total=after[1]))
    return commits, rounds


__all__ = ["MAX_DIFF_LINES", "read_history", "read_model_patches"]
