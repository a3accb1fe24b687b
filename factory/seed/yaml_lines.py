"""YAML loading that remembers the line of every key, so errors can point at it."""

from __future__ import annotations

from typing import Any

import yaml

Path = tuple[str | int, ...]


class _Loader(yaml.SafeLoader):
    """SafeLoader that keeps dates as strings: the schema, not YAML, decides types."""


# Drop the implicit timestamp resolver: `today: 2026-06-15` stays the string the schema expects.
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_with_lines(text: str) -> tuple[Any, dict[Path, int]]:
    """Parse YAML text; return the data and a map from key path to 1-based line."""
    node = yaml.compose(text, Loader=_Loader)
    lines: dict[Path, int] = {}
    if node is None:
        return None, lines
    _walk(node, (), lines)
    data = yaml.load(text, Loader=_Loader)
    return data, lines


def _walk(node: yaml.Node, path: Path, lines: dict[Path, int]) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            _walk(value_node, path + (key,), lines)
            lines[path + (key,)] = key_node.start_mark.line + 1  # the key's line, not its value's
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, path + (index,), lines)


def line_of(lines: dict[Path, int], path: Path) -> int | None:
    """The line of `path`, or of its nearest ancestor that has one."""
    for cut in range(len(path), -1, -1):
        if path[:cut] in lines:
            return lines[path[:cut]]
    return None


def dotted(path: Path) -> str:
    """Render a key path as `entities[1].fields[0].type`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
