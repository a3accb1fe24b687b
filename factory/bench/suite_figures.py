"""One world's row of `make suite`, read from what its build left on disk, and the suite's acceptance.

A build (`factory.bench.suite.build_one`) leaves two things: the world directory and a build record
(`<scratch>/<world>.build.json`: the seed, the exit code, the wall seconds, the log). `collect` turns
them into a `SuiteWorld`, reading each figure from the file that holds it, never from the log:

- claims passed/total and repair rounds: `manifest.json` (`claims`);
- HTTP 5xx seen during verification: every version of `reports/verification.json` the world's git
  history holds (each verification round commits one) and the working copy, from each claim's
  evidence: recorded requests, the browser's console errors, the server log;
- task drafts and accepted tasks, uncovered workflows, the multi-action share: `manifest.json`
  (`tasks`, `tasks.spread`), the spread recomputed from `tasks/tasks.jsonl` and `spec.json` when an
  older manifest has none;
- lint hits: `lint_goal` over every accepted goal of `tasks/tasks.jsonl` with the world's spec.

The log is read only for a failed build's error, which no other file holds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import git
from pydantic import BaseModel, ConfigDict, Field

from factory.errors import FactoryError
from factory.spec.model import Spec
from factory.world.layout import VERIFICATION, World
from factory.world.manifest import Manifest, TasksSpread

MIN_TASKS = 150
MIN_MULTI_ACTION = 0.30
CRITERIA = ("build", "claims", "5xx", "tasks", "uncovered", "multi-action", "lint")
LINT_EXAMPLES = 5

# Where a 5xx shows in one claim's evidence: a request the verifier made, a resource the browser
# failed to load, an unhandled exception (or an access line) in the app's log.
_CONSOLE_5XX = re.compile(r"status of 5\d\d\b")
_LOG_5XX = re.compile(r"Exception in ASGI application|HTTP/1\.[01]\" 5\d\d\b")


class BuildRecord(BaseModel):
    """What `build_one` leaves beside the world: how the build went, not what it built."""

    model_config = ConfigDict(extra="forbid")

    seed: str
    world: str
    path: str = Field(description="the world directory the build writes")
    command: list[str]
    started: float = Field(description="epoch seconds at the start of the build")
    seconds: float = Field(description="wall seconds of the build")
    exit_code: int
    log: str = Field(description="the build's stdout and stderr")


class SuiteWorld(BaseModel):
    """One world of the suite: its figures (None where the build left none) and its acceptance."""

    model_config = ConfigDict(extra="forbid")

    seed: str
    world: str
    path: str
    log: str
    error: str | None = None
    build_seconds: float
    claims_passed: int | None = None
    claims_total: int | None = None
    claims_complete: bool | None = Field(None, description="every claim checked (browser ones too) and passed")
    repair_rounds: int | None = None
    http_5xx: int | None = Field(None, description="5xx responses seen over every verification round")
    http_5xx_claims: list[str] = Field(default_factory=list)
    verification_rounds: int = Field(0, description="verification reports read (git history and working copy)")
    tasks_proposed: int | None = None
    tasks_accepted: int | None = None
    uncovered_workflows: list[str] | None = None
    multi_action_share: float | None = None
    lint_hits: int | None = None
    lint_by_rule: dict[str, int] = Field(default_factory=dict)
    lint_examples: list[str] = Field(default_factory=list)
    failed: dict[str, str] = Field(default_factory=dict, description="acceptance criterion → why it is not met")
    accepted: bool = Field(False, description="no criterion failed (set by `judge`)")


def read_record(path: Path) -> BuildRecord:
    return BuildRecord.model_validate_json(path.read_text())


def collect(record: BuildRecord) -> SuiteWorld:
    """The row of one build: its record, then every figure its world directory holds."""
    row = SuiteWorld(seed=record.seed, world=record.world, path=record.path, log=record.log,
                     build_seconds=round(record.seconds, 1))
    if record.exit_code != 0:
        row.error = f"exit code {record.exit_code}: {last_error(Path(record.log))}"
    world = World(record.path)
    # A build that failed before assembling leaves an earlier world in place: its figures are not this build's.
    if not world.manifest_file.is_file() or world.manifest_file.stat().st_mtime < record.started:
        row.error = row.error or "the build wrote no manifest"
        return judge(row)
    try:
        _read_world(world, row)
    except (OSError, ValueError, FactoryError, git.GitError) as exc:  # a half-written world: a row, not a crash
        row.error = row.error or f"unreadable world: {exc}"
    return judge(row)


def _read_world(world: World, row: SuiteWorld) -> None:
    manifest: Manifest = world.manifest
    row.claims_passed, row.claims_total = manifest.claims.passed, manifest.claims.total
    row.claims_complete, row.repair_rounds = manifest.claims.complete, manifest.claims.rounds
    row.http_5xx, row.http_5xx_claims, row.verification_rounds = server_errors(world.root)
    if not world.tasks_file.is_file():
        return
    row.tasks_proposed, row.tasks_accepted = manifest.tasks.drafted, manifest.tasks.accepted
    records = [json.loads(line) for line in world.tasks_file.read_text().splitlines() if line.strip()]
    spread = manifest.tasks.spread or _spread(world.spec, records)
    row.uncovered_workflows, row.multi_action_share = spread.uncovered_workflows, spread.multi_action_share
    row.lint_hits, row.lint_by_rule, row.lint_examples = lint_figures(world.spec, [r["goal"] for r in records])


def _spread(spec: Spec, records: list[dict[str, Any]]) -> TasksSpread:
    """The spread stage two records, for a manifest written before it did (one definition of it)."""
    from factory.tasks.diversity import spread
    from factory.tasks.model import TaskRecord

    return spread(spec, [TaskRecord.model_validate(r) for r in records], near_duplicates=0)


def lint_figures(spec: Spec, goals: list[str]) -> tuple[int, dict[str, int], list[str]]:
    """Hits of the language lint over the goals: their count, per rule, and the first few.

    The text rules only: the semantic ones need each draft's predicted changes and the acting
    user's relation to its rows, which the task record does not keep (stage two's proposer applies
    them to its drafts before they become tasks)."""
    from factory.tasks.language.lint import lint_goal

    hits = [h for goal in goals for h in lint_goal(spec, goal)]
    by_rule: dict[str, int] = {}
    for h in hits:
        by_rule[h.rule] = by_rule.get(h.rule, 0) + 1
    return len(hits), dict(sorted(by_rule.items())), [f"{h.rule}: {h.goal} ({h.why})" for h in hits[:LINT_EXAMPLES]]


def server_errors(root: Path) -> tuple[int, list[str], int]:
    """(5xx responses, the claims that saw one, reports read) over every verification round."""
    responses, claims = 0, set()
    reports = verification_reports(root)
    for report in reports:
        for result in report.get("results", []):
            seen = claim_5xx(result.get("evidence") or {})
            if seen:
                responses += seen
                claims.add(str(result.get("id")))
    return responses, sorted(claims), len(reports)


def claim_5xx(evidence: dict[str, Any]) -> int:
    """5xx responses in one claim's evidence. The request records, the console and the server log
    see the same responses from three sides (an HTTP claim's 500 is also the log's traceback), so
    the side that saw the most counts, never their sum."""
    requests = sum(1 for r in evidence.get("requests") or [] if 500 <= int(r.get("status") or 0) < 600)
    console = sum(1 for line in evidence.get("console_errors") or [] if _CONSOLE_5XX.search(line))
    logged = sum(1 for line in evidence.get("server_log") or [] if _LOG_5XX.search(line))
    return max(requests, console, logged)


def verification_reports(root: Path) -> list[dict[str, Any]]:
    """Every distinct verification report of a world: each round's committed one, then the working
    copy when it differs (the last round's report is the working copy a repair may not commit)."""
    texts: dict[str, str] = {}
    try:
        repo = git.Repo(root)
        for commit in reversed(list(repo.iter_commits(paths=VERIFICATION))):
            try:
                blob = commit.tree / VERIFICATION
            except KeyError:  # the commit removed it
                continue
            texts.setdefault(blob.hexsha, blob.data_stream.read().decode())
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, ValueError):
        pass  # not a git repository (or no commit yet): the working copy alone
    current = root / VERIFICATION
    if current.is_file():
        text = current.read_text()
        if text not in texts.values():
            texts["working copy"] = text
    return [json.loads(text) for text in texts.values()]


def last_error(log: Path) -> str:
    """What a failed build said last: its `error:` line (the CLI's one-line error), else its last line."""
    try:
        lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "no log"
    said = [line for line in lines if line.startswith("error:")]
    text = said[-1].removeprefix("error:").strip() if said else (lines[-1] if lines else "no output")
    return text[:300]


def judge(row: SuiteWorld) -> SuiteWorld:
    """The row with every acceptance criterion it misses (and why) in `failed`."""
    failed: dict[str, str] = {}
    if row.error:
        failed["build"] = row.error
    if row.claims_total is None or not row.claims_total:
        failed["claims"] = "no claims verified"
    elif row.claims_passed != row.claims_total:
        failed["claims"] = f"{row.claims_passed}/{row.claims_total} after {row.repair_rounds} repair rounds"
    elif not row.claims_complete:
        failed["claims"] = "browser claims not checked (--no-ui): not a full pass"
    if row.http_5xx is None:
        failed["5xx"] = "no verification report"
    elif row.http_5xx:
        failed["5xx"] = f"{row.http_5xx} responses ({', '.join(row.http_5xx_claims[:3])})"
    if row.tasks_accepted is None:
        failed["tasks"] = "no task corpus"
    elif row.tasks_accepted < MIN_TASKS:
        failed["tasks"] = f"{row.tasks_accepted} accepted < {MIN_TASKS}"
    if row.uncovered_workflows is None:
        failed["uncovered"] = "no task corpus"
    elif row.uncovered_workflows:
        failed["uncovered"] = ", ".join(row.uncovered_workflows)
    if row.multi_action_share is None:
        failed["multi-action"] = "no task corpus"
    elif row.multi_action_share < MIN_MULTI_ACTION:
        failed["multi-action"] = f"{100 * row.multi_action_share:.0f}% < {100 * MIN_MULTI_ACTION:.0f}%"
    if row.lint_hits is None:
        failed["lint"] = "no task corpus"
    elif row.lint_hits:
        failed["lint"] = ", ".join(f"{rule} {n}" for rule, n in row.lint_by_rule.items())
    row.failed = {c: failed[c] for c in CRITERIA if c in failed}
    row.accepted = not failed
    return row


__all__ = ["CRITERIA", "MIN_MULTI_ACTION", "MIN_TASKS", "BuildRecord", "SuiteWorld", "claim_5xx", "collect", "judge",
           "last_error", "lint_figures", "read_record", "server_errors", "verification_reports"]
