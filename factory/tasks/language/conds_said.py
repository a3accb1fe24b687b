"""How conditions are said after a noun, as people put them: "the models whose make is "Ford"",
"my messages in the folder "archive"", "the Heathrow T5 branch", "the copies on loan", "the books
not withdrawn", "with wifi", "with a due date between …". Every form written here is read back by
`parse_conds`.
"""

from __future__ import annotations

import re

from factory.spec.model import EntitySpec, FieldSpec, Spec
from factory.tasks.language import grammar
from factory.tasks.language.arg_phrases import bool_flag
from factory.tasks.language.asks import Cond, ParseError, RefText
from factory.tasks.language.modifiers import bool_adjective, bool_feature, kind_said, named_place, state_after
from factory.tasks.language.row_labels import titled
from factory.tasks.language.row_names import code_named, name_of
from factory.tasks.language.spoken import a, field_noun, noun, said
from factory.tasks.language.things import person


def day_field(ent: EntitySpec) -> FieldSpec | None:
    """The one date a row is on, labelled just "Date" (a shift's date): a span of it is said bare,
    "my shifts between May 16, 2026 and June 9, 2026", never "with a date between …"."""
    days = [f for f in ent.fields if f.type in ("date", "datetime") and field_noun(f) == "date"]
    return days[0] if len(days) == 1 else None


def shown(f: FieldSpec, c: Cond) -> Cond:
    """A condition on a choice whose value is a name, written as one ("North America", "Unit B":
    `grammar.named_value`); `parse_conds` reads any casing back as the stored value."""
    if f.type != "enum" or not c.value.startswith('"') or c.upper is not None:
        return c
    return Cond(c.field, f'"{grammar.named_value(c.value[1:-1])}"')


def render_conds(spec: Spec, entity: str, conds: tuple[Cond, ...]) -> str:
    ent = spec.entity(entity)
    parts = []
    for c in conds:
        f = ent.field_named(c.field)
        name = field_noun(f)
        stored, c = c, shown(f, c)  # "in the region "North America"", never "north america"
        # A field said with its own preposition ("from account") takes no article.
        tied = name.split(" ", 1)[0] in LEADING_PREPOSITIONS
        if c.upper is not None and day_field(ent) is f:  # "my shifts between May 16, 2026 and June 9, 2026"
            parts.append(f"between {c.value} and {c.upper}")
        elif c.upper is not None:  # "have a due date between …", "with an amount between …"
            parts.append(f"{name if tied else a(name)} between {c.value} and {c.upper}")
        elif f.type == "bool" and bool_feature(f) is not None:  # "with wifi", "with no pool"
            parts.append(("no " if c.value == "no" else "") + str(bool_feature(f)))
        elif f.type == "bool" and bool_phrase(f) is not None:  # "the dishes on tonight", "… not in stock"
            parts.append(("not " if c.value == "no" else "") + str(bool_phrase(f)))
        elif f.type == "bool" and c.value == "no" and not_state(f) is not None:  # "the books not withdrawn"
            parts.append(f"not {not_state(f)}")
        elif f.type == "bool":
            parts.append(f"{name} {bool_flag(f.type)}{c.value}")
        elif not parts and c.upper is None and kind_said(f, stored.value[1:-1].replace("_", " ")) is not None:
            parts.append(str(kind_said(f, stored.value[1:-1].replace("_", " "))))  # "in the hardware category"
        elif c.upper is None and phrase_state(ent, f, c.value) is not None:  # "the copies on loan"
            parts.append(str(phrase_state(ent, f, c.value)))
        elif not parts and not tied and c.upper is None and (at := at_place(spec, ent, f, stored.value)) is not None:
            parts.append(f"at {at}")  # "the flats at Maple Terrace", never "the flats for the Maple Terrace property"
        elif not parts and not tied and c.upper is None and (bare := bare_for(spec, ent, f, stored.value)) is not None:
            parts.append(f"for {bare}")  # "my orders for Lakeshore Folk Revue", never "… for the … event"
        elif not parts and not tied and c.upper is None and (named := ref_said(spec, f, stored.value)) is not None:
            parts.append(f"{lead_word(f)} {named}")  # "my bookings for the Spin class session on June 6 at …"
        elif not parts and not tied and c.upper is None and (first := name_first(spec, ent, f, stored.value)) is not None:
            parts.append(f"{lead_word(f)} {first}")  # "cars for the Heathrow T5 branch", "flats in London"
        elif not parts and not tied and c.upper is None and lead_word(f) is not None:
            parts.append(f"{lead_word(f)} the {name} {c.value}")  # "messages in the folder "archive""
        elif grammar.participle_clause(name.split()):  # "the customs holds held by "CBP"", never "whose held by is"
            parts.append(f"{name} {c.value}")
        else:  # "with the folder "inbox"", "have the account "Main Checking ··3808""
            parts.append(f"{name if tied else 'the ' + name} {c.value}")
    if parts and parts[0].split(" ", 1)[0] in ("in", "for", "at", "on") and len(parts) > 1:
        # "in the folder "x" with the category "y"", but "in the folder "x" and not archived"
        joiner = " and " if parts[1].split(" ", 1)[0] in BARE_LEADS else " with "
        return f"{parts[0]}{joiner}{' and '.join(parts[1:])}"
    return " and ".join(parts)


def ref_said(spec: Spec, field: FieldSpec, value: str) -> str | None:
    """A first condition's row said as a sentence names it where its label is made of fields
    (`row_names.name_of`: "the Spin class session on June 6 at 10:00 AM (Dublin Docklands)"),
    after the field's lead word; None for a row whose name would be quoted, or one that says a
    word joining conditions (" and ", " with ") inside it."""
    inner = value[1:-1] if len(value) > 2 and value[0] == value[-1] == '"' else ""
    if field.type != "reference" or not field.ref or not inner or lead_word(field) is None or person(spec, field.ref):
        return None
    try:
        named = name_of(spec, field.ref, RefText(inner, mine=False), "subject")
    except ParseError:
        return None
    if named == inner and titled(inner, noun(said(spec.entity(field.ref)))) and not re.search(r" (?:and|with) ", inner):
        return named  # a proper name of a numbered thing: "the tenancies for Flat 14, The Tannery"
    if code_named(spec, field.ref, named):
        return named  # "the replies for ticket INC-114"
    if not (named.startswith("the ") or re.match(r"[A-Z][^\"]*'s ", named)) or '"' in named \
            or re.search(r" (?:and|with) ", named):
        return None  # "the Spin class session …", "Ashley Vega's Docklands Off-Peak membership …"
    return named if named != f"the {inner}" else None


# A proper name said before its noun ("the Transport department"): capitalised words, no commas,
# brackets or quotes (a list or a code stays quoted after the noun).
PROPER_NAME = re.compile(r"[A-Z0-9][\w&'.-]*(?: [A-Za-z0-9&][\w&'.-]*){0,5}")
# Places a row is in, said by the place's name alone ("the flats in London").
PLACES = grammar.PLACE_NOUNS


def name_first(spec: Spec, ent: EntitySpec, field: FieldSpec, value: str) -> str | None:
    """A first condition naming a row or a place by its proper name, as people say one: "the
    Heathrow T5 branch", "the Transport department" (a row's name before its noun), "London" (a
    place alone); None when the value is no proper name (a list, a code, a lower-case value), says
    its noun itself ("Flat 19"), names a person, or the entity has two places to be in."""
    inner = value[1:-1] if len(value) > 2 and value[0] == value[-1] == '"' else ""
    lead = lead_word(field)
    if field.type == "enum" and named_place(field, inner):  # a place of a closed list: "in Canada"
        return place_said(enum_place(inner)) if lead is not None else None
    if (lead is None or not PROPER_NAME.fullmatch(inner) or not any(w[:1].isupper() for w in inner.split())
            or re.search(r" (?:and|with) ", inner)  # the words that join conditions end a name read back
            or inner.split()[0].lower() in ("the", "a", "an")):  # a title ("The Clockwork Fox") stays quoted
        return None
    name = field_noun(field)
    if set(grammar.words_of(name.lower())) & set(grammar.words_of(inner.lower())):
        return None
    if field.type == "reference" and (field.ref is None or person(spec, field.ref)):
        return None
    if inner.lower() in {u.name.lower() for u in spec.users}:  # a row named by a person ("Cindy Beard")
        return None
    if name in PLACES:
        return place_said(inner) if bare_place(ent) is field else None
    return f"the {inner} {name}"


def located(spec: Spec, entity: str) -> bool:
    """Whether rows of `entity` are places: each is somewhere (it has a city, a country, an
    address), so what belongs to one is "at" it ("the flats at Maple Terrace")."""
    return any(field_noun(f) in grammar.PLACE_NOUNS | grammar.NAMED_PLACE_NOUNS | {"address"}
               for f in spec.entity(entity).fields)


def place_field(spec: Spec, ent: EntitySpec) -> FieldSpec | None:
    """The one field naming the place a row belongs to (`located`): a flat's property, an event's
    venue; None where a row has none or two (a trip's origin and destination)."""
    found = [f for f in ent.fields if f.type == "reference" and f.ref and f.ref != ent.name
             and lead_word(f) == "for" and not person(spec, f.ref) and located(spec, f.ref)]
    return found[0] if len(found) == 1 else None


def at_place(spec: Spec, ent: EntitySpec, field: FieldSpec, value: str) -> str | None:
    """A first condition naming the place a row belongs to by the place's proper name, said
    after "at" as people say where a thing is: "Maple Terrace", "The Danforth Hall"; None where
    `field` is no such place or the value no proper name (`PROPER_NAME`, a word that joins
    conditions)."""
    inner = value[1:-1] if len(value) > 2 and value[0] == value[-1] == '"' else ""
    if place_field(spec, ent) is not field or not PROPER_NAME.fullmatch(inner) or re.search(r" (?:and|with) ", inner):
        return None
    return inner if all(w[:1].isupper() or not w[:1].isalpha() or w in grammar.CLOSED for w in inner.split()) else None


def carried_bare(spec: Spec, entity: str) -> bool:
    """Whether other rows' labels carry a row of `entity` by its bare name after their own words
    ("VIP · Brixton Beats Weekender" of a tier: "the VIP ticket tier for Brixton Beats Weekender"),
    so a sentence says it bare too."""
    for other in spec.entities:
        for f in other.fields:
            if f.type == "reference" and f.ref == entity and other.name != entity and f"{{{f.name}}}" in other.display \
                    and not other.display.startswith(f"{{{f.name}}}"):
                return True
    return False


def said_bare_by(spec: Spec, field_said: str) -> EntitySpec | None:
    """The one kind of row known by one name that other labels carry bare (`carried_bare`) and
    that has a field said `field_said`: the row a lookup names bare is that kind ("What is the
    status of Dublin Comedy Gala?" asks of an event); None where no kind or two fit."""
    fits = [e for e in spec.entities if not e.builtin and re.fullmatch(r"\{?[a-z_]+\}?", e.display)
            and not person(spec, e.name) and carried_bare(spec, e.name)
            and any(field_noun(f) == field_said for f in e.fields)]
    return fits[0] if len(fits) == 1 else None


def bare_for(spec: Spec, ent: EntitySpec, field: FieldSpec, value: str) -> str | None:
    """A first condition naming the one row the rows belong to by its bare proper name, where
    other labels carry that kind of row bare (`carried_bare`): "Lakeshore Folk Revue" of "my orders
    for Lakeshore Folk Revue"; None otherwise (a title with an article stays quoted)."""
    inner = value[1:-1] if len(value) > 2 and value[0] == value[-1] == '"' else ""
    fors = [f for f in ent.fields if f.type == "reference" and f.ref and f.ref != ent.name and lead_word(f) == "for"
            and not person(spec, f.ref) and carried_bare(spec, f.ref)
            and re.fullmatch(r"\{?[a-z_]+\}?", spec.entity(f.ref).display)]  # rows known by one name
    if fors != [field] or not PROPER_NAME.fullmatch(inner) or re.search(r" (?:and|with|for|at) ", inner) \
            or inner.split()[0].lower() in ("the", "a", "an") or not inner[:1].isupper():
        return None
    return inner


def enum_place(value: str) -> str:
    """A place a closed list stores in lower case ("united kingdom") as its name is written."""
    return " ".join(w if w in grammar.CLOSED else w[:1].upper() + w[1:] for w in value.replace("_", " ").split())


# A place whose name is a union of parts or a plural of lands takes "the": "the United States",
# "the United Arab Emirates", "the Netherlands"; "Paris", "Cyprus" and "Los Angeles" do not.
_THE_PLACE = re.compile(r"(?:.* )?(?:States|Kingdom|Republic|Emirates|Islands|Union|Federation)|[A-Z][a-z]*lands")


def place_said(name: str) -> str:
    """A place's name as a sentence says it after "in": with "the" where English puts one."""
    return f"the {name}" if _THE_PLACE.fullmatch(name) else name


def bare_place(ent: EntitySpec) -> FieldSpec | None:
    """The place a row is said to be "in" by its name alone ("the ports in Germany"): the entity's
    one place, or of two, the finer one (a country inside its region: the list's filter for it
    has the other as its parent)."""
    places = [f for f in ent.fields if container(f) and field_noun(f) in PLACES]
    if len(places) == 1:
        return places[0]
    names = {f.name for f in places}
    finer = [f for f in places if any(fl.field == f.name and fl.parent in names for fl in ent.filters)]
    return finer[0] if len(finer) == 1 else None


_PHRASE_STATE = re.compile(r"(?:on|in|at) [a-z]+")


def phrase_state(ent: EntitySpec, field: FieldSpec, value: str) -> str | None:
    """An enum value that is a prepositional phrase ("on loan", "in repair"), said bare after the
    noun ("the copies on loan") when no other field of the entity has that value; else None."""
    inner = value[1:-1] if value.startswith('"') and value.endswith('"') else ""
    said_as = inner if _PHRASE_STATE.fullmatch(inner) else state_after(inner, field)  # "in referencing", "notice given"
    if field.type != "enum" or said_as is None:
        return None
    owners = [f for f in ent.fields if f.type == "enum" and inner in {v.replace("_", " ") for v in f.values or []}]
    return said_as if owners == [field] else None


def lead_word(field: FieldSpec) -> str | None:
    """The preposition a first condition on `field` is said with instead of "with": "in" for a
    place rows are kept in or are at (`container`), "for" for the row they belong to, a reference
    named after the entity it points at ("the holds for the book "Salt and Iron"", "my payouts
    for the report …"); None for any other field."""
    if container(field):
        return "in"
    words = field.label.lower().split()
    if (field.type == "reference" and len(words) == 2 and words[1] in ("at", "in", "on")
            and grammar.is_participle(words[0])):
        return words[1]  # "Parked at": "the cars at the London Heathrow T5 branch"
    if grammar.participle_clause(field_noun(field).split()):
        return None  # "Serviced by" leads itself: "my policies serviced by "Harbourline Dublin""
    if field.type == "reference" and field.ref == field.name:
        return "for"
    return None


# Fields that name a place rows are kept in or are at: a row is "in" it ("my messages in the folder
# "archive"", "my notes in the notebook "Work notes"", "the listings in the city "Paris""), not
# "with" it. Said so only as the first condition, which then follows the noun without "with"
# (`with_conds`).
CONTAINERS = frozenset(["folder", "mailbox", "notebook", "album", "playlist", "channel", "board", "shelf",
                        "collection", "wishlist", "drawer", "queue", "inbox",
                        # places: "the listings in the city "Paris"" (never "state": often a status)
                        "city", "country", "town", "region", "neighbourhood", "neighborhood", "district", "area",
                        "building", "site", "campus", "warehouse", "depot"])


def container(field: FieldSpec) -> bool:
    """Whether a field names the place a row is kept in (`CONTAINERS`)."""
    return field.type in ("enum", "reference", "string") and field_noun(field) in CONTAINERS


# Words a field label may start with that tie it to a row by themselves ("From account"): such a
# condition follows the noun without "with" ("scheduled payments from account "X"").
LEADING_PREPOSITIONS = frozenset(["from", "to", "in", "on", "at", "for", "by", "of", "into", "via"])


def bool_phrase(field: FieldSpec) -> str | None:
    """A yes/no label led by a preposition ("On tonight", "In stock"): a state said bare after the
    noun ("the dishes on tonight", "the dishes not on tonight"), never "on tonight set to yes"."""
    words = noun(said(field)).split()
    # a participle clause is one too: "the invoices paid after due date", "… not paid after due date"
    clause = grammar.participle_clause(words)
    if field.type != "bool" or len(words) < 2 or not (words[0] in LEADING_PREPOSITIONS or clause
                                                      or _adjectival(words)) \
            or not all(re.fullmatch(r"[a-z]+(?:-[a-z]+)*", w) for w in words):
        return None
    return " ".join(words)


def _adjectival(words: list[str]) -> bool:
    """Whether a label of several words says a quality, not a thing ("Off-peak only", "Short
    paid"): it opens on a modifier (an adjective, an adverb, a participle or a hyphened compound)
    and ends on a word that is no noun (an adjective, an adverb or a participle). "Pets allowed"
    opens on a noun: a thing allowed, said as a clause elsewhere; "Step-free access" is a thing."""
    first, last = words[0], words[-1]
    opens = "-" in first or grammar.is_participle(first) or bool(grammar.tags(first) & {"ADJ", "ADV"})
    ends = "NOUN" not in grammar.tags(last) and (
        grammar.is_participle(last) or bool(grammar.tags(last) & {"ADJ", "ADV"}))
    return opens and ends


def not_state(field: FieldSpec) -> str | None:
    """A yes/no state with no "un-" word ("Withdrawn"): its "no" is said "not withdrawn" after the
    noun ("the books not withdrawn"), never "with withdrawn set to no"; None for other fields."""
    state = bool_adjective(field, "yes")
    return state if state is not None and bool_adjective(field, "no") is None else None


# Words that open conditions said right after the noun, without "with".
BARE_LEADS = LEADING_PREPOSITIONS | {"not", "whose", "between"}


def after_noun(spec: Spec, entity: str, conds: tuple[Cond, ...]) -> str:
    """The conditions after a noun, as people put them: "the models whose make is "Ford"" when
    each is a field equal to a value ("and whose …" for the next), never "the models with the make
    "Ford""; any other shape as `with_conds` says it ("with a due date between …", "in the folder
    …", "not withdrawn"). `parse_conds` reads both."""
    ent = spec.entity(entity)
    plain = []
    for c in conds:
        f = ent.field_named(c.field)
        name = field_noun(f)
        if (c.upper is not None or f.type == "bool" or phrase_state(ent, f, c.value) is not None
                or kind_said(f, c.value[1:-1].replace("_", " ")) is not None
                or lead_word(f) is not None or name.split(" ", 1)[0] in LEADING_PREPOSITIONS
                or grammar.participle_clause(name.split())):
            return with_conds(render_conds(spec, entity, conds))
        plain.append(f"whose {name} is {shown(f, c).value}")
    return f" {' and '.join(plain)}" if plain else ""


def with_conds(conds: str) -> str:
    """The conditions after a noun: " with <conds>", or " <conds>" when the first is a field said
    with its own preposition; "" for none. `parse.entity_and_conds` reads both back."""
    if not conds:
        return ""
    return f" {conds}" if said_bare(conds) else f" with {conds}"


def said_bare(conds: str) -> bool:
    """Whether conditions follow their noun without "with": a field said with its own preposition
    ("in the folder …"), "not …", "whose …", or a participle clause ("paid after due date")."""
    words = conds.split(" ", 2)
    return words[0] in BARE_LEADS or grammar.participle_clause(words[:2]) or said_quality(conds)


def said_quality(conds: str) -> bool:
    """Whether conditions open on a quality of several words said whole ("off-peak only", "not
    short paid"): a count asks "How many of the plans are off-peak only?"."""
    first = conds.split(" and ", 1)[0].removeprefix("not ").split()
    return len(first) > 1 and all(re.fullmatch(r"[a-z]+(?:-[a-z]+)*", w) for w in first) and _adjectival(first)
