"""The parts of a row's label a sentence says apart (beneath `row_names`, which names rows whole):
the label's templates and the field it opens on said before the noun ("Spin", "Titanic Quarter
Off-Peak"), the word that joins the next field ("on", "for"), a named place in brackets said "at"
it, a row's own code, and the one field a label has before its day, from which a row is named
without its day ("my application for Flat 6, The Tannery"). Nothing here names a whole row, so
nothing here calls back into `row_names`.
"""

from __future__ import annotations

import re

from factory.predict.rows import BRACKETED
from factory.spec.labels import enum_label
from factory.spec.model import EntitySpec, Spec
from factory.spec.naming import CODE, identifier
from factory.tasks.language import grammar
from factory.tasks.language.row_labels import (
    _LAST_FIELD,
    _PLACE_LIKE,
    _PLACE_NAME,
    SPOKEN_DAY,
    _day_words,
    _named_before,
    person_template,
    titled,
)
from factory.tasks.language.spoken import noun, said
from factory.tasks.language.things import person

_SLOT = re.compile(r"\{(\w+)\}")
# Marks that join two fields on screen ("Spin, June 19") and that no sentence says aloud.
_MARKS = frozenset(["", ",", ":", ";", "-", "·", "–", "—", "|", "/"])


def _templates(spec: Spec, ent: EntitySpec) -> list[str]:
    """The display templates a row's name may be written by: the whole label, the label without a
    field its brackets add, then (for a label that names a person) the rest of it, as the person
    says their own row or someone's."""
    out = [ent.display]
    aside = BRACKETED.fullmatch(ent.display)  # the same shape `UserView.short_labels` leaves out
    if aside is not None and any(f.name == aside["last"] and f.type not in ("date", "datetime", "reference")
                                 for f in ent.fields):
        out.append(aside["head"])  # the label without what its brackets add (`UserView.short_labels`)
    shape = person_template(spec, ent)
    if shape is not None and shape[1]:
        field = f"{{{shape[0]}}}"
        rest = ent.display.split(field + shape[1], 1)[-1] if shape[2] else ent.display.rsplit(shape[1] + field, 1)[0]
        out.append(rest)
    return out


def kind_noun(spec: Spec, ent: EntitySpec) -> str | None:
    """The first word of a row's two-word noun when its label opens on a field that names that
    word's kind ("Class session" labelled "{class_type} at …", the field labelled "Class"): "the
    Spin class on June 19 at 7:00 AM", as people say it, not "the Spin class session on …". None
    where another entity is called by that word, or the label opens otherwise."""
    words = noun(said(ent)).split()
    parts = _SLOT.split(ent.display)
    if len(words) != 2 or len(parts) < 3 or parts[0] or parts[1] not in {f.name for f in ent.fields}:
        return None
    opening = noun(said(ent.field_named(parts[1]))).split()
    if opening[:1] != words[:1] or any(noun(said(e)) == words[0] for e in spec.entities):
        return None
    return words[0]


def _joining(spec: Spec, ent: EntitySpec, parts: list[str]) -> str | None:
    """The word a sentence says between a row's noun and the field after its lead in the label:
    "on" before a day where the label has a mark or "at" ("Spin at June 19" → "the Spin class
    session on June 19"), the label's own preposition otherwise ("Off-Peak since June 2"); None
    where a mark joins two fields that are no day (a list, quoted whole), except before the row
    it belongs to, named last ("General admission · Brixton Beats Weekender" → "the General
    admission ticket tier for Brixton Beats Weekender")."""
    mark, nxt = parts[2], parts[3]
    word = mark.strip().lower()
    after = ent.field_named(nxt)
    if (word in _MARKS and after.type == "reference" and after.ref and after.ref != ent.name
            and not person(spec, after.ref) and len(parts) == 5 and not parts[4]):
        return "for"
    dated = after.type in ("date", "datetime")
    spans = len(parts) > 5 and parts[4].strip() in ("to", "-", "–", "until") and \
        ent.field_named(parts[5]).type == after.type
    if dated and spans and (word in _MARKS or word in ("at", "on", "from")):
        return "from"  # "my Loft blocked dates from June 3 to June 5"
    if dated and (word in _MARKS or word in ("at", "on")):
        words = _day_words(ent.field_named(nxt).label)  # "From" → "starting", "Since" → "since"
        return " ".join(words) if words and words[-1] not in ("on", "at") else "on"
    if word in grammar.PREPOSITIONS and mark.startswith(" ") and mark.endswith(" "):
        return word
    return None


def _lead(spec: Spec, ent: EntitySpec, field: str, text: str, thing: str) -> str | None:
    """The first field's value said before the row's noun ("Spin", "Titanic Quarter Off-Peak"),
    or None: a kind of the row (an enum value, never its state), or a proper name or a code that
    reads before a noun (`_named_before`); never one that repeats the noun."""
    f = ent.field_named(field)
    if '"' in text or set(text.lower().split()) & set(thing.split()) or not text.strip():
        return None
    if f.type == "enum" and f.name not in ("status", "state") and f.values:
        value = next((v for v in f.values if v.replace("_", " ").casefold() == text.casefold()), None)
        return None if value is None else (text if text[:1].isupper() and value[:1].isupper() else text.lower())
    if f.type == "reference" and (not f.ref or person(spec, f.ref)):
        return None  # a person is no kind of row: "Mary Romero's shift", never "my Mary Romero shift"
    if f.type in ("reference", "string") and _named_before(text, thing):
        return text
    if f.type == "string" and re.fullmatch(r"[A-Z][\w'&-]*(?: [\w'&-]+){0,4}", text):
        return text  # the row's own name, a title said before its noun: "the General admission ticket tier"
    return None


def _placed(spec: Spec, ent: EntitySpec, parts: list[str], rest: str) -> tuple[str, str] | None:
    """For a label that ends on a time and then a name in brackets ("{class_type} at {starts_at}
    ({club})"): the name and the rest without it, since what happens at a time in a named place is
    said "at" that place, after its noun ("the Spin class at Dublin Docklands on June 19 …"),
    never "(Dublin Docklands)" aloud; None for other labels, or a bracket that holds a person, a
    time, an amount or a code."""
    if len(parts) < 7 or parts[-1] != ")" or not parts[-3].endswith(" (") or not rest.endswith(")"):
        return None
    where, when = ent.field_named(parts[-2]), ent.field_named(parts[-4])
    if when.type not in ("date", "datetime") or where.type not in ("enum", "string", "reference"):
        return None
    if where.type == "reference" and (not where.ref or person(spec, where.ref)):
        return None
    head, sep, name = rest[:-1].rpartition(" (")
    if not sep or not head or "(" in name or not _PLACE_NAME.fullmatch(name) or re.search(r"\d", name):
        return None
    return name, head


def _read_placed(spec: Spec, ent: EntitySpec, parts: list[str], thing: str, word: str, text: str) -> str | None:
    """The label `_placed` said ("Spin class session at Dublin Docklands on June 19 at 7:00 AM" →
    "Spin at June 19 at 7:00 AM (Dublin Docklands)"), or None. Every "at … on" split is tried, so a
    place whose name holds the joining word still reads back whole."""
    m = re.fullmatch(rf"(?P<lead>[^\"]+?) {re.escape(thing)} at (?P<tail>[^\"()]+)", text, re.IGNORECASE)
    if m is None or _lead(spec, ent, parts[1], m["lead"], thing) is None:
        return None
    tail = m["tail"]
    for cut in (i for i in range(len(tail)) if tail.startswith(f" {word} ", i)):
        name, rest = tail[:cut], tail[cut + len(word) + 2:]
        back = f"{rest} ({name})"
        if re.fullmatch(SPOKEN_DAY.pattern[:-1], rest) and _placed(spec, ent, parts, back) == (name, rest):
            return f"{_as_shown(ent, parts[1], m['lead'])}{parts[2]}{back}"
    return None


def _pointing(ent: EntitySpec, parts: list[str], thing: str) -> str | None:
    """For a label that is one reference, bare ("{class_session}") or after words of the row's own
    noun and a preposition ("Refund for {order}" of a refund request): the preposition a sentence
    says between the noun and the row pointed at ("for"); None for other labels."""
    if len(parts) != 3 or parts[2]:
        return None
    if not parts[0]:
        return "for"
    words = parts[0].lower().split()
    if not parts[0].endswith(" ") or len(words) < 2 or words[-1] not in grammar.PREPOSITIONS \
            or not set(words[:-1]) <= set(thing.split()):
        return None
    return words[-1]


_CODE = CODE  # a code a row is known by ("INC-16"): `naming.CODE`


def own_code(ent: EntitySpec, text: str) -> bool:
    """Whether `text` is a row's own code alone, where its label opens on a unique code field and
    goes on with more ("INC-122" of "{number} {summary}": `UserView.short_labels`)."""
    parts = _SLOT.split(ent.display)
    if len(parts) < 5 or parts[0] or parts[1] not in {f.name for f in ent.fields} or not _CODE.fullmatch(text):
        return False
    first = ent.field_named(parts[1])
    return first.unique and first.type == "string" and parts[2].strip(" ·:,–-") == ""


def _code_first(ent: EntitySpec, parts: list[str], text: str) -> tuple[str, str] | None:
    """A label that is the row's own code, a mark, then a title ("INC-16 MFA codes not arriving",
    template "{number} {summary}"): the code and the title, said "the ticket INC-16 (MFA codes not
    arriving)", as a person names a ticket by its number; None for other labels."""
    if len(parts) != 5 or parts[0] or parts[4] or parts[2].strip() not in _MARKS:
        return None
    first = ent.field_named(parts[1])
    if not (identifier(first) or (first.unique and first.type == "string")):
        return None  # a code tells its row alone: an identifier, or a unique text shaped like one
    code, sep, rest = text.partition(parts[2])
    if not sep or not _CODE.fullmatch(code) or not rest or re.search(r'[()"]', rest):
        return None
    return code, rest


def _for_sep(spec: Spec, ent: EntitySpec, parts: list[str], word: str | None) -> str | None:
    """Where a label leads with the row it is for and that row's name cannot go before the noun
    (a name with a comma: "Flat 26, Harbour View"), what follows that name: the label's own
    bracket ("… for Flat 26, Harbour View (June 4)"), "from" where the bracket holds the day it
    was made ("… for Flat 6, The Tannery from June 15"), or the joining word ("… on June 19 at …");
    None for any other label."""
    f = ent.field_named(parts[1])
    if f.type != "reference" or not f.ref or f.ref == ent.name or person(spec, f.ref):
        return None
    if parts[2].strip() == "(":
        day = ent.field_named(parts[3]) if len(parts) == 5 and parts[4] == ")" else None
        # the day a record was made, said as people date one ("my application for Flat 6, The
        # Tannery from 15 June"), never in the app's brackets
        return " from " if day is not None and day.type in ("date", "datetime") else parts[2]
    return f" {word} " if word else None


def _as_shown(ent: EntitySpec, field: str, lead: str) -> str:
    """A lead read back as the label shows it: an enum value in the app's casing ("Annual" of
    "my annual leave request …"), any other text as written."""
    f = ent.field_named(field)
    value = next((v for v in f.values or [] if v.replace("_", " ").casefold() == lead.casefold()), None)
    return enum_label(value) if f.type == "enum" and value is not None else lead


def _undated_fields(spec: Spec, ent: EntitySpec) -> list[str]:
    """The one field a label has before its day, for each of its templates (the person aside):
    "plan" of "{member}, {plan} since {started_on}", "unit" of "{applicant} for {unit}
    ({submitted_on})"; what a name left without its day (`UserView.short_labels`) is made of."""
    found = []
    for template in _templates(spec, ent)[1:] or _templates(spec, ent):
        m = _LAST_FIELD.fullmatch(template.removesuffix(")") if template.endswith("})") else template)
        parts = _SLOT.split(m["head"]) if m is not None else []
        last = next((f for f in ent.fields if m is not None and f.name == m["last"]), None)
        if last is not None and last.type in ("date", "datetime") and len(parts) == 3 and not parts[0] and not parts[2]:
            found.append(parts[1])
    return found


def _undated_lead(spec: Spec, ent: EntitySpec, text: str, thing: str) -> tuple[str, str] | None:
    """That field (`_undated_fields`) and its value said before the noun, when `text` is the value
    alone ("Titanic Quarter Off-Peak": "my Titanic Quarter Off-Peak membership"); None otherwise."""
    if '"' in text:
        return None
    for name in _undated_fields(spec, ent):
        lead = _lead(spec, ent, name, text, thing)
        if lead is not None:
            return name, lead
    return None


def _undated_for(spec: Spec, ent: EntitySpec, text: str) -> str | None:
    """"for <that row>" when that field (`_undated_fields`) is a row that is no person and `text`
    is its name alone: "my application for Flat 6, The Tannery"; None otherwise."""
    if '"' in text or not _PLACE_LIKE.fullmatch(text):
        return None
    for name in _undated_fields(spec, ent):
        f = ent.field_named(name)
        if f.type == "reference" and f.ref and f.ref != ent.name and not person(spec, f.ref):
            return f"for {text}"
    return None


def _a_title(spec: Spec, text: str) -> bool:
    """Whether `text` is a row's name of the world said bare ("Flat 15, Kelvin House": `titled`)."""
    return any(titled(text, noun(said(e))) for e in spec.entities)


def _first_ref(spec: Spec, ent: EntitySpec) -> str | None:
    """The entity a label opens on, when it opens on a row that is no person and goes on with more
    ("{unit} from {start_on}" → "unit"): the row the labelled one belongs to; None otherwise."""
    parts = _SLOT.split(ent.display)
    if len(parts) < 5 or parts[0] or parts[1] not in {f.name for f in ent.fields}:
        return None
    f = ent.field_named(parts[1])
    if f.type != "reference" or not f.ref or f.ref == ent.name or person(spec, f.ref):
        return None
    return f.ref


def _pointed_noun(spec: Spec, ent: EntitySpec) -> str | None:
    """The noun of the row a label names by pointing at it, the person aside ("{order} to
    {to_holder}" → "order"), or None."""
    templates = _templates(spec, ent)
    parts = _SLOT.split(templates[1]) if len(templates) > 1 else []
    if len(parts) != 3 or parts[0] or parts[2] or parts[1] not in {f.name for f in ent.fields}:
        return None
    f = ent.field_named(parts[1])
    return noun(said(spec.entity(f.ref))) if f.type == "reference" and f.ref and f.ref != ent.name else None


