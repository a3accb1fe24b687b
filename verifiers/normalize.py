"""Normalise and match free-text READ answers: the stable import point of `verifiers.answers`.

The rules (what an answer asserts, what voids it, the written forms of each kind) live in the
`verifiers.answers` package and are written down in docs/answers.md; this module keeps the names
the rest of the runtime and older callers import.
"""

from __future__ import annotations

from verifiers.answers import (
    Answer,
    Match,
    default_tolerance,
    list_candidates,
    match_answer,
    normalize_bool,
    normalize_date,
    normalize_email,
    normalize_money,
    normalize_number,
    normalize_phone,
    normalize_text,
)

__all__ = [
    "Answer",
    "Match",
    "default_tolerance",
    "list_candidates",
    "match_answer",
    "normalize_bool",
    "normalize_date",
    "normalize_email",
    "normalize_money",
    "normalize_number",
    "normalize_phone",
    "normalize_text",
]
