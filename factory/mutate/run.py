"""Mutation testing: inject one seeded fault into a built world and commit it, so claims can be scored on catching it.

    inject(world, kind, seed) -> Fault      apply a fault in place, commit 'mutation: <kind> <target>'
    plan(world, kinds, per_kind, seed, suite)   the deterministic (kind, seed) list of a mutation run
    targets(world, kind)                    the names of the eligible targets, in the order seeds pick from

Faults edit the world's generated artifacts as a real defect would (text edits of the generated Python at
sites found in its parsed structure, anchored edits of the JSX, SQL updates of data/seed.db); frontend
faults rebuild the bundle so the served app changes.
Two suites hold the injectors, with distinct kind names: "classic" (`factory/mutate/mutations/`, 11 kinds) and
"independent" (`factory/mutate/faults/`, 38 kinds written as real defects look, to measure the claims against).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import git
from pydantic import ValidationError

from factory.compiler.frontend import build_frontend
from factory.errors import FactoryError
from factory.mutate import faults
from factory.mutate.faults import derived as derived_faults
from factory.mutate.mutations import MUTATIONS, ORDER, Mutation, MutationError, Target, WorldView
from factory.world import history
from factory.world.assemble import open_world
from factory.world.layout import FRONTEND, World

log = logging.getLogger(__name__)

FAULT_KINDS: tuple[str, ...] = ORDER  # the classic suite, as before suites existed
# suite name → its kinds in report order, and kind → injector
SUITES: dict[str, tuple[tuple[str, ...], dict[str, Mutation]]] = {
    "classic": (ORDER, MUTATIONS),
    "independent": (faults.ORDER, faults.SUITE),
    "derived": (derived_faults.ORDER, derived_faults.SUITE),  # computed fields, lookups, messages, currencies
}
DEFAULT_SUITE = "classic"
ALL_KINDS: tuple[str, ...] = tuple(kind for kinds, _ in SUITES.values() for kind in kinds)
DIST = f"{FRONTEND}/dist"


@dataclass(frozen=True)
class Fault:
    """One injected fault, as reports and the kill-rate / repair-rate figures see it."""

    kind: str                 # e.g. "drop_route"
    layer: str                # "db" | "backend" | "frontend"
    target: str               # what was hit, e.g. "POST /api/workflows/archive_note" or "note.status rows (...)"
    description: str          # one line for reports
    files: tuple[str, ...]    # world-relative paths the mutation commit changed


def _view(world: Path) -> WorldView:
    root = open_world(world)
    try:
        spec = World(root).spec
    except ValidationError as exc:
        raise MutationError(f"{root}/spec.json does not match this factory's spec model ({exc.error_count()} "
                            "errors); rebuild the world with `factory world` first") from exc
    return WorldView(root, spec)


def suite_kinds(suite: str) -> tuple[str, ...]:
    """The kinds of one suite, in report order."""
    if suite not in SUITES:
        raise MutationError(f"unknown fault suite {suite!r}; the suites are: {', '.join(SUITES)}")
    return SUITES[suite][0]


def suite_of(kind: str) -> str:
    """The suite a kind belongs to (kind names are unique across suites)."""
    found = next((name for name, (kinds, _) in SUITES.items() if kind in kinds), None)
    if found is None:
        raise MutationError(f"unknown fault kind {kind!r}; the kinds are: {', '.join(ALL_KINDS)}")
    return found


def mutation(kind: str, suite: str | None = None) -> Mutation:
    """The injector of `kind`; with `suite`, a MutationError unless the kind belongs to that suite."""
    owner = suite_of(kind)
    if suite is not None and suite != owner:
        raise MutationError(f"fault kind {kind!r} belongs to the {owner} suite, not {suite!r}; the {suite} kinds "
                            f"are: {', '.join(suite_kinds(suite))}")
    return SUITES[owner][1][kind]


def _eligible(view: WorldView, kind: str) -> list[Target]:
    return mutation(kind).targets(view)


def _pick(candidates: Sequence[Target], seed: int) -> Target:
    # one draw from a generator seeded with the seed alone: the same seed always names the same target
    return random.Random(seed).choice(list(candidates))


def targets(world: Path, kind: str) -> list[str]:
    """Names of the targets a fault of `kind` may hit in `world` (empty when it has none)."""
    return [t.name for t in _eligible(_view(Path(world)), kind)]


def inject(world: Path, kind: str, seed: int, *, target: str | None = None, suite: str | None = None) -> Fault:
    """Apply one fault of `kind` (of either suite; `suite` checks which) to the built world in place and commit it.

    The target is chosen with random.Random(seed) among the eligible targets (or named exactly by
    `target`); the commit message is 'mutation: <kind> <target>'. Raises MutationError when the world
    has no eligible target, when a generated file lacks the anchor the fault edits, or when the edit
    would change nothing; on any failure the world's files are restored.
    """
    injector = mutation(kind, suite)
    view = _view(Path(world))
    try:
        staged = view.repo.git.diff("--cached", "--name-only").strip()
    except git.InvalidGitRepositoryError as exc:
        raise MutationError(f"{view.root} is not a git repository; mutations are committed to the world's repo") from exc
    if staged:
        raise MutationError(f"{view.root} has staged changes ({staged.splitlines()[0]} ...); commit them first")
    candidates = injector.targets(view)
    if not candidates:
        raise MutationError(f"{view.root}: no eligible target for {kind} in world {view.spec.world!r}")
    named = _pick(candidates, seed) if target is None else next((t for t in candidates if t.name == target), None)
    if named is None:
        raise MutationError(f"{view.root}: {kind} has no target {target!r}; eligible: "
                            + "; ".join(t.name for t in candidates))
    chosen: Target = named
    rng = random.Random(f"{seed}:{kind}:{chosen.name}")  # for choices inside the fault (which rows, ...)
    bundle = injector.layer == "frontend"
    if bundle:
        view.ensure_clean(DIST)
    try:
        applied = injector.apply(view, chosen, rng)
        if bundle:
            build_frontend(World(view.root).app_dir)
        files = _commit(view, kind, chosen.name, [*applied.paths, *([DIST] if bundle else [])], bundle)
    except BaseException:
        _restore(view, [*view.written, *([DIST] if bundle else [])])
        raise
    fault = Fault(kind=kind, layer=injector.layer, target=chosen.name, description=applied.description, files=files)
    log.info("mutation %s: %s", kind, fault.description)
    return fault


def _commit(view: WorldView, kind: str, target: str, paths: list[str], bundle: bool) -> tuple[str, ...]:
    repo = view.repo
    repo.git.add("--all", "--", *paths)
    files = tuple(repo.git.diff("--cached", "--name-only").splitlines())
    if not files:
        raise MutationError(f"{view.root}: the {kind} fault on {target!r} changed nothing")
    if bundle and not any(f.startswith(DIST + "/") for f in files):
        raise MutationError(f"{view.root}: the {kind} fault on {target!r} left the built bundle unchanged")
    history.commit_index(repo, f"mutation: {kind} {target}", author=history.MUTATOR)  # same world and seed, same commit
    return files


def _restore(view: WorldView, touched: list[str]) -> None:
    """Put back every path an injection touched (they were clean before it, so HEAD holds them)."""
    if not touched:
        return
    try:
        view.repo.git.reset("--quiet", "HEAD", "--", *touched)
        view.repo.git.checkout("HEAD", "--", *touched)
    except git.GitCommandError as exc:
        log.error("could not restore %s after a failed injection: %s", view.root, exc)


def plan(world: Path, kinds: Sequence[str] | None, per_kind: int, seed: int,
         suite: str = DEFAULT_SUITE) -> list[tuple[str, int]]:
    """Deterministic list of (kind, seed) injections for a mutation run.

    `kinds` default to every kind of `suite` (given kinds must belong to it). Per kind, seeds are drawn
    so that they hit distinct targets while distinct targets remain; kinds with no eligible target in
    this world are left out (and logged).
    """
    view = _view(Path(world))
    chosen = list(kinds) if kinds else list(suite_kinds(suite))
    for kind in chosen:
        mutation(kind, suite)  # an unknown kind, or one of the other suite, fails before any work
    runs: list[tuple[str, int]] = []
    for kind in chosen:
        candidates = _eligible(view, kind)
        if not candidates:
            log.info("plan: %s has no eligible target in %s; skipped", kind, view.spec.world)
            continue
        draw = random.Random(f"plan:{seed}:{kind}")
        used: set[str] = set()
        for _ in range(per_kind):
            for _attempt in range(64):  # bounded: after 64 draws a repeated target is accepted
                candidate = draw.randrange(2**31)
                name = _pick(candidates, candidate).name
                if name not in used or len(used) >= len(candidates):
                    break
            used.add(name)
            runs.append((kind, candidate))
    return runs


# ---------------------------------------------------------------- command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `factory mutate` (shared by `python -m factory.mutate.run` and the factory CLI)."""
    parser.add_argument("world", help="a built world directory (mutated in place; copy it first)")
    parser.add_argument("--kind", choices=ALL_KINDS, help="fault kind (default: list every kind's targets)")
    parser.add_argument("--suite", choices=tuple(SUITES), default=None,
                        help=f"fault suite whose kinds are listed (default {DEFAULT_SUITE}); with --kind, checks it")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--target", default=None, help="hit this target exactly instead of a seeded choice")


def run(args: argparse.Namespace) -> int:
    """List targets (no --kind) or inject one fault; writes JSON to stdout."""
    if args.kind is None:
        view = _view(Path(args.world))
        listing = {kind: [t.name for t in _eligible(view, kind)] for kind in suite_kinds(args.suite or DEFAULT_SUITE)}
        sys.stdout.write(json.dumps(listing, indent=1) + "\n")
        return 0
    fault = inject(Path(args.world), args.kind, args.seed, target=args.target, suite=args.suite)
    sys.stdout.write(json.dumps(dataclasses.asdict(fault), indent=1) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m factory.mutate.run",
                                     description="Inject one seeded fault into a built world")
    add_arguments(parser)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        return run(parser.parse_args(argv))
    except FactoryError as exc:
        log.error("%s", exc)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
