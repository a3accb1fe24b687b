"""`verifiers/` ships inside bundles, so it may import only itself and the standard library."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

VERIFIERS = Path(__file__).resolve().parents[2] / "verifiers"
SOURCES = sorted(VERIFIERS.rglob("*.py"))


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, top-level module) for every absolute import; relative imports stay in-package."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def test_there_are_sources_to_check() -> None:
    assert VERIFIERS / "__init__.py" in SOURCES


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(VERIFIERS)))
def test_imports_only_stdlib_and_itself(path: Path) -> None:
    allowed = set(sys.stdlib_module_names) | {"verifiers", "__future__"}
    bad = [f"{path.name}:{line} imports {module}" for line, module in imported_modules(path)
           if module not in allowed]
    assert not bad, "verifiers/ must stay standalone (stdlib only): " + "; ".join(bad)


def test_dynamic_imports_are_not_used() -> None:
    # importlib/__import__ would slip past the static check above.
    offenders = [p.name for p in SOURCES if "importlib" in p.read_text() or "__import__" in p.read_text()]
    assert offenders == []
