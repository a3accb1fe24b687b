"""Rows whose label counts something: a row it is for, a count mark, perhaps the day it was made
("{tier} ×{quantity}, {placed_at}" shows "General admission · Fennel & Rye ×4, March 30"), said
as a person says an order: "my order of 4 General admission tickets for Fennel & Rye placed on
March 30".

The shape comes from the display template and the fields' types alone: a reference slot beside
an int slot joined by a count mark ("×", "x"), then at most a date after a mark. What is counted
is the int field's own label when it is a plural noun ("Tickets" → "4 tickets", "1 ticket");
a count labelled otherwise ("Qty") leaves the label quoted, since "2 Margherita" is no English.
The row counted from is said by its own name, its lead before the unit ("4 General admission
tickets for Fennel & Rye") or after "for" ("4 tickets for the Balcony ticket tier").

Reading back fills the template from the sentence's parts and keeps it only when it says the
sentence again word for word (`Namer` is `row_names`' naming of the row counted from).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from factory.spec.model import EntitySpec, Spec
from factory.tasks.language import grammar

_SLOT = re.compile(r"\{(\w+)\}")
_COUNT_MARKS = ("×", "x", "X")
# Marks between the counted part and the day it is dated ("…×4, March 30").
_DAY_MARKS = frozenset([",", "·", "-", "–", "—", "|", ";"])
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DAY = rf"(?:{_MONTHS}) \d{{1,2}}(?:, \d{{4}})?(?: at \d{{1,2}}:\d{{2}}(?: [AP]M)?)?"

# (lead, rest) of the row counted from said around its noun, as `row_names._around` gives them
Around = Callable[[str, str], "tuple[str, str] | None"]
# the row counted from named as a subject ("the Balcony ticket tier …"), or None
Named = Callable[[str, str], "str | None"]
# the label of the row counted from, read back from its words around its noun, or None
ReadAround = Callable[[str, str], "str | None"]


@dataclass(frozen=True)
class CountShape:
    """Where a template's parts are: the row counted from, the count, the date (or None)."""

    template: str
    ref_field: str
    ref: str  # the entity counted from
    count_field: str
    unit: str  # the count's label as a plural noun, lower case ("tickets")
    date_field: str | None
    day_words: str  # what a sentence says before the day ("placed on", "on")


def count_shape(spec: Spec, ent: EntitySpec, template: str, day_words: Callable[[str], list[str]]) -> CountShape | None:
    """The template's count shape, or None where it has none (`day_words`: the words a date's own
    label says before its day, `row_names._day_words`)."""
    parts = _SLOT.split(template)
    if parts[0] or parts[-1] or len(parts) not in (5, 7):
        return None
    first, mark, second = parts[1], parts[2], parts[3]
    if mark.strip() not in _COUNT_MARKS or (mark.strip() != "×" and mark != f" {mark.strip()} "):
        return None  # "×" anywhere; a letter "x" only as a word of its own ("3 x Margherita")
    a, b = ent.field_named(first), ent.field_named(second)
    ref_f, count_f = (a, b) if b.type == "int" else (b, a)
    if count_f.type != "int" or ref_f.type != "reference" or not ref_f.ref or ref_f.ref == ent.name:
        return None
    if ref_f.ref not in {e.name for e in spec.entities}:
        return None
    unit = count_f.label.strip().lower()
    if not unit or len(unit.split()) > 2 or not grammar.is_plural(unit.split()[-1]) or "NOUN" not in grammar.tags(
            grammar.singular(unit).split()[-1]):
        return None
    date_field, words = None, ""
    if len(parts) == 7:
        if parts[4].strip() not in _DAY_MARKS:
            return None
        date = ent.field_named(parts[5])
        if date.type not in ("date", "datetime"):
            return None
        said = day_words(date.label)
        date_field, words = date.name, " ".join(said) if said and said != ["at"] else "on"
    return CountShape(template, ref_f.name, ref_f.ref, count_f.name, unit, date_field, words)


def _head(shape: CountShape) -> str:
    """The template without its day ("{tier} ×{quantity}"): how a row is named where its day is
    left out (`UserView.short_labels`)."""
    parts = _SLOT.split(shape.template)
    return "".join(p if i % 2 == 0 else f"{{{p}}}" for i, p in enumerate(parts[:4]))


def _values(shape: CountShape, text: str) -> dict[str, str] | None:
    for template in (shape.template, *((_head(shape),) if shape.date_field is not None else ())):
        found = _filled(shape, template, text)
        if found is not None:
            return found
    return None


def _filled(shape: CountShape, template: str, text: str) -> dict[str, str] | None:
    parts = _SLOT.split(template)
    pattern = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    m = re.fullmatch(pattern, text)
    if m is None or not re.fullmatch(r"\d{1,6}", m[shape.count_field]):
        return None
    if shape.date_field is not None and shape.date_field in m.groupdict() and not re.fullmatch(_DAY, m[shape.date_field]):
        return None
    return m.groupdict()


def counted(shape: CountShape, text: str, around: Around, named: Named) -> str | None:
    """What follows the row's noun for the label `text` ("of 4 General admission tickets for Fennel
    & Rye placed on March 30"), or None when `text` is not shaped so."""
    values = _values(shape, text)
    if values is None:
        return None
    n = values[shape.count_field]
    unit = grammar.singular(shape.unit) if n == "1" else shape.unit
    ref = values[shape.ref_field]
    if '"' in ref:
        return None
    parts = around(shape.ref, ref)
    if parts is not None and parts[0] and parts[1]:
        body = f"{n} {parts[0]} {unit} {parts[1]}"
    else:
        inner = named(shape.ref, ref)
        if inner is None or not inner.startswith("the ") or '"' in inner:
            return None
        body = f"{n} {unit} for {inner}"
    when = values.get(shape.date_field or "")
    day = f" {shape.day_words} {when}" if when else ""
    return f"of {body}{day}"


def read_counted(shape: CountShape, said_text: str, thing_of: Callable[[str], str], read_around: ReadAround,
                 read_named: ReadAround, check: Callable[[str], str | None]) -> str | None:
    """The label whose `counted` words are `said_text` (what follows the noun), or None."""
    day = rf"(?: {re.escape(shape.day_words)} (?P<day>{_DAY}))?" if shape.date_field else ""
    m = re.fullmatch(rf"of (?P<n>\d{{1,6}}) (?P<body>.+?){day}", said_text)
    if m is None or (shape.date_field and not m["day"] and f" {shape.day_words} " in m["body"]):
        return None  # a day said where it cannot be read is no name left without its day
    units = {grammar.singular(shape.unit), shape.unit}
    for unit in sorted(units, key=len, reverse=True):
        candidates = []
        if m["body"].startswith(f"{unit} for "):
            candidates.append(read_named(shape.ref, m["body"][len(unit) + 5:]))
        lead, sep, rest = m["body"].partition(f" {unit} ")
        if sep:
            candidates.append(read_around(shape.ref, f"{lead} {thing_of(shape.ref)} {rest}"))
        for ref in candidates:
            if ref is None:
                continue
            values = {shape.ref_field: ref, shape.count_field: m["n"]}
            if shape.date_field is not None and m["day"]:
                values[shape.date_field] = m["day"]
            label = _fill(shape.template if shape.date_field is None or m["day"] else _head(shape), values)
            if check(label) == said_text:
                return label
    return None


def _fill(template: str, values: dict[str, str]) -> str:
    """The template with each slot's value."""
    return _SLOT.sub(lambda slot: values[slot[1]], template)
