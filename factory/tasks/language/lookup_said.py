"""A question about one field of one row, asked the way the field is spoken of: "What is the
balance of my …?", "Is the plan "X" off-peak only?" (a state), "Does the listing "Loft" have wifi?"
(a thing a row has), "How many travellers does my trip "Rome" have?" (a count), "When was the hold
placed?" (the day of an act), "What currency is the … event in?" (the currency its amounts are in).
`parse_questions` reads each back.
"""

from __future__ import annotations

import re

from factory.spec.labels import CURRENCIES
from factory.spec.model import EntitySpec, FieldSpec
from factory.tasks.language import grammar
from factory.tasks.language.arg_words import CLASSIFIERS, when_label
from factory.tasks.language.conds_said import bool_phrase
from factory.tasks.language.indirect import asked
from factory.tasks.language.measures import PRICE_NOUNS, count_noun, day_act, done_count, times_done
from factory.tasks.language.modifiers import bool_adjective, bool_feature
from factory.tasks.language.row_labels import _by_name
from factory.tasks.language.row_names import CODED_THING
from factory.tasks.language.spoken import FOR_NOUNS, field_noun, own_field_noun


def be(phrase: str) -> str:
    """"are" when a noun phrase's head is plural ("the points on licence", "the total fees owed"),
    else "is"; the head is the last word before a preposition or a participle that follows it."""
    head = head_noun(phrase)
    return "are" if head and grammar.is_plural(head) else "is"


def head_noun(phrase: str) -> str:
    """A noun phrase's head: its last word before a preposition or a participle that follows it
    ("classes" of "classes held at once"); "" for no words."""
    words = phrase.split()
    cut = next((i for i, w in enumerate(words) if i and (w in grammar.PREPOSITIONS or grammar.is_participle(w))),
               len(words))
    return words[cut - 1] if cut else ""


def lookup_said(field: FieldSpec, named: str, variant: int, entity: EntitySpec | None = None,
            currency_of: EntitySpec | None = None) -> str:
    """A question about one field of one row: "What is the balance of my …?", "Is my message "Hi"
    read?" (a yes/no state), "Does the listing "Loft" have wifi?" (a thing a row has), "How many
    travellers does my trip "Rome" have?" (a count); `parse.parse_question` reads each back."""
    state = (bool_adjective(field, "yes") or bool_phrase(field)) if field.type == "bool" else None
    if state is not None and " " not in state and grammar.is_participle(state) and bool_adjective(field, "yes"):
        return f"Has {named} been {state}?"  # a state an act leaves: "Has ticket INC-8 been escalated?"
    if state is not None:  # "Is the plan "X" off-peak only?", "Is the dish "Y" on tonight?"
        return f"Is {named} {state}?"
    feature = bool_feature(field) if field.type == "bool" else None
    if feature is not None:
        return f"Does {named} have {feature}?"
    done_to = done_count(entity, field) if entity is not None else None
    if done_to is not None:  # "How many tickets have been sold in the VIP ticket tier for …?"
        return f"How many {done_to[0]} have been {done_to[1]} in {named}?"
    counted = count_noun(field)
    if counted is not None:
        return f"How many {counted} does {named} have?"
    done = times_done(field)
    if done is not None:  # "Times lent": "How many times has the book "X" been lent?"
        return f"How many times has {named} been {done}?"
    f = own_field_noun(entity, field) if entity is not None else field_noun(field)  # "the start date of the shift pattern …"
    when = re.fullmatch(r"date ([a-z]+)", f) if field.type in ("date", "datetime") else None
    done = done_on(field)
    if when is not None or done is not None:  # "date placed": "When was the hold "X" placed?", not
        # "the date placed of"; "issue date": "When was the invoice "X" issued?", not "the issue date of"
        verb = when[1] if when is not None else done
        return asked("when", "was", named, f" {verb}", variant)
    until = when_label(field)
    if until is not None:  # "When is Flat 14, The Tannery available from?", never "the availability date of"
        return asked("when", "is", named, f" {until}", variant)
    priced = entity or currency_of
    if field.type in ("int", "float") and f in _HOW_LONG:  # "How long is the Spin class at … on 8 June?"
        return asked("how long", "is", named, "", variant)
    if field.type == "money" and f == "cost":  # "How much did the asset BWL-1044 cost?"
        return asked("how much", "did", named, " cost", variant)
    if field.type == "money" and f == "amount":  # "How much was my monthly fee payment on 1 April?"
        return asked("how much", "was", named, "", variant)
    if field.type == "money" and f.split()[-1] in PRICE_NOUNS and f.split()[-1] != "rate":
        # "How much is the joining fee for the … plan?", never "the … plan's joining fee"
        return asked("how much", "is", f"the {f} for {named}", "", variant)
    if priced is not None and prices_in(priced, field):  # "What currency is the … event in?"
        return asked("what currency", "is", named, " in", variant)
    if in_place(field) and entity is not None and _by_name(entity):
        # a row known by its own name is a place or a body that is somewhere: "What city is the
        # Whiteladies Mews property in?", never "the … property's city"; "my contact details" are in no city
        return asked(f"what {f}", "is", named, " in", variant)
    kind = _QUOTED_THING.match(named) if field.type == "enum" and f in CLASSIFIERS else None
    if kind is not None:  # "What kind of assignment is "Midterm"?", never "the kind of the assignment"
        return f"What {f} of {kind['thing']} is {kind['name']}?"
    coded = _CODED_THING.fullmatch(named) if field.type == "enum" and f in CLASSIFIERS else None
    if coded is not None:  # "What type of asset is BWL-1012?", never "the type of the asset BWL-1012"
        return f"What {f} of {coded['thing']} is {coded['code']}?"
    if field.type == "enum" and f in CLASSIFIERS and possessive(named):  # "What kind of port is Los Angeles?"
        name, _, thing = named.removeprefix("the ").rpartition(" ")
        return f"What {f} of {thing} is {name}?"
    of = of_word(f)  # "the reason for my blocked dates"
    if possessive(named) and of == "of":  # "What is the History department's office?"
        return f"What {be(f)} {named}'s {f}?"
    # asked as a person asks a colleague; "Look up the … of …" read as a form's wording
    return f"Can you tell me the {f} {of} {named}?" if variant % 2 else f"What {be(f)} the {f} {of} {named}?"


# Words written on a thing: "the note on my transfer", never "the note of my transfer".
ON_NOUNS = frozenset(["note", "notes", "comment", "comments", "remark", "remarks", "memo", "annotation",
                      "feedback", "sticker", "caption"])


def of_word(noun_text: str) -> str:
    """The preposition between a field's noun and its row: "for" after a reason or a clause inside
    the noun ("the amount billed to the renter for …"), "on" after words written on a thing ("the
    note on my transfer") or a participle ("the fees owed on my enrollment", never "the fees owed
    of"), else "of"."""
    words = noun_text.split()
    last = words[-1]
    if last in FOR_NOUNS:
        return "for"
    if last in ON_NOUNS:
        return "on"
    if len(words) > 1 and grammar.is_participle(last) and not grammar.is_noun(last):
        return "on"
    if any(grammar.is_participle(w) and not grammar.is_noun(w) for w in words[1:-1]):
        return "for"  # "the amount billed to the renter for the damage report", never "the renter of the report"
    return "of"


def in_place(field: FieldSpec) -> bool:
    """Whether a field names the place a row is in ("City", "Country"): a choice or a text whose
    noun is a kind of place."""
    return field.type in ("enum", "string") and field_noun(field) in grammar.PLACE_NOUNS | grammar.NAMED_PLACE_NOUNS


def prices_in(entity: EntitySpec, field: FieldSpec) -> bool:
    """Whether `field` is the currency the row's amounts are in (a money field names it as its
    `currency_field`, or its every value is a currency code): asked "What currency is … in?",
    never "What is the … event's currency?"."""
    if field.type != "enum" or not field.values:
        return False
    # an amount of the row names it, or every value is a currency the app writes amounts in
    return any(f.type == "money" and f.currency_field == field.name for f in entity.fields) or all(
        v in CURRENCIES for v in field.values)


# A row named "the <noun> "<label>" …", whose kind is asked after its noun (`_lookup`).
_QUOTED_THING = re.compile(r'the (?P<thing>[a-z][a-z -]*?) (?P<name>"[^"]+"(?: [^"?]+)?)$')


# A row named by its code after its noun ("the asset BWL-1012"), whose kind is asked of the code.
_CODED_THING = re.compile(rf"(?:the )?(?!my ){CODED_THING}")


# Nouns of how long a thing lasts, asked "How long is …?" (`parse_questions` reads them back).
_HOW_LONG = ("length", "duration")


def done_on(field: FieldSpec) -> str | None:
    """The act a date field is the day of (`measures.day_act`), where the seed gives the field no
    spoken noun of its own: "Decided" → decided, "Issue date" → issued."""
    return None if field.say else day_act(field)


def possessive(named: str) -> bool:
    """Whether a row everyone knows, said by a bare name before its noun ("the Picking & Packing
    department"), takes "'s" as a person would put it: "the Picking & Packing department's
    building", never "the building of the Picking & Packing department"; a quoted name does not,
    nor a row of the user's own ("my Harold Richards contact's phone number" reads as a person's)."""
    return bool(re.fullmatch(r"the [A-Z][^\"',()]* [a-z]+", named)) and not named.endswith("s")
