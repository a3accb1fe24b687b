"""Benchmark bundles' figures (`make bench`): per domain world with a task corpus (only read), the
bundle's size, its build time (`REPEATS` builds, which must give the same bytes), and the time to
verify it whole (every checksum, then every task's initial and golden gate through the bundle's own
episode server).
"""

from __future__ import annotations

import logging
import statistics
import time
from pathlib import Path
from typing import Any

from factory.bundle import BundleError, build_bundle, verify_bundle

REPEATS = 3
log = logging.getLogger(__name__)


def _figure(name: str, unit: str, samples: list[float], machine: str, **about: Any) -> dict[str, Any]:
    return {"name": name, "unit": unit, "median": round(statistics.median(samples), 3), "min": round(min(samples), 3),
            "max": round(max(samples), 3), "n": len(samples), "machine": machine, **about}


def bundle_figures(worlds: dict[str, Path], tmp: Path, machine: str) -> list[dict[str, Any]]:
    """`bundle_bytes`, `bundle_build_seconds`, `bundle_reproducible` and `bundle_verify_seconds` per world."""
    out: list[dict[str, Any]] = []
    for name, world in worlds.items():
        builds: list[float] = []
        contents: set[bytes] = set()
        try:
            for attempt in range(REPEATS):
                started = time.perf_counter()
                built = build_bundle(world, tmp / "bundles" / name / str(attempt))
                builds.append(time.perf_counter() - started)
                contents.add(built.path.read_bytes())
        except BundleError as exc:  # e.g. a world in worlds/ built before episodes could be served
            log.warning("bundle of %s not measured: %s", name, exc)
            continue
        report = verify_bundle(built.path, scratch=tmp)
        tasks = {"tasks": report.tasks_total, "verified": report.ok}
        out.append(_figure(f"bundle_bytes.{name}", "bytes", [float(built.size)], machine, files=built.files))
        out.append(_figure(f"bundle_build_seconds.{name}", "s", builds, machine))
        out.append(_figure(f"bundle_reproducible.{name}", "ratio", [1.0 if len(contents) == 1 else 0.0], machine,
                           builds=REPEATS))
        out.append(_figure(f"bundle_verify_seconds.{name}", "s", [report.seconds], machine, **tasks))
    return out
