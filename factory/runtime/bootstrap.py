"""Bootstrap: make sure the tools a world build and its tests need are present (npm packages, Chromium,
bubblewrap for reward-gen's sandbox), installing Debian's packages with apt-get when running as root."""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import subprocess
import time
from pathlib import Path

from factory.errors import BootstrapError
from factory.progress import say
from factory.runtime.node import ensure_node_modules

log = logging.getLogger(__name__)
BWRAP_ENV = "FACTORY_BWRAP"  # a bwrap binary to use instead of the one on PATH
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def find_chromium() -> Path | None:
    """The Chromium binary to drive with Playwright (CHROMIUM env var first)."""
    override = os.environ.get("CHROMIUM")
    if override and Path(override).is_file():
        return Path(override)
    for candidate in CHROMIUM_CANDIDATES:
        if Path(candidate).is_file():
            return Path(candidate)
    found = shutil.which("chromium")
    return Path(found) if found else None


# Another install (unattended-upgrades, a second `make setup`, .ci/run) may hold Debian's package
# locks. apt-get waits for the dpkg lock itself (DPkg::Lock::Timeout); `update` takes the lists lock,
# which older apt does not wait for, so a refusal about a lock is retried, a bounded number of times.
APT_LOCK_SECONDS = 600
APT_RETRIES = 30
APT_RETRY_SECONDS = 20.0
DPKG_LOCKS = (Path("/var/lib/dpkg/lock-frontend"), Path("/var/lib/dpkg/lock"), Path("/var/lib/apt/lists/lock"))
_LOCK_REFUSALS = ("could not get lock", "unable to acquire", "unable to lock", "is held by process")


def _lock_holder() -> Path | None:
    """A Debian package lock another process holds now, or None (probed with the same fcntl lock
    apt and dpkg take, released at once)."""
    for lock in DPKG_LOCKS:
        try:
            with lock.open("r+b") as handle:
                try:
                    fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    return lock
                fcntl.lockf(handle, fcntl.LOCK_UN)
        except OSError:  # no such lock file (no install ever ran), or not ours to open
            continue
    return None


def _apt_run(command: list[str], env: dict[str, str]) -> None:
    """Run one apt-get command, waiting (and saying so) while another install holds a lock."""
    for attempt in range(1, APT_RETRIES + 1):
        held = _lock_holder()
        if held is not None:
            say(f"apt-get: waiting for Debian's package lock {held} (another install holds it; "
                f"up to {APT_LOCK_SECONDS // 60} minutes)")
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if result.returncode == 0:
            return
        refusal = result.stderr.lower()
        if not any(words in refusal for words in _LOCK_REFUSALS) or attempt == APT_RETRIES:
            raise BootstrapError(f"`{' '.join(command)}` failed: {result.stderr.strip()[-400:]}")
        say(f"apt-get: the package lock is busy (attempt {attempt} of {APT_RETRIES}); "
            f"retrying in {APT_RETRY_SECONDS:.0f} s")
        time.sleep(APT_RETRY_SECONDS)


def _apt_install(package: str) -> bool:
    """Install a Debian package when running as root with apt-get; False when that is not possible.
    apt-get waits up to 10 minutes for the dpkg lock (another install may hold it) instead of failing,
    and a refusal about a lock is retried."""
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return False
    say(f"{package} is missing: installing Debian's {package} package with apt-get")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    lock = ["-o", f"DPkg::Lock::Timeout={APT_LOCK_SECONDS}"]
    for command in (["apt-get", *lock, "update", "-qq"], ["apt-get", *lock, "install", "-y", "-qq", package]):
        _apt_run(command, env)
    return True


def ensure_chromium() -> Path:
    """Chromium's path, installing Debian's package when running as root; else a clear error."""
    found = find_chromium()
    if found:
        return found
    if _apt_install("chromium"):
        found = find_chromium()
        if found:
            return found
    raise BootstrapError("Chromium was not found. Install it (Debian/Ubuntu: `sudo apt-get install -y chromium`) "
                         "or point the CHROMIUM environment variable at a Chromium or Chrome binary.")


def ensure_bubblewrap() -> Path | None:
    """bwrap's path (reward-gen's sandbox), installing Debian's bubblewrap when running as root.
    None when it is missing and cannot be installed: only stage two needs it, and it says so
    (or runs with --unsafe-sandbox), so a build of stage one need not fail here."""
    found = find_bwrap()
    if found is None and _apt_install("bubblewrap"):
        found = find_bwrap()
    if found is None:
        log.warning("bubblewrap (bwrap) is missing: reward-gen will refuse to run. Install it "
                    "(`sudo apt-get install -y bubblewrap`) or pass --unsafe-sandbox")
    return Path(found) if found else None


def bootstrap(chromium: bool = True) -> dict[str, str]:
    """Install what is missing; return what was found where."""
    found = {"node_modules": str(ensure_node_modules())}
    if chromium:
        found["chromium"] = str(ensure_chromium())
    bwrap = ensure_bubblewrap()
    if bwrap is not None:
        found["bwrap"] = str(bwrap)
    return found


def find_bwrap(bwrap: str | os.PathLike[str] | None = None) -> str | None:
    """The bwrap binary: `bwrap` if given, else $FACTORY_BWRAP, else `bwrap` on PATH."""
    chosen = bwrap if bwrap is not None else os.environ.get(BWRAP_ENV)
    return os.fspath(chosen) if chosen else shutil.which("bwrap")
