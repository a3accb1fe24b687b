"""How numbers are said with what they count or measure: a count of things ("4 guests", "how many
transactions"), a measure in its unit ("25 days"), how often something was done to a row ("has
been lent the most times"), and a number said before its label ("6 carried over", "£40 per
day"). Like `spoken`, a function of the spec alone.
"""

from __future__ import annotations

import re

from factory.spec.model import EntitySpec, FieldSpec, ParamSpec
from factory.tasks.language import grammar
from factory.tasks.language.frame_params import classes_things
from factory.tasks.language.spoken import field_noun, noun, said


def times_done(field: FieldSpec | ParamSpec) -> str | None:
    """A whole-number field that counts how often something was done to a row ("Times lent",
    "Times renewed"): the participle, which a question says as people do ("How many times has the
    book been lent?", "the book that has been lent the most times"); None for any other field."""
    m = re.fullmatch(r"times ([a-z]+)", noun(said(field)))
    return m[1] if field.type == "int" and m is not None else None


def unit_of(field: FieldSpec | ParamSpec) -> str | None:
    """The unit a number's label gives in parentheses ("Allowance (days)" → "days", "Weight (kg)"
    → "kg"): the number is a measure in it, said "25 days"; None when the label gives none."""
    m = re.search(r"\(([A-Za-z]+)\)\s*$", field.label)
    return m[1].lower() if m and field.type in ("int", "float") else None


def with_unit(field: FieldSpec | ParamSpec, number: str) -> str:
    """A measure with its unit ("25 days", "1 day", "5 kg"); the bare number without one."""
    unit = unit_of(field)
    if unit is None:
        return number
    return f"{number} {grammar.singular(unit) if number == '1' else unit}"


def count_noun(field: FieldSpec | ParamSpec) -> str | None:
    """A whole-number field labelled by one plural noun ("Travellers", "Renewals"), or as a count of
    one ("Transaction count", "Number of nights"), is a count of things: people ask "how many
    transactions", "the most travellers", never "the transaction count of"; None for any other field."""
    word = noun(said(field))
    if field.type != "int" or unit_of(field) is not None:  # "Terms (days)" counts days, not terms
        return None
    # "Transaction count" and "Number of transactions" count transactions too
    named = re.fullmatch(r"(?:number of (?P<plural>[a-z]{3,}s)|(?P<one>[a-z]{3,}) count)", word)
    if named is not None:
        one = named["one"]
        word = named["plural"] or (one[:-1] + "ies" if one.endswith("y") and one[-2:-1] not in "aeiou"
                                   else one + "es" if one.endswith(("s", "x", "ch", "sh")) else one + "s")
    if not re.fullmatch(r"[a-z]{3,}s", word) or word.endswith(("ss", "us", "is")):
        return None
    return word


def value_first(param: FieldSpec | ParamSpec) -> str | None:
    """A number or an amount labelled by a participle phrase ("Carried over", "Spent this year") or
    by a rate ("Per day"): said after its value, as people do ("with 6 carried over", "£40 per
    day"), never "the number carried over 6"; None for other labels."""
    if param.type not in ("int", "money") or param.say:
        return None
    words = noun(said(param)).split()
    if not words or not all(re.fullmatch(r"[a-z]+", w) for w in words):
        return None
    # a clause ("carried over", "spent this year"), not a participle modifying its noun ("agreed loss")
    participle = (len(words) > 1 and grammar.is_participle(words[0]) and not grammar.is_noun(words[0])
                  and words[1] in grammar.CLOSED | grammar.PARTICLES)
    rate = param.type == "money" and len(words) == 2 and words[0] == "per"
    return " ".join(words) if participle or rate else None


def counted(word: str, n: int | str) -> str:
    """`n` things: "4 guests", "1 guest" (the count noun's singular when there is one)."""
    return f"{n} {word[:-1] if str(n) == '1' else word}"


# The units of time a rate is paid by, and the words its label may say one with.
_RATE_UNITS = (("hour", ("hourly", "hour")), ("day", ("daily", "day")), ("night", ("nightly", "night")),
               ("week", ("weekly", "week")), ("month", ("monthly", "month")), ("year", ("yearly", "annual", "year")))


def rate_per(param: FieldSpec | ParamSpec) -> str | None:
    """What an amount is paid by when its label is a rate ("New day rate", "Hourly rate", "Per
    day"): "a day", "an hour", said after the amount ("to £79 a day"); None for other amounts."""
    words = noun(said(param)).split()
    if param.type != "money" or not words or not (words[-1] == "rate" or words[0] == "per"):
        return None
    unit = next((u for u, said_as in _RATE_UNITS if set(words) & set(said_as)), None)
    return None if unit is None else f"{'an' if unit == 'hour' else 'a'} {unit}"



# Nouns of what a row costs the one who pays for it: a row ranked by one is "the cheapest" or
# "the most expensive", as people rank things they buy.
PRICE_NOUNS = frozenset(["price", "cost", "fare", "rent", "rate", "fee"])
CHEAPEST, DEAREST = "cheapest", "most expensive"
SMALLEST, LARGEST = "smallest", "largest"  # a row ranked by its one amount ("my largest payment")


def price_field(entity: EntitySpec) -> FieldSpec | None:
    """The one amount a row costs ("Price", "Cost", "Monthly rent"): a money field whose noun ends
    on a price noun, where the row has exactly one; None otherwise (a plan with a joining fee and
    a monthly fee is cheap by neither alone)."""
    found = [f for f in entity.fields if f.type == "money" and noun(said(f)).split()[-1:] in ([w] for w in PRICE_NOUNS)]
    return found[0] if len(found) == 1 else None


def done_count(entity: EntitySpec, field: FieldSpec) -> tuple[str, str] | None:
    """A whole number labelled by one participle ("Sold") on a row that classes things ("ticket
    tier"): the things and what was done to them, ("tickets", "sold"), asked "How many tickets
    have been sold in …?" and ranked "has the most tickets sold", never "the number sold"; None
    for any other field."""
    words = field.label.lower().split()
    if field.type != "int" or len(words) != 1 or not grammar.is_participle(words[0]) or grammar.is_noun(words[0]):
        return None
    thing = classes_things(noun(said(entity)))
    return (grammar.plural(thing), words[0]) if thing else None


def day_act(field: FieldSpec | ParamSpec) -> str | None:
    """The act a day field is the day of, as a participle, read from its label or its noun:
    "Bought" → bought, "Serviced on" → serviced, "Issue date" → issued; None for a noun that is
    no act ("Decision date") or a longer label ("Pattern start date")."""
    if field.type not in ("date", "datetime"):
        return None
    label = field.label.lower().split()  # "Decided", "Serviced on": the label says the act itself
    if label and grammar.is_participle(label[0]) and all(w in ("on", "at") for w in label[1:]):
        # a verb that takes its thing after a preposition ("apply for") is done by the row's
        # holder, not to the row: an application is never "applied"
        return None if grammar.participle_of(label[0]) in grammar.INTRANSITIVE else label[0]
    m = re.fullmatch(r"([a-z]+) date", field_noun(field))
    # a verb of beginning or ending is what a row does, not what is done to it: a trip "starts"
    # on its start date, never "was started"
    if m is None or not grammar.is_verb(m[1]) or m[1] in _ASPECTUAL or m[1] in grammar.INTRANSITIVE:
        return None
    return grammar.participle(m[1])


_ASPECTUAL = frozenset(["start", "begin", "end", "finish", "stop", "expire", "commence", "cease", "resume",
                        "continue", "lapse"])


def amount_field(entity: EntitySpec) -> FieldSpec | None:
    """The one sum a row is ("Amount" of a payment): a money field said "amount", where the row has
    exactly one and no price (`price_field`); ranked "the largest", "the smallest"."""
    found = [f for f in entity.fields if f.type == "money" and noun(said(f)) == "amount"]
    return found[0] if len(found) == 1 and price_field(entity) is None else None
