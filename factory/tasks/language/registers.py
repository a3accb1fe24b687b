"""Registers of a goal: terse ("Lock my visa card ··9591."), polite ("Please …", "Could you …?")
and goal-first, where the person says who they are before what they want ("I travel for work, so
lock my visa card ··9591.").

The context of a goal-first goal is never invented: it is the first clause of the acting user's
persona in the seed, put in the first person ("Travels for work, locks her card …" → "I travel for
work"). A persona whose first clause cannot be said that way (it speaks of someone else, holds
numbers or quotes) gives no context, and the goal stays in its own register. The parser drops the
context (`drop_context`): it says why, never what.
"""

from __future__ import annotations

import re

_THIRD = re.compile(r"\b(?:she|he|they|her|him|his|hers|their|them|she's|he's)\b", re.IGNORECASE)
_CONTEXT = re.compile(r"^(?:I|I'm) [^\"$\d]+?, so (?P<rest>.+)$")
# Plural nouns that open a job title or a role ("Sales associate", "Operations lead"): not verbs in -s
_TITLE_NOUNS = frozenset({"accounts", "analytics", "arts", "benefits", "claims", "communications", "customs", "economics",
                          "events", "facilities", "graphics", "logistics", "news", "operations", "payments", "relations",
                          "sales", "services", "sports", "systems"})


def persona_context(persona: str) -> str | None:
    """The persona's first clause in the first person, or None when it cannot be said so."""
    clause = re.split(r"[;,.:]| who | but ", persona.strip(), maxsplit=1)[0].strip()
    words = clause.split()
    if not words or len(words) > 9 or _THIRD.search(clause) or re.search(r"[\"'\d$]", clause):
        return None
    first, rest = words[0].lower(), " ".join(words[1:])
    tail = f" {rest}" if rest else ""
    if first.endswith(("ly", "ed")):  # "Recently moved" (a verb), "Retired teacher" (a noun phrase)
        if first.endswith("ed") and rest and rest.split()[0].lower() not in ("to", "from", "in", "out", "away", "house"):
            return f"I'm a {clause[:1].lower()}{clause[1:]}"  # "Retired teacher" is a noun phrase
        return f"I {first}{tail}"
    if first.endswith("s") and not first.endswith(("ss", "us", "is")) and first not in _TITLE_NOUNS:
        # A persona describes one person: a first word in -s is a verb ("Plans long trips ahead").
        base = (first[:-3] + "y" if first.endswith("ies") else
                first[:-2] if first.endswith(("ches", "shes", "sses", "xes")) else first[:-1])
        return f"I {base}{tail}"
    if first in ("a", "an"):
        return f"I'm {clause[:1].lower()}{clause[1:]}"
    article = "an" if first[:1] in "aeiou" else "a"
    return f"I'm {article} {clause[:1].lower()}{clause[1:]}"


# Words that say nothing about what a person does in an app, stemmed as `_stems` stems them.
_EMPTY = frozenset({"the", "and", "for", "with", "from", "who", "that", "they", "she", "her", "his", "him", "every",
                    "everyth", "ahead", "new", "day", "often", "before", "own", "many", "lot", "long", "lik", "keep",
                    "need", "rarely", "quick", "some", "sometim", "only", "very", "each", "into", "out", "then", "when",
                    "could", "you", "ple", "please", "my", "it", "what", "which", "your", "thi", "them", "after"})


def _stems(text: str) -> set[str]:
    """Rough stems of a text's words: suffixes -s, -es, -ing, -ed, -er cut, then four letters at most
    ("transfers" → "tran", "saver" and "savings" → "sav", "pays" and "pay" → "pay")."""
    out: set[str] = set()
    for word in re.findall(r"[a-z]+", text.lower()):
        for suffix in ("s", "ing", "ed", "er", "e"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
        stem = word[:4]
        if len(stem) >= 3 and stem not in _EMPTY and word not in _EMPTY:
            out.add(stem)
    return out


def fits(persona: str, goal: str) -> bool:
    """Whether the persona speaks of what the goal asks (a word outside quoted names in common,
    roughly stemmed): "Travels for work, locks her credit card" fits locking a card; "Freelance
    designer with irregular cash flow" does not fit paying a streaming bill, so it is not said
    before it."""
    return bool(_stems(persona) & _stems(re.sub(r'"[^"]*"', " ", goal)))  # names quoted are not what is asked


def with_context(context: str, goal: str) -> str:
    """The goal-first register: "<context>, so <goal, lower case first>"."""
    return f"{context}, so {goal[:1].lower()}{goal[1:]}"


def drop_context(text: str) -> str | None:
    """The goal behind a goal-first text (its first letter upper case), None when it has no context."""
    m = _CONTEXT.match(text)
    if m is None:
        return None
    rest = m["rest"]
    return rest[:1].upper() + rest[1:]
