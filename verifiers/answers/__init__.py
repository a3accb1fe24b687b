"""Judging free-text READ answers by what they assert (the rules: docs/answers.md).

An answer asserts a value when, once the words a person wraps around an answer are set aside
(articles, "it's", "the answer is", the subject restated as "X is a Y", an explanation in brackets
or after a comma), exactly one value of the expected kind remains and nothing qualifies it: a
comparative, a hedge, a range, arithmetic, a negation, a second candidate or code-like text voids
the answer. Values are then compared in their kind's canonical form (numbers, money, dates,
yes/no, phone numbers with their extension, emails, names and row labels, lists).

Modules, each named after what it does:

- `folding`: the one canonical text form every reader works on (Unicode, case, quotes, dashes);
- `lexicon`: the word lists and precompiled patterns (hedges, negations, comparatives, ...);
- `numbers`, `dates`, `contacts`, `truth`, `names`: where values of each kind sit in an answer;
- `assertion`: which located value the answer asserts, and what voids it;
- `lists`: list answers, item by item;
- `match`: `match_answer`, the entry point the `answer` check calls.
"""

from verifiers.answers.folding import normalize_text
from verifiers.answers.lists import list_candidates
from verifiers.answers.match import (
    Answer,
    Match,
    default_tolerance,
    match_answer,
    normalize_bool,
    normalize_date,
    normalize_email,
    normalize_money,
    normalize_number,
    normalize_phone,
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
