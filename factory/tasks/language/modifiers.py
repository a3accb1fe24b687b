"""The words said before a noun, and yes/no fields said as words: a value of a kind as the
noun's modifier ("my active payees", "compact cars", "SUV models"), a yes/no state as an adjective
("my starred messages", "unpaid bills") or a thing a row has ("with wifi"), and the condition such
a word says read back (`read_adjective`). Like `spoken`, a function of the spec alone.
"""

from __future__ import annotations

import re

from factory.spec.model import EntitySpec, FieldSpec, ParamSpec
from factory.tasks.language import grammar
from factory.tasks.language.asks import Cond
from factory.tasks.language.spoken import noun, said, spoken_plural

# Participles that take "un-" as a state ("unpaid", "unread"); others ("withdrawn") do not.
_UN_TAKERS = frozenset(["read", "paid", "sold", "sent", "broken", "written", "seen", "known", "spent", "won"])


def _enum_owners(entity: EntitySpec, word: str) -> list[FieldSpec]:
    return [f for f in entity.fields if f.type == "enum" and _enum_value(f, word) is not None]


def _enum_value(f: FieldSpec, word: str) -> str | None:
    """The value of `f` a word says: as stored ("compact", "EUR"), or an abbreviation said in
    capitals ("SUV" for "suv")."""
    for v in f.values or []:
        said_v = v.replace("_", " ")
        if word == said_v or (word.isupper() and word.lower() == said_v and grammar.acronym(said_v)):
            return v
    return None


# A value said before a noun: one to three lower-case words ("compact", "upper year", "winter
# 2026") or a code in capitals ("EUR"): "my upper year courses", "my EUR invoices".
_MODIFIER = re.compile(r"[a-z][a-z0-9]*(?: [a-z0-9]+){0,2}|[A-Z]{2,5}")


# Yes/no fields labelled by a state word that is no participle, said before the noun like one
# ("my favourite contacts", "the available tools"); participles ("Starred", "Pinned") need no list.
_STATE_WORDS = frozenset(["read", "favourite", "favorite", "available", "active", "open", "public", "private",
                          "visible", "hidden", "urgent", "important", "primary", "online", "done", "complete"])
_PREPOSITIONS = frozenset(["in", "on", "at", "by", "for", "with", "without", "to", "from", "of", "is", "has", "can"])


def bool_adjective(field: FieldSpec, value: str) -> str | None:
    """A yes/no condition said as a word before the noun: "starred" (yes), "unstarred" (no; only a
    participle or "read" takes "un-"), None when the label is no one-word state."""
    word = noun(said(field))
    # "Short paid": an adjective or an adverb and its participle make one adjective before the noun,
    # "short-paid rent payments"; "Pets allowed" opens on a thing, said as a clause elsewhere
    joined = compound_modifier(word) if field.type == "bool" and " " in word else word
    if joined != word and grammar.tags(word.split()[0]) & {"ADJ", "ADV"}:
        return joined if value == "yes" else None
    if field.type != "bool" or not re.fullmatch(r"[a-z]+", word):
        return None
    regular = (word.endswith("ed") and len(word) > 3) or word in _UN_TAKERS
    adjective_only = grammar.is_adjective(word) and not grammar.is_noun(word)  # "billable", "refundable"
    if not (regular or word in _STATE_WORDS or grammar.is_participle(word) or adjective_only):
        return None
    if value == "yes":
        return word  # "withdrawn books"
    # "unstarred", "unpaid"; never "unwithdrawn": that condition keeps its field's words
    return "un" + word if value == "no" and regular and not word.startswith("un") else None


def bool_feature(field: FieldSpec) -> str | None:
    """A yes/no field that names a thing a row has ("Wifi", "Free parking", "Paperless statements"),
    said "with wifi" / "with no wifi"; None for states ("Starred"), participle phrases ("Pets
    allowed") and labels led by a preposition ("In stock"), which keep "set to yes"."""
    words = noun(said(field)).split()
    # words of letters, a compound joined by a hyphen too ("Step-free access")
    if (field.type != "bool" or not words or not all(re.fullmatch(r"[a-z]+(?:-[a-z]+)*", w) for w in words)
            or not re.fullmatch(r"[a-z]+", words[-1])
            or words[0] in _PREPOSITIONS or grammar.is_participle(words[-1]) or words[-1] in _STATE_WORDS
            or (grammar.is_adjective(words[-1]) and not grammar.is_noun(words[-1]))  # "Billable" is no thing a row has
            or (words[-1].endswith("ed") and len(words[-1]) > 3) or words[-1] == "read"
            # a participle clause ("Paid after due date") says what happened, not a thing it has
            or grammar.participle_clause(words)):
        return None
    return " ".join(words)


def adjective(entity: EntitySpec, conds: tuple[Cond, ...]) -> tuple[str, tuple[Cond, ...]]:
    """A first condition on a one-word value of a kind (status, type, category) said before the
    noun, as people say "my active payees", "my savings accounts" (not `payees with status
    "active"`), or on a yes/no state ("my starred messages", "my unread messages"): the word with
    a trailing space, and the other conditions. Only a word no other field of the entity can be
    said by, so the parser knows which field it is (`read_adjective`)."""
    if not conds:
        return "", conds
    first = conds[0]
    f = entity.field_named(first.field)
    if f.type == "bool":
        state = bool_adjective(f, first.value) if first.upper is None else None
        if state is None or state in noun(said(entity)).split() or len(_owners(entity, state)) != 1:
            return "", conds
        return state + " ", conds[1:]
    if f.name == "role":  # a role is a noun ("employee"): "the staff with the role "employee"", never "employee staff"
        return "", conds
    brand = brand_before(entity, first)
    if brand is not None:  # "the Ford models", never "the models whose make is "Ford""
        return brand + " ", conds[1:]
    word = first.value[1:-1] if first.value.startswith('"') and first.value.endswith('"') else ""
    if named_place(f, word):
        return "", conds  # a place follows its noun: "the venues in the United Kingdom"
    if f.type == "enum" and first.upper is None and [c.field for c in _owners(entity, word)] == [f.name]:
        money = currency_word(f, word)
        if money is not None:  # "my euro payments", never "my EUR payments"
            return money + " ", conds[1:]
        name = _name_value(entity, word, f)
        if name is not None:  # "the United Kingdom venues", "the Dublin Docklands plans"
            return name + " ", conds[1:]
    if (f.type != "enum" or first.upper is not None or [c.field for c in _owners(entity, word)] != [f.name]
            or not stands_before(word, noun(said(entity)).split()) or state_after(word, f) is not None):
        return "", conds
    scale = graded(f, word)
    if scale is not None:  # "the low-priority tickets", never "the low tickets"
        return scale + " ", conds[1:]
    return compound_modifier(modifier_said(word)) + " ", conds[1:]


def _name_value(entity: EntitySpec, word: str, f: FieldSpec) -> str | None:
    """A value that is a name ("Dublin Docklands", or any value the seed writes only in capitals)
    as it is written before the noun; None for a place, a word of the language, a designator
    ("Unit B") or a word of the noun itself."""
    if named_place(f, word):
        return None  # a place follows its noun: "the venues in Canada" (`conds_said.name_first`)
    written = grammar.named_value(word)
    if written.split()[0][:1].islower() or not _a_name_of(entity, written):
        return None
    return written


def _a_name_of(entity: EntitySpec, written: str) -> bool:
    """Whether a capitalised value can stand before `entity`'s noun as a name: not a word of the
    noun itself ("Model models") and no designator ("Unit B": a name, not a kind)."""
    if not _BRAND.fullmatch(written):
        return False
    words = written.lower().split()
    return not (set(words) & set(noun(said(entity)).split()) or (len(words[-1]) == 1 and words[-1].isalpha()))


# What people call a currency before a noun ("euro payments", "sterling invoices"), by ISO code.
CURRENCY_WORDS = {"USD": "dollar", "EUR": "euro", "GBP": "sterling", "CAD": "Canadian dollar",
                  "AUD": "Australian dollar", "INR": "rupee"}


def currency_word(f: FieldSpec | ParamSpec, value: str) -> str | None:
    """A value of a field whose every value is a currency code, said as people call that currency
    before a noun ("euro" of "EUR"); None for any other value."""
    if f.type != "enum" or not f.values or not set(f.values) <= set(CURRENCY_WORDS):
        return None
    return CURRENCY_WORDS.get(value)


def graded(f: FieldSpec | ParamSpec, word: str) -> str | None:
    """A value that grades a quality its field names ("low" of a "Priority", "minor" of a
    "Severity" whose values include "severe"): said with that noun as one compound
    ("low-priority"), since "low tickets" says nothing of what is low. None for a value of a kind
    ("interior damage", "compact cars", "EUR payments") and for a field of a row's state or kind."""
    label = noun(said(f))
    if " " in label or " " in word or label in KIND_NOUNS | {"status", "state", "stage", "phase"}:
        return None
    if not grammar.is_noun(label) or not grammar.is_adjective(word) or word == label:
        return None
    if not any(grammar.gradable(v) for v in f.values or [] if "_" not in v):
        return None  # a scale has a value of degree ("low", "severe"); "interior", "online" are kinds
    return f"{word}-{label}"


# A brand or maker said before its noun ("Ford models"): capitalised words, no quotes or commas.
_BRAND = re.compile(r"[A-Z][\w&'.-]*(?: [A-Z0-9][\w&'.-]*){0,5}")
# Fields that say where a row is ("London"): a place follows its noun ("the branches in London").
_PLACES = grammar.PLACE_NOUNS


# Kinds of place whose every member is a proper name (a country is always named, an area may be
# "interior"): a closed class of the language, not a record of seeds.
_NAMED_PLACES = grammar.NAMED_PLACE_NOUNS


def named_place(field: FieldSpec, value: str) -> bool:
    """Whether a value of an enum place field is a proper name ("canada", "united kingdom", "north
    america"): the field is a kind of place that is always named, or a word of the value is one
    the lexicon does not know ("america"); "interior" of an "Area" is a word."""
    if field.type != "enum" or noun(said(field)) not in _PLACES or not value:
        return False
    words = value.replace("_", " ").split()
    return noun(said(field)) in _NAMED_PLACES or any(not grammar.tags(w) for w in words)


def brand_field(entity: EntitySpec) -> FieldSpec | None:
    """The one free-text field the list filters by that is neither the row's whole name nor a place
    ("Make" of a car model): its capitalised value can stand before the noun ("the Ford models")."""
    filtered = {f.field for f in entity.filters}
    found = [f for f in entity.fields if f.type == "string" and f.name in filtered and entity.display_fields != [f.name]
             and f.name not in entity.owner_fields and noun(said(f)) not in _PLACES
             and not grammar.participle_clause(noun(said(f)).split())]  # "held by …" says its own relation
    return found[0] if len(found) == 1 else None


# Nouns that name a kind of thing, not a thing that holds others: a car's model, a product's type.
# Kinds that hold their members, said "in the hardware category", "in the jazz genre".
CONTAINER_KINDS = frozenset(["category", "class", "genre", "group"])


def kind_said(f: FieldSpec, value: str) -> str | None:
    """A condition on a choice labelled by a kind that holds its members, said as people say it:
    "in the hardware category" (never 'whose category is "hardware"'); None for another field."""
    if f.type != "enum" or noun(said(f)) not in CONTAINER_KINDS or not re.fullmatch(r"[a-z][a-z ]*", value):
        return None
    return f"in the {modifier_said(value)} {noun(said(f))}"


KIND_NOUNS = frozenset(["model", "make", "brand", "type", "kind", "category", "class", "sort", "variety", "style",
                        "genre"])


def kind_field(entity: EntitySpec) -> FieldSpec | None:
    """The one reference field naming the kind a row is ("Model" of a car), when no free-text
    maker field says it instead: its row's name can stand before the noun ("the Nissan Qashqai
    cars")."""
    if brand_field(entity) is not None:
        return None
    found = [f for f in entity.fields if f.type == "reference" and f.ref and f.ref != "user"
             and noun(said(f)).split()[-1:] and noun(said(f)).split()[-1] in KIND_NOUNS]
    return found[0] if len(found) == 1 else None


def _name_before(entity: EntitySpec, field: FieldSpec | None, cond: Cond) -> str | None:
    """A condition's capitalised value said before the noun, when `field` is the one such field."""
    inner = cond.value[1:-1] if len(cond.value) > 2 and cond.value[0] == cond.value[-1] == '"' else ""
    if field is None or cond.field != field.name or cond.upper is not None or not _a_name_of(entity, inner):
        return None
    if _owners(entity, inner.lower()):
        return None  # a word that is also a value of a kind ("SUV") would read back as that kind
    return inner


def brand_before(entity: EntitySpec, cond: Cond) -> str | None:
    """A first condition on the `brand_field` said before the noun ("Ford"), None otherwise; a
    value that is a word of the noun itself, or a designator, stays after it. Capitals say it is
    a name, so a name that is also a word ("Ford", "Tesla") still reads as one."""
    return _name_before(entity, brand_field(entity), cond) or _name_before(entity, kind_field(entity), cond)


def compound_modifier(words: str) -> str:
    """Two words before a noun that make one adjective with a participle are joined by a hyphen,
    as English writes them: "purpose-built properties", "checked-in orders"; a compound of nouns
    ("standing order payments") is not."""
    parts = words.split()
    if len(parts) != 2 or not all(re.fullmatch(r"[a-z]+", w) for w in parts):
        return words
    first, last = parts
    # a participle that ends the pair ("purpose built") or takes its particle ("checked in");
    # a participle before a noun ("converted house") is an adjective and its noun, said apart
    ends = grammar.is_participle(last) and not grammar.is_participle(first)  # "notice-given", "purpose-built"
    particle = grammar.is_participle(first) and last in grammar.PARTICLES
    return "-".join(parts) if ends or particle else words


def modifier_said(word: str) -> str:
    """A value as it is said before a noun: an abbreviation in capitals ("SUV"), else as stored."""
    return " ".join(w.upper() if grammar.acronym(w) else w for w in word.split())


# Nouns of the stage a row has reached: their values are states, said after the noun where they
# cannot stand before it (`state_after`); a kind ("purpose built") stays before it.
STATE_NOUNS = frozenset(["status", "state", "stage", "phase"])


def state_after(value: str, field: FieldSpec) -> str | None:
    """A state said after its noun, never before it: a process a row is in ("referencing": "the
    applications in referencing", never "the referencing applications") or a thing and what was
    done with it ("notice given": "the tenancies with notice given"); None for other values and
    for a field that says no state."""
    if noun(said(field)) not in STATE_NOUNS:
        return None
    words = value.split()
    if len(words) == 1 and grammar.is_gerund(words[0]) and not grammar.is_adjective(words[0]):
        return f"in {value}"
    if len(words) == 2 and grammar.is_noun(words[0]) and grammar.is_participle(words[1]):
        return value  # "with" is said before it as before any thing a row has (`conds_said.with_conds`)
    return None


def stands_before(word: str, heads: list[str]) -> bool:
    """Whether a value can stand before the noun `heads` as its modifier ("compact cars", "sick
    leave", "SUV models"): one to three words, no plural alone ("bills"), not led by a preposition ("on
    loan" follows its noun), not the noun's own word or verb ("enrolled enrollments"); not before
    a noun that opens with its own adjective ("access common issues", "closed open slots"), not a
    designator ("unit b": a name), not a name the lexicon does not know ("europe"); a short
    unknown word is an abbreviation said in capitals."""
    if not _MODIFIER.fullmatch(word):
        return False
    words = word.split()
    # A plural value ("bills", "groceries", "two beds", "new arrivals") reads badly before a noun;
    # "savings" does not, nor a compound of nouns that ends in its own plural ("a vet bills claim")
    plural = [w for w in words if w.endswith("s") and not w.endswith(("ss", "ngs"))]
    compound = len(words) > 1 and plural == words[-1:] and not any(
        grammar.is_adjective(w) or w.isdigit() or w in grammar.CLOSED for w in words[:-1])
    if plural and not compound:
        return False
    if repeats_noun(word, heads):
        return False
    if words[0] in grammar.PREPOSITIONS:
        return False
    if len(heads) > 1 and grammar.is_adjective(heads[0]):
        return False
    if len(words) > 1 and len(words[-1]) == 1:
        return False
    return all(grammar.known(w) or grammar.seed_word(w) or w.isdigit() or w.isupper() or grammar.acronym(w)
               for w in words)


def repeats_noun(word: str, heads: list[str]) -> bool:
    """Whether a value is its noun's own word or verb ("enrolled" of enrollments, "held" of
    customs holds): it can stand neither before the noun nor after it ("my enrollments whose
    status is "enrolled"")."""
    stems = {word, *grammar.lemmas(word, "VERB")}
    if heads and word.split()[-1].endswith(grammar.singular(heads[-1])):
        return True  # "seaport ports", "open slot slots"
    return word in heads or any(h.startswith(stem) for h in heads for stem in stems if len(stem) >= 4)


def _owners(entity: EntitySpec, word: str) -> list[Cond]:
    """Every condition a word before the noun could say: an enum value, or a yes/no state."""
    out = [Cond(f.name, f'"{(_enum_value(f, word) or word).replace("_", " ")}"') for f in _enum_owners(entity, word)]
    out += [Cond(f.name, value) for f in entity.fields for value in ("yes", "no")
            if f.type == "bool" and bool_adjective(f, value) in (word, compound_modifier(word))]  # "short-paid"
    return out


def read_adjective(entity: EntitySpec, text: str, plural: bool) -> Cond | None:
    """The condition in "active payees" or "starred messages" (`adjective`, read back), None when
    there is none."""
    name = (spoken_plural(entity) if plural else entity.label).lower()
    if not text.lower().endswith(" " + name):
        return None
    word = text[: -len(name) - 1]
    for f in entity.fields:  # "euro payments" (`currency_word`)
        code = next((v for v in f.values or [] if currency_word(f, v) == word), None) if f.type == "enum" else None
        if code is not None:
            return Cond(f.name, f'"{code}"')
    compound = re.fullmatch(r"(?P<value>[a-z]+)-(?P<label>[a-z]+)", word)
    if compound is not None:  # "low-priority tickets"
        for f in entity.fields:
            value = _enum_value(f, compound["value"]) if f.type == "enum" else None
            if value is not None and graded(f, compound["value"]) == word:
                return Cond(f.name, f'"{value.replace("_", " ")}"')
    if "-" in word and compound_modifier(word.replace("-", " ")) == word:
        word = word.replace("-", " ")  # "purpose-built properties": the stored "purpose built"
    owners = _owners(entity, word) if _MODIFIER.fullmatch(word) else []
    if len(owners) == 1:
        return owners[0]
    for stored in (word, word.lower()):  # a name: "the Dublin Docklands plans"
        values = [c for c in _owners(entity, stored) if entity.field_named(c.field).type == "enum"]
        if len(values) == 1 and _name_value(entity, stored, entity.field_named(values[0].field)) == word:
            return values[0]
    for named in (brand_field(entity), kind_field(entity)):  # "the Ford models", "the Nissan Qashqai cars"
        if not owners and named is not None and brand_before(entity, Cond(named.name, f'"{word}"')) == word:
            return Cond(named.name, f'"{word}"')
    return None
