"""The frontend build's npm packages, installed once per machine into `<repo>/.cache/node`.

Every world's Vite build links this one `node_modules` (pinned by `templates/frontend/
package-lock.json`); the stamp beside it holds the lock's hash, so a changed lock installs again
and an unchanged one costs nothing. Parallel builds wait on a file lock instead of racing npm.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import shutil
import subprocess
from pathlib import Path

from factory.errors import BootstrapError

log = logging.getLogger(__name__)
REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGES = REPO_ROOT / "templates" / "frontend"  # package.json and package-lock.json
NODE_CACHE = REPO_ROOT / ".cache" / "node"
_STAMP = ".lock.sha256"


def _lock_digest() -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((PACKAGES / name).read_bytes())
    return digest.hexdigest()


def _installed(cache: Path, digest: str) -> bool:
    stamp = cache / _STAMP
    return (stamp.is_file() and stamp.read_text().strip() == digest
            and (cache / "node_modules" / ".bin" / "esbuild").exists())


def ensure_node_modules() -> Path:
    """Install the pinned npm packages once into `<repo>/.cache/node`; returns its node_modules."""
    digest = _lock_digest()
    if _installed(NODE_CACHE, digest):
        return NODE_CACHE / "node_modules"
    npm = shutil.which("npm")
    if npm is None:
        raise BootstrapError("npm was not found on PATH; install Node.js 18+ with npm "
                             "(e.g. `apt-get install nodejs npm`) to build world frontends")
    NODE_CACHE.mkdir(parents=True, exist_ok=True)
    # Parallel builds share one cache: the lock makes the second wait instead of racing npm.
    with open(NODE_CACHE.parent / "node.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _installed(NODE_CACHE, digest):
            return NODE_CACHE / "node_modules"
        log.info("installing pinned frontend packages into %s", NODE_CACHE)
        (NODE_CACHE / _STAMP).unlink(missing_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(PACKAGES / name, NODE_CACHE / name)
        result = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=NODE_CACHE, capture_output=True, text=True, timeout=600, check=False,
        )
        if result.returncode != 0:
            raise BootstrapError(f"`npm ci` in {NODE_CACHE} failed (exit {result.returncode}):\n"
                                 f"{result.stderr.strip() or result.stdout.strip()}")
        (NODE_CACHE / _STAMP).write_text(digest + "\n")
    return NODE_CACHE / "node_modules"


__all__ = ["NODE_CACHE", "ensure_node_modules"]
