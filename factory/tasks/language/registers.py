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

import itertools
import re

from factory.tasks.language import grammar

_THIRD = re.compile(r"\b(?:she|he|they|her|him|his|hers|their|them|she's|he's)\b", re.IGNORECASE)
_CONTEXT = re.compile(r"^(?:I|I'm) [^\"$\d]+?(?:, so (?P<rest>.+)|\. (?P<said>[A-Z].+))$")


def persona_context(persona: str) -> str | None:
    """The persona's first clause in the first person, or None when it cannot be said so. The
    grammar decides what the clause is: a verb in -s ("Plans long trips ahead" → "I plan …"), an
    adverb or a participle before anything but a noun ("Recently moved …" → "I recently moved …"),
    else a noun phrase ("Retired teacher", "Claims adjuster" → "I'm a claims adjuster")."""
    clause = re.split(r"[;,.:]| who | but ", persona.strip(), maxsplit=1)[0].strip()
    words = clause.split()
    if not words or len(words) > 9 or _THIRD.search(clause) or re.search(r"[\"'\d$]", clause):
        return None
    first, rest = words[0].lower(), [w.lower() for w in words[1:]]
    tail = f" {' '.join(words[1:])}" if rest else ""
    nxt = rest[0] if rest else ""
    noun_follows = bool(nxt) and grammar.is_noun(nxt) and not grammar.tags(nxt) & {"ADP", "DET", "PART", "PRON"}
    base = _base_of_third_person(first)
    compound = (noun_follows and not grammar.is_adjective(nxt) and grammar.singular(nxt) == nxt
                and "NOUN" in grammar.tags(first))  # "Claims adjuster": a plural noun naming a kind of work
    if base is not None and not compound:
        # "Looks after X and chases Y" → "I look after X and chase Y": every verb of the clause agrees
        tail = re.sub(r"\b(and|or) ([a-z]+)\b", lambda m: f"{m[1]} {_base_of_third_person(m[2]) or m[2]}", tail)
        return f"I {base}{tail}"  # "Travels for work"; not "Claims adjuster" (a noun phrase)
    if "ADV" in grammar.tags(first) and first.endswith("ly"):
        return f"I {first}{tail}"
    if grammar.is_participle(first) and not noun_follows and not grammar.is_adjective(nxt or "x"):
        return f"I {first}{tail}"  # "Moved here last year"
    if first in ("a", "an"):
        return f"I'm {clause[:1].lower()}{clause[1:]}"
    # a name keeps its capitals: an acronym ("HR partner"), a name the lexicon does not know, or
    # one of several capitalised words ("Picking & Packing manager"); a common word is lowered
    head = list(itertools.takewhile(lambda w: w.lower() not in grammar.PREPOSITIONS, words))  # "… at the Rotterdam office"
    named = (words[0].isupper() and len(words[0]) > 1) or not grammar.known(first.split("-")[0]) \
        or any(w[:1].isupper() for w in head[1:])
    said = clause if named else clause[:1].lower() + clause[1:]
    return f"I'm {grammar.article(said)} {said}"


def reason_context(persona: str) -> str | None:
    """The persona's first clause when it says what the person does ("I travel for work"), the
    reason a goal may open with; None for who they are ("I'm a customs house agent at …"): a job
    title is no reason, and a person never opens a request with one."""
    context = persona_context(persona)
    return None if context is None or context.startswith("I'm ") else context


def _base_of_third_person(word: str) -> str | None:
    """The verb whose "he/she" form `word` is ("plans" → plan, "carries" → carry), else None."""
    for lemma in grammar.lemmas(word, "VERB"):
        if lemma != word and word == grammar.third_person(lemma):
            return lemma
    return None


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
    """The goal after who is asking, as two sentences: "I'm a Leeds adjuster. Please add …" (a
    "so" would claim the role is the reason for the request; `drop_context` still reads it)."""
    return f"{context}. {goal[:1].upper()}{goal[1:]}"


def drop_context(text: str) -> str | None:
    """The goal behind a goal-first text (its first letter upper case), None when it has no context."""
    m = _CONTEXT.match(text)
    if m is None:
        return None
    rest = m["rest"] or m["said"]
    return rest[:1].upper() + rest[1:]
