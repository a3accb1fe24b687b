"""A world's git history: one author and one date rule, so the same world gives the same commits.

Every commit in a world (its build, each verification and repair round, stage two's corpus, an
injected fault) is dated at the world's frozen today, 12:00 UTC, never at the wall clock: building
a world again and re-running its repairs gives identical commit hashes, and `git log` tells the
story of the world rather than of the machine that made it.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import git

from factory.world.layout import World

AUTHOR = git.Actor("world-factory", "factory@world-factory.local")
MUTATOR = git.Actor("world-factory-mutator", "mutator@world-factory.local")


NO_SPEC_DAY = "2000-01-01"  # a repository without a spec yet (a test's toy world) still gets one fixed date


def world_date(root: Path) -> dt.datetime:
    """The date of every commit of the world at `root`: its frozen today at noon, UTC."""
    spec = World(root).spec_file
    today = json.loads(spec.read_text())["today"] if spec.is_file() else NO_SPEC_DAY
    return dt.datetime.combine(dt.date.fromisoformat(today), dt.time(12, 0), tzinfo=dt.UTC)


def init(root: Path) -> git.Repo:
    return git.Repo.init(root, initial_branch="main")


def commit_index(repo: git.Repo, message: str, author: git.Actor = AUTHOR) -> str:
    """Commit what the index holds, dated by the world's rule; the new commit's hash."""
    stamp = world_date(Path(repo.working_tree_dir or "."))
    return repo.index.commit(message, author=author, committer=author, author_date=stamp, commit_date=stamp).hexsha


def commit_all(root: Path, message: str) -> bool:
    """Commit every change in the world; False when there was nothing to commit."""
    repo = git.Repo(root)
    repo.git.add(A=True)
    if not repo.is_dirty(index=True, untracked_files=True):
        return False
    commit_index(repo, message)
    return True


def _known(repo: git.Repo, paths: list[str]) -> list[str]:
    """The paths git can stage: present on disk or tracked (a tracked file may have been deleted)."""
    if not paths:
        return []
    tracked = set(repo.git.ls_files("--", *paths).splitlines())
    root = Path(repo.working_tree_dir or ".")
    return [p for p in paths if p in tracked or (root / p).exists()]


def commit_paths(root: Path, paths: list[str], message: str) -> bool:
    """Commit the changes to `paths` alone (other changes, staged or not, stay out of the commit);
    False when those paths did not change."""
    repo = git.Repo(root)
    paths = _known(repo, paths)
    if not paths:
        return False
    repo.git.add("-A", "--", *paths)
    if not repo.git.diff("--cached", "--name-only", "--", *paths).strip():
        return False
    stamp = world_date(root).isoformat()
    env = {"GIT_AUTHOR_NAME": AUTHOR.name or "", "GIT_AUTHOR_EMAIL": AUTHOR.email or "", "GIT_AUTHOR_DATE": stamp,
           "GIT_COMMITTER_NAME": AUTHOR.name or "", "GIT_COMMITTER_EMAIL": AUTHOR.email or "", "GIT_COMMITTER_DATE": stamp}
    # `git commit -- <paths>` commits exactly those paths, whatever else the index holds.
    repo.git.commit("-q", "--no-verify", "-m", message, "--", *paths, env=env)
    return True


def head(root: Path) -> str:
    return git.Repo(root).head.commit.hexsha


__all__ = ["AUTHOR", "MUTATOR", "commit_all", "commit_index", "commit_paths", "head", "init", "world_date"]
