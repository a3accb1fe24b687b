"""The generated backend's Python style: ruff's settings, and the pass that writes every file in it.

Templates emit plain code; this pass drops the imports a world does not use, sorts the rest and
formats every file as `ruff format` would. ruff is pinned (pyproject.toml), so the same spec gives
the same bytes.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from factory.errors import FactoryError

RUFF_CONFIG = Path(__file__).with_name("generated-ruff.toml")
MYPY_CONFIG = Path(__file__).with_name("generated-mypy.ini")


class StyleError(FactoryError):
    """ruff could not process a generated file (a template produced invalid Python)."""


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the pinned ruff with the generated code's settings and no cache (the world's directory stays clean)."""
    command = [sys.executable, "-m", "ruff", args[0], "--config", str(RUFF_CONFIG), "--no-cache", *args[1:]]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def tidy(paths: Sequence[Path]) -> None:
    """Unused imports dropped, imports sorted, then formatted: every Python file in `paths`, in place."""
    files = [str(p) for p in paths if p.suffix == ".py"]
    if not files:
        return
    for step in (("check", "--fix-only", "--select", "F401,I001", "--quiet"), ("format", "--quiet")):
        done = ruff(step[0], *step[1:], *files)
        if done.returncode != 0:
            raise StyleError(f"ruff {step[0]} failed on the generated backend: {(done.stderr or done.stdout).strip()[-2000:]}")
