"""Where a drafted seed and the model's usage are kept: the seed beside the world it builds
(`<worlds>/<world>.seed.yaml`, which a person may edit and build again; the world copies it to its
own `seed.yaml` like any seed), the usage inside the world (`reports/llm_usage.json`, committed)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from factory.author.draft import DraftedSeed
from factory.llm.accounting import UsageReport
from factory.world.history import commit_paths
from factory.world.layout import LLM_USAGE, World


def seed_path(worlds: str | Path, world: str) -> Path:
    """The drafted seed of `world`, beside the world's directory."""
    return Path(worlds) / f"{world}.seed.yaml"


def write_seed(drafted: DraftedSeed, worlds: str | Path) -> Path:
    """Write the drafted seed (atomically: a reader never sees half a seed); its path."""
    target = seed_path(worlds, drafted.world)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(drafted.text)
    os.replace(temp, target)
    return target


def record_usage(root: Path, report: UsageReport) -> bool:
    """Write the model's usage into a built world and commit it; False when it was already there."""
    path = World(root).llm_usage
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report.model_dump(mode="json"), indent=2, sort_keys=True) + "\n")
    return commit_paths(root, [LLM_USAGE], f"llm: the seed drafted by {report.model} ({report.calls} calls, "
                                           f"{report.prompt_tokens + report.completion_tokens} tokens)")


__all__ = ["record_usage", "seed_path", "write_seed"]
