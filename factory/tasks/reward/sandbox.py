"""reward-gen's sandbox: the Linux-namespace jail each job runs in, and the refusal without one.

Every job (`factory.tasks.reward.jobs`) runs inside bubblewrap (`bwrap`) with these options:

- namespaces: user (nested ones refused: `--disable-userns`), PID, network (its own loopback
  only), IPC, UTS, cgroup; `--cap-drop ALL`, `--die-with-parent`, `--new-session`,
  `--clearenv`;
- filesystem: the dynamic loader's libraries (`/usr/lib/<multiarch>`, `/usr/lib64`), the Python
  installation (`sys.base_prefix`, `sys.prefix`), the `factory/` and `verifiers/` packages at their
  own paths and the policy folder, all read-only; a fresh `/proc` of its own PID namespace, a
  minimal read-only `/dev`, a small tmpfs `/tmp`, the job's folder read-only at `/job`; the root
  itself is read-only. Nothing else of the host exists in there (`os.stat` of a host path says
  "no such file"), so no golden state, no other task, no task id;
- limits (`Limits`, set by the child before the policy is imported): RLIMIT_CPU, RLIMIT_AS,
  RLIMIT_FSIZE, RLIMIT_NPROC, no core files; the runner adds a wall clock and an output cap.

Where bwrap is missing or cannot make namespaces (probed once per process by running `true` in a
sandbox) reward-gen refuses to run (`SandboxUnavailableError`) unless the caller chose mode
"unsafe" (`--unsafe-sandbox`): then each job is a plain child process with the audit hook alone.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sysconfig
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from factory.errors import TaskError
from factory.runtime.bootstrap import BWRAP_ENV, find_bwrap

log = logging.getLogger(__name__)

MODES = ("bwrap", "unsafe")
# Failure kinds a child may report; anything else it says is turned into "error".
CODE_ROOT = Path(__file__).resolve().parents[3]  # the folder holding factory/ and verifiers/
FIX = ("install bubblewrap (`apt-get install bubblewrap`), make sure user namespaces are enabled "
       "(`sysctl user.max_user_namespaces` above 0; on Debian/Ubuntu also "
       "`kernel.unprivileged_userns_clone=1` and `kernel.apparmor_restrict_unprivileged_userns=0`), "
       f"point {BWRAP_ENV} at a working bwrap, or pass --unsafe-sandbox to accept a process-only "
       "sandbox (recorded in the world's manifest)")


class SandboxUnavailableError(TaskError):
    """reward-gen cannot be sandboxed here: no bubblewrap, or it cannot create namespaces."""


@dataclass(frozen=True)
class Limits:
    """The hard limits of one reward-gen job; exceeding one fails the job with kind "limit"."""

    cpu_seconds: int = 30  # RLIMIT_CPU: SIGKILL at the limit
    memory_bytes: int = 2 << 30  # RLIMIT_AS: allocations beyond it fail (MemoryError)
    file_bytes: int = 64 << 20  # RLIMIT_FSIZE: the largest file it may write (its stderr too)
    output_bytes: int = 8 << 20  # the most of its result (stdout) the parent reads
    wall_seconds: float = 60.0  # then the whole namespace is killed
    tmp_bytes: int = 64 << 20  # the size of its private /tmp
    processes: int = 64  # RLIMIT_NPROC (Linux does not apply it to uid 0)

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
                raise TaskError(f"reward-gen limit {name} must be a positive number, not {value!r}")

    def for_child(self) -> dict[str, int]:
        """The limits the child sets on itself with setrlimit."""
        return {"cpu": int(self.cpu_seconds), "memory": int(self.memory_bytes),
                "file": int(self.file_bytes), "processes": int(self.processes)}


# ---------------------------------------------------------------- can we sandbox here? --------

_probed: dict[str, list[str] | str] = {}  # bwrap path → namespace options that work, or why none does
_probe_lock = threading.Lock()
# bwrap's namespace options, strongest first: a user namespace (so capabilities mean nothing outside
# it, and nested ones refused) and, when that is impossible but we are root, the other namespaces.
NAMESPACES = (["--unshare-all", "--unshare-user", "--disable-userns"], ["--unshare-all"])
# The child is the namespace's PID 1 (`--as-pid-1`, no reaper in between): bwrap reaps it itself,
# so wait4 reports its CPU time, and when it exits the kernel kills whatever it left behind.
COMMON = ["--as-pid-1", "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL"]


def library_layout() -> tuple[list[str], list[tuple[str, str]]]:
    """What the dynamic loader needs: read-only binds and the symlinks of a merged /usr."""
    binds: list[str] = []
    links: list[tuple[str, str]] = []
    for top in ("/lib", "/lib64", "/lib32", "/libx32"):
        if os.path.islink(top):  # merged /usr: /lib -> usr/lib, and so on
            links.append((os.readlink(top), top))
        elif os.path.isdir(top):
            binds.append(top)
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    usr_lib = f"/usr/lib/{multiarch}" if multiarch and os.path.isdir(f"/usr/lib/{multiarch}") else "/usr/lib"
    binds.append(usr_lib)  # libc, libm, libsqlite3, libffi, ... (not /usr/bin, /usr/share, /etc)
    for extra in ("/usr/lib64", "/usr/lib32"):  # the loader itself lives here on x86_64
        if os.path.isdir(extra) and not os.path.islink(extra):
            binds.append(extra)
    return binds, links


def _probe(bwrap: str) -> list[str] | str:
    if not os.path.exists(bwrap):
        return f"the bubblewrap binary {bwrap} does not exist"
    if not os.access(bwrap, os.X_OK):
        return f"the bubblewrap binary {bwrap} is not executable"
    true = shutil.which("true") or "/bin/true"
    binds, links = library_layout()
    layout = [a for target, link in links for a in ("--symlink", target, link)]
    layout += [a for path in binds for a in ("--ro-bind", path, path)]
    layout += ["--ro-bind", true, true, "--proc", "/proc", "--dev", "/dev"]
    why = ""
    for flags in NAMESPACES:
        if "--unshare-user" not in flags and os.geteuid() != 0:
            continue  # without a user namespace only root can make the others
        try:
            done = subprocess.run([bwrap, *flags, *COMMON, *layout, true], stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=30, env={}, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"running {bwrap} failed: {exc}"
        if done.returncode == 0:
            return flags
        why = why or f"`{bwrap} {' '.join(flags)} ... true` failed (exit {done.returncode}): " \
                     f"{done.stderr.strip()[-300:] or 'no message'}"
    return why


def namespace_options(bwrap: str | os.PathLike[str] | None = None) -> tuple[str, list[str]]:
    """The bwrap binary and the namespace options that work here, probed once per process and
    binary; SandboxUnavailableError (saying what failed and how to fix it) when none does."""
    path = find_bwrap(bwrap)
    if path is None:
        raise SandboxUnavailableError(f"reward-gen refuses to run without its sandbox: no `bwrap` on PATH "
                                      f"and {BWRAP_ENV} is not set. To fix it: {FIX}")
    with _probe_lock:
        if path not in _probed:
            _probed[path] = _probe(path)
            log.debug("bwrap probe for %s: %s", path, _probed[path])
        found = _probed[path]
    if isinstance(found, str):
        raise SandboxUnavailableError(f"reward-gen refuses to run without its sandbox: {found}. To fix it: {FIX}")
    return path, list(found)


def require_sandbox(mode: str, bwrap: str | os.PathLike[str] | None = None) -> None:
    """Check, before any work, that reward-gen can run in `mode` here."""
    if mode not in MODES:
        raise TaskError(f"reward-gen sandbox mode {mode!r} is not one of {', '.join(MODES)}")
    if mode == "bwrap":
        namespace_options(bwrap)


