"""reward-gen's job runner: one sandboxed child per distinct job, `workers` at a time.

`run_jobs` gives every distinct job (goal, acting user, initial database) a fresh folder holding
exactly its inputs (`job.json`: an opaque job id and the instruction; `spec.json`; `initial.db`,
a copy of that task's initial state) and runs `factory.tasks.reward.gen.child_main` on it inside
the sandbox of `factory.tasks.reward.sandbox`. The parent adds a wall clock and reads at most
`output_bytes` of the result; an exceeded limit fails the job with kind "limit" and a message
naming the limit. The result comes back as one JSON document on the child's stdout (a pipe) and is
validated here (`verifiers.reward.load_reward`) before anyone uses it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import select
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from episodes.dbfiles import copy_db
from factory.errors import TaskError
from factory.tasks.reward.sandbox import (
    CODE_ROOT,
    COMMON,
    Limits,
    library_layout,
    namespace_options,
    require_sandbox,
)

log = logging.getLogger(__name__)
KINDS = frozenset({"isolation", "parse", "ambiguous", "unresolved", "infeasible", "task", "error", "limit"})
CHILD = "import sys; from factory.tasks.reward.gen import child_main; sys.exit(child_main(sys.argv[1:]))"
JOB_MOUNT = "/job"  # where a job's folder appears inside its namespace
LOG_TAIL = 1500  # bytes of a failed job's stderr quoted in its error



@dataclass(frozen=True)
class Job:
    """One distinct reward-gen job: what its sandbox holds, and the tasks that share it."""

    key: str  # opaque: a hash of the job's own inputs, never the task id (which names the workflow)
    goal: str
    user: str
    db: Path  # the initial database on the host
    tasks: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    """What a child left behind: its stdout (the result), why it was stopped, how it ended."""

    out: bytes
    stopped: str | None  # "wall" or "output" when the parent killed it
    code: int | None  # exit code; -N or 128+N (bwrap) for a signal
    cpu: float
    wall: float
    log_tail: str


def _jobs(jobs: Sequence[dict[str, Any]]) -> list[Job]:
    """Group tasks by their inputs: tasks with the same goal, user and initial state share a job."""
    digests: dict[Path, str] = {}
    grouped: dict[str, Job] = {}
    for index, raw in enumerate(jobs):
        where = f"reward-gen job {index}"
        missing = [k for k in ("id", "goal", "user", "initial_db") if k not in raw]
        if missing:
            raise TaskError(f"{where}: missing {', '.join(missing)}")
        if not all(isinstance(raw[k], str) for k in ("id", "goal", "user")):
            raise TaskError(f"{where} ({raw['id']!r}): id, goal and user must be strings")
        db = Path(raw["initial_db"]).resolve()
        if not db.is_file():
            raise TaskError(f"{where} ({raw['id']}): initial database {db} does not exist")
        if db not in digests:
            digests[db] = hashlib.sha256(db.read_bytes()).hexdigest()
        key = hashlib.sha256(json.dumps([raw["goal"], raw["user"], digests[db]]).encode()).hexdigest()[:16]
        if key in grouped:
            grouped[key] = Job(key, raw["goal"], raw["user"], db, (*grouped[key].tasks, raw["id"]))
        else:
            grouped[key] = Job(key, raw["goal"], raw["user"], db, (raw["id"],))
    return list(grouped.values())


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


class Batch:
    """Runs the jobs of one `run_rewardgen` call, each in its own sandbox."""

    def __init__(self, spec_path: Path, folder: Path, policy: str, policy_path: Path | None, mode: str,
                 limits: Limits, bwrap: str | os.PathLike[str] | None) -> None:
        require_sandbox(mode, bwrap)
        self.spec = spec_path.read_bytes()
        self.folder, self.policy, self.mode, self.limits = folder, policy, mode, limits
        self.policy_path = policy_path.resolve() if policy_path is not None else None
        if self.policy_path is not None and not self.policy_path.is_dir():
            raise TaskError(f"reward-gen policy_path {self.policy_path} is not a folder")
        self.cancel = threading.Event()  # set when the caller stops waiting: kill what runs
        self.bwrap, self.namespaces = namespace_options(bwrap) if mode == "bwrap" else ("", [])
        binds, self.links = library_layout()
        code: list[str | Path] = [sys.base_prefix, sys.prefix, sys.base_exec_prefix, sys.exec_prefix,
                                  CODE_ROOT / "factory", CODE_ROOT / "verifiers"]
        if self.policy_path is not None:
            code.append(self.policy_path)
        self.code = sorted({str(Path(p).resolve()) for p in code})  # read-only, at their own paths
        # Parents first, so a folder bound inside another one is mounted over it, not under it.
        self.binds = sorted(set(binds) | set(self.code), key=lambda p: (p.count("/"), p))
        site = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
        self.pythonpath = [str(CODE_ROOT), *sorted(site), *([str(self.policy_path)] if self.policy_path else [])]
        self.jobs_dir = Path(tempfile.mkdtemp(prefix="rewardgen-"))  # a neutral host path (seen in mountinfo)

    def check_policy_path(self, jobs: list[Job]) -> None:
        """A policy folder is bound whole: refuse one that holds the run's own files."""
        if self.policy_path is None:
            return
        for secret in (self.folder.resolve(), *(j.db for j in jobs)):
            if _within(secret, self.policy_path):
                raise TaskError(f"reward-gen policy_path {self.policy_path} holds {secret}, which would be "
                                "visible inside the sandbox; put the policy module in a folder of its own")

    def close(self) -> None:
        shutil.rmtree(self.jobs_dir, ignore_errors=True)

    # ------------------------------------------------------------ one job ---------------------

    def run(self, job: Job) -> dict[str, Any]:
        """Run one job in a fresh sandbox and return its validated result."""
        folder = self.jobs_dir / job.key
        folder.mkdir()
        try:
            (folder / "job.json").write_text(json.dumps(
                {"job": job.key, "instruction": {"goal": job.goal, "user": job.user}}, sort_keys=True))
            (folder / "spec.json").write_bytes(self.spec)
            copy_db(job.db, folder / "initial.db")
            outcome = self._execute(job, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        result = self._verdict(outcome)
        log.debug("reward-gen job %s (%d task(s)): %s in %.2f s wall, %.2f s CPU", job.key, len(job.tasks),
                  "ok" if result["ok"] else result["kind"], outcome.wall, outcome.cpu)
        return result

    def _child_args(self, job_dir: str) -> list[str]:
        # The hook allows the job folder and the code, not /tmp: under bwrap /tmp is the sandbox's
        # own, but a host path below /tmp (a test's run folder) must still be reported as a reach.
        config = {"limits": self.limits.for_child(), "roots": [job_dir, *self.code]}
        return [sys.executable, "-S", "-P", "-c", CHILD, job_dir, self.policy, self.mode,
                json.dumps(config, sort_keys=True)]

    def _env(self) -> dict[str, str]:
        return {"PYTHONPATH": os.pathsep.join(self.pythonpath), "PYTHONHASHSEED": "0", "LANG": "C.UTF-8",
                "PYTHONDONTWRITEBYTECODE": "1", "HOME": "/tmp" if self.mode == "bwrap" else "/nonexistent",
                "PYDANTIC_DISABLE_PLUGINS": "__all__"}  # no entry-point scan, no third-party plugin code

    def _bwrap_options(self, folder: Path) -> list[str]:
        # /tmp first: code bound below it (a checkout or a policy folder in /tmp) is mounted over it.
        options = [*self.namespaces, *COMMON, "--hostname", "rewardgen",
                   "--size", str(self.limits.tmp_bytes), "--tmpfs", "/tmp"]
        for target, link in self.links:
            options += ["--symlink", target, link]
        for path in self.binds:
            options += ["--ro-bind", path, path]
        options += ["--proc", "/proc", "--dev", "/dev", "--ro-bind", str(folder), JOB_MOUNT, "--chdir", JOB_MOUNT,
                    "--remount-ro", "/dev", "--remount-ro", "/"]
        for name, value in self._env().items():
            options += ["--setenv", name, value]
        return options

    def _execute(self, job: Job, folder: Path) -> Outcome:
        log_path = self.folder / "logs" / f"{job.key}.log"
        args_read = -1
        start = time.monotonic()
        try:
            with log_path.open("wb") as log_file:
                if self.mode == "bwrap":
                    # The options go through a pipe (`--args`), so the sandbox's /proc/1/cmdline
                    # shows no host path; bwrap closes that descriptor before it runs the child.
                    args_read, args_write = os.pipe()
                    with os.fdopen(args_write, "wb") as w:
                        w.write(b"".join(a.encode() + b"\0" for a in self._bwrap_options(folder)))
                    command = [self.bwrap, "--args", str(args_read), "--", *self._child_args(JOB_MOUNT)]
                    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            stderr=log_file, env={}, close_fds=True, pass_fds=(args_read,),
                                            start_new_session=True)
                else:
                    proc = subprocess.Popen(self._child_args(str(folder)), stdin=subprocess.DEVNULL,
                                            stdout=subprocess.PIPE, stderr=log_file, env=self._env(),
                                            cwd=folder, close_fds=True, start_new_session=True)
        finally:
            if args_read >= 0:
                os.close(args_read)
        child = _Child(proc)
        try:
            out, stopped = self._collect(child, start + self.limits.wall_seconds)
            if not child.wait(time.monotonic() + 5):  # it closed its stdout but lives on: stop it
                child.kill()
        finally:
            if child.code is None:
                child.kill()
            assert proc.stdout is not None
            proc.stdout.close()
        tail = _tail(log_path)
        log_path.unlink(missing_ok=True)
        return Outcome(out, stopped, child.code, child.cpu, time.monotonic() - start, tail)

    def _collect(self, child: _Child, deadline: float) -> tuple[bytes, str | None]:
        """Read the child's stdout until it closes; kill it at the wall clock or past the output cap."""
        assert child.proc.stdout is not None
        fd = child.proc.stdout.fileno()
        os.set_blocking(fd, False)
        chunks: list[bytes] = []
        size = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or self.cancel.is_set():
                child.kill()
                return b"".join(chunks), "wall"
            readable, _, _ = select.select([fd], [], [], min(left, 0.1))
            if not readable:
                if child.exited():
                    # The child is gone but something it left holds the pipe open (unsafe mode):
                    # take what is there and stop waiting.
                    chunks.append(_drain(fd))
                    return b"".join(chunks), None
                continue
            try:
                data = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not data:
                return b"".join(chunks), None
            size += len(data)
            if size > self.limits.output_bytes:
                child.kill()
                return b"", "output"
            chunks.append(data)

    # ------------------------------------------------------------ results ---------------------

    def _verdict(self, o: Outcome) -> dict[str, Any]:
        """The job's result, checked: {ok, reward} or {ok: False, kind, error}."""
        lim = self.limits
        if o.stopped == "wall":
            return _failure("limit", f"wall-clock time: the job ran longer than {lim.wall_seconds:g} s and was killed")
        if o.stopped == "output":
            return _failure("limit", f"output size: the job wrote more than {lim.output_bytes} bytes of result "
                                     "and was killed")
        sig = _signal_of(o.code, self.mode)
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and o.cpu >= lim.cpu_seconds - 0.25):
            return _failure("limit", f"CPU time: the job used {o.cpu:.1f} s of CPU, over RLIMIT_CPU "
                                     f"{lim.cpu_seconds} s, and was killed")
        if sig == signal.SIGXFSZ:
            return _failure("limit", f"file size: the job wrote past RLIMIT_FSIZE {lim.file_bytes} bytes")
        if not o.out.strip():
            how = f"signal {signal.Signals(sig).name}" if sig else f"exit status {o.code}"
            return _failure("error", f"reward-gen ended with {how} and no result; its stderr ends: "
                                     f"{o.log_tail or '(empty)'}")
        return _checked(o.out)


def _failure(kind: str, error: str) -> dict[str, Any]:
    return {"ok": False, "kind": kind, "error": error}


def _checked(raw: bytes) -> dict[str, Any]:
    """Validate what a child printed; a sandboxed policy is not trusted to say anything sound."""
    from verifiers.errors import RewardProgramError
    from verifiers.reward import load_reward

    try:
        data = json.loads(raw)
    except ValueError as exc:  # also bad UTF-8
        return _failure("error", f"reward-gen's result is not JSON ({exc}): {raw[:200]!r}")
    if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
        return _failure("error", f"reward-gen's result is not {{ok: true|false, ...}}: {raw[:200]!r}")
    if data["ok"]:
        reward = data.get("reward")
        if not isinstance(reward, dict):
            return _failure("error", f"reward-gen returned no reward program object: {raw[:200]!r}")
        try:
            load_reward(reward)
        except RewardProgramError as exc:
            return _failure("error", f"reward-gen returned an invalid reward program: {exc}"[:2000])
        return {"ok": True, "reward": reward}
    kind, error = data.get("kind"), data.get("error")
    if kind not in KINDS or not isinstance(error, str):
        return _failure("error", f"reward-gen reported a malformed failure: {raw[:300]!r}")
    return _failure(kind, error[:2000])


def _signal_of(code: int | None, mode: str) -> int | None:
    if code is None:
        return None
    if code < 0:
        return -code
    if mode == "bwrap" and code > 128:  # bwrap exits 128+N when its child dies of signal N
        return code - 128
    return None


class _Child:
    """A running child and, once reaped, its exit code and CPU time (from wait4, so the CPU time
    of every process its namespace reaped is included)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.code: int | None = None  # -N or, under bwrap, 128+N for a signal
        self.cpu = 0.0

    def _reaped(self, status: int, usage: Any) -> None:
        self.code = os.waitstatus_to_exitcode(status)
        self.cpu = usage.ru_utime + usage.ru_stime
        self.proc.returncode = self.code  # reaped here: Popen must not wait for it again

    def exited(self) -> bool:
        if self.code is None:
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:
                self._reaped(status, usage)
        return self.code is not None

    def wait(self, deadline: float) -> bool:
        """Whether it exited before `deadline` (polled: wait4 has no timeout)."""
        delay = 0.0005
        while not self.exited():
            if time.monotonic() >= deadline:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.02)
        return True

    def kill(self) -> None:
        """Kill its process group (bwrap, whose namespace dies with it, or the unsafe child) and reap it."""
        if self.code is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        _pid, status, usage = os.wait4(self.proc.pid, 0)
        self._reaped(status, usage)


def _drain(fd: int) -> bytes:
    chunks = []
    while True:
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - LOG_TAIL))
            return handle.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


def run_jobs(spec_path: Path, jobs: Sequence[dict[str, Any]], folder: Path, policy: str,
             policy_path: Path | None, mode: str, limits: Limits, workers: int,
             bwrap: str | os.PathLike[str] | None = None) -> dict[str, dict[str, Any]]:
    """Run reward-gen for `jobs` (each: id, goal, user, initial_db), one sandbox per distinct job,
    `workers` at a time; results by task id. `folder` keeps each run's logs and results.json."""
    if workers < 1:
        raise TaskError(f"reward-gen workers must be at least 1, not {workers}")
    started, cpu0 = time.monotonic(), _children_cpu()
    batch = Batch(spec_path, folder, policy, policy_path, mode, limits, bwrap)
    try:
        distinct = _jobs(jobs)
        batch.check_policy_path(distinct)
        if folder.exists():
            shutil.rmtree(folder)
        (folder / "logs").mkdir(parents=True)
        with ThreadPoolExecutor(max_workers=max(1, min(workers, len(distinct)))) as pool:
            try:
                verdicts = list(pool.map(batch.run, distinct))
            except BaseException:
                batch.cancel.set()  # Ctrl-C or a failure: kill the sandboxes still running
                raise
    finally:
        batch.close()
    results = {task: dict(verdict) for job, verdict in zip(distinct, verdicts, strict=True) for task in job.tasks}
    (folder / "results.json").write_text(json.dumps(
        {task: {"job": job.key, **verdict} for job, verdict in zip(distinct, verdicts, strict=True)
         for task in job.tasks}, indent=1, sort_keys=True))
    log.info("reward-gen: %d task(s) in %d %s sandbox(es), %d at a time: %.1f s wall, %.1f s CPU",
             len(results), len(distinct), mode, workers, time.monotonic() - started, _children_cpu() - cpu0)
    return results


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
