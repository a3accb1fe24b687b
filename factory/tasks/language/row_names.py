"""How a sentence names a row, and how the name is read back (`name_of`, `read_name`): people
name rows as they see them, "my Main Checking account (··3808)" when the label is a name plus a
code, "my visa card ··9591" when the label already says what it is, else `my payee "Sunvale
Energy"`; a row the money goes to is named bare ("Pay Sunvale Energy $45"), a person by their name.
"""

from __future__ import annotations

import re

from factory.spec.model import EntitySpec, Spec
from factory.spec.naming import identifier
from factory.tasks.language import grammar
from factory.tasks.language.asks import ONLY, ParseError, RefText
from factory.tasks.language.spoken import noun, said
from factory.tasks.language.things import person
from factory.tasks.language.words import my_only

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


def name_of(spec: Spec, entity: str, ref: RefText, role: str) -> str:
    """How a sentence names a row: "my Main Checking account (··3808)", "my visa card ··9591",
    `my payee "Sunvale Energy"`, "my contact details"; bare ("Sunvale Energy") where money goes."""
    ent = spec.entity(entity)
    thing = noun(said(ent))
    if ref.by == ONLY:
        return ref.text
    if ref.by is not None or '"' in ref.text:
        raise ParseError(f"a row named by its fields cannot be said in a sentence ({ref.text!r})")
    mine = ref.mine if ref.mine is not None else ent.visibility != "public"
    owner = "my " if mine else "the "
    if (role == "object" and ent.visibility != "public") or (person(spec, entity) and ref.by is None):
        return ref.text  # money goes to "Sunvale Energy"; a person is named by their name ("to Liam O'Connor")
    split = _template_split(ent, ref.text)
    if split is not None:
        return f"{owner}{split[0]} {thing} ({split[1]})"
    if "," not in ref.text and re.search(rf"\b{re.escape(thing)}\b", ref.text.lower()):
        return owner + ref.text  # a name that says what it is ("my visa card ··9591"); a list is quoted
    return f'{owner}{thing} "{ref.text}"'


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
    if text.lower().startswith(thing + ' "') and text.endswith('"') and text.count('"') == 2:
        return RefText(text[len(thing) + 2:-1], mine=mine)
    m = re.fullmatch(rf"(.+) {re.escape(thing)} \((.+)\)", text, re.IGNORECASE)
    if m:
        return RefText(f"{m[1]} {m[2]}", mine=mine)
    if '"' in text:
        raise ParseError(f"a quote inside the name {text!r}")
    return RefText(text, mine=mine)
