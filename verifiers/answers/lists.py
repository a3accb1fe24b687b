"""List answers: the ways an answer can be cut into items.

Items are split on new lines or semicolons, else on commas (commas inside "$1,234" or before a
year in "June 5, 2026" do not split), and also tried with "and" / "&" as separators; "- ", "* "
and "1." bullets are dropped; a JSON list (or a Python list passed in) is taken item by item.
Each item is then judged on its own by the rules of its kind (`match`), so "maybe Hulu" or
"or Hulu" is an item that asserts nothing, and the list fails.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from verifiers.answers.folding import unwrap

_LINES = re.compile(r"[\n;]+")
_SEPARATORS = {
    "number": re.compile(r",(?!\d{3}(?!\d))|(?<!\d),"),  # keep thousands separators
    "money": re.compile(r",(?!\d{3}(?!\d))|(?<!\d),"),
    "date": re.compile(r",(?!\s*\d{4}\b)"),  # keep "June 5, 2026"
}
_COMMA = re.compile(r",")
_AND = re.compile(r"\s+(?:and|&)\s+|^\s*(?:and|&)\s+")
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")


def _split_lines(text: str) -> list[str]:
    """Items of a list answer written one per line or separated by semicolons, or []."""
    parts = [p for p in _LINES.split(text) if p.strip()]
    return parts if len(parts) > 1 else []


def list_candidates(answer: str | Sequence[object], item_kind: str) -> list[list[str]]:
    """The ways a list answer can be read as items; a match with any of them counts."""
    if not isinstance(answer, str):
        return [[str(item) for item in answer]]
    text = unwrap(answer)
    if text.startswith("["):
        try:
            loaded = json.loads(text)
        except ValueError:
            loaded = None
        if isinstance(loaded, list):
            return [[str(item) for item in loaded]]
    text = text.strip("[]")
    strict = _split_lines(text) or _SEPARATORS.get(item_kind, _COMMA).split(text)
    loose: list[str] = []
    for part in strict:
        loose += _AND.split(part.strip())
    readings: list[list[str]] = []
    for candidate in (strict, loose):
        items = [_BULLET.sub("", p).strip() for p in candidate]
        readings.append([i for i in items if i])
    return readings
