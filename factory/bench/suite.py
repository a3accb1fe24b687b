"""`make suite`: build every seed of `seeds/suite/` and report one row per world in bench/suite.json.

Three stages, each a function of its inputs on disk, so that the lanes can move onto other workers
(a later issue runs them on Ray) without changing what they read or write:

1. `build_one`: a seed → its world directory (`python -m factory world SEED --out DIR --fresh` in a
   process of its own: a build's progress reporter, checkpoints and servers are its own) and a
   build record beside the output (`<scratch>/<world>.build.json`, with the log `<world>.log`);
2. `collect` (`factory.bench.suite_figures`): a build record and its world → one `SuiteWorld`;
3. `write_suite`: the rows, the commit and the time → bench/suite.json.

`run_suite` runs stage one on `lanes` threads (each waits on its own build process), then the other
two. A build that fails is a row with its error; the suite goes on.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict

from factory.bench.suite_figures import BuildRecord, SuiteWorld, collect, read_record
from factory.errors import FactoryError
from factory.progress import say as progress_say

REPO = Path(__file__).resolve().parents[2]
SUITE_SEEDS = "seeds/suite"
SUITE_VERSION = 1


@dataclass(frozen=True)
class BuildOptions:
    """What every build of a suite is asked for (`factory world`'s own options, passed through)."""

    tasks: int | None = None  # task drafts to propose (None: the world command's default)
    no_ui: bool = False  # skip the browser claims and the UI gate (quicker; the claims are then not a full pass)
    unsafe_sandbox: bool = False  # reward-gen without Linux namespaces (recorded in each manifest)

    def flags(self) -> list[str]:
        # --fresh: a checkpoint left by an interrupted run would resume it, and the build time would lie
        out = ["--fresh"]
        if self.tasks is not None:
            out += ["--tasks", str(self.tasks)]
        if self.no_ui:
            out.append("--no-ui")
        if self.unsafe_sandbox:
            out.append("--unsafe-sandbox")
        return out


class SuiteReport(BaseModel):
    """bench/suite.json: the rows of one suite run, and what it ran on."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SUITE_VERSION
    commit: str
    dirty: bool
    time: str
    lanes: int
    flags: list[str]
    seconds: float  # wall time of the whole run (lanes overlap the builds)
    worlds: list[SuiteWorld]

    @property
    def failed_builds(self) -> list[SuiteWorld]:
        return [w for w in self.worlds if w.error]


def suite_seeds(seeds: list[str] | None) -> list[Path]:
    """The seeds to build: those given (as absolute paths), else seeds/suite/*.yaml in name order."""
    if seeds:
        paths = [Path(s).resolve() for s in seeds]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise FactoryError(f"factory suite: no such seed file: {', '.join(missing)}")
        return paths
    found = sorted((REPO / SUITE_SEEDS).glob("*.yaml"))
    if not found:
        raise FactoryError(f"factory suite: no seeds in {SUITE_SEEDS}/ (or name them: --seeds seeds/mock.yaml)")
    return found


def world_name(seed: Path) -> str:
    """The directory the seed's world is built into (`world:` in the seed; its file name otherwise,
    so that a seed too broken to read still gets its row)."""
    try:
        data = yaml.safe_load(seed.read_text())
    except (OSError, yaml.YAMLError):
        return seed.stem
    name = data.get("world") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else seed.stem


def shown(path: Path) -> str:
    """A path as the repository spells it when it is inside it (rows read the same on every checkout)."""
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def build_one(seed: Path, out: Path, scratch: Path, options: BuildOptions) -> Path:
    """Build one seed's world under `out` in a process of its own; write and return its build record."""
    name = world_name(seed)
    scratch.mkdir(parents=True, exist_ok=True)
    log = scratch / f"{name}.log"
    command = [sys.executable, "-m", "factory", "world", str(seed), "--out", str(out), *options.flags()]
    started = time.time()
    clock = time.perf_counter()
    with log.open("wb") as sink:
        # unbuffered, so the log of a build stopped part-way holds what it said
        code = subprocess.run(command, cwd=REPO, stdout=sink, stderr=subprocess.STDOUT, check=False,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"}).returncode
    record = BuildRecord(seed=shown(seed), world=name, path=str(out / name), command=command, started=started,
                         seconds=time.perf_counter() - clock, exit_code=code, log=str(log))
    path = scratch / f"{name}.build.json"
    path.write_text(record.model_dump_json(indent=2) + "\n")
    return path


def run_suite(seeds: list[Path], out: Path, output: Path, lanes: int = 2, options: BuildOptions | None = None,
              say: Callable[[str], None] = progress_say) -> SuiteReport:
    """Build every seed (`lanes` at a time), collect a row per world, write `output`; return the report."""
    if lanes < 1:
        raise FactoryError(f"factory suite --lanes {lanes}: at least one lane")
    names = [world_name(s) for s in seeds]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:  # two seeds of one world would build into the same directory
        raise FactoryError(f"factory suite: seeds name the same world {', '.join(twice)}")
    options = options or BuildOptions()
    out, scratch = out.resolve(), scratch_dir(output)
    out.mkdir(parents=True, exist_ok=True)
    commit, dirty = commit_of(REPO)  # the commit the builds run on, read before they start
    say(f"suite: {len(seeds)} seeds on {lanes} lanes into {out} (logs in {scratch})")
    clock = time.perf_counter()

    def lane(seed: Path) -> Path:
        record = build_one(seed, out, scratch, options)
        built = read_record(record)
        verdict = "built" if built.exit_code == 0 else f"failed (exit code {built.exit_code}, log {built.log})"
        say(f"suite: {built.world} {verdict} in {built.seconds:.0f} s")
        return record

    with ThreadPoolExecutor(max_workers=lanes, thread_name_prefix="suite-lane") as pool:
        records = list(pool.map(lane, seeds))
    report = SuiteReport(commit=commit, dirty=dirty, time=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                         lanes=lanes, flags=options.flags(), seconds=round(time.perf_counter() - clock, 1),
                         worlds=[collect(read_record(r)) for r in records])
    write_suite(report, output)
    return report


def scratch_dir(output: Path) -> Path:
    """Where the build records and logs of a suite go: beside its output (bench/suite.json → bench/suite/)."""
    return output.resolve().with_suffix("")


def commit_of(repo: Path) -> tuple[str, bool]:
    """The checkout's commit, and whether its working tree differs from it (the suite ran on changes)."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "HEAD") or "unknown"
    return commit, bool(git("status", "--porcelain", "--untracked-files=no"))


def write_suite(report: SuiteReport, output: Path) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    # sorted keys, like the manifest: two runs' files differ only where their figures do
    output.write_text(json.dumps(report.model_dump(mode="json"), indent=2, sort_keys=True) + "\n")


def read_suite(path: Path) -> SuiteReport:
    return SuiteReport.model_validate_json(path.read_text())


def suite_summary(report: SuiteReport) -> dict[str, Any]:
    """The key figures of a suite run, as `make bench` records them in bench/results.json."""
    worlds = {w.world: {"accepted": w.accepted, "failed": sorted(w.failed), "error": w.error,
                        "build_seconds": w.build_seconds, "claims_passed": w.claims_passed,
                        "claims_total": w.claims_total, "repair_rounds": w.repair_rounds, "http_5xx": w.http_5xx,
                        "tasks_proposed": w.tasks_proposed, "tasks_accepted": w.tasks_accepted,
                        "uncovered_workflows": w.uncovered_workflows, "multi_action_share": w.multi_action_share,
                        "lint_hits": w.lint_hits}
              for w in report.worlds}
    return {"commit": report.commit, "dirty": report.dirty, "time": report.time, "flags": report.flags,
            "accepted": sum(w.accepted for w in report.worlds), "worlds": worlds}


__all__ = ["BuildOptions", "SuiteReport", "build_one", "commit_of", "read_suite", "run_suite", "scratch_dir",
           "suite_seeds", "suite_summary", "world_name", "write_suite"]
