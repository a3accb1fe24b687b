"""Bootstrap: make sure the tools a world build and its tests need are present (npm packages, Chromium)."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from pathlib import Path

from factory.compiler.frontend import ensure_node_modules
from factory.errors import BootstrapError

log = logging.getLogger(__name__)
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


def ensure_chromium() -> Path:
    """Chromium's path, installing Debian's package when running as root; else a clear error."""
    found = find_chromium()
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        log.warning("Chromium is missing; installing Debian's chromium package with apt-get")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
            result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            if result.returncode != 0:
                raise BootstrapError(f"`{' '.join(command)}` failed: {result.stderr.strip()[-400:]}")
        found = find_chromium()
        if found:
            return found
    raise BootstrapError("Chromium was not found. Install it (Debian/Ubuntu: `sudo apt-get install -y chromium`) "
                         "or point the CHROMIUM environment variable at a Chromium or Chrome binary.")


def bootstrap(chromium: bool = True) -> dict[str, str]:
    """Install what is missing; return what was found where."""
    found = {"node_modules": str(ensure_node_modules())}
    if chromium:
        found["chromium"] = str(ensure_chromium())
    return found
