"""Normalise and match free-text READ answers: the stable import point of `verifiers.answers`.

The rules (what an answer asserts, what voids it, the written forms of each kind) live in the
`verifiers.answers` package and are written down in docs/answers.md; this module keeps the names
the rest of the runtime and older callers import, exactly the package's own `__all__`.
"""

from __future__ import annotations

from verifiers import answers as _answers
from verifiers.answers import *  # noqa: F403  (re-exports exactly the package's __all__, below)

__all__ = list(_answers.__all__)  # the package's public names, listed once there
