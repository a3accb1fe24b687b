"""The shape of a text a person types into a field: never what an app writes ("Invoice #6683", "Re: …");
one sentence without its final stop (the instruction's own stop ends it); within the field's limit,
cut after a whole word; the next of a series ("Problem set 3" → "Problem set 4"); a code ("PO-40950").
"""

from __future__ import annotations

import re

from factory.tasks.language import grammar

# What an app writes, never a person: a generated number ("Your receipt #513468", "Invoice #6683")
# or a reply's prefix ("Re: …"). Such a row value is no text to ask an agent to type.
_MACHINE_TEXT = re.compile(r"#\s*\d{3,}|^(?:re|fwd?|aw|tr)\s*:", re.IGNORECASE)


def typed(values: list[str]) -> list[str]:
    """The values a person could have typed themselves (`_MACHINE_TEXT` left out)."""
    return [v for v in values if not _MACHINE_TEXT.search(v)]


def typed_in(value: str) -> str:
    """A text typed into a field ends where the instruction's own stop does ("…damage".), one
    sentence or several ("Screenshot attached. It says access denied".), never `…denied."."`."""
    if value.endswith(".") and not value.endswith(".."):
        return value[:-1]
    return value


def in_series(text: str) -> bool:
    """Whether a title can have a next one: it counts already ("Problem set 3"), or it is one word
    naming a thing that comes in turns ("Midterm" → "Midterm 2"). A description has none ("Desk
    phone problem 2" reads as a placeholder), nor a sentence-like title ("Slow internet at a site
    2") or a clause ("Application keeps crashing 2")."""
    words = grammar.words_of(text)
    # a name of a thing, never a clause about one: "Application keeps crashing", "Emails bouncing
    # back" say what happens (a verb in them), and "… 2" of those is no title a person writes
    clause = any(w.endswith("ing") or grammar.is_participle(w) or (grammar.is_verb(w) and not grammar.is_noun(w))
                 for w in (x.lower() for x in words))
    return bool(re.search(r"\d", text)) or (len(words) == 1 and not clause and words[0] not in grammar.CLOSED)


def next_of(text: str) -> str:
    """The next of a series: its last number counted on ("Problem set 3: Determinants" → "Problem
    set 4: Determinants"), else " 2" after it ("Midterm" → "Midterm 2")."""
    numbers = list(re.finditer(r"\d+", text))
    if numbers:
        m = numbers[-1]
        return f"{text[:m.start()]}{int(m.group()) + 1}{text[m.end():]}"
    return f"{text} 2"


CODE = re.compile(r"[A-Za-z0-9]*\d[A-Za-z0-9\-/.#]*|[A-Za-z]+[\-/.#]?\d[A-Za-z0-9\-/.#]*")


def fit_text(text: str, limit: int) -> str:
    """`text` within `limit` characters, cut after a whole word (never "for your re")."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[: limit + 1].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip(" ,.;:-")


def content_words(text: str) -> set[str]:
    """What a text is about: its nouns that are no verb ("duty", "container"; never "invoice" or
    "looks", which any sentence of the act may say), singular ("duties" and "duty" agree)."""
    words = {grammar.singular(w) for w in re.findall(r"[a-z]{3,}", text.lower())}
    return {w for w in words if grammar.is_noun(w) and not grammar.is_verb(w) and w not in grammar.CLOSED}



def kind_words(value: str) -> set[str]:
    """The words a kind is said in ("water_damage" → {"water", "damage"}), singular, with no
    word of the grammar's closed classes ("other", "and")."""
    return {grammar.singular(w) for w in re.findall(r"[a-z]{3,}", value.replace("_", " ").lower())} - grammar.CLOSED


def _says(text: str, words: set[str]) -> bool:
    """Whether `text` says one of `words`, or a word of its stem ("cancelled" for "cancellation",
    "burgled" for "burglary": a shared start of at least five letters, all but two of the shorter)."""
    for w in {grammar.singular(t) for t in re.findall(r"[a-z]{3,}", text.lower())}:
        for k in words:
            if w == k:
                return True
            common = next((i for i, (a, b) in enumerate(zip(w, k, strict=False)) if a != b), min(len(w), len(k)))
            if common >= max(5, min(len(w), len(k)) - 2):
                return True
    return False


def clashes(text: str, own: set[str], others: set[str]) -> bool:
    """Whether `text` names a kind its row is not: a word of another value of one of the row's
    kinds that none of its own values has ("The vet has confirmed …" on a lost-baggage claim),
    and no word of its own ("Storm lifted slates; water came through" is a storm claim's)."""
    return not _says(text, own) and _says(text, others - own)


def names_kind(text: str, own: set[str]) -> bool:
    """Whether `text` says a word of one of its row's own kinds ("Chip pan fire …" for a fire claim)."""
    return _says(text, own)
