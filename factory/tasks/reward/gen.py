"""reward-gen: write a task's reward program from its instruction alone, in a sandbox of its own.

Isolation is by construction and enforced by the kernel. `run_rewardgen` gives each task (each
distinct goal, acting user and initial state) a fresh folder holding exactly its inputs: an opaque
job id (a hash of those inputs, never the task id, which names the workflow), the instruction
(goal text and acting username), the spec, and a copy of that task's initial database. It runs
`child_main` on that folder inside bubblewrap (`factory.tasks.reward.sandbox`): its own user, PID,
network (loopback only), IPC, UTS and cgroup namespaces, no capabilities, a cleared environment,
and a filesystem holding only the Python installation, the `factory/` and `verifiers/` packages
and the policy folder (read-only), a fresh `/proc`, a minimal `/dev`, a small `/tmp` and the job
folder (read-only, at `/job`). No other task, no golden state and no host path exists in there;
one task per sandbox, two sandboxes at a time.

The child sets its limits (CPU time, address space, file size, processes; no core files), reads
its inputs, installs an audit hook, and only then imports the policy, so the policy's import-time
code is confined like the rest. The hook turns Python-level reaches outside the sandbox (files,
directories, databases, processes, sockets) into a clear "isolation" failure that names the
attempt; the namespaces stop what the hook cannot see (libc through ctypes, ATTACH and VACUUM INTO
in SQLite, hard links, `os.stat`). The result, the reward program or {ok: false, kind, error},
is one JSON document on stdout; the parent reads at most a bounded amount of it and validates it.
A job over a limit fails with kind "limit" and a message naming the limit.

Where bwrap is missing or cannot make namespaces, reward-gen refuses to run
(`SandboxUnavailableError`), unless the caller chose mode "unsafe" (`--unsafe-sandbox`, recorded
in the world's manifest): then each job is a plain child process (one per job, environment
scrubbed) whose audit hook also refuses ctypes and SQLite ATTACH / VACUUM INTO, which is best
effort only (`os.stat` still sees the host, and a determined policy can defeat an audit hook).

The deterministic policy parses the instruction with the spec's phrasing grammar, resolves every
named row against the initial database (unresolved or ambiguous names fail the task), then:
READ → an `answer` check plus "nothing changed"; WRITE / READ_WRITE → the declared effects,
predicted by the independent interpreter in `factory.predict.effects`, as row checks plus a
`diff_within` that forbids every other change; a READ_WRITE that acts and then asks about the
result also gets an `answer` check, computed on the predicted database after the actions.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factory.errors import FactoryError, PredictionError, TaskError
from factory.predict.after import view_after
from factory.predict.effects import predict, reward_checks
from factory.predict.rows import UserView
from factory.runtime.step import Step
from factory.spec.model import Spec
from factory.tasks.language.asks import MADE, AskStep, RefText
from factory.tasks.language.phrasing import Ask, ParseError, parse
from factory.tasks.language.resolve import AmbiguousError, UnresolvedError, answer, steps_of

if TYPE_CHECKING:
    from factory.tasks.language.answer import Answer
    from factory.tasks.reward.sandbox import Limits

# A policy maps (instruction, spec, initial database) to a reward program (JSON form).
Policy = Callable[[dict[str, Any], Spec, Path], dict[str, Any]]
DEFAULT_POLICY = "factory.tasks.reward.gen:deterministic_policy"


class RewardGenError(TaskError):
    """The policy could not write a sound reward for an instruction; `kind` says why."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message)


class IsolationError(TaskError):
    """reward-gen tried to reach something outside its sandbox."""


def deterministic_policy(instruction: dict[str, Any], spec: Spec, db: Path) -> dict[str, Any]:
    """The offline policy: grammar parse, strict resolution, predicted effects."""
    user = next((u for u in spec.users if u.username == instruction["user"]), None)
    if user is None:
        raise RewardGenError("task", f"unknown acting user {instruction['user']!r}")
    try:
        ask = parse(spec, instruction["goal"])
    except ParseError as exc:
        raise RewardGenError("parse", str(exc)) from exc
    world = UserView.open(spec, db)
    try:
        if ask.question is not None and ask.steps:
            return _act_and_report(spec, db, world, ask, user.id)
        if ask.question is not None:
            found = answer(world, ask.question, user.id)
            check = answer_check(found, "the answer matches the database")
            return {"schema_version": 1, "mode": "all", "checks": [
                check, {"id": "nothing_changed", "type": "diff_within", "allowed": {},
                        "description": "a question changes nothing"}]}
        steps = _resolved_steps(spec, db, world, ask, user.id)
    except AmbiguousError as exc:
        raise RewardGenError("ambiguous", str(exc)) from exc
    except UnresolvedError as exc:
        raise RewardGenError("unresolved", str(exc)) from exc
    finally:
        world.close()
    try:
        prediction = predict(spec, db, user.id, steps)
    except FactoryError as exc:  # the interpreter says the app would refuse these values
        raise RewardGenError("infeasible", str(exc)) from exc
    if prediction.failed:
        raise RewardGenError("infeasible", "the app would refuse: " + "; ".join(prediction.failed))
    checks = reward_checks(spec, db, prediction)
    return {"schema_version": 1, "mode": "all", "checks": checks}


def _resolved_steps(spec: Spec, db: Path, world: UserView, ask: Ask, user_id: int) -> list[Step]:
    """The API steps of `ask`, every named row resolved on the initial database; failing that, each
    step's rows on the database as the steps before it leave it (predicted, in memory), so an
    errand may name a row its first action creates ("schedule …, then cancel the payment … ")."""
    try:
        return steps_of(world, ask, user_id)
    except UnresolvedError:
        if len(ask.steps) < 2:
            raise
    steps: list[Step] = []
    for ask_step in ask.steps:
        view = world
        if steps:
            try:
                prediction = predict(spec, db, user_id, steps)
            except FactoryError as exc:
                raise RewardGenError("infeasible", str(exc)) from exc
            if prediction.failed:
                raise RewardGenError("infeasible", "the app would refuse: " + "; ".join(prediction.failed))
            try:
                view = view_after(spec, db, prediction)
            except PredictionError as exc:
                raise RewardGenError("infeasible", str(exc)) from exc
        try:
            steps += steps_of(view, Ask(ask.kind, steps=(ask_step,)), user_id, _made(spec, world, view, ask_step))
        finally:
            if view is not world:
                view.close()
    return steps


def _made(spec: Spec, before: UserView, after: UserView, step: AskStep) -> dict[str, int]:
    """For each entity `step` says "it" of ("…, then cancel it"), the id of the one row it gained
    from `before` to `after`; an entity that gained none or several has none."""
    workflow = next(w for w in spec.workflows if w.name == step.workflow)
    said_it = {p.ref for p in workflow.params if p.ref and isinstance(a := step.args.get(p.name), RefText)
               and a.by == MADE}
    made: dict[str, int] = {}
    for entity in sorted(said_it) if after is not before else ():
        new = {r["id"] for r in after.rows(entity)} - {r["id"] for r in before.rows(entity)}
        if len(new) == 1:
            made[entity] = new.pop()
    return made


def answer_check(found: Answer, description: str) -> dict[str, Any]:
    """The `answer` check of a READ: its kind and value, the row's further names, and for an
    amount in another currency than US dollars its ISO code (read in that currency)."""
    check: dict[str, Any] = {"id": "answer", "type": "answer", "kind": found.kind, "expected": found.value,
                             "description": description}
    if found.aliases:
        check["aliases"] = list(found.aliases)
    if found.currency:
        check["currency"] = found.currency
    return check


def _act_and_report(spec: Spec, db: Path, world: UserView, ask: Ask, user_id: int) -> dict[str, Any]:
    """READ_WRITE that acts, then answers a question about the result: the declared effects'
    checks, and an answer check computed on the database the effects leave (in memory)."""
    assert ask.question is not None
    steps = _resolved_steps(spec, db, world, ask, user_id)
    try:
        prediction = predict(spec, db, user_id, steps)
        if prediction.failed:
            raise RewardGenError("infeasible", "the app would refuse: " + "; ".join(prediction.failed))
        after = view_after(spec, db, prediction)
    except FactoryError as exc:
        raise RewardGenError("infeasible", str(exc)) from exc
    try:
        found = answer(after, ask.question, user_id)
    finally:
        after.close()
    check = answer_check(found, "the answer matches the database after the task's actions")
    return {"schema_version": 1, "mode": "all", "checks": [*reward_checks(spec, db, prediction), check]}


def load_policy(name: str) -> Policy:
    """Import `module:function` (inside the sandbox: after the guard, so import-time code is confined)."""
    module, sep, attr = name.partition(":")
    if not sep or not module or not attr:
        raise RewardGenError("error", f"policy {name!r} is not written as module:function")
    found = getattr(importlib.import_module(module), attr, None)
    if not callable(found):
        raise RewardGenError("error", f"policy {name!r}: module {module} has no function {attr}")
    return found


# ---------------------------------------------------------------- the sandbox (child side) -----

# Audit events that name a path (or two) the process would touch; the hook checks each one.
PATH_EVENTS = frozenset({
    "open", "os.listdir", "os.scandir", "os.chdir", "os.mkdir", "os.rmdir", "os.remove", "os.rename",
    "os.link", "os.symlink", "os.truncate", "os.chmod", "os.chown", "os.utime", "os.listxattr",
    "os.getxattr", "os.setxattr", "os.removexattr", "sqlite3.connect", "shutil.copyfile",
    "shutil.copymode", "shutil.copystat", "shutil.copytree", "shutil.move", "shutil.rmtree",
    "shutil.chown", "glob.glob"})
TWO_PATHS = frozenset({"os.link", "os.symlink", "os.rename", "shutil.copyfile", "shutil.copymode",
                       "shutil.copystat", "shutil.copytree", "shutil.move"})
REFUSED = frozenset({
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "pty.spawn", "os.kill", "os.killpg", "signal.pthread_kill", "socket.connect", "socket.bind",
    "socket.sendto", "socket.sendmsg", "webbrowser.open"})


def install_guard(roots: Sequence[str], hardened: bool = False) -> None:
    """Refuse, by audit hook, every file, directory, database, process and socket outside `roots`.

    Under bwrap this only makes failures clear (the namespace already hides the host). In unsafe
    mode (`hardened`) it is all there is, so it also refuses ctypes and gives every SQLite
    connection a limit of zero attached databases (no ATTACH, no VACUUM INTO). Best effort: a
    policy that finds the original `_sqlite3.connect` gets around the latter."""
    allowed = tuple(sorted({os.path.realpath(r) for r in roots}))

    def inside(path: object) -> bool:
        if isinstance(path, int):  # a descriptor this process already holds
            return True
        if not isinstance(path, str | bytes | os.PathLike):
            return False
        text = os.fsdecode(path)
        if text.startswith("file:"):
            text = text[5:].split("?", 1)[0]
        if text in ("", ":memory:", "/dev/null", "/dev/urandom"):
            return True
        real = os.path.realpath(text)
        return any(real == r or real.startswith(r + os.sep) for r in allowed)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in PATH_EVENTS and args:
            for path in args[:2] if event in TWO_PATHS else args[:1]:
                if path is not None and not inside(path):
                    raise IsolationError(f"reward-gen may not reach {path!r} ({event})")
        elif event in REFUSED:
            raise IsolationError(f"reward-gen may not use {event}")
        elif hardened and event.startswith("ctypes."):
            raise IsolationError(f"reward-gen may not use {event} (unsafe sandbox)")

    if hardened:
        _no_attached_databases()
    sys.addaudithook(hook)


def _no_attached_databases() -> None:
    """Every SQLite connection opened through `sqlite3.connect` may attach no database, which
    refuses ATTACH and VACUUM INTO (it attaches its target); neither is an audit event."""
    import sqlite3
    import sqlite3.dbapi2

    connect = sqlite3.connect

    def limited(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        return conn

    sqlite3.connect = sqlite3.dbapi2.connect = limited  # type: ignore[assignment]  # same call, a plainer signature


def _set_limits(limits: dict[str, int], sandboxed: bool) -> None:
    import resource

    # Soft = hard: SIGKILL at the limit (a SIGXCPU first could be ignored, and is, by a PID 1).
    resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu"], limits["cpu"]))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory"], limits["memory"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file"], limits["file"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file of a crashed policy
    if sandboxed:  # counted per user namespace there; outside it would count all the user's processes
        resource.setrlimit(resource.RLIMIT_NPROC, (limits["processes"], limits["processes"]))


def _run_job(job_dir: Path, policy_name: str, roots: Sequence[str], hardened: bool) -> dict[str, Any]:
    """Read the job's inputs, guard, import the policy, run it: the result as a JSON-ready dict."""
    try:
        job = json.loads((job_dir / "job.json").read_text())
        spec_text = (job_dir / "spec.json").read_text()
        install_guard(roots, hardened)
        policy = load_policy(policy_name)
        spec = Spec.model_validate_json(spec_text)
        reward = policy(dict(job["instruction"]), spec, job_dir / "initial.db")
        return {"ok": True, "reward": reward}
    except IsolationError as exc:
        return {"ok": False, "kind": "isolation", "error": str(exc)}
    except RewardGenError as exc:
        return {"ok": False, "kind": exc.kind, "error": str(exc)}
    except MemoryError:
        return {"ok": False, "kind": "limit", "error": "memory: an allocation failed at the address-space "
                                                       "limit (RLIMIT_AS)"}
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            return {"ok": False, "kind": "limit", "error": f"file size: a write went past RLIMIT_FSIZE ({exc})"}
        return {"ok": False, "kind": "error", "error": f"{type(exc).__name__}: {exc}"}
    except Exception as exc:  # noqa: BLE001 - any failure of a policy is this task's failure only
        return {"ok": False, "kind": "error", "error": f"{type(exc).__name__}: {exc}"}


def child_main(argv: Sequence[str]) -> int:
    """Run one job inside its sandbox: `JOB_DIR POLICY MODE CONFIG` (CONFIG: JSON with the limits
    and the roots the audit hook allows). Writes the result as JSON on stdout."""
    job_dir, policy_name, mode, config = Path(argv[0]), argv[1], argv[2], json.loads(argv[3])
    # The result goes to a private copy of stdout; whatever the policy prints goes to stderr.
    result_fd = os.dup(1)
    os.dup2(2, 1)
    _set_limits(config["limits"], sandboxed=mode == "bwrap")
    result = _run_job(job_dir, policy_name, config["roots"], hardened=mode != "bwrap")
    try:
        text = json.dumps(result, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        text = json.dumps({"ok": False, "kind": "error", "error": f"the reward is not JSON: {exc}"})
    except MemoryError:
        text = json.dumps({"ok": False, "kind": "limit", "error": "memory: the result does not fit RLIMIT_AS"})
    with os.fdopen(result_fd, "w", encoding="utf-8") as out:
        out.write(text)
    return 0


# ---------------------------------------------------------------- the parent side --------------

def run_rewardgen(spec_path: Path, jobs: list[dict[str, Any]], sandbox: Path,
                  policy: str = DEFAULT_POLICY, policy_path: Path | None = None,
                  timeout: float | None = None, mode: str = "bwrap", workers: int = 2,
                  limits: Limits | None = None, bwrap: str | None = None) -> dict[str, dict[str, Any]]:
    """Write rewards for `jobs` (each: id, goal, user, initial_db path), one sandbox per task.

    Results come back by task id: {ok, reward} or {ok: False, kind, error}. `policy` names the
    policy as `module:function`; `policy_path` is a folder to import it from (bound read-only
    into every sandbox). `sandbox` is this run's folder on the host (logs, results.json).
    `timeout` is the wall-clock limit of one job (default `limits.wall_seconds`); `mode` is
    "bwrap" (refused with SandboxUnavailableError where namespaces cannot be made) or "unsafe";
    `workers` sandboxes run at a time; `bwrap` overrides the binary ($FACTORY_BWRAP, PATH)."""
    from dataclasses import replace

    from factory.tasks.reward.jobs import run_jobs
    from factory.tasks.reward.sandbox import Limits

    chosen = limits if limits is not None else Limits()
    if timeout is not None:
        chosen = replace(chosen, wall_seconds=timeout)
    return run_jobs(spec_path, jobs, sandbox, policy, policy_path, mode, chosen, workers, bwrap)
