"""The publishing commands of the command line: `factory bundle` (and `bundle verify`), `factory
export` and `factory review`, each turning a built world into something other people use."""

from __future__ import annotations

import argparse
import time
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from factory.display import Display
from factory.errors import FactoryError


def _bundle(console: Console, args: argparse.Namespace) -> int:
    if args.what == "verify":
        from factory.bundle import verify_bundle

        if args.target is None:
            raise FactoryError("factory bundle verify X.tar.gz: name the bundle file to verify")
        with console.status(f"verifying {args.target} …"):
            report = verify_bundle(Path(args.target), sample=args.sample, seed=args.seed, venv=args.fresh_venv)
        for line in report.summary():
            console.print(escape(line))
        return 0 if report.ok else 1
    from factory.bundle import build_bundle

    if args.target is not None:
        raise FactoryError(f"factory bundle {args.what} {args.target}: one world (or `verify X.tar.gz`)")
    built = build_bundle(args.what, args.out, version=args.version, redteam=args.redteam)
    tasks = built.info["counts"]["tasks"]
    console.print(f"[green]bundle:[/green] {built.path} ({built.size / 1e6:.2f} MB, {built.files} files, "
                  f"{tasks['total']} tasks, version {built.version}, license {built.info['license'] or 'none'})")
    console.print(f"  verify it: make verify-bundle BUNDLE={built.path}")
    return 0


def _export(console: Console, args: argparse.Namespace) -> int:
    from factory.export import export_echoverse, export_harbor, export_hf

    started = time.perf_counter()
    out = args.out or f"exports/{args.format}"
    if args.format == "hf":
        done = export_hf(args.world, out, fmt=args.hf_format)
    else:
        done = (export_echoverse if args.format == "echoverse" else export_harbor)(args.world, out)
    console.print(f"[green]{done.format}:[/green] {done.root} ({done.tasks} tasks, {done.files} files, "
                  f"{done.bytes / 1e6:.2f} MB, {time.perf_counter() - started:.1f} s)")
    for note in done.notes:
        console.print(f"  {escape(note)}", soft_wrap=True)
    return 0


def _review(console: Console, args: argparse.Namespace) -> int:
    from factory.review import build_review

    strips = None if args.strips == "all" else int(args.strips)
    redteam = Path(args.redteam) if args.redteam else None
    with Display(console, f"review site of {args.world} ..."):
        site = build_review(Path(args.world), Path(args.out) if args.out else None, strips=strips, seed=args.seed,
                            personas=args.personas, screens=not args.no_screens, redteam=redteam, workers=args.workers)
    console.print(f"[green]review:[/green] {site.path / 'index.html'} ({site.bytes / 1e6:.1f} MB, {site.images} pictures: "
                  f"{site.shots} pages, {site.strips} strips replayed; {site.claims} claims, {site.tasks} tasks) "
                  f"in {site.seconds:.0f} s")
    return 0


def add_publish_commands(sub: Any, console: Console) -> None:
    """Add `bundle`, `export` and `review` to the command line's subparsers."""
    bu = sub.add_parser("bundle", help="publish a world as a benchmark bundle, or verify one",
                        usage="factory bundle WORLD [--out dist] [--version V] [--redteam FILE]\n"
                              "       factory bundle verify X.tar.gz [--sample N --seed S] [--fresh-venv]")
    bu.add_argument("what", help="a built world with a task corpus (e.g. worlds/echobank), or `verify`")
    bu.add_argument("target", nargs="?", default=None, help="with verify: the bundle file (.tar.gz)")
    bu.add_argument("--out", default="dist", help="folder the bundle is written to (default %(default)s)")
    bu.add_argument("--version", default=None,
                    help="the bundle's version (default: <factory version>+<content id>, see docs/bundles.md)")
    bu.add_argument("--redteam", default=None, metavar="FILE",
                    help="a red-team result (`factory redteam WORLD --json FILE`) whose figure bundle.json records")
    bu.add_argument("--sample", type=int, default=None, help="with verify: gate a seeded sample of N tasks (default: all)")
    bu.add_argument("--seed", type=int, default=0, help="with verify: the sample's seed (default %(default)s)")
    bu.add_argument("--fresh-venv", action="store_true",
                    help="with verify: serve the bundle from a new venv holding only its requirements.txt")
    bu.set_defaults(run=partial(_bundle, console))
    ex = sub.add_parser("export", help="write a world in another harness's format: echoverse, harbor or hf (docs/exports.md)")
    ex.add_argument("format", choices=("echoverse", "harbor", "hf"), help="the format")
    ex.add_argument("world", help="a built world with a task corpus, e.g. worlds/echobank (only read)")
    ex.add_argument("--out", default=None, help="folder the export is written to (default exports/<format>)")
    ex.add_argument("--format", dest="hf_format", choices=("parquet", "jsonl"), default="parquet",
                    help="with hf: the data files' format (default %(default)s)")
    ex.set_defaults(run=partial(_export, console))
    rv = sub.add_parser("review", help="build a world's static review site (open index.html from file://)")
    rv.add_argument("world", help="a built world, e.g. worlds/echobank (only read)")
    rv.add_argument("--out", default=None, help="the site's folder (default dist/review/<world>)")
    rv.add_argument("--strips", default="24", help="golden trajectories replayed as strips: a number (a seeded sample, "
                                                   "every task type in turn), `all` or 0 (default %(default)s)")
    rv.add_argument("--seed", type=int, default=0, help="the strips' sample seed (default %(default)s)")
    rv.add_argument("--personas", type=int, default=3, help="users whose view of every page is shown (default %(default)s)")
    rv.add_argument("--no-screens", action="store_true", help="no pictures that need the app (pages and strips)")
    rv.add_argument("--redteam", default=None, metavar="FILE", help="a `factory redteam WORLD --json FILE` result to show")
    rv.add_argument("--workers", type=int, default=2, help="parallel browsers (default %(default)s)")
    rv.set_defaults(run=partial(_review, console))


__all__ = ["add_publish_commands"]
