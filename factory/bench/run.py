"""Benchmarks (`make bench`): measured figures written to bench/results.json and shown as a table."""

from __future__ import annotations

import json
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from factory.bench.bundle import bundle_figures
from factory.bench.suite import read_suite, suite_summary
from factory.bench.triage import triage_figures
from factory.runtime.node import ensure_node_modules
from factory.world.assemble import build_world
from factory.world.layout import World

REPO = Path(__file__).resolve().parents[2]
DEFAULT_SEEDS = ["seeds/mock.yaml", "seeds/echobank.yaml", "seeds/echostay.yaml", "seeds/echomail.yaml",
                 "seeds/capabilities/datepickers.yaml", "seeds/capabilities/nested_filters.yaml"]
TARGETS = {"build_seconds": 60.0, "verify_seconds": 90.0, "kill_rate": 0.95, "repair_rate": 0.90,
           "stage_two_seconds": 600.0, "tasks_accepted": 150, "tasks_pass_rate": 0.95, "grading_ms": 3.0,
           "redteam_false_positives": 0.0, "redteam_seconds": 300.0, "episode_reset_ms": 2.0,
           "episode_memory_mib": 2.0, "episode_load_leaks": 0.0, "episode_load_rewarded": 1.0,
           "oracle_pass_rate_clean": 1.0, "oracle_pass_rate_noisy": 1.0}
VERIFY_SEED = "seeds/echobank.yaml"
MUTATION_SEED = "seeds/mock.yaml"
REDTEAM_WORLDS = ["echobank", "echostay", "echomail"]  # graded and red-teamed (worlds/ first)
FAULT_SUITE_WORLDS = ["echobank", "echomail"]  # scored with the independent fault suite (worlds/ first)
# faults per kind of the independent suite (distinct sites), and an optional comma list of kinds to run
FAULTS_PER_KIND_ENV = "BENCH_FAULTS_PER_KIND"
FAULT_KINDS_ENV = "BENCH_FAULT_KINDS"
FAULT_WORLDS_ENV = "BENCH_FAULT_WORLDS"  # a comma list of FAULT_SUITE_WORLDS to score (default all)
SUITE_FILE = "suite.json"  # `make suite`'s last run, beside the results file (bench/suite.json)


def machine_note() -> str:
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def measure(name: str, unit: str, repeats: int, run: Callable[[], float]) -> dict[str, Any]:
    samples = [run() for _ in range(repeats)]
    return {"name": name, "unit": unit, "median": round(statistics.median(samples), 3), "min": round(min(samples), 3),
            "max": round(max(samples), 3), "n": len(samples), "machine": machine_note()}


SECTIONS = ("builds", "verify", "faults", "tasks", "episodes", "grading", "redteam", "triage", "bundle")


def run_benchmarks(seeds: list[str] | None, output: Path, repeats: int = 3, console: Console | None = None,
                   only: list[str] | None = None) -> list[dict[str, Any]]:
    """Measure every figure (or the `only` sections'); write them to `output`; return them.

    With `only`, the figures of the other sections already in `output` are kept (each figure is
    replaced by name), so a long section can be measured on its own and the file stays whole. The
    file is written after every section, so a bench stopped part-way keeps what it measured. The
    last `make suite` run (bench/suite.json, beside `output`) is recorded with the commit it ran on
    under `suite`; the suite is never built here."""
    console = console or Console(stderr=True)
    wanted = set(only or SECTIONS)
    unknown = sorted(wanted - set(SECTIONS))
    if unknown:
        raise ValueError(f"no bench section {', '.join(unknown)}; the sections are {', '.join(SECTIONS)}")
    ensure_node_modules()  # first-time package installs are not part of a build's time
    results: list[dict[str, Any]] = []
    earlier = _read(output) if only else []
    suite = last_suite(output, console)

    def add(figures: list[dict[str, Any]]) -> None:
        # written after every section, so a long bench stopped part-way keeps what it measured
        results.extend(figures)
        _write(output, _merged(earlier, results), suite)

    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        if "builds" in wanted:
            add(_build_figures(seeds, Path(tmp), repeats, console))
        if "verify" in wanted:
            add(_stage_one_figures(Path(tmp), console))
        if "faults" in wanted:
            add(fault_suite_figures(Path(tmp), console))
        if "tasks" in wanted:
            add(_stage_two_figures(Path(tmp), console))
        if "episodes" in wanted:
            add(_episode_figures(Path(tmp), console))
        worlds = _domain_worlds(Path(tmp), console) if wanted & {"grading", "redteam", "triage", "bundle"} else {}
        if "grading" in wanted:
            add(_grading_figures(worlds, Path(tmp), console))
        if "redteam" in wanted:
            add(_redteam_figures(worlds, console))
        if "triage" in wanted:
            add(triage_figures(worlds, Path(tmp), machine_note()))  # rollout triage: classify time per 1,000
        if "bundle" in wanted:
            add(bundle_figures(worlds, Path(tmp), machine_note()))  # bundles: size, build and verify time
    results = _merged(earlier, results)
    _write(output, results, suite)
    table = Table(title=f"benchmarks ({machine_note()})")
    for column in ("figure", "median", "min", "max", "n", "target"):
        table.add_column(column)
    for r in results:
        target = TARGETS.get(r["name"].split(".")[0])
        bound = "≥" if r["unit"] in ("ratio", "tasks") else "≤"
        table.add_row(r["name"], f"{r['median']} {r['unit']}", str(r["min"]), str(r["max"]), str(r["n"]),
                      f"{bound} {target:g} {r['unit']}" if target is not None else "")
    console.print(table)
    if suite is not None:
        state = ", with uncommitted changes" if suite["dirty"] else ""
        console.print(f"suite: last run at {suite['commit'][:12]}{state} ({suite['time']}): {suite['accepted']}/"
                      f"{len(suite['worlds'])} worlds accepted (make suite; bench/{SUITE_FILE})")
    console.print(f"written to {output}")
    return results


def last_suite(output: Path, console: Console) -> dict[str, Any] | None:
    """The key figures of the last `make suite` run: from its file beside `output` when there is
    one, else those `output` already records (a bench without a suite file keeps them)."""
    suite = output.with_name(SUITE_FILE)
    if suite.is_file():
        try:
            return suite_summary(read_suite(suite))
        except (OSError, ValueError) as exc:  # a suite file of another version: said, and the earlier record kept
            console.print(f"[yellow]{suite}: not read ({str(exc)[:160]})[/yellow]")
    try:
        recorded: dict[str, Any] | None = json.loads(output.read_text()).get("suite")
    except (OSError, ValueError, AttributeError):
        return None
    return recorded


def _read(output: Path) -> list[dict[str, Any]]:
    """The figures in an earlier results file (none when it is missing or unreadable)."""
    try:
        earlier: list[dict[str, Any]] = json.loads(output.read_text())["results"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return earlier


def _write(output: Path, results: list[dict[str, Any]], suite: dict[str, Any] | None = None) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {"schema_version": 1, "results": results}
    if suite is not None:
        data["suite"] = suite
    output.write_text(json.dumps(data, indent=2) + "\n")


def _merged(earlier: list[dict[str, Any]], results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The earlier figures, each replaced by a new one of the same name, new ones last."""
    fresh = {r["name"]: r for r in results}
    kept = [fresh.pop(r["name"], r) for r in earlier]
    return kept + [r for r in results if r["name"] in fresh]


def _build_figures(seeds: list[str] | None, tmp: Path, repeats: int, console: Console) -> list[dict[str, Any]]:
    """Build time of each seed's world (app, database, frontend), `repeats` times."""
    out: list[dict[str, Any]] = []
    for seed in seeds or DEFAULT_SEEDS:
        path = REPO / seed if not Path(seed).is_absolute() else Path(seed)
        if not path.is_file():
            console.print(f"[yellow]skip[/yellow] {seed}: not found")
            continue

        def once(path: Path = path) -> float:
            start = time.perf_counter()
            build_world(path, tmp)
            return time.perf_counter() - start

        console.print(f"building {seed} ×{repeats} …")
        out.append(measure(f"build_seconds.{path.stem}", "s", repeats, once))
    return out


def _verified_echobank(tmp: Path, console: Console) -> Path:
    """The echobank the verify section built (claims compiled), else the built world in worlds/ (a
    copy), for the sections that need a current echobank."""
    import shutil

    world = tmp / "verify" / "echobank"
    if not World(world).spec_file.is_file():
        console.print("using a copy of worlds/echobank (the verify section did not run)")
        shutil.copytree(REPO / "worlds" / "echobank", world, ignore=shutil.ignore_patterns("run"))
    return world


def _stage_one_figures(tmp: Path, console: Console) -> list[dict[str, Any]]:
    """Verification time of echobank's claims, and the mutation kill and repair rates on mock."""
    from factory.claims.compile import compile_claims, write_claims
    from factory.mutate.score import score_world
    from factory.prove.graph import run_stage_one
    from factory.verify.run import verify_world

    out: list[dict[str, Any]] = []
    console.print(f"verifying every claim of {VERIFY_SEED} …")
    world = build_world(REPO / VERIFY_SEED, tmp / "verify").path
    digest = write_claims(world, compile_claims(world))
    report = verify_world(world, expected_sha256=digest)
    out.append(measure(f"verify_seconds.{world.name}", "s", 1, lambda: report.seconds))
    out.append(measure(f"claims_pass_rate.{world.name}", "ratio", 1, lambda: round(report.rate, 4)))
    console.print(f"mutation testing {MUTATION_SEED} …")
    proven = Path(run_stage_one(str(REPO / MUTATION_SEED), str(tmp / "mutation"), fresh=True)["world"])
    score = score_world(proven)
    out.append(measure(f"kill_rate.{proven.name}", "ratio", 1, lambda: round(score.kill_rate, 4)))
    out.append(measure(f"repair_rate.{proven.name}", "ratio", 1, lambda: round(score.repair_rate, 4)))
    return out


def _proven_world(name: str, tmp: Path, console: Console) -> Path:
    """A proven domain world whose locked claims are what its seed compiles to today (a repair refuses
    any other): a copy of worlds/<name> (which is only read), else the one this bench proved, else one
    built and proved here."""
    import shutil

    from factory.claims.lock import check_lock
    from factory.errors import FactoryError
    from factory.prove.graph import run_stage_one
    from factory.world.manifest import read_manifest

    for index, candidate in enumerate((REPO / "worlds" / name, tmp / "verify" / name, tmp / "domain" / name)):
        manifest = World(candidate).manifest_file
        if not (manifest.is_file() and read_manifest(manifest).claims_sha256):
            continue
        # checked and scored on a copy: worlds/ is only read
        copy = tmp / "faults" / "worlds" / f"{name}-{index}"
        shutil.copytree(candidate, copy, ignore=shutil.ignore_patterns("run"))
        try:
            check_lock(copy)
        except FactoryError as exc:
            console.print(f"[yellow]{candidate}: not usable ({str(exc)[:160]})[/yellow]")
            continue
        return copy
    console.print(f"building and proving {name} …")
    return Path(run_stage_one(str(REPO / "seeds" / f"{name}.yaml"), str(tmp / "faults" / "built"), fresh=True)["world"])


def fault_suite_figures(tmp: Path, console: Console) -> list[dict[str, Any]]:
    """Kill and repair rates of the independent fault suite per kind on echobank and echomail.

    Per world and kind: `fault_kill_rate.<world>.<kind>` and `fault_repair_rate.<world>.<kind>`, plus
    the overall and per-layer rates. $BENCH_FAULTS_PER_KIND faults per kind (default 1), over the kinds
    in $BENCH_FAULT_KINDS (comma-separated; default every kind), on the worlds in $BENCH_FAULT_WORLDS
    (comma-separated; default both).
    """
    from factory.mutate.score import score_world

    per_kind = int(os.environ.get(FAULTS_PER_KIND_ENV) or 1)
    kinds = [k.strip() for k in (os.environ.get(FAULT_KINDS_ENV) or "").split(",") if k.strip()] or None
    chosen = [w.strip() for w in (os.environ.get(FAULT_WORLDS_ENV) or "").split(",") if w.strip()] or FAULT_SUITE_WORLDS
    out: list[dict[str, Any]] = []
    for name in chosen:
        world = _proven_world(name, tmp, console)
        console.print(f"independent fault suite on {name} ({per_kind} per kind) …")
        score = score_world(world, kinds, per_kind, seed=0, suite="independent",
                            report_path=tmp / "faults" / f"{name}.json",
                            progress=lambda o: console.print(f"  [dim]·[/dim] {o.kind}: "
                                                             f"{'killed' if o.killed else 'survived'}, "
                                                             f"{'repaired' if o.repaired else 'not repaired'}"))
        groups = [*score.by_kind().items(), *((f"layer_{k}", v) for k, v in score.by_layer().items())]
        for key, summary in groups:
            about = {"faults": summary.faults, "layer": summary.layer}  # what the rate is over
            out.append({**measure(f"fault_kill_rate.{name}.{key}", "ratio", 1, _constant(round(summary.kill_rate, 4))),
                        **about})
            out.append({**measure(f"fault_repair_rate.{name}.{key}", "ratio", 1,
                                  _constant(round(summary.repair_rate, 4))), **about})
        out.append(measure(f"fault_kill_rate.{name}", "ratio", 1, _constant(round(score.kill_rate, 4))))
        out.append(measure(f"fault_repair_rate.{name}", "ratio", 1, _constant(round(score.repair_rate, 4))))
        if score.errors:
            out.append(measure(f"fault_errors.{name}", "faults", 1, _constant(len(score.errors))))  # not injected or not verified
    return out


def _stage_two_figures(tmp: Path, console: Console) -> list[dict[str, Any]]:
    """Stage two on echobank (UI gate included)."""
    from factory.tasks.graph import run_stage_two

    world = _verified_echobank(tmp, console)
    out: list[dict[str, Any]] = []
    console.print("stage two on echobank (proposer, setup-gen, reward-gen, gates, UI gate) …")
    result = run_stage_two(world, ui=True)
    out.append(measure("stage_two_seconds.echobank", "s", 1, lambda: result.seconds))
    out.append(measure("tasks_accepted.echobank", "tasks", 1, lambda: float(result.accepted)))
    out.append(measure("tasks_pass_rate.echobank", "ratio", 1, lambda: round(result.rate, 4)))
    return out


def _episode_figures(tmp: Path, console: Console) -> list[dict[str, Any]]:
    """The episode server on the echobank this bench built (current templates, a task corpus)."""
    from factory.bench.episodes import load_figures, oracle_figures, reset_figures

    world = _verified_echobank(tmp, console)
    console.print("episode server on echobank: reset beside a plain copy, memory, 200 concurrent episodes, "
                  "the oracle clean and noisy …")
    return reset_figures(world, machine_note()) + load_figures(world, machine_note()) + oracle_figures(world, machine_note())


def _domain_worlds(tmp: Path, console: Console) -> dict[str, Path]:
    """Each domain world with a task corpus: the one in worlds/ when built (only read), else the
    one this bench built (echobank, in stage two above), else built here: proven, then stage two
    without the browser gate (the grader and the red team read only the corpus)."""
    from factory.prove.graph import run_stage_one
    from factory.tasks.graph import run_stage_two

    found: dict[str, Path] = {}
    for name in REDTEAM_WORLDS:
        for candidate in (REPO / "worlds" / name, tmp / "verify" / name, tmp / "domain" / name):
            if World(candidate).tasks_file.is_file():
                found[name] = candidate
                break
        else:
            console.print(f"building and proving {name}, then its task corpus (no UI gate) …")
            world = Path(run_stage_one(str(REPO / "seeds" / f"{name}.yaml"), str(tmp / "domain"),
                                       fresh=True)["world"])
            run_stage_two(world, ui=False)
            found[name] = world
    return found


def _grading_figures(worlds: dict[str, Path], tmp: Path, console: Console) -> list[dict[str, Any]]:
    """In-process grading time of every task of each domain world, by task type, beside the
    floor of the same databases (open both, count every table's rows)."""
    from factory.bench.grading import grading_figures

    out: list[dict[str, Any]] = []
    for name, world in worlds.items():
        console.print(f"grading every task of {name} …")
        out += grading_figures(world, tmp / "grading" / name, machine_note())
    return out


def _redteam_figures(worlds: dict[str, Path], console: Console) -> list[dict[str, Any]]:
    """The red team on each domain world (only read): its false positives (target 0), its
    probes, and its time."""
    from factory.redteam import run_redteam

    out: list[dict[str, Any]] = []
    for name, world in worlds.items():
        console.print(f"red team of {name} …")
        report = run_redteam(world)
        out.append(measure(f"redteam_false_positives.{name}", "probes", 1, _constant(len(report.false_positives()))))
        out.append(measure(f"redteam_probes.{name}", "probes", 1, _constant(report.probes)))
        out.append(measure(f"redteam_seconds.{name}", "s", 1, _constant(report.seconds)))
    return out


def _constant(value: float) -> Callable[[], float]:
    """A measured-once figure in the form `measure` takes."""
    return lambda: float(value)
