"""The Echoverse export's two lock files, `files/echoverse/uv.lock` and `package-lock.json`, made once
here and shipped as they are, so an export needs no network and every world gets the same bytes.

    python -m factory.export.locks     # after a pin changes in pyproject.toml or files/echoverse/package.json

Both projects are the same for every world (the app's pins; React and Vite ~8.3), so one lock each
serves all. `stale()` says which lock no longer matches (a test runs it).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from factory.export.common import FILES, app_pins, render
from factory.export.errors import ExportError

UV_LOCK = FILES / "echoverse" / "uv.lock"
NPM_LOCK = FILES / "echoverse" / "package-lock.json"


def pyproject_text(world: str) -> bytes:
    return render("echoverse/pyproject.toml.j2", world=world, pins=app_pins())


def stale() -> list[str]:
    """Each pin of the app that the shipped uv.lock does not lock at that version (empty: up to date)."""
    locked = {p["name"]: p["version"] for p in tomllib.loads(UV_LOCK.read_text()).get("package", [])}
    problems = []
    for pin in app_pins():
        name, version = pin.split("==")
        if locked.get(name) != version:
            problems.append(f"{name}: pinned {version}, locked {locked.get(name)}")
    return problems


def _run(argv: list[str], cwd: Path) -> None:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise ExportError(f"`{' '.join(argv)}` failed in {cwd}: {done.stderr.strip() or done.stdout.strip()}")


def refresh() -> None:
    """Lock both projects anew (needs PyPI and the npm registry) and copy the locks beside their templates."""
    uv = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
    npm = shutil.which("npm")
    if npm is None:
        raise ExportError("npm is not on PATH; install Node.js to refresh package-lock.json")
    with tempfile.TemporaryDirectory() as scratch:
        py, js = Path(scratch, "py"), Path(scratch, "js")
        py.mkdir()
        js.mkdir()
        (py / "pyproject.toml").write_bytes(pyproject_text("any"))
        _run([uv, "lock"], py)
        shutil.copyfile(py / "uv.lock", UV_LOCK)
        shutil.copyfile(FILES / "echoverse" / "package.json", js / "package.json")
        _run([npm, "install", "--package-lock-only", "--no-audit", "--no-fund"], js)
        shutil.copyfile(js / "package-lock.json", NPM_LOCK)


if __name__ == "__main__":
    refresh()
