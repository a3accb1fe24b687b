"""The world a text is said in, for the length of one render or parse: the words the seed's own
prose writes as words and names (`grammar.seed_words`: "lab" in "waive lab fees" is a word, not
"LAB"), and the world's current year (`values.this_year`: "due June 4" is this year's June 4).

Every entry point that renders or parses a whole instruction (`phrasing.render`, `phrasing.parse`,
`errands.render_errand`, `errands.render_report`) says it inside `spoken_in(spec)`, so a goal
reads the same whichever part of the proposer wrote it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from factory.spec.model import Spec
from factory.tasks.language import grammar
from factory.tasks.language.values import this_year

_PROSE: dict[tuple[str, str], tuple[frozenset[str], frozenset[str]]] = {}


def seed_prose(spec: Spec) -> tuple[frozenset[str], frozenset[str]]:
    """The words the seed's own prose writes as words and as names (`grammar.prose_words`,
    `grammar.prose_names`), once per seed."""
    key = (spec.world, spec.seed_sha256)
    if key not in _PROSE:
        texts = [spec.title, spec.scenario, *(u.persona for u in spec.users), *(w.description for w in spec.workflows),
                 *(f.label for e in spec.entities for f in e.fields)]
        _PROSE[key] = grammar.prose_words(texts), grammar.prose_names(texts)
    return _PROSE[key]


@contextmanager
def spoken_in(spec: Spec) -> Iterator[None]:
    """Render or parse inside `spec`'s world: its prose words and its current year."""
    with grammar.seed_words(*seed_prose(spec)), this_year(spec.today[:4]):
        yield
