"""`make suite`'s table: one row per world, every missed acceptance criterion marked, and a totals
and acceptance line under it (the command line prints them; nothing here prints)."""

from __future__ import annotations

from rich import box
from rich.markup import escape
from rich.table import Table

from factory.bench.suite import SuiteReport
from factory.bench.suite_figures import MIN_MULTI_ACTION, MIN_TASKS, SuiteWorld

MISSED = "✗"


def _cell(text: str, world: SuiteWorld, criterion: str) -> str:
    return f"[red]{escape(text)}{MISSED}[/red]" if criterion in world.failed else escape(text)


def _figure(value: object, suffix: str = "") -> str:
    return "—" if value is None else f"{value}{suffix}"


def suite_table(report: SuiteReport) -> Table:
    """The suite's rows, narrow enough for 80 columns (a log, a pipe); a missed criterion's cell is
    red and marked ✗."""
    state = " (with uncommitted changes)" if report.dirty else ""
    table = Table(title=f"suite at {report.commit[:12]}{state}, {report.lanes} lanes", box=box.SIMPLE_HEAD,
                  pad_edge=False, collapse_padding=True,
                  caption=f"rep: repair rounds; draft: task drafts; unc: workflows no task covers; multi: "
                          f"multi-action share. {MISSED} missed: claims 100% after repair, no 5xx, ≥ {MIN_TASKS} "
                          f"tasks, none uncovered, multi ≥ {100 * MIN_MULTI_ACTION:.0f}%, 0 lint hits")
    table.add_column("world", no_wrap=True)
    for column in ("build", "claims", "rep", "5xx", "draft", "tasks", "unc", "multi", "lint", "ok"):
        table.add_column(column, justify="right", no_wrap=True)
    for w in report.worlds:
        claims = "—" if w.claims_total is None else f"{w.claims_passed}/{w.claims_total}"
        uncovered = "—" if w.uncovered_workflows is None else str(len(w.uncovered_workflows))
        share = "—" if w.multi_action_share is None else f"{100 * w.multi_action_share:.0f}%"
        build = f"{w.build_seconds:.0f}s"
        table.add_row(escape(w.world), f"[red]{build}{MISSED}[/red]" if w.error else build,
                      _cell(claims, w, "claims"), _figure(w.repair_rounds), _cell(_figure(w.http_5xx), w, "5xx"),
                      _figure(w.tasks_proposed), _cell(_figure(w.tasks_accepted), w, "tasks"),
                      _cell(uncovered, w, "uncovered"), _cell(share, w, "multi-action"),
                      _cell(_figure(w.lint_hits), w, "lint"),
                      "[green]✓[/green]" if w.accepted else f"[red]{MISSED} {len(w.failed)}[/red]")
    return table


def suite_lines(report: SuiteReport) -> list[str]:
    """The totals line, then what each world missed (rich markup; the data in it escaped)."""
    worlds = report.worlds
    built = [w for w in worlds if not w.error]
    passed = sum(w.claims_passed or 0 for w in worlds)
    total = sum(w.claims_total or 0 for w in worlds)
    lines = [f"totals: {len(worlds)} worlds, {len(built)} built, {sum(w.accepted for w in worlds)} accepted; "
             f"claims {passed}/{total}; tasks {sum(w.tasks_accepted or 0 for w in worlds)}/"
             f"{sum(w.tasks_proposed or 0 for w in worlds)} accepted; 5xx {sum(w.http_5xx or 0 for w in worlds)}; "
             f"lint hits {sum(w.lint_hits or 0 for w in worlds)}; builds {sum(w.build_seconds for w in worlds):.0f} s "
             f"in {report.seconds:.0f} s of wall time"]
    for w in worlds:
        if w.accepted:
            lines.append(f"  [green]✓[/green] {escape(w.world)}: accepted")
            continue
        missed = "; ".join(f"{MISSED} {c}: {escape(why)}" for c, why in w.failed.items())
        lines.append(f"  [red]{MISSED}[/red] {escape(w.world)}: {missed}")
        if w.error:
            lines.append(f"      log: {escape(w.log)}")
        for example in w.lint_examples:
            lines.append(f"      lint {escape(example)}")
    return lines


__all__ = ["suite_lines", "suite_table"]
