"""How a sentence names a row, and how the name is read back (`name_of`, `read_name`): people
name rows as they see them, "my Main Checking account (··3808)" when the label is a name plus a
code, "my visa card ··9591" when the label already says what it is, else `my payee "Sunvale
Energy"`; a row the money goes to is named bare ("Pay Sunvale Energy $45"), a person by their name.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from factory.spec.model import EntitySpec, Spec
from factory.tasks.language import grammar
from factory.tasks.language.asks import MADE, ONLY, ParseError, RefText
from factory.tasks.language.counted_names import CountShape, count_shape, counted, read_counted
from factory.tasks.language.label_parts import (
    _CODE,
    _SLOT,
    _a_title,
    _as_shown,
    _code_first,
    _first_ref,
    _for_sep,
    _joining,
    _lead,
    _placed,
    _pointed_noun,
    _pointing,
    _read_placed,
    _templates,
    _undated_for,
    _undated_lead,
    kind_noun,
    own_code,
)
from factory.tasks.language.row_labels import (
    _PLACE_LIKE,
    _PLACE_NAME,
    SPOKEN_DAY,
    _by_name,
    _date_sep,
    _dated,
    _day_words,
    _named_before,
    _says_its_noun,
    _template_split,
    object_person,
    person_split,
    person_template,
    titled,
)
from factory.tasks.language.spoken import noun, said
from factory.tasks.language.things import person
from factory.tasks.language.values import PERSON
from factory.tasks.language.words import my_only


def _around(spec: Spec, ent: EntitySpec, text: str, templates: list[str]) -> tuple[str, str] | None:
    """What a sentence says before and after a row's noun in place of its quoted label, where the
    label is made of fields: ("Spin", "on June 19 at 7:00 AM (Dublin Docklands)") for "the Spin
    class session on June 19 …" (label "{class_type} at {starts_at} ({club})"), ("", "for the Spin
    class session …") for a booking labelled by its class alone. None: the label stays quoted."""
    thing = noun(said(ent))
    for template in templates:
        parts = _SLOT.split(template)
        shape = count_shape(spec, ent, template, _day_words)
        if shape is not None:  # "my order of 4 General admission tickets for Fennel & Rye placed on March 30"
            words = counted(shape, text, *_count_helpers(spec))
            if words is not None:
                return "", words
            continue
        word = _pointing(ent, parts, thing)
        if word is not None:  # one field, the row it points at ("Refund for {order}")
            f = ent.field_named(parts[1])
            if f.type != "reference" or not f.ref or f.ref == ent.name or person(spec, f.ref) \
                    or not text.startswith(parts[0]):
                continue
            inner = name_of(spec, f.ref, RefText(text[len(parts[0]):], mine=False), "subject")
            if inner.startswith("the ") and '"' not in inner:
                return "", f"{word} {inner}"
            continue
        if len(parts) < 5 or parts[0]:
            continue
        pattern = "".join(re.escape(x) if i % 2 == 0 else "(.+?)" for i, x in enumerate(parts))
        m = re.fullmatch(pattern, text)
        coded = _code_first(ent, parts, text)
        if coded is not None:  # "the ticket INC-16 (MFA codes not arriving)"
            return "", f"{coded[0]} ({coded[1]})"
        word = _joining(spec, ent, parts) if m else None
        lead = _lead(spec, ent, parts[1], m[1], thing) if m and word else None
        rest = text[m.end(1) + len(parts[2]):] if m else ""
        if lead is not None and word is not None and rest and '"' not in rest:
            placed = _placed(spec, ent, parts, rest)
            if placed is not None:  # "the Spin class at Dublin Docklands on June 19 at 7:00 AM"
                return lead, f"at {placed[0]} {word} {placed[1]}"
            return lead, f"{word} {rest}"
        sep = _for_sep(spec, ent, parts, word) if m else None
        if m and sep is not None and lead is None and rest and _PLACE_LIKE.fullmatch(m[1]) and '"' not in rest:
            # "my viewing appointment for Flat 26, Harbour View on June 19 …", "my application for … from June 15"
            return "", f"for {m[1]}{sep}{rest.removesuffix(')') if sep != parts[2] else rest}"
    return None


def _read_around(spec: Spec, ent: EntitySpec, text: str, templates: list[str]) -> str | None:
    """The label `_around`'s words say, or None when `text` is not said that way."""
    thing = noun(said(ent))
    for template in templates:
        parts = _SLOT.split(template)
        shape = count_shape(spec, ent, template, _day_words)
        if shape is not None:
            if text.lower().startswith(thing + " of "):
                found = read_counted(shape, text[len(thing) + 1:], *_read_count_helpers(spec, shape))
                if found is not None:
                    return found
            continue
        word = _pointing(ent, parts, thing)
        if word is not None:
            f = ent.field_named(parts[1])
            lead = f"{thing} {word} "
            if f.type == "reference" and f.ref and f.ref != ent.name and text.lower().startswith(lead + "the "):
                inner = read_name(spec, f.ref, text[len(lead):])
                if inner.mine is False and inner.by is None:
                    return parts[0] + inner.text
            continue
        if len(parts) < 5 or parts[0]:
            continue
        m = re.fullmatch(rf"{re.escape(thing)} (?P<code>{_CODE.pattern}) \((?P<rest>[^()\"]+)\)", text, re.IGNORECASE)
        if m is not None and _code_first(ent, parts, f"{m['code']}{parts[2]}{m['rest']}") == (m["code"], m["rest"]):
            return f"{m['code']}{parts[2]}{m['rest']}"
        word = _joining(spec, ent, parts)
        placed = _read_placed(spec, ent, parts, thing, word, text) if word else None
        if placed is not None:
            return placed
        m = re.fullmatch(rf"(?P<lead>[^\"]+?) {re.escape(thing)} {re.escape(word)} (?P<rest>[^\"]+)", text,
                         re.IGNORECASE) if word else None
        if m is not None and _lead(spec, ent, parts[1], m["lead"], thing) is not None:
            return f"{_as_shown(ent, parts[1], m['lead'])}{parts[2]}{m['rest']}"
        sep = _for_sep(spec, ent, parts, word)
        m = re.fullmatch(rf"{re.escape(thing)} for (?P<lead>[^\"]+?){re.escape(sep)}(?P<rest>[^\"]+)", text,
                         re.IGNORECASE) if sep else None
        if m is not None and _lead(spec, ent, parts[1], m["lead"], thing) is None and _PLACE_LIKE.fullmatch(m["lead"]):
            return f"{m['lead']}{parts[2]}{m['rest']}" + (parts[4] if sep != parts[2] else "")
    return None


def _count_helpers(spec: Spec) -> tuple[Callable[[str, str], tuple[str, str] | None],
                                         Callable[[str, str], str | None]]:
    """How `counted_names` says the row counted from: its words around the noun, its name."""

    def around(entity: str, text: str) -> tuple[str, str] | None:
        ent = spec.entity(entity)
        return _around(spec, ent, text, _templates(spec, ent))

    def named(entity: str, text: str) -> str | None:
        try:
            return name_of(spec, entity, RefText(text, mine=False), "subject")
        except ParseError:
            return None

    return around, named


def _read_count_helpers(spec: Spec, shape: CountShape) -> tuple[Callable[[str], str], Callable[[str, str], str | None],
                                                                Callable[[str, str], str | None],
                                                                Callable[[str], str | None]]:
    """How `counted_names` reads the row counted from back, and says a label again to check it."""
    around, named = _count_helpers(spec)

    def thing_of(entity: str) -> str:
        return noun(said(spec.entity(entity)))

    def read_around(entity: str, text: str) -> str | None:
        ent = spec.entity(entity)
        return _read_around(spec, ent, text, _templates(spec, ent))

    def read_named(entity: str, text: str) -> str | None:
        try:
            found = read_name(spec, entity, text)
        except ParseError:
            return None
        return found.text if found.mine is False and found.by is None else None

    return thing_of, read_around, read_named, lambda label: counted(shape, label, around, named)


def name_of(spec: Spec, entity: str, ref: RefText, role: str) -> str:
    """How a sentence names a row: "my Main Checking account (··3808)", "my visa card ··9591",
    `my payee "Sunvale Energy"`, "my contact details"; bare ("Sunvale Energy") where money goes."""
    ent = spec.entity(entity)
    thing = noun(said(ent))
    if ref.by in (ONLY, MADE):
        return ref.text
    if ref.by is not None or '"' in ref.text:
        raise ParseError(f"a row named by its fields cannot be said in a sentence ({ref.text!r})")
    mine = ref.mine if ref.mine is not None else ent.visibility != "public"
    owner = "my " if mine else "the "
    if (role == "object" and ent.visibility != "public") or (person(spec, entity) and ref.by is None):
        return ref.text  # money goes to "Sunvale Energy"; a person is named by their name ("to Liam O'Connor")
    if role in ("source", "dest") and ent.visibility == "public" and not mine and _PLACE_NAME.fullmatch(ref.text):
        return ref.text  # a place everyone knows goes "from Busan to Los Angeles", never "from the port "Busan""
    if own_code(ent, ref.text):  # "ticket INC-122": a row known by its code, said by it alone and,
        return f"{'my ' if mine else ''}{thing} {ref.text}"  # like a flight or a room number, with no article
    split = _template_split(ent, ref.text)
    if split is not None:
        return f"{owner}{split[0]} {thing} ({split[1]})"
    towards = _towards(spec, ent, ref.text, thing, mine)
    if towards is not None:  # "my transfer for the order of … to Rachel Randolph", "the transfer … to me"
        return towards
    whose = person_split(spec, ent, ref.text) if not mine else None
    if whose is not None:  # `Priya Raman's shift "May 29 Night (22:00-06:00)"`, "Jill Gay's employee record"
        around = _around(spec, ent, whose[1], _templates(spec, ent)[1:]) if whose[1] else None
        if around is not None:  # "Krista Fleming's booking for the Spin class session on June 15 …"
            return f"{whose[0]}'s " + " ".join(w for w in (around[0], thing, around[1]) if w)
        undated = _undated_lead(spec, ent, whose[1], thing) if whose[1] else None
        if undated is not None:  # "Sinead O'Neill's Docklands Unlimited membership"
            return f"{whose[0]}'s {undated[1]} {kind_noun(spec, ent) or thing}"
        undated_for = _undated_for(spec, ent, whose[1]) if whose[1] else None
        if undated_for is not None:  # "Melissa Bullock's application for Flat 6, The Tannery"
            return f"{whose[0]}'s {thing} {undated_for}"
        return f'{whose[0]}\'s {thing}' + (f' "{whose[1]}"' if whose[1] else "")
    around = _around(spec, ent, ref.text, _templates(spec, ent))
    if around is not None:  # a label made of fields, said as words around the noun, never quoted:
        # "my order of 4 General admission tickets for Fennel & Rye placed on March 30", "my monthly fee payment on April 1"
        said_thing = kind_noun(spec, ent) if around[0] else None  # "the Spin class on June 19 …"
        return owner + " ".join(w for w in (around[0], said_thing or thing, around[1]) if w)
    dated = _dated(ent, ref.text)
    if dated is not None and _a_title(spec, dated[0]):  # "my rent payment for Flat 15, Kelvin House paid on July 1"
        return f"{owner}{thing} for {dated[0]} {dated[1]} {dated[2]}"
    if dated is not None:  # `my rental "Ford Fiesta LN72 MVM" on May 7`: quoted as the app shows it, the day in words
        return f'{owner}{thing} "{dated[0]}" {dated[1]} {dated[2]}'
    belongs = _belongs_to(spec, ent, ref.text)
    if belongs is not None:  # "my tenancy for Flat 5, Kelvin House": named by the row it belongs to
        return f"{owner}{thing} {belongs}"
    lead = _undated_lead(spec, ent, ref.text, thing)
    if lead is not None:  # "my Titanic Quarter Off-Peak membership", its day left out where that names it alone
        return f"{owner}{lead[1]} {kind_noun(spec, ent) or thing}"
    undated_for = _undated_for(spec, ent, ref.text)
    if undated_for is not None:  # "my application for Flat 6, The Tannery"
        return f"{owner}{thing} {undated_for}"
    if titled(ref.text, thing):
        return ref.text  # a name that is its noun as a title and a number: "Flat 23, Maple Terrace"
    if _says_its_noun(ref.text, thing):
        return owner + ref.text  # a name that says what it is ("my visa card ··9591"); a list is quoted
    if (len(ent.display_fields) == 1 and _named_before(ref.text, thing, _by_name(ent))
            and person_split(spec, ent, ref.text) is None):
        # a row's own name ("the London Heathrow T5 branch"), never a label made of several fields
        # ("the Vauxhall Corsa SF74 MVU car") nor a person ("my Sharon Neal employee record")
        return f"{owner}{ref.text} {thing}"
    return f'{owner}{thing} "{ref.text}"'


def _belongs_to(spec: Spec, ent: EntitySpec, text: str) -> str | None:
    """What follows a row's noun where it is named by the row it belongs to (`UserView.short_labels`):
    "for Flat 5, Kelvin House" of a tenancy, that row as it is said unquoted; "of VIP tickets for
    Canal Street Pride Party" of an order that counts them, its count left out. None for a label
    of any other shape."""
    ref = _first_ref(spec, ent)
    if ref is None or '"' in text:
        return None
    shape = count_shape(spec, ent, ent.display, _day_words)
    if shape is not None and shape.ref == ref:
        parts = _around(spec, spec.entity(ref), text, _templates(spec, spec.entity(ref)))
        return f"of {parts[0]} {shape.unit} {parts[1]}" if parts is not None and parts[0] and parts[1] else None
    inner = name_of(spec, ref, RefText(text, mine=False), "subject")
    return f"for {inner}" if '"' not in inner and (inner == text or inner.startswith("the ")) else None


def _read_belongs(spec: Spec, ent: EntitySpec, thing: str, text: str, mine: bool | None) -> RefText | None:
    """The row `name_of` names by what it belongs to ("tenancy for Flat 5, Kelvin House", "order
    of VIP tickets for …", "rent payment for Flat 15, Kelvin House paid on July 1, 2025"), or None."""
    m = re.fullmatch(rf"{re.escape(thing)} (?P<rest>(?:for|of) [^\"]+)", text, re.IGNORECASE)
    if m is None:
        return None
    said_rest = m["rest"]
    found = _date_sep(ent)
    day = re.fullmatch(rf"for (?P<head>.+?) {re.escape(found[1])} (?P<day>{SPOKEN_DAY.pattern[:-1]})",
                       said_rest) if found is not None else None
    if found is not None and day is not None and _a_title(spec, day["head"]):
        return RefText(f"{day['head']}{found[0]}{day['day']}", mine=mine)
    ref = _first_ref(spec, ent)
    if ref is None:
        return None
    candidates: list[str | None] = []
    shape = count_shape(spec, ent, ent.display, _day_words)
    if shape is not None and shape.ref == ref and said_rest.startswith("of "):
        lead, sep, rest = said_rest[3:].partition(f" {shape.unit} ")
        if sep:
            candidates.append(_read_around(spec, spec.entity(ref), f"{lead} {noun(said(spec.entity(ref)))} {rest}",
                                           _templates(spec, spec.entity(ref))))
    elif said_rest.startswith("for "):
        try:
            inner = read_name(spec, ref, said_rest[4:])
        except ParseError:
            inner = None
        candidates.append(inner.text if inner is not None and inner.by is None else None)
    for label in candidates:
        if label is not None and _belongs_to(spec, ent, label) == said_rest:
            return RefText(label, mine=mine)
    return None


def _towards(spec: Spec, ent: EntitySpec, text: str, thing: str, mine: bool) -> str | None:
    """A row named after the person it goes to, said as the label says it: "my transfer for the
    order of … to Rachel Randolph" (the user's own), "the transfer … to Rachel Randolph", "the
    transfer … to me" (`mine` and the label without the user's own name); None for other labels."""
    word = object_person(spec, ent)
    if word is None:
        return None
    split = person_split(spec, ent, text)
    who, rest = split if split is not None else ("me", text) if mine else ("", "")
    if not who or not rest or '"' in rest:
        return None
    around = _around(spec, ent, rest, _templates(spec, ent)[1:])
    det = "my " if mine and who != "me" else "the "
    of_row = _of_pointed(spec, ent, around[1]) if around is not None and not around[0] else None
    done = grammar.participle(thing) if of_row is not None and who == "me" and grammar.is_verb(thing) else None
    if done is not None and of_row is not None:  # "the General admission tickets for … transferred to me"
        return f"the {of_row.removeprefix('of ')} {done} {word} me"
    if done is None and of_row is not None and mine and grammar.is_verb(thing):
        # "the Balcony tickets for Dublin Comedy Gala I transferred to Colin Hanna", as the sender says it
        return f"the {of_row.removeprefix('of ')} I {grammar.participle(thing)} {word} {who}"
    if of_row is not None:  # "the transfer of General admission tickets for … to Rachel Randolph": what it moves, then where
        return f"{det}{thing} {of_row} {word} {who}"
    if around is not None and around[1]:
        # the person right after the noun, then what it is of: "the transfer to me for the order
        # of 1 … placed on April 23", never "… placed on April 23 to me"
        return det + " ".join(w for w in (around[0], thing, word, who, around[1]) if w)
    body = " ".join(w for w in (around[0], thing, around[1]) if w) if around else f'{thing} "{rest}"'
    return f"{det}{body} {word} {who}"


def _of_pointed(spec: Spec, ent: EntitySpec, said_after: str) -> str | None:
    """What a row pointed at holds, said after the noun of the row that moves it ("of General
    admission tickets for …" of "for the order of General admission tickets for …"), where no day
    follows (a person after a day reads as the day's); None otherwise."""
    pointed = _pointed_noun(spec, ent)
    lead = f"for the {pointed} of "
    if pointed is None or not said_after.startswith(lead) or SPOKEN_DAY.search(said_after):
        return None
    return said_after[len(f"for the {pointed} "):]




def _read_towards(spec: Spec, ent: EntitySpec, text: str, thing: str, mine: bool | None) -> RefText | None:
    """The row `_towards` names, or None (`text` without its "my " or "the ")."""
    word = object_person(spec, ent)
    shape = person_template(spec, ent)
    first = re.fullmatch(rf"(?P<pre>(?:[^\"]+ )?){re.escape(thing)} {word} (?P<who>me|{PERSON}) (?P<post>[a-z][^\"]*)",
                         text) if word and shape else None
    if first is not None and shape is not None:  # "transfer to me for the order of …"
        rest = _read_around(spec, ent, f"{first['pre']}{thing} {first['post']}", _templates(spec, ent)[1:])
        if rest:
            if first["who"] == "me":
                return RefText(rest, mine=True) if mine is False else None
            return RefText(f"{rest}{shape[1]}{first['who']}", mine=mine)
    m = re.fullmatch(rf"(?P<body>.+) {word} (?P<who>me|[A-Z][^\"]*?)", text) if word and shape else None
    if m is None or shape is None or not m["body"].lower().startswith(thing + " "):
        return None
    body = m["body"][len(thing) + 1:]
    quoted = re.fullmatch(r'"(?P<rest>[^"]+)"', body)
    rest = quoted["rest"] if quoted else _read_around(spec, ent, m["body"], _templates(spec, ent)[1:])
    pointed = _pointed_noun(spec, ent)
    if not rest and pointed is not None and body.startswith("of ") and _of_pointed(
            spec, ent, f"for the {pointed} {body}") == body:  # "transfer of General admission tickets for …"
        rest = _read_around(spec, ent, f"{thing} for the {pointed} {body}", _templates(spec, ent)[1:])
    if not rest:
        return None
    if m["who"] == "me":
        return RefText(rest, mine=True) if mine is False else None
    return RefText(f"{rest}{shape[1]}{m['who']}", mine=mine)


# A row said by a noun and its own code, with no article ("ticket INC-151"), inside a pattern.
CODED_THING = rf"(?P<thing>[a-z][a-z -]*?) (?P<code>{_CODE.pattern})"


def code_named(spec: Spec, entity: str, text: str) -> bool:
    """Whether `text` names a row by its noun and its own code, with no article ("ticket INC-151")."""
    ent = spec.entity(entity)
    m = re.fullmatch(rf"{re.escape(noun(said(ent)))} (?P<code>{_CODE.pattern})", text, re.IGNORECASE)
    return m is not None and own_code(ent, m["code"])


def read_name(spec: Spec, entity: str, text: str) -> RefText:
    """The row a sentence names (`name_of`, read back)."""
    ent = spec.entity(entity)
    thing = noun(said(ent))
    if text.lower() == my_only(ent):
        return RefText(text, ONLY)
    mine: bool | None = None
    for owner, flag in (("my ", True), ("the ", False)):
        if text.lower().startswith(owner):
            text, mine = text[len(owner):], flag
    word = object_person(spec, ent)
    done = grammar.participle(thing) if word is not None and grammar.is_verb(thing) else None
    came = re.fullmatch(rf"(?P<what>[^\"]+) {re.escape(done)} {word} me", text) if done and mine is False else None
    if came is not None:  # "the General admission tickets for … transferred to me" (`_towards`)
        text = f"{thing} of {came['what']} {word} me"
    sent = re.fullmatch(rf"(?P<what>[^\"]+) I {re.escape(done)} {word} (?P<who>{PERSON})", text) \
        if done and mine is False else None
    if sent is not None:  # "the Balcony tickets for … I transferred to Colin Hanna" (`_towards`)
        text, mine = f"{thing} of {sent['what']} {word} {sent['who']}", True
    towards = _read_towards(spec, ent, text, thing, mine)
    said_back = came[0] if came is not None else sent[0] if sent is not None else None
    if towards is not None and (said_back is None or _towards(spec, ent, towards.text, thing, True) == f"the {said_back}"):
        return towards
    coded = re.fullmatch(rf"{re.escape(thing)} (?P<code>{_CODE.pattern})", text, re.IGNORECASE)
    if coded is not None and own_code(ent, coded["code"]):  # "ticket INC-122", "my ticket INC-122"
        return RefText(coded["code"], mine=bool(mine))
    shape = person_template(spec, ent)
    whose = re.fullmatch(rf'(?P<who>[A-Z][^"]*?)\'s {re.escape(thing)}(?: "(?P<rest>[^"]+)")?', text, re.IGNORECASE)
    if shape is not None and whose is not None and mine is None and bool(whose["rest"]) == bool(shape[1]):
        rest = whose["rest"] or ""
        label = f"{whose['who']}{shape[1]}{rest}" if shape[2] else f"{rest}{shape[1]}{whose['who']}"
        return RefText(label, mine=False)
    someone = re.fullmatch(r'(?P<who>[A-Z][^"]*?)\'s (?P<body>[^"]+)', text)
    if shape is not None and shape[1] and someone is not None and mine is None:
        rest_said = _read_around(spec, ent, someone["body"], _templates(spec, ent)[1:])
        after_for = someone["body"][len(thing) + 5:] if someone["body"].lower().startswith(thing + " for ") else ""
        if rest_said is None and after_for and _undated_for(spec, ent, after_for) == f"for {after_for}":
            rest_said = after_for  # "Melissa Bullock's application for Flat 6, The Tannery"
        if rest_said is None:  # "Sinead O'Neill's Docklands Unlimited membership" (`_undated_lead`)
            rest_said = next((_as_shown(ent, found[0], lead) for noun_said in (thing, kind_noun(spec, ent) or thing)
                              if someone["body"].lower().endswith(" " + noun_said)
                              for lead in [someone["body"][: -len(noun_said) - 1]]
                              if (found := _undated_lead(spec, ent, lead, thing)) is not None and found[1] == lead), None)
        if rest_said is not None:  # "Krista Fleming's booking for the Spin class session on …"
            who = someone["who"]
            return RefText(f"{who}{shape[1]}{rest_said}" if shape[2] else f"{rest_said}{shape[1]}{who}", mine=False)
    found = _date_sep(ent)
    m = re.fullmatch(rf'{re.escape(thing)} "(?P<head>[^"]+)" (?P<word>[a-z ]+?) (?P<day>{SPOKEN_DAY.pattern[:-1]})',
                     text, re.IGNORECASE)
    if found is not None and m is not None and m["word"].lower() == found[1]:
        return RefText(f"{m['head']}{found[0]}{m['day']}", mine=mine)
    if text.lower().startswith(thing + ' "') and text.endswith('"') and text.count('"') == 2:
        return RefText(text[len(thing) + 2:-1], mine=mine)
    m = re.fullmatch(rf"(.+) {re.escape(thing)} \((.+)\)", text, re.IGNORECASE)
    if m:
        return RefText(f"{m[1]} {m[2]}", mine=mine)
    if '"' in text:
        raise ParseError(f"a quote inside the name {text!r}")
    composed = _read_around(spec, ent, text, _templates(spec, ent))
    short = kind_noun(spec, ent)
    if composed is None and short is not None and re.search(rf" {re.escape(short)} ", text, re.IGNORECASE):
        # "Spin class on June 19 …": the row's noun said by the kind its first field names
        composed = _read_around(spec, ent, re.sub(rf" {re.escape(short)} ", f" {thing} ", text, count=1,
                                                  flags=re.IGNORECASE), _templates(spec, ent))
    if composed is not None:
        return RefText(composed, mine=mine)
    belongs = _read_belongs(spec, ent, thing, text, mine)
    if belongs is not None:
        return belongs
    after_for = text[len(thing) + 5:] if text.lower().startswith(thing + " for ") else ""
    if after_for and _undated_for(spec, ent, after_for) == f"for {after_for}":
        return RefText(after_for, mine=mine)  # "my application for Flat 6, The Tannery"
    for noun_said in dict.fromkeys((thing, kind_noun(spec, ent) or thing)):
        lead_said = text[: -len(noun_said) - 1] if text.lower().endswith(" " + noun_said) else ""
        undated = _undated_lead(spec, ent, lead_said, thing) if lead_said else None
        if undated is not None and undated[1] == lead_said:  # "my Titanic Quarter Off-Peak membership"
            return RefText(_as_shown(ent, undated[0], lead_said), mine=mine)
    if (len(ent.display_fields) == 1 and text.lower().endswith(" " + thing)
            and _named_before(text[: -len(thing) - 1], thing, _by_name(ent))
            and person_split(spec, ent, text[: -len(thing) - 1]) is None):
        return RefText(text[: -len(thing) - 1], mine=mine)  # "the Mathematics department"
    if mine is not None and not _says_its_noun(text, thing):
        # "my booking for the Spin class session …" is no name of a class session: only a label
        # that says its own noun is written bare after "my" or "the"
        raise ParseError(f"{text!r} does not name {grammar.with_article(thing)}")
    return RefText(text, mine=mine)
