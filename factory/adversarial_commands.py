"""The command line's adversarial commands: `factory mutate` (seeded faults in copies of a proven world:
do the claims kill them, does the repairer fix them) and `factory redteam` (adversarial final states and
answers of every task: does any reward program grade one 1). Here, in the bench room, because it is the
room above both `mutate` and `redteam` (tests/unit/test_layers.py), and the fault suites and the red
team are among the figures it measures."""

from __future__ import annotations

import argparse
import signal
import sys
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def _mutate(console: Console, args: argparse.Namespace) -> int:

    from factory.mutate.run import suite_of
    from factory.mutate.score import FaultOutcome, score_world
    from factory.world.assemble import open_world

    root = open_world(args.world)
    repair = not args.no_repair
    if args.suite is None:  # named kinds choose their suite (kind names are unique across suites)
        args.suite = suite_of(args.kind[0]) if args.kind else "classic"
    table = Table(title=f"{args.suite} mutations of {root.name}")
    for column in ("kind", "layer", "target", "killed", "repaired", "rounds"):
        table.add_column(column)

    def show(o: FaultOutcome) -> None:
        fixed = ("repaired" if o.repaired else "[red]not repaired[/red]") if repair else "repair not tried"
        console.print(f"  [dim]·[/dim] {o.kind} {escape(o.target)}: {'killed' if o.killed else '[red]survived[/red]'}, "
                      f"{fixed}")
        table.add_row(o.kind, o.layer, escape(o.target), str(o.killed), str(o.repaired) if repair else "—",
                      str(o.rounds) if repair else "—")

    score = score_world(root, args.kind or None, args.per_kind, args.seed, progress=show, suite=args.suite,
                        repair=repair)
    console.print(table)
    kinds = Table(title=f"per kind ({args.suite} suite)")
    for column in ("kind", "layer", "faults", "killed", "repaired"):
        kinds.add_column(column, justify="left" if column in ("kind", "layer") else "right")
    for name, s in [*score.by_kind().items(), *(("all " + k, v) for k, v in score.by_layer().items())]:
        killed = f"{s.killed} ({100 * s.kill_rate:.0f}%)"
        repaired = f"{s.repaired} ({100 * s.repair_rate:.0f}%)" if repair else "—"
        kinds.add_row(name, s.layer, str(s.faults), killed if s.killed == s.faults else f"[red]{killed}[/red]",
                      repaired)
    console.print(kinds)
    for error in score.errors:
        console.print(f"[red]{error['stage']} failed[/red] {error['kind']} (seed {error['seed']}): {escape(error['error'])}")
    repaired_text = f"repair rate {100 * score.repair_rate:.1f}%" if repair else "repair not tried"
    console.print(f"mutations ({args.suite}): {len(score.faults)} faults, kill rate {100 * score.kill_rate:.1f}%, "
                  f"{repaired_text}" + (f", {len(score.errors)} not injected or not verified" if score.errors else ""))
    return 1 if score.errors else 0


def _redteam(console: Console, args: argparse.Namespace) -> int:
    import json

    from rich import box

    from factory.redteam import RedTeamError, run_redteam
    from factory.world.assemble import open_world

    root = open_world(args.world).resolve()
    out = Path(args.json).resolve() if args.json else None
    if out is not None and out.is_relative_to(root):
        raise RedTeamError(f"--json {args.json}: the red team never writes into the world; choose a path outside {root}")
    # A terminated run still removes its copies (they may be in /dev/shm, that is, in memory).
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(143))
    with console.status(f"red team on {root.name} …") as status:
        def progress(done: int, total: int, task: str) -> None:
            status.update(f"red team on {root.name}: {done}/{total} tasks graded (last: {task})")

        report = run_redteam(root, tasks=args.tasks, seed=args.seed, kinds=args.kind, skip=args.skip, workers=args.workers,
                             cross_limit=args.cross, progress=progress)
    # Compact enough for 80 columns (a log or a pipe): every kind name and count stays whole.
    table = Table(title=f"red team of {root.name}: {report.tasks} tasks, seed {report.seed}", box=box.SIMPLE_HEAD,
                  pad_edge=False, collapse_padding=True,
                  caption="graded 1 = false positive; equiv = the golden state itself (a solution, not counted); "
                          "n/a = not made for that task")
    table.add_column("probe kind", no_wrap=True)
    for column in ("probes", "graded 0", "graded 1", "errors", "equiv", "n/a", "tasks"):
        table.add_column(column, justify="right", no_wrap=True)
    for c in report.counts():
        fp = f"[red]{c.false_positives}[/red]" if c.false_positives else "0"
        table.add_row(c.kind, str(c.probes), str(c.graded_0), fp, str(c.errors), str(c.equivalent),
                      str(c.not_applicable), str(c.tasks))
    console.print(table)
    # Task ids, answers and notes are data: brackets in them are not rich markup.
    for r in report.false_positives():
        answer = "" if r.answer is None else f" answer {r.answer!r}"
        note = f" ({r.note})" if r.note else ""
        console.print(f"  [red]false positive[/red] {escape(f'{r.task} {r.kind} [{r.name}]{answer}{note}')}")
    for r in report.errors():
        console.print(f"  [yellow]grading error[/yellow] {escape(f'{r.task} {r.kind} [{r.name}]: {r.explanation}')}")
    for b in report.baseline:
        console.print(f"  [yellow]baseline[/yellow] {escape(str(b['task']) + ': ' + str(b['problem']))}")
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report.to_json(), indent=2) + "\n")
        console.print(f"  written to {out}")
    console.print(report.summary())
    return 1 if report.false_positives() else 0


def add_adversarial_commands(sub: Any, console: Console) -> None:
    """Add `mutate` and `redteam` to the command line's subparsers."""
    mu = sub.add_parser("mutate", help="inject seeded faults into copies of a proven world; kill and repair rates")
    mu.add_argument("world", help="a proven world, e.g. worlds/echobank (only copies of it are changed)")
    mu.add_argument("--kind", action="append", help="fault kind (repeatable; default: every kind of the suite)")
    mu.add_argument("--suite", choices=("classic", "independent", "derived"), default=None,
                    help="fault suite: classic (11 kinds), independent (38 kinds) or derived (4 kinds: computed "
                         "fields, lookups, messages with values, currencies); default: the suite of the "
                         "--kind given, else classic")
    mu.add_argument("--per-kind", type=int, default=1, help="faults per kind, at distinct sites while there are")
    mu.add_argument("--seed", type=int, default=0, help="seed of the fault sites chosen (default %(default)s)")
    mu.add_argument("--no-repair", action="store_true", help="measure kills only (no repair loop)")
    mu.set_defaults(run=partial(_mutate, console))
    rt = sub.add_parser("redteam", help="grade adversarial states and answers of every task; exit 1 on a false positive")
    rt.add_argument("world", help="a world with a task corpus, e.g. worlds/echobank")
    rt.add_argument("--tasks", type=int, default=None, help="red-team the first N tasks only (default: all)")
    rt.add_argument("--seed", type=int, default=0, help="seed of the row choices (default 0)")
    rt.add_argument("--json", default=None, help="write the full result here (never inside the world)")
    rt.add_argument("--kind", action="append",
                    help="probe family or kind, e.g. schema or answer:qualified (repeatable; default: all)")
    rt.add_argument("--skip", action="append", help="probe family or kind to leave out, e.g. answer:huge (repeatable)")
    rt.add_argument("--cross", type=int, default=None, help="other tasks' golden changes tried per task (default: all)")
    rt.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    rt.set_defaults(run=partial(_redteam, console))


__all__ = ["add_adversarial_commands"]
