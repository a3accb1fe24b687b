"""Command line: `python -m factory world|check|serve|bench|suite ...` (the Makefile calls these)."""

from __future__ import annotations

import argparse
import logging
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from factory import __version__, progress
from factory.adversarial_commands import add_adversarial_commands
from factory.display import Display
from factory.errors import FactoryError
from factory.publish_commands import add_publish_commands
from factory.world.layout import SEED_DB, SPEC, World

if TYPE_CHECKING:  # the model's modules load only for a free-form seed
    from factory.author.draft import DraftedSeed
    from factory.llm.accounting import Ledger

console = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)  # "seed.yaml:100:" is no emoji code


def _world(args: argparse.Namespace) -> int:
    from factory.author.source import is_freeform

    ledger = None
    if is_freeform(args.seed):  # a paragraph: a model drafts the YAML seed first, kept beside the world
        drafted, ledger = _draft(args.seed)
        args.seed = str(_keep(drafted, args.seed, args.out))
    # The seed is checked before the heavy imports and before anything is written: a typo fails
    # in a second, with the checker's `file:line: key: message`, and leaves no world behind.
    from factory.builder.build import build_spec
    from factory.seed.loader import load_seed

    build_spec(load_seed(args.seed))

    from factory.prove.graph import run_stage_one
    from factory.world.assemble import build_world

    with Display(console, f"building {args.seed} ...") as display:
        if args.build_only:
            path = build_world(args.seed, args.out, progress=display.say, frontend=not args.no_frontend).path
        else:
            state = run_stage_one(args.seed, args.out, ui=not args.no_ui, target=args.target, max_rounds=args.rounds,
                                  fresh=args.fresh)
            path = Path(state["world"])
        if ledger is not None:
            from factory.author.keep import record_usage
            record_usage(path, ledger.report())
        if not args.build_only and not args.no_tasks:
            _stage_two(path, args, display.say)
    _summary(path)
    if ledger is not None:
        console.print(f"  {ledger.summary()} (→ {World(path).llm_usage})")
    return 0


def _draft(seed: str) -> tuple[DraftedSeed, Ledger]:
    """A free-form seed's YAML seed, drafted by the configured model (refused without one), and what it cost."""
    from factory.author.draft import draft_file

    with Display(console, f"drafting a seed from {seed} ...") as display:
        drafted, ledger = draft_file(seed, say=display.say)
    console.print(f"  {ledger.summary()}")
    return drafted, ledger


def _keep(drafted: DraftedSeed, source: str, worlds: str) -> Path:
    """Write a drafted seed beside the worlds, where a person can edit it and build it again."""
    from factory.author.keep import write_seed

    path = write_seed(drafted, worlds)
    console.print(f"[green]seed:[/green] {path}, drafted from {source}; edit it and build again: make world SEED={path}")
    return path


def _stage_two(path: Path, args: argparse.Namespace, say: Callable[[str], None]) -> None:
    from factory.tasks.graph import run_stage_two
    fresh = args.fresh if args.command == "world" else not args.resume
    run_stage_two(path, total=args.tasks, ui=not args.no_ui, workers=args.workers, say=say, fresh=fresh,
                  unsafe_sandbox=args.unsafe_sandbox)


def _tasks(args: argparse.Namespace) -> int:
    from factory.world.assemble import open_world

    root = open_world(args.world)
    with Display(console, f"stage two on {root} ...") as display:
        _stage_two(root, args, display.say)
    _summary(root)
    return 0


def _summary(path: Path) -> None:
    from factory.world.assemble import text_sha256
    from factory.world.manifest import read_manifest, sha256_file

    m = read_manifest(World(path).manifest_file)
    # hashes are recomputed from the files, never read back from the manifest
    spec_sha = text_sha256(World(path).spec_file.read_text())
    db_sha = sha256_file(World(path).seed_db)
    console.print(f"[green]world:[/green] {m.world} → {path}")
    console.print(f"  spec sha256 {spec_sha[:16]}  seed db sha256 {db_sha[:16]}")
    for name, recorded, actual in ((SPEC, m.spec_sha256, spec_sha), (SEED_DB, m.seed_db_sha256, db_sha)):
        if recorded != actual:
            console.print(f"  [yellow]{name} changed since the build[/yellow] (manifest {recorded[:12]}, file {actual[:12]})")
    console.print(f"  {m.users} users, {m.entities} entities, {m.workflows} workflows, {sum(m.counts.values())} rows")
    console.print(f"  frontend {path / 'app/frontend/dist'}  database {path / 'data/seed.db'}")
    if m.claims.total:
        rate = 100 * m.claims.passed / m.claims.total
        scope = ("all layers" if m.claims.complete or not m.claims.skipped
                 else f"{', '.join(m.claims.layers)} only; {m.claims.skipped} browser claims not checked, not a full pass")
        console.print(f"claims: {m.claims.passed}/{m.claims.total} passed ({rate:.1f}%) in {m.claims.rounds} rounds ({scope})")
    if m.tasks.drafted:
        rate = 100 * m.tasks.accepted / m.tasks.drafted
        t = m.tasks.by_type
        console.print(f"tasks: {m.tasks.accepted}/{m.tasks.drafted} accepted ({rate:.1f}%): "
                      f"{t.read} read, {t.write} write, {t.read_write} read_write → {path / 'tasks/tasks.jsonl'}")
    console.print(f"  serve it: make serve WORLD={path}")


def _prove(args: argparse.Namespace) -> int:
    from factory.prove.graph import run_stage_one
    from factory.world.assemble import open_world

    root = open_world(args.world)
    with Display(console, f"proving {root} ..."):
        run_stage_one(world=str(root), ui=not args.no_ui, target=args.target, max_rounds=args.rounds, fresh=args.fresh,
                      recompile_claims=args.recompile_claims)
    _summary(root)
    return 0


def _check(args: argparse.Namespace) -> int:
    from factory.author.source import is_freeform
    from factory.builder.build import build_spec
    from factory.seed.check import label_warnings, lookup_warnings
    from factory.seed.label_clashes import label_clash_warnings
    from factory.seed.loader import load_seed
    from factory.tasks.language.confidence import confidence_warnings
    from factory.tasks.language.phrasing_warnings import phrasing_warnings

    if is_freeform(args.seed):  # the model drafts it (the reply cache makes `factory world` ask nothing again)
        from factory.author.keep import seed_path
        from factory.seed.loader import load_seed_text

        drafted, _ = _draft(args.seed)
        loaded = load_seed_text(drafted.text, drafted.file)
        console.print(f"[green]drafted[/green] {drafted.file} from {args.seed} (not written: `factory world {args.seed}` "
                      f"writes {seed_path('worlds', drafted.world)})")
    else:
        loaded = load_seed(args.seed)
    spec = build_spec(loaded)
    for warning in [*label_warnings(loaded, {t.entity: t.rows for t in spec.seed_plan.tables}), *lookup_warnings(loaded),
                    *label_clash_warnings(loaded, spec), *phrasing_warnings(loaded, spec),
                    *confidence_warnings(loaded, spec)]:
        console.print(f"[yellow]warning[/yellow] {warning}", highlight=False)
    rows = spec.seed_plan.total()
    console.print(f"[green]ok[/green] {args.seed}: {len(spec.entities) - 1} entities, {len(spec.workflows)} workflows, "
                  f"{len(spec.users)} users, {rows} planned rows, {len(spec.storyline)} storyline events")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from episodes.dbfiles import copy_db
    from factory.world.assemble import open_world

    root = open_world(args.world).resolve()
    spec = World(root).spec
    table = Table(title=f"{spec.title} — http://{args.host}:{args.port}/")
    for column in ("username", "password", "name"):
        table.add_column(column)
    for user in spec.users[: args.show_users]:
        table.add_row(user.username, user.password, user.name)
    console.print(table)
    if len(spec.users) > args.show_users:
        console.print(f"  … and {len(spec.users) - args.show_users} more in {root / 'README.md'}")
    if args.keep:
        run = World(root).run_dir
        run.mkdir(exist_ok=True)
        db = run / "app.db"
        if args.fresh or not db.exists():
            copy_db(World(root).seed_db, db)  # never serve the seed database itself
        console.print(f"serving [bold]http://{args.host}:{args.port}/[/bold] on {db}: changes are kept between runs "
                      "(--fresh starts over); Ctrl-C stops")
        command = [sys.executable, "-m", "backend.app", "--host", args.host, "--port", str(args.port), "--db", str(db)]
        if args.user:
            command += ["--user", args.user]
        return _run_child(command, World(root).app_dir)
    acting = args.user or spec.users[0].username
    console.print("every run starts from the seed state; nothing you change is kept (--keep keeps changes). "
                  f"Agents' episodes: the evaluator API on port {args.eval_port} (docs/episodes.md)")
    command = [sys.executable, "-m", "episodes", "serve", str(root), "--host", args.host, "--port", str(args.port),
               "--eval-port", str(args.eval_port), "--open-as", acting]
    return _run_child(command, Path(__file__).resolve().parents[1])  # the checkout holding episodes/


def _run_child(command: list[str], cwd: Path) -> int:
    """Run a server in the foreground; stopping `factory serve` stops it (or it would keep its port)."""
    child = subprocess.Popen(command, cwd=cwd)
    signal.signal(signal.SIGTERM, lambda _signum, _frame: child.terminate())
    try:
        return child.wait()
    except KeyboardInterrupt:
        child.terminate()
        child.wait()
        return 0


def _bench(args: argparse.Namespace) -> int:
    from factory.bench.run import run_benchmarks

    only = [part.strip() for part in args.only.split(",") if part.strip()] if args.only else None
    try:
        run_benchmarks(args.seeds, Path(args.output), repeats=args.repeats, console=console, only=only)
    except ValueError as exc:
        raise FactoryError(f"factory bench --only {args.only}: {exc}") from exc
    return 0


def _suite(args: argparse.Namespace) -> int:
    from factory.bench.suite import BuildOptions, run_suite, suite_seeds
    from factory.bench.suite_table import suite_lines, suite_table

    seeds = suite_seeds(args.seeds)
    options = BuildOptions(tasks=args.tasks, no_ui=args.no_ui, unsafe_sandbox=args.unsafe_sandbox)
    with Display(console, f"suite: building {len(seeds)} worlds on {args.lanes} lanes ..."):
        report = run_suite(seeds, Path(args.out), Path(args.output), lanes=args.lanes, options=options)
    console.print(suite_table(report))
    for line in suite_lines(report):
        console.print(line)
    console.print(f"written to {args.output}")
    return 1 if report.failed_builds else 0  # a world that misses acceptance was still built


def _setup(args: argparse.Namespace) -> int:
    from factory.runtime.bootstrap import bootstrap

    with Display(console, "setting up ..."):  # apt-get may wait for another install: it says so
        found = bootstrap(chromium=not args.no_chromium)
    for what, where in found.items():
        console.print(f"  [green]✓[/green] {what}: {where}")
    return 0


def _triage(args: argparse.Namespace) -> int:

    from factory.rollouts.triage import triage_rollouts
    from factory.world.assemble import open_world

    root = open_world(args.world).resolve()
    rollouts = Path(args.rollouts)
    if not rollouts.is_file():
        raise FactoryError(f"{args.rollouts}: no such rollouts file (one JSON record a line: docs/rollouts.md)")
    with Display(console, f"rollout triage of {rollouts} on {root.name} ..."):
        report = triage_rollouts(root, rollouts, repair=not args.no_repair, ui=not args.no_ui,
                                 sandbox="unsafe" if args.unsafe_sandbox else "bwrap")
    data = report.to_json()
    table = Table(title=f"rollout triage of {root.name}: {data['rollouts']} rollouts, {data['failed']} failed")
    for column in ("class", "rollouts", "causes"):
        table.add_column(column)
    for name, count in data["counts"].items():
        table.add_row(f"{name} defect", str(count), escape(", ".join(f"{k} {v}" for k, v in data["by_cause"][name].items())))
    console.print(table)
    for m in data["malformed"]:
        console.print(f"  [yellow]line {m['line']}[/yellow]: malformed, skipped ({escape(m['reason'])})")
    for u in data["unknown_tasks"]:
        console.print(f"  [yellow]line {u['line']}[/yellow]: {escape(u['reason'])}; not classed")
    if data["after_repair"] is not None:
        after = data["after_repair"]
        console.print(f"after repair: {after['passed']}/{after['rollouts']} affected rollouts pass")
    for o in data["open"]:
        console.print(f"  [red]open[/red] line {o['line']} {escape(o['task_id'])}: {o['class']} defect ({o['cause']})")
    console.print(f"report: {root / 'reports' / 'rollout_triage.md'}")
    return 1 if data["open"] and not args.no_repair else 0


def _loop_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-ui", action="store_true", help="skip the browser claims (faster)")
    # one target for `world` and `prove` (factory.progress.DEFAULT_TARGET)
    p.add_argument("--target", type=float, default=progress.DEFAULT_TARGET,
                   help="stop repairing once this share of the claims passes (default %(default)s)")
    p.add_argument("--rounds", type=int, default=3, help="repair round budget (default %(default)s)")
    p.add_argument("--fresh", action="store_true", help="ignore a checkpoint of an interrupted run")


def _task_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tasks", type=int, default=190, help="task drafts to propose (default 190)")
    p.add_argument("--workers", type=int, default=2, help="parallel browsers for the UI gate (default %(default)s)")
    p.add_argument("--unsafe-sandbox", action="store_true",
                   help="run reward-gen without Linux namespaces (bubblewrap), in a plain process with an "
                        "audit hook only; recorded in the manifest. Without it reward-gen refuses to run "
                        "where namespaces cannot be made")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="factory", description="A factory of verified worlds")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}",
                   help="print the factory's version and exit")
    p.add_argument("-v", "--verbose", action="store_true", help="log what every stage does (INFO level)")
    sub = p.add_subparsers(dest="command", required=True)
    w = sub.add_parser("world", help="build a world from a seed")
    w.add_argument("seed", help="the seed file, e.g. seeds/echobank.yaml (checked first: a bad seed writes nothing); a "
                                "markdown file (seeds/freeform/*.md) is drafted into a YAML seed by the configured model")
    w.add_argument("--out", default="worlds", help="directory holding worlds (default: worlds)")
    w.add_argument("--no-frontend", action="store_true", help="with --build-only: skip the React build")
    w.add_argument("--build-only", action="store_true", help="build the app and database, skip claims and repair")
    w.add_argument("--no-tasks", action="store_true", help="stop after stage one (no task corpus)")
    _loop_options(w)
    _task_options(w)
    w.set_defaults(run=_world)
    pr = sub.add_parser("prove", help="compile claims for a built world, verify, triage and repair it")
    pr.add_argument("world", help="a built world, e.g. worlds/echobank")
    pr.add_argument("--recompile-claims", action="store_true",
                    help="rewrite claims.json from the seed instead of refusing one that differs")
    _loop_options(pr)
    pr.set_defaults(run=_prove)
    t = sub.add_parser("tasks", help="(re)run stage two on a proven world: propose, set up, reward, gate")
    t.add_argument("world", help="a proven world, e.g. worlds/echobank")
    t.add_argument("--no-ui", action="store_true", help="skip the UI-feasibility gate (faster)")
    t.add_argument("--resume", action="store_true", help="continue an interrupted run instead of starting over")
    _task_options(t)
    t.set_defaults(run=_tasks)
    c = sub.add_parser("check", help="validate a seed and type-check its expressions, writing nothing")
    c.add_argument("seed", help="the seed file to check, e.g. seeds/echobank.yaml (a markdown file: drafted by the model, "
                                "checked, not written)")
    c.set_defaults(run=_check)
    s = sub.add_parser("serve", help="serve a built world on localhost")
    s.add_argument("world", help="a built world, e.g. worlds/echobank")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default %(default)s)")
    s.add_argument("--port", type=int, default=8000, help="port to listen on (default %(default)s)")
    s.add_argument("--eval-port", type=int, default=8001,
                   help="the evaluator API's port (episodes for agents; default %(default)s)")
    s.add_argument("--user", default=None,
                   help="sign in as this user (default: the first user; with --keep: act as them when no one is logged in)")
    s.add_argument("--keep", action="store_true",
                   help="one app on run/app.db that keeps changes between runs (default: each run starts from the seed)")
    s.add_argument("--fresh", action="store_true", help="with --keep: start run/app.db over from the seed database")
    s.add_argument("--show-users", type=int, default=8,
                   help="logins to list at start (default %(default)s; the world's README lists them all)")
    s.set_defaults(run=_serve)
    add_adversarial_commands(sub, console)
    tr = sub.add_parser("triage", help="class failed rollouts as world, task or model defects; repair the world "
                                       "and task defects; exit 1 when some stay open")
    tr.add_argument("world", help="the world the rollouts were played on, e.g. worlds/echobank")
    tr.add_argument("rollouts", help="a rollouts file (JSONL, docs/rollouts.md), e.g. the episode server's --rollouts FILE")
    tr.add_argument("--no-repair", action="store_true", help="class and report only (no stage-one or stage-two job)")
    tr.add_argument("--no-ui", action="store_true", help="the stage-one repair skips the browser claims (faster)")
    tr.add_argument("--unsafe-sandbox", action="store_true",
                    help="run reward-gen without Linux namespaces (see `factory tasks --help`)")
    tr.set_defaults(run=_triage)
    u = sub.add_parser("setup", help="install the npm packages and Chromium the builds and tests need")
    u.add_argument("--no-chromium", action="store_true",
                   help="do not install Chromium (only browser claims, the UI gate and UI tests need it)")
    u.set_defaults(run=_setup)
    add_publish_commands(sub, console)
    b = sub.add_parser("bench", help="run the benchmarks and write bench/results.json")
    b.add_argument("--seeds", nargs="*", default=None, help="seed files to benchmark (default: the built-in list)")
    b.add_argument("--output", default="bench/results.json", help="where to write the results (default %(default)s)")
    b.add_argument("--repeats", type=int, default=3, help="runs per measurement (default %(default)s)")
    b.add_argument("--only", default=None, metavar="SECTIONS",
                   help="comma-separated sections to measure (builds, verify, faults, tasks, episodes, grading, "
                        "redteam, triage, bundle); the other figures already in --output are kept")
    b.set_defaults(run=_bench)
    su = sub.add_parser("suite", help="build every seed of seeds/suite/ in parallel lanes, report one table and "
                                      "write bench/suite.json; exit 1 if a world failed to build")
    su.add_argument("--seeds", nargs="+", default=None, metavar="SEED",
                    help="seed files to build (default: seeds/suite/*.yaml, in name order)")
    su.add_argument("--out", default="worlds", help="directory holding the worlds (default: worlds)")
    su.add_argument("--lanes", type=int, default=2, help="builds run at once, each its own process (default %(default)s)")
    su.add_argument("--tasks", type=int, default=None,
                    help="task drafts per world, passed to `factory world --tasks` (default: its own)")
    su.add_argument("--no-ui", action="store_true",
                    help="passed to `factory world`: no browser claims, no UI gate (quicker, never a full pass)")
    su.add_argument("--unsafe-sandbox", action="store_true", help="passed to `factory world` (see its --help)")
    su.add_argument("--output", default="bench/suite.json", help="where to write the rows (default %(default)s; "
                                                                 "build logs and records beside it, in bench/suite/)")
    su.set_defaults(run=_suite)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.run(args))
    except FactoryError as exc:
        console.print(f"[red]error:[/red] {exc}", soft_wrap=True)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
