"""`factory bundle verify X.tar.gz` (`make verify-bundle BUNDLE=...`): is this bundle what its
manifest says, and do its tasks still hold?

1. Files: every file listed in `bundle.json` is present with its SHA-256; none is missing, none is
   extra (a tampered, missing or extra file is named). bundle.json's spec hash is the spec's.
2. Gates, on all tasks or a seeded sample (`--sample N --seed S`), through the bundle's *own*
   episode server (`python -m episodes serve .` run from the unpacked bundle, so the shipped
   `episodes/` and `verifiers/` are the code under test): each task's initial state (its setup
   patch replayed) grades 0 with no answer; its golden steps, played over HTTP as the task's user,
   reach a state that grades 1 with the reference answer.

With `fresh_venv` (`--fresh-venv`), the server runs from a new virtual environment made in the
scratch folder holding only the bundle's `requirements.txt`, so the gates also show that the bundle
runs without the factory or anything of this checkout.

The gates are not run on a bundle whose files fail: its manifest can no longer be trusted.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from episodes.client import AgentSession, ClientError, EvaluatorClient
from factory.bundle.archive import read_tarball, unpack
from factory.bundle.errors import BundleRejected
from factory.bundle.manifest import BUNDLE_JSON, read_tasks, sha256
from factory.runtime.server import free_port, stop_process

START_TIMEOUT = 120.0  # the app is imported and the seed copied before /health answers; the machine may be busy
INSTALL_TIMEOUT = 1200.0  # a fresh venv's pip install of the bundle's requirements (wheels from PyPI)
# what would let a server find this checkout or its venv instead of the bundle's own code
_FOREIGN_ENV = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "WORLD_EVAL_TOKEN")


@dataclass(frozen=True)
class FileProblem:
    path: str
    problem: str  # tampered | missing | extra | inconsistent

    def describe(self) -> str:
        said = {"tampered": "its SHA-256 is not the one bundle.json lists (tampered)",
                "missing": "listed in bundle.json but not in the bundle (missing)",
                "extra": "in the bundle but not listed in bundle.json (extra)"}
        return f"{self.path}: {said.get(self.problem, self.problem)}"


@dataclass(frozen=True)
class TaskCheck:
    task_id: str
    task_type: str
    initial: float | None  # reward of the initial state, no answer (must be 0)
    golden: float | None  # reward after the golden steps, with the reference answer (must be 1)
    detail: str = ""

    @property
    def initial_ok(self) -> bool:
        return self.initial == 0.0

    @property
    def golden_ok(self) -> bool:
        return self.golden == 1.0


@dataclass
class VerifyReport:
    bundle: Path
    name: str = ""
    version: str = ""
    files_checked: int = 0
    problems: list[FileProblem] = field(default_factory=list)
    tasks_total: int = 0
    sample: int | None = None
    seed: int = 0
    gates_run: bool = False
    tasks: list[TaskCheck] = field(default_factory=list)
    seconds: float = 0.0
    venv_seconds: float | None = None  # with a fresh venv: making it and installing the requirements

    @property
    def ok(self) -> bool:
        return not self.problems and self.gates_run and all(t.initial_ok and t.golden_ok for t in self.tasks)

    def summary(self) -> list[str]:
        lines = [f"files: {self.files_checked} checked, {len(self.problems)} problems"]
        lines += [f"  {p.describe()}" for p in self.problems]
        if not self.gates_run:
            lines.append("tasks: gates not run (the files failed)" if self.problems else "tasks: gates not run")
        else:
            scope = (f"a sample of {len(self.tasks)} (seed {self.seed}) of {self.tasks_total}"
                     if self.sample is not None and len(self.tasks) < self.tasks_total else f"all {self.tasks_total}")
            lines.append(f"tasks: {len(self.tasks)} checked ({scope}): initial state 0 on "
                         f"{sum(t.initial_ok for t in self.tasks)}/{len(self.tasks)}, golden state 1 on "
                         f"{sum(t.golden_ok for t in self.tasks)}/{len(self.tasks)}")
            lines += [f"  {t.task_id}: initial {t.initial}, golden {t.golden}: {t.detail}"
                      for t in self.tasks if not (t.initial_ok and t.golden_ok)]
        if self.venv_seconds is not None:
            lines.append(f"server: run from a fresh venv holding only the bundle's requirements.txt "
                         f"(made and installed in {self.venv_seconds:.1f}s)")
        verdict = "verified" if self.ok else "REJECTED"
        lines.append(f"bundle {self.name}-{self.version}: {verdict} in {self.seconds:.1f}s")
        return lines


def check_files(files: Mapping[str, bytes], where: Path) -> tuple[dict[str, Any], list[FileProblem]]:
    """bundle.json, and every file that differs from it."""
    if BUNDLE_JSON not in files:
        raise BundleRejected(f"{where}: {BUNDLE_JSON} is missing; without it nothing in the bundle can be checked")
    try:
        info: dict[str, Any] = json.loads(files[BUNDLE_JSON])
        listed: dict[str, dict[str, Any]] = dict(info["files"])
    except (ValueError, KeyError, TypeError) as exc:
        raise BundleRejected(f"{where}: {BUNDLE_JSON} is not a bundle manifest ({type(exc).__name__}: {exc})") from exc
    problems: list[FileProblem] = []
    for path in sorted(set(listed) | set(files) - {BUNDLE_JSON}):
        if path not in files:
            problems.append(FileProblem(path, "missing"))
        elif path not in listed:
            problems.append(FileProblem(path, "extra"))
        elif sha256(files[path]) != listed[path].get("sha256"):
            problems.append(FileProblem(path, "tampered"))
    spec = files.get("spec.json")
    if spec is not None and sha256(spec) != info.get("spec_sha256"):
        problems.append(FileProblem(f"{BUNDLE_JSON}: spec_sha256", "inconsistent: not the SHA-256 of spec.json"))
    return info, problems


def choose(records: list[dict[str, Any]], sample: int | None, seed: int) -> list[dict[str, Any]]:
    """All tasks, or `sample` of them chosen by `seed` (in corpus order)."""
    if sample is None or sample >= len(records):
        return records
    if sample < 1:
        raise BundleRejected(f"--sample {sample}: at least one task")
    picked = set(random.Random(seed).sample(range(len(records)), sample))
    return [r for i, r in enumerate(records) if i in picked]


@dataclass(frozen=True)
class BundleServer:
    eval_url: str
    agent_url: str
    token: str


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in _FOREIGN_ENV}


def fresh_venv(root: Path, where: Path) -> Path:
    """A new virtual environment at `where` with only the unpacked bundle's requirements; its python."""
    made = subprocess.run([sys.executable, "-m", "venv", str(where)], env=_clean_env(), capture_output=True, text=True,
                          timeout=300)
    if made.returncode != 0:
        raise BundleRejected(f"could not make a venv at {where}: {(made.stderr or made.stdout)[-1000:]}")
    python = where / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r",
                                "requirements.txt"], cwd=root, env=_clean_env(), capture_output=True, text=True,
                               timeout=INSTALL_TIMEOUT)
    if installed.returncode != 0:
        raise BundleRejected(f"pip could not install the bundle's requirements.txt in a fresh venv: "
                             f"{(installed.stderr or installed.stdout)[-2000:]}")
    return python


@contextmanager
def serve_bundle(root: Path, scratch: Path, python: Path | None = None) -> Iterator[BundleServer]:
    """The unpacked bundle served by its own `episodes/` (run from its folder, no PYTHONPATH), with
    this interpreter or `python` (a fresh venv's)."""
    port, eval_port = free_port(), free_port()
    token = secrets.token_urlsafe(24)
    log = scratch / "episodes.log"
    env = {**_clean_env(), "WORLD_EVAL_TOKEN": token}  # not on the command line, which every local user can read
    command = [str(python or sys.executable), "-m", "episodes", "serve", ".", "--port", str(port), "--eval-port",
               str(eval_port), "--work", str(scratch / "work")]
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    served = BundleServer(f"http://127.0.0.1:{eval_port}", f"http://127.0.0.1:{port}", token)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                raise BundleRejected(f"the bundle's episode server exited with code {process.returncode}: "
                                     f"{log.read_text()[-2000:]}")
            try:
                if httpx.get(served.eval_url + "/health", headers={"Authorization": f"Bearer {token}"},
                             timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise BundleRejected(f"the bundle's episode server did not answer in {START_TIMEOUT:.0f}s: "
                                     f"{log.read_text()[-2000:]}")
            time.sleep(0.1)  # polling a readiness probe
        yield served
    finally:
        stop_process(process)


def check_task(evaluator: EvaluatorClient, task: Mapping[str, Any]) -> TaskCheck:
    """One task's two gates on a fresh episode of the served bundle."""
    task_id, kind = str(task["id"]), str(task["task_type"])
    initial: float | None = None
    try:
        episode = evaluator.create(task_id=task_id)
        try:
            initial = float(evaluator.grade(episode["episode_id"], None)["reward"])
            with AgentSession(episode["launch_url"]) as agent:
                for step in task.get("golden_steps") or []:
                    agent.workflow(str(step["workflow"]), dict(step["params"]))
            graded = evaluator.grade(episode["episode_id"], task.get("reference_answer"))
        finally:
            evaluator.close(episode["episode_id"])
    except ClientError as exc:
        return TaskCheck(task_id, kind, initial, None, f"{type(exc).__name__}: {exc}")
    golden = float(graded["reward"])
    return TaskCheck(task_id, kind, initial, golden, "" if golden == 1.0 else str(graded.get("explanation", ""))[:400])


def verify_bundle(path: str | Path, sample: int | None = None, seed: int = 0, gates: bool = True,
                  scratch: Path | None = None, venv: bool = False) -> VerifyReport:
    """Check a bundle's files, then (unless they fail, or `gates` is false) its tasks' gates; with
    `venv`, through a server run from a fresh venv holding only the bundle's requirements."""
    started = time.perf_counter()
    report = VerifyReport(Path(path), sample=sample, seed=seed)
    _top, files = read_tarball(report.bundle)
    info, report.problems = check_files(files, report.bundle)
    report.name, report.version = str(info.get("name", "")), str(info.get("version", ""))
    report.files_checked = len(set(files) | set(info["files"]))
    if report.problems or not gates:
        report.seconds = time.perf_counter() - started
        return report
    records = read_tasks(files["tasks/tasks.jsonl"].decode(), "tasks/tasks.jsonl")
    report.tasks_total = len(records)
    chosen = choose(records, sample, seed)
    with tempfile.TemporaryDirectory(prefix="verify-bundle-", dir=scratch) as tmp:
        root = unpack(files, Path(tmp) / "bundle")
        python = None
        if venv:
            made = time.perf_counter()
            python = fresh_venv(root, Path(tmp) / "venv")
            report.venv_seconds = time.perf_counter() - made
        with serve_bundle(root, Path(tmp), python) as served, EvaluatorClient(served.eval_url, served.token) as evaluator:
            report.tasks = [check_task(evaluator, task) for task in chosen]
    report.gates_run = True
    report.seconds = time.perf_counter() - started
    return report
