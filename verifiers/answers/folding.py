"""The canonical text form every answer reader works on, and the name-comparison form.

`fold` is applied once per answer: every later step (locating values, finding wrapper words and
qualifiers) reads the folded text, so case, accents, typographic quotes, Unicode minus signs and
odd spaces never have to be thought of again.
"""

from __future__ import annotations

import re
import unicodedata

# Typographic characters people (and their keyboards) put where ASCII ones are meant.
_TRANSLATE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2212": "-", "\u2010": "-", "\u2011": "-", "\u00ad": "",
    "\u200b": "", "\u200c": "", "\u200d": "", "\ufeff": "",
})
_SPACES = re.compile(r"[ \t\f\v]+")
_LINES = re.compile(r"\s*\n\s*")
_WRAPPING_QUOTES = "\"'`"
# Name tokens: runs of letters and digits, and "&" (read as "and").
_TOKEN = re.compile(r"[^\W_]+|&")


def fold(text: str) -> str:
    """NFKC, no accents, case-folded, ASCII quotes and minus, single spaces; lines are kept
    (a list may be written one item per line) and the ends are trimmed."""
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATE)
    decomposed = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    return _LINES.sub("\n", _SPACES.sub(" ", text)).strip()


def unwrap(text: str) -> str:
    """Drop quotes wrapping the whole answer and the sentence's final full stops or bangs:
    neither says anything about the value."""
    text = text.strip()
    while len(text) >= 2 and text[0] in _WRAPPING_QUOTES and text[-1] == text[0]:
        text = text[1:-1].strip()
    return text.rstrip(".! \n").strip()


def name_tokens(text: str) -> list[tuple[str, int, int]]:
    """(token, start, end) of every word of a folded text; '&' reads as 'and'."""
    return [("and" if m[0] == "&" else m[0], m.start(), m.end()) for m in _TOKEN.finditer(text)]


def normalize_text(text: str) -> str:
    """Case, accent, punctuation and space-insensitive form of a name ('' when nothing is left)."""
    return " ".join(t for t, _s, _e in name_tokens(fold(text)))
