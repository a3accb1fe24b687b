"""Phone numbers and email addresses: where they sit in a folded answer, and their canonical form.

A phone number is compared by its digits and its extension. "(520) 790-7206", "520-790-7206",
"520.790.7206", "5207907206", "+1 520 790 7206", "1-520-790-7206" and "001-520-790-7206" are one
number: a ten-digit number written without a country code is a North American one (+1), "00"
is the international prefix. "ext. 229", "extension 229", "x229" and "#229" are one extension; a
number with an extension is not the number without it.

An email address is compared case-insensitively, local part and domain; "mailto:" and angle
brackets around it ("Carrie Payne <carrie@example.com>") are not part of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EXTENSION = r"(?:\s*,?\s*(?:ext\.?|extension|x|#|ext:)\s*(?P<ext>\d{1,6})(?!\d))?"
PHONE = re.compile(
    r"(?<![\w+#.])(?P<num>(?:\+\s?|00)?(?:\(\s?\d{1,4}\s?\)|\d{1,4})"
    r"(?:[ .\-/]?(?:\(\s?\d{1,4}\s?\)|\d{1,5})){1,6})(?!\d)" + _EXTENSION + r"(?![\w])")
EMAIL = re.compile(
    r"(?P<open><\s*)?(?:mailto:\s*)?(?P<addr>(?<![\w.+'-])[a-z0-9._%+'-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+)"
    r"(?(open)\s*>)(?![\w@-])")
MIN_DIGITS, MAX_DIGITS = 7, 15


@dataclass(frozen=True)
class Found:
    """A contact value in an answer: its place and its canonical form."""

    start: int
    end: int
    value: str


def phone_key(number: str, extension: str | None) -> str:
    """Canonical phone: international digits (a ten-digit number gets +1), then 'x' and the
    extension when there is one ("15207907206x229")."""
    text = number.strip()
    international = text.startswith(("+", "00"))
    digits = re.sub(r"\D", "", text)
    if text.startswith("00"):
        digits = digits[2:]
    elif not international and len(digits) == 10:
        digits = "1" + digits
    return digits + (f"x{extension}" if extension else "")


def phones(text: str) -> list[Found]:
    """Every phone number of a folded answer (7 to 15 digits), in order."""
    found: list[Found] = []
    for m in PHONE.finditer(text):
        count = sum(c.isdigit() for c in m["num"])
        if MIN_DIGITS <= count <= MAX_DIGITS:
            found.append(Found(m.start(), m.end(), phone_key(m["num"], m["ext"])))
    return found


def emails(text: str) -> list[Found]:
    """Every email address of a folded answer, in order, in canonical (case-folded) form."""
    return [Found(m.start(), m.end(), m["addr"]) for m in EMAIL.finditer(text)]
