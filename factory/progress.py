"""One reporter for what the pipeline is doing: the CLI installs its console, a library run logs.

Two kinds of report go through this module and nothing else:

- `say(message)`: one line about a step that finished (both stages' nodes report this way);
- `task(name, total)`: a counted piece of work (claims verified, drafts proposed, trajectories
  replayed, fixers tried), used as `with task("verify", total=n) as advance: ... advance(1)`.

By default a line is logged at info and a counted task at debug, so a run started from
`make bench` or a test prints nothing; the CLI installs a console and a live progress display
(`set_reporter`, `set_counter`). Library code never prints and never imports rich: it reports here.
Progress is display only: nothing a reporter does may change what the factory writes.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

log = logging.getLogger("factory")
Say = Callable[[str], None]
Advance = Callable[[int], None]
"""Adds its argument to a counted task's completed count (callable from any thread)."""
Counter = Callable[[str, int], AbstractContextManager[Advance]]
"""Starts a counted task (name, total) and yields its `Advance`; the task ends with the block."""

# Where `make world` and `make prove` stop repairing: every claim passing. A world counts as proven
# at 95% (the README's promise), but a claim the repairer can fix is fixed, not left below a bar;
# both commands show the value in their help, and `--target` lowers it.
DEFAULT_TARGET = 1.0


def _log(message: str) -> None:
    log.info(message)


@contextmanager
def _log_counter(name: str, total: int) -> Iterator[Advance]:
    """The default counted task: debug lines at the start and the end, nothing per step."""
    done = 0
    lock = threading.Lock()
    started = time.perf_counter()
    log.debug("%s: 0/%d", name, total)

    def advance(n: int = 1) -> None:
        nonlocal done
        with lock:
            done += n

    yield advance
    log.debug("%s: %d/%d in %.1f s", name, done, total, time.perf_counter() - started)


_reporter: Say = _log
_counter: Counter = _log_counter


def set_reporter(say: Say | None) -> None:
    """Route every later `say` to `say` (None: back to logging)."""
    global _reporter
    _reporter = say or _log


def set_counter(counter: Counter | None) -> None:
    """Route every later counted `task` to `counter` (None: back to debug logging)."""
    global _counter
    _counter = counter or _log_counter


def say(message: str) -> None:
    """Report one line of progress."""
    _reporter(message)


@contextmanager
def task(name: str, total: int) -> Iterator[Advance]:
    """A counted task of `total` steps: the block calls the yielded `advance(n)` as steps finish.

    The reporter is read when the task starts, so a task keeps the display it began on even if
    another is installed meanwhile; `advance` may be called from worker threads.
    """
    with _counter(name, max(0, total)) as advance:
        yield advance


__all__ = ["DEFAULT_TARGET", "Advance", "Counter", "Say", "say", "set_counter", "set_reporter", "task"]
