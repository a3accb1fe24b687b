"""How the command line shows long work: a status line that names the step, live progress bars
with counts, elapsed time and an ETA for counted work (through `factory.progress`), and a plain
line per finished step. Library code never prints; the CLI installs this as the reporter."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from factory import progress


class _Counted(ProgressColumn):
    """A column shown for counted tasks only: the status line (no total) leaves it blank."""

    def __init__(self, inner: ProgressColumn) -> None:
        super().__init__()
        self.inner = inner

    def render(self, task: Task) -> RenderableType:
        return Text("") if task.total is None else self.inner.render(task)


class Display:
    """The CLI's live view of a run: what the pipeline says, and a bar per counted task.

    Installed as the `factory.progress` reporter and counter for the length of a command. On a
    terminal: the lines said scroll above a status line (the last thing said) and one bar per
    running counted task (count, elapsed, ETA). Elsewhere (a pipe, a CI log) nothing is redrawn:
    the lines said, every tenth of a counted task, and its end, each as one plain line.
    """

    def __init__(self, console: Console, status: str) -> None:
        self.console = console
        self.live = console.is_terminal and not console.is_dumb_terminal
        self.bars = Progress(SpinnerColumn(), TextColumn("{task.description}"),
                             _Counted(BarColumn(bar_width=30)), _Counted(MofNCompleteColumn()),
                             TimeElapsedColumn(), _Counted(TimeRemainingColumn()),
                             console=console, transient=True, disable=not self.live)
        self.status_text = status
        self.status: TaskID | None = None
        self.lock = threading.Lock()

    def __enter__(self) -> Display:
        self.bars.start()
        self.status = self.bars.add_task(escape(self.status_text), total=None)
        progress.set_reporter(self.say)
        progress.set_counter(self.counter)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        progress.set_reporter(None)
        progress.set_counter(None)
        self.bars.stop()

    def say(self, message: str) -> None:
        """One line said by the pipeline: printed, and the status line shows it until the next."""
        self.console.print(f"  [dim]·[/dim] {escape(message)}")
        if self.status is not None:
            self.bars.update(self.status, description=escape(message))

    def _task(self, bar: TaskID) -> Task:
        # `Progress.tasks` is a list in creation order, not indexed by id: find the task by its id
        return next(t for t in self.bars.tasks if t.id == bar)

    @contextmanager
    def counter(self, name: str, total: int) -> Iterator[progress.Advance]:
        """A bar for one counted task; a plain line per tenth of it when nothing can be redrawn."""
        if total <= 0:  # nothing to count: no bar, no line
            yield _ignore
            return
        bar = self.bars.add_task(escape(name), total=total)
        done, tenth = 0, 0

        def advance(n: int = 1) -> None:
            nonlocal done, tenth
            self.bars.advance(bar, n)
            with self.lock:  # held while printing too, so the lines of a log come in order
                done += n
                reached = min(10, done * 10 // total)
                if self.live or reached <= tenth or reached == 10:
                    tenth = max(tenth, reached)
                    return
                tenth = reached
                remaining = self._task(bar).time_remaining
                # no estimate from the first tenth alone: the quick claims come first and would promise too much
                eta = f", about {_clock(remaining)} left" if remaining is not None and reached > 1 else ""
                self.console.print(f"  [dim]·[/dim] {escape(name)}: {done}/{total}{eta}")

        try:
            yield advance
        finally:
            elapsed = self._task(bar).elapsed
            self.bars.remove_task(bar)
            self.bars.refresh()  # the finished bar goes now, not at the next tick, above which its line would print
            took = f" in {_clock(elapsed)}" if elapsed is not None else ""
            self.console.print(f"  [dim]·[/dim] {escape(name)}: {done}/{total}{took}")


def _ignore(_n: int = 1) -> None:
    """The `advance` of a task with nothing to count."""


def _clock(seconds: float | None) -> str:
    """Seconds as m:ss (h:mm:ss past an hour), the way the bars show time."""
    whole = int(seconds or 0)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"
