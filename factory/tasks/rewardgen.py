"""reward-gen: write a task's reward program from its instruction alone, in an isolated process.

Isolation is by construction, not by promise. `run_rewardgen` copies exactly three kinds of input
into a fresh sandbox folder (the spec, the instructions, and each task's initial database) and
starts `python -m factory.tasks.rewardgen SANDBOX` with a scrubbed environment. Before the policy
reads anything, the child installs an audit hook that refuses to open, list or connect to any
path outside the sandbox and the Python installation, and refuses subprocesses and sockets. A
policy that reaches for setup-gen's artifacts or the golden state is stopped, and its task fails
with the attempt named (the "isolation" failure).

The deterministic policy parses the instruction with the spec's phrasing grammar, resolves every
named row against the initial database (unresolved or ambiguous names fail the task), then:
READ → an `answer` check plus "nothing changed"; WRITE / READ_WRITE → the declared effects,
predicted by the independent interpreter in `factory.tasks.effects`, as row checks plus a
`diff_within` that forbids every other change.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from factory.errors import FactoryError, TaskError
from factory.spec.model import Spec
from factory.tasks.effects import predict, reward_checks
from factory.tasks.phrasing import ParseError, parse
from factory.tasks.resolve import AmbiguousError, UnresolvedError, answer, steps_of
from factory.tasks.rows import World

# A policy maps (instruction, spec, initial database) to a reward program (JSON form).
Policy = Callable[[dict[str, Any], Spec, Path], dict[str, Any]]
DEFAULT_POLICY = "factory.tasks.rewardgen:deterministic_policy"


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
    world = World.open(spec, db)
    try:
        if ask.question is not None:
            found = answer(world, ask.question, user.id)
            check: dict[str, Any] = {"id": "answer", "type": "answer", "kind": found.kind,
                                     "expected": found.value,
                                     "description": "the answer matches the database"}
            if found.aliases:
                check["aliases"] = list(found.aliases)
            return {"schema_version": 1, "mode": "all", "checks": [
                check, {"id": "nothing_changed", "type": "diff_within", "allowed": {},
                        "description": "a question changes nothing"}]}
        steps = steps_of(world, ask, user.id)
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


def load_policy(name: str) -> Policy:
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]


# ---------------------------------------------------------------- the sandbox (child side) -----

def _allowed_roots(sandbox: Path) -> list[str]:
    roots = {sandbox, Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix),
             Path(__file__).resolve().parents[1],  # factory/ (lazy imports of its modules)
             Path(__file__).resolve().parents[2] / "verifiers"}
    return sorted({str(Path(r).resolve()) for r in roots})


def install_guard(sandbox: Path) -> None:
    """Refuse every file, directory, database, process and socket outside the sandbox."""
    roots = _allowed_roots(sandbox)

    def inside(path: object) -> bool:
        if isinstance(path, int):  # an already-open descriptor
            return True
        text = os.fsdecode(path) if isinstance(path, str | bytes | os.PathLike) else str(path)
        if text.startswith("file:"):
            text = text[5:].split("?", 1)[0]
        if text in ("", ":memory:", "/dev/null", "/dev/urandom"):
            return True
        real = os.path.realpath(text)
        return any(real == r or real.startswith(r + os.sep) for r in roots)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in ("open", "os.listdir", "os.scandir", "sqlite3.connect", "os.chdir",
                     "shutil.copyfile", "os.remove", "os.rename") and args and not inside(args[0]):
            raise IsolationError(f"reward-gen may not reach {args[0]!r} ({event})")
        if event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.fork",
                     "socket.connect", "socket.bind"):
            raise IsolationError(f"reward-gen may not use {event}")

    sys.addaudithook(hook)


def child_main(sandbox: Path, policy_name: str) -> int:
    """Run inside the sandbox process: read jobs, write one result per job."""
    policy = load_policy(policy_name)  # imported before the guard: code, not task data
    install_guard(sandbox)
    spec = Spec.model_validate_json((sandbox / "spec.json").read_text())
    results = []
    for line in (sandbox / "jobs.jsonl").read_text().splitlines():
        job = json.loads(line)
        try:
            reward = policy({"goal": job["goal"], "user": job["user"]}, spec, sandbox / job["db"])
            results.append({"id": job["id"], "ok": True, "reward": reward})
        except IsolationError as exc:
            results.append({"id": job["id"], "ok": False, "kind": "isolation", "error": str(exc)})
        except RewardGenError as exc:
            results.append({"id": job["id"], "ok": False, "kind": exc.kind, "error": str(exc)})
        except (FactoryError, KeyError, ValueError, LookupError) as exc:
            results.append({"id": job["id"], "ok": False, "kind": "error",
                            "error": f"{type(exc).__name__}: {exc}"})
    (sandbox / "rewards.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in results))
    return 0


# ---------------------------------------------------------------- the parent side --------------

def run_rewardgen(spec_path: Path, jobs: list[dict[str, Any]], sandbox: Path,
                  policy: str = DEFAULT_POLICY, policy_path: Path | None = None,
                  timeout: float = 600) -> dict[str, dict[str, Any]]:
    """Write rewards for `jobs` (each: id, goal, user, initial_db path) in an isolated process.

    Only the spec, the instruction texts and the initial databases enter the sandbox; results
    come back by task id: {ok, reward} or {ok: False, kind, error}. `policy` names the
    policy as `module:function`; `policy_path` is a folder to import it from."""
    if sandbox.exists():
        shutil.rmtree(sandbox)
    sandbox.mkdir(parents=True)
    shutil.copyfile(spec_path, sandbox / "spec.json")
    copied: dict[str, str] = {}
    lines = []
    for job in jobs:
        source = str(Path(job["initial_db"]).resolve())
        if source not in copied:  # tasks without a setup share the seed database
            copied[source] = f"db{len(copied)}.sqlite"
            shutil.copyfile(source, sandbox / copied[source])
        lines.append(json.dumps({"id": job["id"], "goal": job["goal"], "user": job["user"],
                                 "db": copied[source]}, sort_keys=True))
    (sandbox / "jobs.jsonl").write_text("\n".join(lines) + "\n")
    root = Path(__file__).resolve().parents[2]
    # A scrubbed environment: nothing of the parent's (paths, tokens) leaks into the sandbox.
    python_path = str(root) + (os.pathsep + str(policy_path) if policy_path else "")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": python_path,
           "PYTHONHASHSEED": "0", "LANG": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-m", "factory.tasks.rewardgen", str(sandbox), policy],
                          cwd=sandbox, env=env, capture_output=True, text=True, timeout=timeout,
                          check=False)
    out = sandbox / "rewards.jsonl"
    if done.returncode != 0 or not out.exists():
        raise TaskError(f"reward-gen process failed (exit {done.returncode}): {done.stderr[-1500:]}")
    return {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}


if __name__ == "__main__":
    # Run the imported module's copy, so policies raise the very error classes caught here.
    from factory.tasks import rewardgen as _module  # noqa: PLW0406

    sys.exit(_module.child_main(Path(sys.argv[1]).resolve(), sys.argv[2] if len(sys.argv) > 2 else DEFAULT_POLICY))
