"""What a row's label is made of, from its display template alone: a name and a code, a day at
its end and the words it is said with, the person it names and whether that person holds it, a
numbered noun that is a proper name, a label that says its own noun (`row_names` says and reads
rows by these)."""

from __future__ import annotations

import re

from factory.spec.model import EntitySpec, Spec
from factory.spec.naming import identifier
from factory.tasks.language import grammar
from factory.tasks.language.spoken import noun, said
from factory.tasks.language.things import person

_FIRST_FIELD = re.compile(r"^\{(\w+)\}(?P<lit>[^{]*)\{")


def _template_split(ent: EntitySpec, label: str) -> tuple[str, str] | None:
    """A label that is a name and a code ("Main Checking ··3808" from "{nickname} ··{last4}"):
    the name and the code; None for other labels."""
    m = _FIRST_FIELD.match(ent.display)
    if not m or not m["lit"].startswith(" ") or not m["lit"].strip() or m["lit"].strip()[0].isalnum():
        return None
    second = re.match(r"\{(\w+)\}", ent.display[m.end() - 1:])
    code = next((f for f in ent.fields if second and f.name == second[1]), None)
    if code is None or not identifier(code):
        return None  # "{student} – {section}" is two names, not a name and its code
    first = (label.split() or [""])[0]
    if first[:1].islower() and not (grammar.noun_only(first) or not grammar.known(first)):
        return None  # a name of common words ("any", "eat") said bare would read as English: it stays quoted
    cut = label.rfind(m["lit"])
    if cut <= 0 or "(" in label or ")" in label:
        return None
    return label[:cut], label[cut + 1:]


# A place's own name said bare: capitalised words, no quotes, commas or brackets.
_PLACE_NAME = re.compile(r"[A-Z][\w'.&-]*(?: [A-Za-z0-9][\w'.&-]*){0,4}")
_LAST_FIELD = re.compile(r"(?P<head>.*\})(?P<sep>[^{}]*)\{(?P<last>\w+)\}")
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
# A day said in words at the end of a text ("May 7 at 9:00 AM"), as `values` writes one.
SPOKEN_DAY = re.compile(rf"(?:{_MONTHS}) \d{{1,2}}(?:, \d{{4}})?(?: at \d{{1,2}}:\d{{2}}(?: [AP]M)?)?$")


def _date_sep(ent: EntitySpec) -> tuple[str, str] | None:
    """For a label that ends with the row's date after a mark ("{vehicle}, {starts_at}"): the
    template's text before the date and the words a sentence says the day with ("on", or what
    the date's own label says: "from" (From), "logged on" (Logged at)); None for other labels."""
    m = _LAST_FIELD.fullmatch(ent.display)
    last = next((f for f in ent.fields if m and f.name == m["last"]), None)
    if m is None or last is None or last.type not in ("date", "datetime") or "(" in m["sep"] or ")" in m["sep"]:
        return None
    if any(f.type in ("date", "datetime") for f in ent.fields if f"{{{f.name}}}" in m["head"]):
        return None  # "{listing_title}: {start_on} to {end_on}" is a span, said whole
    if re.search(r"\w", m["sep"]):
        return None  # "{shipment}, issued {issued_on}" says its day in words already: quoted whole
    words = _day_words(last.label)
    return m["sep"], " ".join(words) if words and words != ["at"] else "on"


def _day_words(label: str) -> list[str]:
    """What the date field's own label says before a day: "starting" (From), "logged on" (Logged
    at), "since" (Since); nothing for a noun ("Start date")."""
    words = label.lower().split()
    if words in (["from"], ["to"], ["until"]):
        # an end of a span said as a participle: "my rental "…" starting May 17", since "from May 17"
        # before a frame's own "to May 28" would read as the change ("extend … from May 17 to May 28")
        return ["starting" if words == ["from"] else "ending"]
    if len(words) == 1 and words[0] in grammar.PREPOSITIONS:
        return words
    if words and grammar.is_participle(words[0]) and all(w in grammar.PREPOSITIONS for w in words[1:]):
        return [words[0], "on"]
    return []


def _dated(ent: EntitySpec, label: str) -> tuple[str, str, str] | None:
    """A label split as a person says it, the app's name quoted and the day in words after it:
    ("Ford Fiesta LN72 MVM", "on", "May 7 at 9:00 AM") of "Ford Fiesta LN72 MVM, May 7 at 9:00 AM"."""
    found = _date_sep(ent)
    day = SPOKEN_DAY.search(label)
    if found is None or day is None or not label[: day.start()].endswith(found[0]):
        return None
    head = label[: day.start() - len(found[0])]
    if not head or '"' in head:
        return None
    return head, found[1], day[0]


def person_template(spec: Spec, ent: EntitySpec) -> tuple[str, str, bool] | None:
    """For a label that starts or ends with a person ("{worker}, {work_date} {pattern}",
    "{assignment} by {student}"): that field, the text between it and the rest, and whether it
    comes first; None when the label names no one, or two people."""
    people = [f.name for f in ent.fields if f.type == "reference" and f.ref and f.ref in {e.name for e in spec.entities}
              and person(spec, f.ref) and f"{{{f.name}}}" in ent.display]
    if len(people) != 1:
        return None
    if ent.display == f"{{{people[0]}}}":  # the row is the person's own ("{employee}"): "Jill Gay's employee record"
        return people[0], "", True
    first = re.fullmatch(rf"\{{{people[0]}\}}(?P<sep>[^{{}}]+)\{{.*", ent.display)
    last = re.fullmatch(rf".*\}}(?P<sep>[^{{}}]+)\{{{people[0]}\}}", ent.display)
    found = first or last
    return (people[0], found["sep"], first is not None) if found else None


def person_split(spec: Spec, ent: EntitySpec, label: str) -> tuple[str, str] | None:
    """The person a label names and the rest of it: ("Priya Raman", "May 29 Night (22:00-06:00)")
    of "Priya Raman, May 29 Night (22:00-06:00)"; None for other labels."""
    shape = person_template(spec, ent)
    if shape is not None and not shape[1]:
        return (label, "") if label[:1].isupper() and '"' not in label and "'s " not in label else None
    if shape is None or shape[1] not in label:
        return None
    who, rest = label.split(shape[1], 1) if shape[2] else label.rsplit(shape[1], 1)[::-1]
    if not who or not rest or not who[:1].isupper() or '"' in label or "'s " in who:
        return None
    return who, rest


# A proper name or a code said before its noun: capitalised first word, no quotes, commas,
# brackets or joining words ("Mathematics", "London Heathrow T5", "COMP1010-A-W26").
_NAME_BEFORE = re.compile(r"[A-Z][\w&'.-]*(?: [A-Za-z0-9&][\w&'.-]*){0,5}")


def _named_before(text: str, thing: str, named: bool = False) -> bool:
    """Whether a row's name reads before its noun ("the Mathematics department"): a proper name
    or a code that shares no word with the noun ("Flat 19" says its noun itself), is no title
    ("The Clockwork Fox") and joins nothing ("Salt and Iron" stays quoted)."""
    words = text.lower().split()
    if not _NAME_BEFORE.fullmatch(text) or set(words) & set(thing.split()) or words[0] in ("the", "a", "an") \
            or {"and", "with", "or", "of", "for", "to"} & set(words):
        return False
    # a name in capitals throughout ("London Heathrow T5", "Albion Court"), or a code; a title
    # ("Trip plan", "Hi") would read as words before the noun. One capitalised word reads as a
    # name only where the row's one shown field is its name (`named`: "the History department"),
    # never a title or a subject ("the Hi message")
    code = bool(re.search(r"\d", text)) and bool(re.search(r"[A-Z]{2}", text))
    one = named and len(words) == 1 and text.isalpha() and text[:1].isupper() and text[1:].islower()
    return code or one or (len(words) > 1 and all(w[:1].isupper() or w[:1].isdigit() or w == "&" for w in text.split()))


def _by_name(ent: EntitySpec) -> bool:
    """Whether a row is shown by its name: its one display field is labelled "Name"."""
    shown = ent.display_fields[0] if len(ent.display_fields) == 1 else None
    return shown is not None and noun(said(ent.field_named(shown))) == "name"


# A row's name said bare after "for": capitalised words, a comma between them at most ("Flat 26,
# Harbour View"), never a label of marks and counts ("General admission · Canal Street ×3").
_PLACE_LIKE = re.compile(r"[A-Z0-9][\w'.&-]*(?:,? [A-Za-z0-9][\w'.&-]*){0,6}")


def object_person(spec: Spec, ent: EntitySpec) -> str | None:
    """The preposition before a person a label names last, where that person is no owner of the
    row but where it goes ("{order} to {to_holder}": "to"); None for other labels ("{assignment}
    by {student}" is the student's, "{member}: {class_session}" the member's)."""
    shape = person_template(spec, ent)
    if shape is None or shape[2] or not shape[1]:
        return None
    word = shape[1].strip().lower()
    # a preposition of where a thing goes or who else takes part names no holder; "for", "by"
    # and "of" name the one it is for or by: "Ada Brennan's hold" ("{title} for {member}")
    return word if shape[1] == f" {word} " and word in _TOWARDS else None


_TOWARDS = frozenset(["to", "toward", "towards", "into", "onto", "with", "against"])


def titled(label: str, thing: str) -> bool:
    """Whether a label is the row's noun as a title, then its number or code, then at most the
    place it is in after a comma ("Flat 23, Maple Terrace", "Room 4B", "Gate 12"): a proper name,
    said bare as people say one ("take Flat 23, Maple Terrace off the market")."""
    head = thing.split()[-1]
    m = re.fullmatch(rf"{re.escape(head[:1].upper() + head[1:])} (?P<code>[A-Z0-9][\w/-]*)(?:, (?P<place>.+))?", label)
    return m is not None and bool(re.search(r"\d", m["code"])) and len(thing.split()) == 1 and (
        m["place"] is None or _PLACE_LIKE.fullmatch(m["place"]) is not None)


def _says_its_noun(label: str, thing: str) -> bool:
    """Whether a label says what it is ("visa card ··9591", "Travel card"): its noun, then at most
    a code, never a list (a comma) nor words that go on about something else ("booking for the
    Spin class session on …" is no class session)."""
    m = re.search(rf"\b{re.escape(thing)}\b(?P<after>.*)$", label, re.IGNORECASE)
    joining = {"the", "a", "an"} | grammar.PREPOSITIONS  # "enrollment for the BIOL1020 section" is an enrollment
    return (m is not None and "," not in label and not re.search(r"\b[a-z]", m["after"])
            and not joining & set(label.lower().split()))
