"""English grammar for the words of a seed: what part of speech a label's words can be, and their
inflections, from morphology libraries rather than from the labels of the seeds we happen to have.

- Open classes (nouns, verbs, adjectives) and inflection (plurals, participles) come from
  `lemminflect`: a lexicon of English lemmas by universal part of speech, with inflection tables
  and rules for unknown words ("check-ins", "waitlists"). "a" or "an" goes by the first sound
  (`article`): spelling, letter names for acronyms, and the two sound classes English spells
  against ("a user", "an hour").
- Closed classes (determiners, prepositions, particles, conjunctions, pronouns) are finite by
  definition and listed here once; they are grammar, not a record of past slips.

Every function is pure and cached: the renderer, the parser, the lint and `factory check` all ask
the same questions of the same words and must get the same answers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache

import lemminflect

DETERMINERS = frozenset(["a", "an", "the", "my", "your", "our", "their", "his", "her", "its", "this", "that",
                         "these", "those", "all", "every", "each", "some", "any", "no", "another"])
PREPOSITIONS = frozenset([
    "about", "above", "across", "after", "against", "along", "among", "around", "as", "at", "before", "behind",
    "below", "beneath", "beside", "between", "beyond", "by", "despite", "during", "except", "for", "from", "in",
    "inside", "into", "like", "near", "of", "off", "on", "onto", "out", "outside", "over", "past", "per", "since",
    "through", "throughout", "till", "to", "toward", "towards", "under", "until", "up", "upon", "via", "with",
    "within", "without"])
# Kinds of place a row is in ("city", "area"), and those whose every member is a proper name (a
# country is always named, an area may be "interior"): closed classes of English.
PLACE_NOUNS = frozenset(["city", "country", "town", "region", "neighbourhood", "neighborhood", "district", "area"])
NAMED_PLACE_NOUNS = frozenset(["city", "country", "town", "state", "province", "county"])
# Prepositions of place and state: rows "in Bristol", "on sale", "under review" are counted by
# where they are ("How many … are on sale?"), never as a kind ("How many … on sale are there?").
WHERE_PREPOSITIONS = frozenset(["in", "at", "on", "under", "off", "inside", "outside", "within"])
# Adverbial particles that make a phrasal verb with the verb before them ("check out", "sign up").
PARTICLES = frozenset(["up", "down", "in", "out", "on", "off", "over", "back", "away", "through", "around", "aside",
                       "forward", "ahead", "apart"])
# Prepositional verbs: the preposition brings the verb's own object ("ask for cover", "apply for a
# visa"), so a row the verb is done about follows the whole phrase ("ask for cover for my shift …"),
# never between the two ("ask my shift for cover"). A transitive verb keeps its row before its
# preposition ("send the laptop for repair", "put the ticket on hold").
PREPOSITIONAL_VERBS = frozenset([("ask", "for"), ("apply", "for"), ("wait", "for"), ("call", "for"), ("look", "for"),
                                 ("search", "for"), ("hope", "for"), ("vote", "for"), ("vote", "on"), ("opt", "for"),
                                 ("qualify", "for"), ("register", "for"), ("sign", "for"), ("account", "for"),
                                 ("care", "for"), ("plan", "for"), ("pray", "for"), ("bid", "for"), ("bid", "on"),
                                 ("comment", "on"), ("report", "on"), ("listen", "to"), ("object", "to"),
                                 ("agree", "to"), ("consent", "to"), ("subscribe", "to"), ("reply", "to"),
                                 ("respond", "to"), ("react", "to"), ("opt", "out"), ("opt", "in")])
# Verbs that take no direct object: a row they act on comes with their preposition ("Enroll" →
# "Enroll in the section …", "Reply" → "Reply to my message …").
INTRANSITIVE = {"enroll": "in", "enrol": "in", "register": "for", "subscribe": "to", "reply": "to", "respond": "to",
                "react": "to", "object": "to", "consent": "to", "qualify": "for", "wait": "for", "comment": "on",
                "listen": "to", "opt": "into", "apply": "for", "vote": "on", "bid": "on"}
# Verbs that take the thing a person is put down for after their own preposition: "sign Jamie up
# for the plan", "enrol Ana in the course", "subscribe Lee to the newsletter".
PHRASAL_COMPLEMENTS = {"sign up": "for", "register": "for", "enrol": "in", "enroll": "in", "subscribe": "to",
                       "put down": "for"}
# Verbs of leaving a place one is in ("Leave waitlist", "Quit team"): said of the one who leaves,
# "take Paula off the waitlist", never "leave Paula's waitlist spot" (`self_moves`).
LEAVING_VERBS = frozenset(["leave", "quit", "exit"])
# Light verbs: with a bare noun they make one act ("give notice", "take action", "make contact"),
# and the noun takes no article.
LIGHT_VERBS = frozenset(["give", "take", "make", "have", "do"])
# Verbs of paying: the sum is their object, what it pays for follows bare ("Pay £750 rent for …").
PAYING_VERBS = frozenset(["pay", "donate", "tip", "contribute"])
# Dative verbs: their second object is the person a thing goes to ("assign the ticket to Mei Lin",
# "give the shift to Tom"), said with "to".
DATIVE_VERBS = frozenset(["assign", "reassign", "give", "hand", "transfer", "issue", "send", "pass", "delegate",
                          "allocate", "lend", "offer", "sell", "forward", "refer", "route", "escalate"])
# Verbs of exchange: their object is what is given up, the new thing follows "for" ("swap the car
# on my rental for a van"), so a parameter holding the new value is never their object.
EXCHANGE_VERBS = frozenset(["swap", "switch", "exchange", "replace", "trade", "substitute"])
CONJUNCTIONS = frozenset(["and", "or", "but", "nor", "so", "yet", "if", "when", "while", "because", "than"])
PRONOUNS = frozenset(["i", "me", "you", "he", "him", "she", "it", "we", "us", "they", "them", "who", "whom", "whose",
                      "what", "which", "why", "how", "when", "where", "mine", "yours", "ours", "theirs", "someone",
                      "anyone", "everyone", "nobody"])
AUXILIARIES = frozenset(["is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "do", "does",
                         "did", "can", "could", "will", "would", "shall", "should", "may", "might", "must"])
CLOSED = DETERMINERS | PREPOSITIONS | CONJUNCTIONS | PRONOUNS | AUXILIARIES
_CLOSED_TAGS = (("DET", DETERMINERS), ("ADP", PREPOSITIONS), ("PART", PARTICLES), ("CCONJ", CONJUNCTIONS),
                ("PRON", PRONOUNS), ("AUX", AUXILIARIES))
# Letters whose spoken names start with a vowel sound: "an SLA", "an HR request", "an MRI scan".
_VOWEL_LETTERS = frozenset("AEFHILMNORSX")
# Spellings whose first sound is not what the letter says: a vowel letter said with a consonant
# ("a user", "a euro", "a one-off") and an "h" not said ("an hour", "an honest").
_CONSONANT_SOUND = re.compile(r"^(?:uni|us[aeiou]|ut[aeiou]|ur[aeiou]|uk|eu|ew|one\b|once\b|ouija)")
_SILENT_H = re.compile(r"^(?:hour|honest|honou?r|heir)")


def words_of(text: str) -> list[str]:
    """The lower-case words of a label ("Spent this year" → spent, this, year)."""
    return re.findall(r"[a-z][a-z'\-]*|\d+", text.lower())


@cache
def tags(word: str) -> frozenset[str]:
    """Every part of speech `word` can be: lemminflect's universal tags (NOUN, VERB, ADJ, ADV,
    PROPN, AUX) for open-class words, DET/ADP/PART/CCONJ/PRON for the closed classes; empty for a
    word the lexicon does not know (a name, jargon, a coinage)."""
    w = word.lower().strip(".,!?;:\"'()")  # "Approve!" is the verb "approve"
    out = {tag for tag, members in _CLOSED_TAGS if w in members}
    if out & {"DET", "ADP", "CCONJ", "PRON", "AUX"}:
        return frozenset(out)  # the lexicon's guesses about "to" or "from" are noise
    out |= set(lemminflect.getAllLemmas(w))
    if not out and _prefixed_verb(w):
        out.add("VERB")
    return frozenset(out)


# Derivational prefixes that make a verb of a verb ("unstar", "unpublish", "reassign"), and the
# particles English fuses onto one ("onboard", "offboard", "upsell"): a word the lexicon lacks is a
# verb when its stem is one.
_VERB_PREFIXES = ("un", "re", "dis", "de", "pre", "co", "on", "off", "up", "out", "over", "under", "down", "back")


def _prefixed_verb(word: str) -> bool:
    word = word.replace("-", "", 1) if re.match(r"^(?:un|re|dis|de|pre|co)-", word) else word  # "un-archive"
    return any(word.startswith(p) and len(word) - len(p) >= 3 and word[len(p):] in
               lemminflect.getAllLemmas(word[len(p):]).get("VERB", ()) for p in _VERB_PREFIXES)


# Words the seed being phrased writes as ordinary lower-case words in its own prose, which the
# lexicon may lack ("lab"): set for the length of one render or parse (`seed_words`).
_SEED_WORDS: ContextVar[frozenset[str]] = ContextVar("seed_words", default=frozenset())
# Words the same prose writes only capitalised ("Europe", "Asia"): names, said so in any value.
_SEED_NAMES: ContextVar[frozenset[str]] = ContextVar("seed_names", default=frozenset())


@contextmanager
def seed_words(words: frozenset[str], names: frozenset[str] = frozenset()) -> Iterator[None]:
    """Within the block, `words` are ordinary words of the language, never abbreviations, and
    `names` (lower case) are names, written capitalised."""
    token, named = _SEED_WORDS.set(words), _SEED_NAMES.set(names)
    try:
        yield
    finally:
        _SEED_WORDS.reset(token)
        _SEED_NAMES.reset(named)


def prose_names(texts: list[str]) -> frozenset[str]:
    """The words a seed's prose writes capitalised and never in lower case ("Europe"), lower-cased."""
    tokens = re.findall(r"[A-Za-z]+", " ".join(texts))
    lower = {t for t in tokens if t.islower()}
    return frozenset(t.lower() for t in tokens if len(t) > 1 and t[:1].isupper() and t[1:].islower()
                     and t.lower() not in lower and not known(t.lower()))


def named_value(text: str) -> str:
    """A stored value as a name is written: "north america" → "North America" where the seed writes
    "America" only capitalised; a noun and its one-letter designator ("unit b" → "Unit B") too.
    Any other value is left as it is."""
    words = text.split()
    designated = len(words) == 2 and is_noun(words[0]) and len(words[1]) == 1 and words[1].isalpha()
    if not words or not (designated or any(w in _SEED_NAMES.get() for w in words)):
        return text
    return " ".join(w if w in CLOSED else w[:1].upper() + w[1:] for w in words)


def prose_words(texts: list[str]) -> frozenset[str]:
    """The words a seed's prose writes in lower case and never in capitals ("waive lab fees" →
    "lab"; "SUV" anywhere keeps "suv" out; "Europe", a name, is never written in lower case)."""
    tokens = re.findall(r"[A-Za-z]+", " ".join(texts))
    shouted = {t.lower() for t in tokens if len(t) > 1 and t.isupper()}
    return frozenset({t for t in tokens if t.islower()} - shouted)


def seed_word(word: str) -> bool:
    """Whether the seed being phrased writes `word` as an ordinary word (`seed_words`)."""
    return word in _SEED_WORDS.get()


def acronym(word: str) -> bool:
    """A word of two to four letters the lexicon does not know, said in capitals: "suv" → SUV,
    "vip" → VIP. A known word ("spa", "gym") is no abbreviation, nor one the seed's own prose
    writes as a word (`seed_words`: "waive lab fees" makes "lab" a word, "lab report")."""
    return bool(re.fullmatch(r"[a-z]{2,4}", word)) and not known(word) and word not in _SEED_WORDS.get()


def known(word: str) -> bool:
    """Whether the grammar knows the word at all."""
    return bool(tags(word))


@cache
def lemmas(word: str, pos: str) -> tuple[str, ...]:
    """The lemmas of `word` as `pos` (VERB, NOUN, ADJ), empty when it cannot be one."""
    w = word.lower()
    found = tuple(lemminflect.getAllLemmas(w).get(pos, ()))
    if not found and pos == "VERB" and not lemminflect.getAllLemmas(w) and _prefixed_verb(w):
        return (w,)
    return found


def is_verb(word: str) -> bool:
    """Whether `word` is a verb in its base form, so it can start a request ("Prescribe", "Deny")."""
    w = word.lower().strip(".,!?;:\"'()")
    return "VERB" in tags(w) and w in lemmas(w, "VERB")


def verb_only(word: str) -> bool:
    """A base-form verb that is no noun or adjective ("deny", "prescribe", "escalate")."""
    return is_verb(word) and not tags(word) & {"NOUN", "ADJ", "PROPN"}


def is_noun(word: str) -> bool:
    """Whether `word` can head a noun phrase (a word the lexicon does not know counts: names)."""
    t = tags(word)
    gerund = word.lower().endswith("ing") and "VERB" in t  # "a viewing", "the booking"
    return not t or bool(t & {"NOUN", "PROPN"}) or word.isdigit() or gerund


def noun_only(word: str) -> bool:
    """A word that is a noun and nothing else ("payment", "notification")."""
    t = tags(word)
    return bool(t) and t <= {"NOUN", "PROPN"}


def is_adjective(word: str) -> bool:
    return "ADJ" in tags(word)


@cache
@cache
def gradable(word: str) -> bool:
    """An adjective of degree, one the lexicon knows a "-er" of ("low" → lower, "severe" →
    severer): a point on a scale, never a kind ("interior", "online", "automatic")."""
    return "JJR" in lemminflect.getAllInflections(word.lower(), upos="ADJ")


def participle_of(word: str) -> str | None:
    """The verb whose past participle `word` is ("spent" → spend, "requested" → request), else None."""
    w = word.lower()
    for lemma in lemmas(w, "VERB"):
        if w in lemminflect.getInflection(lemma, tag="VBN"):  # getAllInflections omits a VBN equal to the VBD
            return lemma
    return None


def is_participle(word: str) -> bool:
    """A past participle ("spent", "assigned", "held"), which says a state, not a thing."""
    return (participle_of(word) is not None and not is_verb(word)) or word.lower() in ("read", "set", "put", "cut", "shut")


def is_gerund(word: str) -> bool:
    """A verb's -ing form ("leaving", "starting"), which with a preposition says when something
    happens ("leaving on July 23")."""
    w = word.lower()
    return w.endswith("ing") and any(w in lemminflect.getInflection(lemma, tag="VBG") for lemma in lemmas(w, "VERB"))


def participle_clause(words: list[str]) -> bool:
    """Whether words open with a participle and a small word after it, a clause that says what
    happened to a row ("paid after due date", "signed by tenant"), not a thing it has."""
    return len(words) > 1 and is_participle(words[0]) and words[1] in CLOSED


# The endings English makes a person's part with: a broker, a manager, an accountant, a dentist.
_AGENT = re.compile(r"[a-z]{2,}(?:er|or|ist|ian|ant|ent|ee)")


def agent_noun(word: str) -> bool:
    """Whether `word` names someone by the part they play ("renter", "broker", "assignee", "tenant"),
    a noun that takes "the" when it names a role ("billed to the renter")."""
    return bool(_AGENT.fullmatch(word)) and is_noun(word) and singular(word) == word


def with_role_article(words: list[str]) -> list[str]:
    """A participle clause whose last word is a bare role ("billed to renter", "signed by tenant")
    with the article English needs before it: "billed to the renter"."""
    if (participle_clause(words) and len(words) >= 3 and words[-2] in ("to", "by", "for", "from", "with")
            and agent_noun(words[-1])):
        return [*words[:-1], "the", words[-1]]
    return words


def participle(verb: str) -> str:
    """The past participle of a verb ("lend" → lent, "check" → checked)."""
    forms = lemminflect.getInflection(verb.lower(), tag="VBN")
    return forms[0] if forms else verb.lower() + "ed"


def third_person(verb: str) -> str:
    """The verb after "it" ("hold" → holds, "carry" → carries)."""
    forms = lemminflect.getInflection(verb.lower(), tag="VBZ")
    return forms[0] if forms else verb.lower() + "s"


@cache
def plural(phrase: str) -> str:
    """The plural of a noun phrase: its head (last word) inflected ("time entry" → time entries,
    "child" → children, "customs hold" → customs holds); acronyms take "s" ("SLAs")."""
    words = phrase.split()
    if not words:
        return phrase
    head = words[-1]
    if head.isupper() and len(head) > 1:
        said = head + "s"
    else:
        forms = lemminflect.getInflection(head.lower(), tag="NNS")
        said = next((f for f in forms if f != head.lower()), forms[0] if forms else head.lower() + "s")
        if head[:1].isupper():
            said = said[:1].upper() + said[1:]
    return " ".join([*words[:-1], said])


def singular(phrase: str) -> str:
    """The singular of a plural noun phrase (its head), or the phrase when it is no plural."""
    words = phrase.split()
    if not words:
        return phrase
    head = words[-1].lower()
    if head in lemmas(head, "NOUN") or not lemmas(head, "NOUN"):
        # a known singular, or a word the lexicon lacks: plural only by its regular "-s"
        if tags(head) or not head.endswith("s") or head.endswith(("ss", "us", "is")):
            return phrase
        one = lemminflect.getLemma(head, upos="NOUN")
        return " ".join([*words[:-1], one[0]]) if one and one[0] != head else phrase
    return " ".join([*words[:-1], lemmas(head, "NOUN")[0]])


def is_plural(word: str) -> bool:
    """A plural noun, its own plural included: "fees", "goods" (the plural of "good"), "savings";
    never "news", "analysis" or "bus"."""
    w = word.lower()
    if singular(w) != w:
        return True
    stem = w[:-1]
    return w.endswith("s") and not w.endswith(("ss", "us", "is")) and "NOUN" in tags(stem) \
        and w in lemminflect.getInflection(stem, tag="NNS")


def article(phrase: str) -> str:
    """ "a" or "an" for a phrase, by its first sound: "an hour", "a user", "an SLA breach"."""
    first = phrase.split()[0] if phrase.split() else ""
    letters = first.strip("\"'(")
    if len(letters) > 1 and letters.isupper() and letters.isalpha() and not known(letters):
        return "an" if letters[0] in _VOWEL_LETTERS else "a"  # an acronym is said letter by letter
    word = letters.lower()
    if _SILENT_H.match(word):
        return "an"
    if word[:1] in ("a", "e", "i", "o", "u") and not _CONSONANT_SOUND.match(word):
        return "an"
    if word[:1].isdigit():  # "an 8-seat table", "an 11am slot"
        return "an" if re.match(r"^(?:8|11|18)(?!\d)|^8\d", word) else "a"
    return "a"


def with_article(phrase: str) -> str:
    """The phrase after its indefinite article ("an open shift")."""
    return f"{article(phrase)} {phrase}"


# Particles that are prepositions too ("in", "on"): a particle when they end the label ("Check
# in"), a preposition before a noun phrase ("Put on hold"). The others are particles wherever they
# stand after a verb ("Check out guest", "Give back deposit").
_ALSO_PREPOSITIONS = frozenset(["in", "on", "over", "through", "around"])


def verb_head(words: list[str]) -> tuple[list[str], list[str]] | None:
    """The verb of a label's words and the rest, None when they do not start with a base-form verb;
    a particle after the verb belongs to it ("check out", "sign up" + "for class")."""
    if not words or not is_verb(words[0]):
        return None
    verb, rest = [words[0]], words[1:]
    if rest and rest[0] in PARTICLES and (len(rest) == 1 or rest[0] not in _ALSO_PREPOSITIONS):
        verb, rest = [*verb, rest[0]], rest[1:]
    return verb, rest


__all__ = [
    "CLOSED",
    "DETERMINERS",
    "EXCHANGE_VERBS",
    "PARTICLES",
    "PREPOSITIONS",
    "acronym",
    "activity",
    "article",
    "is_adjective",
    "is_noun",
    "is_participle",
    "is_plural",
    "is_verb",
    "known",
    "lemmas",
    "listed",
    "noun_only",
    "own_plural",
    "participle",
    "participle_clause",
    "participle_of",
    "plural",
    "singular",
    "tags",
    "third_person",
    "verb_head",
    "verb_only",
    "with_article",
    "words_of",
]


# Suffixes of nouns that name an activity or a process ("inspection", "approval", "storage").
_ACTIVITY = re.compile(r"(?:tion|sion|ment|ance|ence|al|age|ing|ure|ery|sis)$")


def activity(word: str) -> bool:
    """Whether a noun names an activity or a process by its suffix ("inspection", "approval",
    "storage"): after "to" it takes no article ("to inspection"), where a place does ("to the
    workshop"); an amount labelled by one is a fee for it ("Cancellation": the cancellation fee)."""
    return len(word) > 5 and _ACTIVITY.search(word.lower()) is not None


def listed(parts: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`: how a person lists things."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def own_plural(word: str) -> bool:
    """Whether a noun is its own plural ("staff", "people", "personnel"), as the lexicon inflects
    it; "waitlist" or "fleet" is one thing ("waitlists", "fleets")."""
    return word.lower() in lemminflect.getAllInflections(word.lower(), upos="NOUN").get("NNS", ())
