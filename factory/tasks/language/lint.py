"""Rules that read a goal as a user would and name its defects: a workflow label used as a verb,
a raw field label, an ISO date, filler from a fake-data generator, a comparative verb that says
the opposite of the change, "my" on a row the user does not hold, a word said twice in a row
("the total total price").

`lint_goal` is a function of the spec and the text (plus, for the semantic rules, the before and
after values and the acting user's relation to the row), so it serves both as a gate on drafts and
as the language test set (`tests/unit/test_language_lint.py`). Every hit says which rule and why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from faker.providers.company.en_US import Provider as CompanyWords
from faker.providers.lorem.en_US import Provider as LoremWords

from factory.spec.model import Spec
from factory.tasks.language import grammar
from factory.tasks.language.measures import count_noun
from factory.tasks.language.spoken import field_noun, noun, verb_phrase

RULES = ("label_as_verb", "raw_field_label", "iso_date", "filler", "comparative", "possessive", "repeated_word",
         "no_noun", "no_verb", "article")

_ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
DATE_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}")  # a stored date value, for the comparative rule
# Faker's catch-phrase and bs words ("Decentralized foreground middleware"): a person never types
# them into a memo or a reason. Lorem words are common English, so a quoted text counts as lorem
# only when it is long and has none of the small words every real sentence has.
_FILLER = frozenset(w.lower() for words in (*CompanyWords.catch_phrase_words, *CompanyWords.bsWords) for w in words)
_LOREM = frozenset(LoremWords.word_list)
_GLUE = frozenset(["a", "an", "the", "for", "to", "of", "and", "in", "on", "at", "my", "with", "from", "is", "it"])
# Words of quantity a counted noun follows ("the most reopens"): a closed class of English.
_QUANTIFIERS = frozenset(["most", "fewest", "least", "more", "fewer", "many", "few", "several"])
_COMPARATIVE = {"lower": -1, "reduce": -1, "decrease": -1, "cut": -1, "drop": -1,
                "raise": 1, "increase": 1, "bump": 1, "earlier": -1, "later": 1}


@dataclass(frozen=True)
class Hit:
    """One defect in one goal."""

    rule: str
    goal: str
    why: str


@dataclass(frozen=True)
class Change:
    """A value the task changes, for the comparative rule: the field's words, before and after."""

    before: float
    after: float


def lint_goal(spec: Spec, goal: str, changes: tuple[Change, ...] = (), owns: bool | None = None) -> list[Hit]:
    """Every defect of `goal`; `changes` are the values the task moves (comparative rule) and
    `owns` whether the acting user holds the row the goal calls "my" (None: not known)."""
    hits: list[Hit] = []

    def hit(rule: str, why: str) -> None:
        hits.append(Hit(rule, goal, why))

    lowered = goal.lower()
    unquoted = re.sub(r'"[^"]*"', '""', lowered)  # the words around the names: a name may say anything
    for w in spec.workflows:
        if w.system:
            continue
        label = w.label.lower()
        if verb_phrase(w) != noun(w.label) and re.search(rf"\b(?:could you|please|i need to|can you) {re.escape(label)}\b",
                                                          lowered):
            hit("label_as_verb", f"the label {w.label!r} is no verb")
        if re.search(rf"(?:^|\. |, ){re.escape(label)}: ", lowered) or f'use "{label}"' in lowered:
            hit("label_as_verb", f"the label {w.label!r} is pasted in, not said")
    adverb = re.search(r"\bthe (forever|permanently|immediately|again)\b", unquoted)
    if adverb:  # "delete the forever from my message": a label's adverb made a thing
        hit("label_as_verb", f"'the {adverb[1]}': a label's adverb said as a thing")
    labels = {x.label.lower() for e in spec.entities for x in e.fields} | {
        x.label.lower() for w in spec.workflows for x in w.params}
    for ent in spec.entities:
        for f in ent.fields:
            spoken = field_noun(f)
            raw = f.label.lower()
            # "the phone" is the label, "the phone number" the spoken noun that starts with it; "the
            # agreed loss" is another label that starts with "agreed"
            longer = [spoken.lower()[len(raw):]] if spoken.lower().startswith(raw) else []
            longer += [other[len(raw):] for other in labels if other.startswith(raw + " ")]
            longer = [x for x in longer if x]
            beyond = f"(?!{'|'.join(re.escape(x) for x in longer)})" if longer else ""
            if spoken.lower() != raw and re.search(
                    rf"\bthe (?:highest |lowest |latest |earliest |total )?{re.escape(raw)}\b{beyond}", lowered):
                hit("raw_field_label", f"{f.label!r} is a label, people say {spoken!r}")
            if f.type == "bool" and re.search(rf"\bthe {re.escape(raw)} of\b", unquoted):
                hit("raw_field_label", f"{f.label!r} is a yes/no field asked about as a thing ('the {raw} of')")
            counted = count_noun(f)
            if counted is not None and re.search(rf"\bthe (?:highest |lowest |total )?{re.escape(counted)}\b", unquoted):
                hit("raw_field_label", f"{f.label!r} counts things: people say 'how many {counted}' or 'the most {counted}'")
            if "(" in f.label and raw in lowered:
                hit("raw_field_label", f"{f.label!r} carries a storage scale")
    if re.search(r"\b(?:highest|lowest) last four digits\b", lowered):
        hit("raw_field_label", "last four digits name a card, they are not ranked")
    if _ISO.search(goal):
        hit("iso_date", f"ISO date {_ISO.search(goal)[0]!r}")  # type: ignore[index]
    quoted = re.findall(r'"([^"]*)"', goal)
    for text in quoted:
        words = [w.strip(".,").lower() for w in text.split()]
        filler = [w for w in words if w in _FILLER]
        lorem = len(words) >= 5 and all(w in _LOREM for w in words) and not set(words) & _GLUE
        if len(filler) >= 2 or lorem:
            hit("filler", f"{text!r} reads like generated filler")
    for word, sign in _COMPARATIVE.items():
        if re.search(rf"\b{word}\b", lowered):
            for c in changes:
                if (c.after - c.before) * sign < 0 or c.after == c.before:
                    hit("comparative", f"{word!r} but the value goes from {c.before:g} to {c.after:g}")
    twice = re.search(r"\b(\w+) \1\b", unquoted)
    if twice:
        hit("repeated_word", f"{twice[0]!r}: a word said twice")
    if owns is False and re.search(r"\bmy\b", lowered):
        hit("possessive", "'my' on a row the acting user does not hold")
    for rule, why in grammar_hits(goal):
        hit(rule, why)
    return hits


# Words that may end a noun phrase without a noun: "Which is the oldest?", "the first", "the most".
_PHRASE_ENDS = frozenset(["one", "ones", "first", "last", "same", "other", "others", "rest", "most", "least", "more",
                          "fewest", "latest", "earliest", "highest", "lowest", "oldest", "newest", "next", "previous",
                          "mine", "both", "all", "each", "none"])
_NAME = "qname"  # what a quoted name, an amount or a number stands as: a noun
# Where a request's verb must stand: after the words that ask for something. A sentence's first
# word may be its subject ("Plans changed, so …"), so it is judged by the noun rule, not this one.
_VERB_SLOTS = re.compile(r"(?:\bplease |\bcould you |\bcan you |\bi need to |\bthen |\band then |"
                         r"\bfirst, )([a-z]+)")
_OPENERS = frozenset(["what", "which", "who", "whom", "when", "where", "how", "is", "are", "does", "do", "did", "was",
                      "were", "has", "have", "can", "could", "please", "i", "i'm", "my", "first", "then", "and", "in",
                      "on", "for", "after", "before", "since", "as", "if", "once", "while", "we", "our", "the", "a",
                      "an", "there", "it", "this", "that", "these", "those", "so", "also", "now", "today", "tomorrow",
                      "yesterday", "at", "by", "from", "to", "with", "without", "of", "about", "all", "each", "every",
                      "no", "not", "just", "only", "you", "your", "i've", "i'd", "i'll", "let", "let's", "per", "heads"])


def grammar_hits(goal: str) -> list[tuple[str, str]]:
    """Grammar, not past slips: a determiner must lead to a noun ("the out", "a prescribe", "the
    latest to" are no noun phrases), a request must start with a verb the lexicon knows as one, and
    "a"/"an" must fit the sound after it. Quoted names, amounts and numbers are nouns; a word the
    lexicon does not know is taken for a name."""
    text = re.sub(r'"[^"]*"', f" {_NAME} ", goal)
    text = re.sub(r"[$€£₹]?\d[\d,.:]*(?:\s?[AP]M)?", f" {_NAME} ", text)
    out: list[tuple[str, str]] = []
    for clause in re.split(r"[.?!;:,()]", text):
        words = re.findall(r"[A-Za-z][A-Za-z'\-]*", clause)
        lower = [w.lower() for w in words]
        for i, w in enumerate(lower):
            if w not in ("the", "a", "an", "my", "your"):
                continue
            j = i + 1
            while j < len(lower) and (_modifier(lower[j]) or (lower[j] in ("and", "or", "&") and j > i + 1)):
                j += 1  # "an inbound and returns manager": modifiers may be joined
            nxt = lower[j] if j < len(lower) else None
            if j > i + 1 and nxt is not None and lower[j - 1].endswith("ing") and not grammar.is_noun(nxt):
                j -= 1  # the gerund was the noun: "a picking & packing manager" reads "picking" as a noun
                nxt = lower[j]
            nounish = grammar.is_noun(nxt) or nxt.endswith("ing") if nxt is not None else False
            if nxt is not None and not nounish and lower[j - 1] in _QUANTIFIERS and "VERB" in grammar.tags(nxt):
                nounish = True  # after a quantifier a verb is its own noun: "the most reopens", "fewer visits"
            if nxt is not None and nounish and not (grammar.tags(nxt) & {"ADP", "DET", "CCONJ", "PRON", "AUX"}):
                if w in ("a", "an") and j == i + 1 and nxt != _NAME and words[j][:1].islower():
                    want = grammar.article(nxt)
                    if want != w:
                        out.append(("article", f"'{w} {nxt}': {want} {nxt}"))
                k = j
                while (k + 1 < len(lower) and lower[k + 1] != _NAME and "NOUN" in grammar.tags(lower[k + 1])
                       and not grammar.tags(lower[k + 1]) & {"ADP", "DET", "CCONJ", "PRON", "AUX"}):
                    k += 1  # the head is the last noun of "a customs hold"
                if w in ("a", "an") and lower[k] != _NAME and grammar.singular(lower[k]) != lower[k] \
                        and grammar.plural(grammar.singular(lower[k])) == lower[k] and "NOUN" in grammar.tags(lower[k]):
                    out.append(("article", f"'{w} {' '.join(lower[j:k + 1])}': '{w}' before a plural"))
                continue
            if nxt is None and j > i + 1 and lower[j - 1] in _PHRASE_ENDS | {x for x in lower[i + 1:j] if x.endswith("est")}:
                continue  # "Which of them is the oldest?"
            if nxt is None and j > i + 1:
                continue  # "the amount is overdue": a predicate adjective ends the clause
            shown = " ".join(lower[i:j + 1])
            out.append(("no_noun", f"'{shown}': '{w}' is followed by no noun"))
    for m in re.finditer(r"\b([a-z]+) (up|out|off|down|back|away|over) (it|them)\b", re.sub(r'"[^"]*"', _NAME, goal.lower())):
        if grammar.is_verb(m[1]):  # a pronoun object goes inside a phrasal verb: "pick it up"
            out.append(("no_verb", f"'{m[0]}': a pronoun goes between the verb and its particle ({m[1]} {m[3]} {m[2]})"))
    for m in _VERB_SLOTS.finditer(re.sub(r'"[^"]*"', _NAME, goal.lower())):
        word = m[1]
        if word in _OPENERS or word == _NAME or not grammar.known(word) or grammar.is_verb(word):
            continue
        if word.endswith("ing") or ("ADV" in grammar.tags(word) and not grammar.tags(word) & {"NOUN", "ADJ"}):
            continue  # "then taking it back", "Afterwards, …": a gerund or an adverb opens a clause
        out.append(("no_verb", f"'{word}' where a verb is needed ({'/'.join(sorted(grammar.tags(word)))})"))
    return out


def _modifier(word: str) -> bool:
    """A word that may stand between a determiner and its noun: an adjective, a participle, an
    adverb of degree ("most"), an ordinal."""
    if word == _NAME:
        return False
    t = grammar.tags(word)
    if not t or "NOUN" in t or "PROPN" in t:
        return False
    gerund = word.endswith("ing") and "VERB" in t  # "the picking team", "a booking reference"
    return bool(t & {"ADJ", "ADV"}) or grammar.is_participle(word) or word.endswith("est") or gerund
