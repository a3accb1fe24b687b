"""One reporter for what the pipeline is doing: the CLI installs its console, a library run logs.

Both stages' nodes say what they did through `say`; nothing else holds a reporter, so a run
started from the CLI, from `make bench` or from a test reports the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

log = logging.getLogger("factory")
Say = Callable[[str], None]


def _log(message: str) -> None:
    log.info(message)


_reporter: Say = _log


def set_reporter(say: Say | None) -> None:
    """Route every later `say` to `say` (None: back to logging)."""
    global _reporter
    _reporter = say or _log


def say(message: str) -> None:
    """Report one line of progress."""
    _reporter(message)


__all__ = ["Say", "say", "set_reporter"]
