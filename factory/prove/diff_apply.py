"""A model's unified diff against a world: which files it touches, whether it may touch them, and
applying it in the world's git repository.

A patch may change the generated app's own code and nothing else: the backend's Python modules and
the frontend's source (`ALLOWED`), never the claims, the spec or the seed, the seed data or the
code that seeds it, the invariant checker the data claims read, task records and reward programs,
tests, or the reports (`FORBIDDEN` names the ones inside the allowed folders), and never through a
symbolic link made at an allowed path. The paths are
read by git itself (`git apply --numstat`), so the check sees exactly what applying would touch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import git

from factory.errors import FactoryError
from factory.world.layout import BACKEND, FRONTEND

# (folder, suffixes): the generated files a patch may change
ALLOWED: tuple[tuple[str, tuple[str, ...]], ...] = (
    (f"{BACKEND}/", (".py",)),
    (f"{FRONTEND}/src/", (".jsx", ".js", ".css")),
)
# Inside the allowed folders, still out of bounds: the checker the data claims run (a patch that
# makes it pass everything would hide a fault, not fix it) and the code that seeds the data.
FORBIDDEN: frozenset[str] = frozenset({f"{BACKEND}/invariants.py", f"{BACKEND}/seed.py"})
FRONTEND_SRC = f"{FRONTEND}/src/"


class PatchError(FactoryError):
    """A patch that cannot be applied (git's reason) or that touches a file it may not."""


@dataclass(frozen=True)
class Touched:
    """The world-relative paths a patch changes, and the ones among them it may not."""

    paths: tuple[str, ...]
    refused: tuple[str, ...]


def allowed(path: str) -> bool:
    """Whether a patch may change `path` (world-relative, as git names it)."""
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or path in FORBIDDEN:
        return False
    if any(part in ("tests", "test", "__pycache__") or part.startswith("test_") for part in pure.parts):
        return False
    return any(path.startswith(folder) and path.endswith(suffixes) for folder, suffixes in ALLOWED)


def _text(diff: str) -> str:
    return diff if diff.endswith("\n") else diff + "\n"


def touched(world: Path, diff: str, scratch: Path) -> Touched:
    """The files `diff` would change, as git reads it; PatchError when git cannot read it at all."""
    patch = scratch / "model.patch"
    patch.write_text(_text(diff), encoding="utf-8")
    try:
        out = git.Repo(world).git.apply("--numstat", "-z", "--recount", str(patch))
    except git.GitCommandError as exc:
        raise PatchError(_reason(exc)) from exc
    paths: list[str] = []
    parts = out.split("\0")
    i = 0
    while i < len(parts):
        fields = parts[i].split("\t")
        if len(fields) == 3 and fields[2]:  # "added\tdeleted\tpath"
            paths.append(fields[2])
            i += 1
        elif len(fields) == 3:  # a rename or copy: "added\tdeleted\t" then the old and the new path
            paths += [p for p in parts[i + 1:i + 3] if p]
            i += 3
        else:
            i += 1
    if not paths:
        raise PatchError("the reply's diff changes no file (is it a unified diff with ---/+++ headers?)")
    unique = tuple(dict.fromkeys(paths))
    links = _symlinks(diff)
    return Touched(unique, tuple(p for p in unique if not allowed(p) or p in links))


def _symlinks(diff: str) -> set[str]:
    """Paths the diff makes symbolic links (mode 120000): a link at an allowed path could point at a
    file a repair may never change, so it is refused like that file."""
    found: set[str] = set()
    current = ""
    for line in diff.splitlines():
        header = re.match(r"^diff --git a/(\S+) b/(\S+)$", line)
        if header:
            current = header[2]
        elif re.match(r"^(?:new file mode|new mode) 120000$", line) and current:
            found.add(current)
    return found


def apply(world: Path, diff: str, scratch: Path) -> None:
    """Apply `diff` in the world's working tree (nothing is committed); PatchError when it does not
    apply cleanly, in which case nothing was changed (`git apply` is all or nothing)."""
    patch = scratch / "model.patch"
    patch.write_text(_text(diff), encoding="utf-8")
    try:
        git.Repo(world).git.apply("--recount", "--whitespace=nowarn", str(patch))
    except git.GitCommandError as exc:
        raise PatchError(_reason(exc)) from exc


def _reason(exc: git.GitCommandError) -> str:
    """git's own message, one line (its stderr names the file and the hunk that failed)."""
    text = str(exc.stderr or exc).strip().removeprefix("stderr:").strip().strip("'").strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return "; ".join(lines[:4]) or "git apply failed"


__all__ = ["ALLOWED", "FORBIDDEN", "FRONTEND_SRC", "PatchError", "Touched", "allowed", "apply", "touched"]
