"""YAML written the way the hand-written seeds are: short mappings and lists of scalars on one
line (`{name: title, type: string, max_length: 80}`), dates unquoted, keys in the order given."""

from __future__ import annotations

from typing import Any

import yaml

_FLOW_WIDTH = 100  # a mapping longer than this on one line is written as a block


class _SeedDumper(yaml.SafeDumper):
    """SafeDumper that writes leaf mappings in flow style and leaves dates unquoted."""


# Dates are strings in a seed's data (the loader keeps them so); without the timestamp resolver the
# dumper no longer quotes them, and the seed loader reads them back as the same strings.
_SeedDumper.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeDumper.yaml_implicit_resolvers.items()
}


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _leaf(value: Any) -> bool:
    """A scalar, or a list or mapping of scalars."""
    if isinstance(value, list):
        return all(_scalar(v) for v in value)
    if isinstance(value, dict):
        return all(_scalar(v) for v in value.values())
    return _scalar(value)


def _represent_dict(dumper: _SeedDumper, data: dict[str, Any]) -> yaml.Node:
    # flat: scalars, lists of scalars and one level of such mappings (a field with its `gen` rule)
    flat = all(_leaf(v) or (isinstance(v, dict) and all(_leaf(x) for x in v.values())) for v in data.values())
    short = flat and len(yaml.safe_dump(data, default_flow_style=True, width=10_000, sort_keys=False)) <= _FLOW_WIDTH
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=short)


def _represent_list(dumper: _SeedDumper, data: list[Any]) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=all(_scalar(v) for v in data))


def _represent_str(dumper: _SeedDumper, data: str) -> yaml.Node:
    if "\n" in data.strip():  # several lines: a literal block, as a person writes a long text
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data.strip())


_SeedDumper.add_representer(dict, _represent_dict)
_SeedDumper.add_representer(list, _represent_list)
_SeedDumper.add_representer(str, _represent_str)


def dump(data: dict[str, Any]) -> str:
    """The YAML text of seed data."""
    return yaml.dump(data, Dumper=_SeedDumper, sort_keys=False, allow_unicode=True, width=110,
                     default_flow_style=False)


__all__ = ["dump"]
