"""Where an expected name (a text value, a row's label or another name of the row) sits in an answer.

Names are compared token by token after folding: case, accents and punctuation never matter
("acme, inc." is "Acme Inc"), "&" reads as "and", and a name must match whole tokens ("Acme" is
not found inside "Acme Inc" when the name asked for is "Acme Inc", nor "Inc" inside "Incorporated").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from verifiers.answers.folding import name_tokens


@dataclass(frozen=True)
class NameFound:
    """An accepted name found in an answer: its place and which name it is (an index into the
    names the caller gave)."""

    start: int
    end: int
    value: int


def find_names(text: str, names: Sequence[tuple[str, ...]]) -> list[NameFound]:
    """Leftmost-longest, non-overlapping occurrences of any of `names` (each a tuple of name
    tokens) in a folded answer. A name that opens a bracket takes the closing one with it, so
    "Quick question (Carrie Payne)" leaves no stray ')' behind."""
    tokens = name_tokens(text)
    words = [t for t, _s, _e in tokens]
    order = sorted(range(len(names)), key=lambda i: -len(names[i]))
    found: list[NameFound] = []
    i = 0
    while i < len(words):
        hit = next((n for n in order if names[n] and tuple(words[i:i + len(names[n])]) == names[n]),
                   None)
        if hit is None:
            i += 1
            continue
        last = i + len(names[hit]) - 1
        start, end = tokens[i][1], tokens[last][2]
        opened = text.count("(", start, end) - text.count(")", start, end)
        while opened > 0 and end < len(text) and text[end] in " )":
            opened -= text[end] == ")"
            end += 1
        found.append(NameFound(start, end, hit))
        i = last + 1
    return found
