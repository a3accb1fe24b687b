"""Reading back what an instruction says about rows: an entity as named (with its status said
before it, "active payees"), its fields as labelled or spoken, and the conditions after it
(`render.render_conds`: `the folder "inbox"`, `a due date between … and …`, `wifi`, `no pool`).
Split from `parse.py`, which reads whole instructions with these."""

from __future__ import annotations

import re

from factory.predict.rows import enum_text
from factory.spec.model import EntitySpec, Spec
from factory.tasks.language.asks import Cond, ParseError
from factory.tasks.language.conds_said import (
    PLACES,
    PROPER_NAME,
    at_place,
    bare_for,
    bare_place,
    bool_phrase,
    day_field,
    enum_place,
    lead_word,
    not_state,
    phrase_state,
    place_field,
    place_said,
    ref_said,
    said_bare,
)
from factory.tasks.language.measures import amount_field, count_noun, done_count, price_field
from factory.tasks.language.modifiers import bool_feature, kind_said, named_place, read_adjective
from factory.tasks.language.row_names import read_name
from factory.tasks.language.spoken import entity_noun, field_noun, own_field_noun, recency_field, spoken_plural
from factory.tasks.language.values import scan_value


def same(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


def entity_by(spec: Spec, text: str, plural: bool) -> EntitySpec:
    for ent in spec.entities:
        if (same(spoken_plural(ent) if plural else entity_noun(ent), text) or same(ent.label, text)
                or (plural and same(ent.plural, text))):
            return ent
    raise ParseError(f"no entity is called {text!r}")


def _entity_said(spec: Spec, text: str, plural: bool) -> tuple[EntitySpec, tuple[Cond, ...]]:
    """An entity as a question or a find names it, with its status said before it ("active
    payees", `spoken.adjective`): the entity and that first condition."""
    try:
        return entity_by(spec, text, plural), ()
    except ParseError:
        for ent in spec.entities:
            cond = read_adjective(ent, text, plural)
            if cond is not None:
                return ent, (cond,)
        raise


def entity_and_conds(spec: Spec, text: str, plural: bool) -> tuple[EntitySpec, tuple[Cond, ...]]:
    """An entity as said before its conditions, with the conditions that follow it without "with"
    (`render.with_conds`: "scheduled payments from account "X""), and its status said before it."""
    try:
        return _entity_said(spec, text, plural)
    except ParseError as exc:
        problem = exc
    for m in re.finditer(r" (?=([\w-]+) )", text):
        if not said_bare(text[m.end():]):  # "in …", "not …", "whose …", "paid after due date"
            continue
        try:
            ent, said = _entity_said(spec, text[: m.start()], plural)
            return ent, said + parse_conds(ent, text[m.end():], spec)
        except ParseError:
            continue
    raise problem


# Stands for the field a row is "the most recent" by (`spoken.recency_field`, `unranked`).
WHEN = "(its date)"
# Stands for the field a row is "the cheapest" by (`measures.price_field`, `unranked`).
PRICE = "(its price)"
# Stands for the field a row is "the largest" by (`measures.amount_field`, `unranked`).
AMOUNT = "(its amount)"


# "…that has been lent the most times" and "…that is the most recent" (`render.ranked`), read as
# the rankings they are: by the field "times lent", by the entity's plain date (`WHEN`).
_RANKED = re.compile(r"\bhas been (?P<done>[a-z]+) the (?P<dir>most|fewest) times\b"
                     r"|\bis the (?P<age>most recent|oldest)\b|\bis the (?P<price>cheapest|most expensive|largest|smallest)\b")
_QUOTED = re.compile(r'("[^"]*")')
# "Find my most recent message in the folder "inbox", then …" (`render.render_step`): a quoted
# name may hold a comma, so the words up to ", then" are read quote by quote.
# The row a superlative ranks by: its plain date ("most recent"), its price ("cheapest").
_AGES = {"most recent": ("latest", WHEN), "oldest": ("earliest", WHEN),
         "most expensive": ("highest", PRICE), "cheapest": ("lowest", PRICE),
         "largest": ("highest", AMOUNT), "smallest": ("lowest", AMOUNT)}
_AGED_FIND = re.compile(rf'\b(?P<find>[Ff]ind) (?P<scope>my|the) (?P<age>{"|".join(_AGES)}) '
                        r'(?P<rest>(?:[^",]|"[^"]*")+?), then ')


def unranked(text: str) -> str:
    """Rankings said as people say them, written the way every other ranking is ("has the most
    times lent", "has the latest {WHEN}"); nothing inside quotes (a row's name) is touched."""
    def one(m: re.Match[str]) -> str:
        if m["age"] or m["price"]:
            return _has_the(m["age"] or m["price"])
        return f"has the {m['dir']} times {m['done']}"

    text = _AGED_FIND.sub(lambda m: f"{m['find']} {m['scope']} {m['rest']} that {_has_the(m['age'])}, then ", text)
    return "".join(part if part.startswith('"') else _RANKED.sub(one, part) for part in _QUOTED.split(text))


def _has_the(age: str) -> str:
    """A superlative as the ranking it is: "has the latest (its date)", "has the lowest (its price)"."""
    word, by = _AGES[age]
    return f"has the {word} {by}"


def field_by(ent: EntitySpec, text: str) -> str:
    if text == AMOUNT:
        worth = amount_field(ent)
        if worth is None:
            raise ParseError(f"{ent.label} has no one amount to be the largest by")
        return worth.name
    if text == PRICE:
        price = price_field(ent)
        if price is None:
            raise ParseError(f"{ent.label} has no one price to be the cheapest by")
        return price.name
    if text == WHEN:
        when = recency_field(ent)
        if when is None:
            raise ParseError(f"{ent.label} has no plain date to be the most recent by")
        return when.name
    for f in ent.fields:
        counted, done_to = count_noun(f), done_count(ent, f)
        if done_to is not None and same(" ".join(done_to), text):  # "tickets sold"
            return f.name
        if same(f.label, text) or same(field_noun(f), text) or same(own_field_noun(ent, f), text) or (
                counted is not None and (same(f"number of {counted}", text) or same(counted, text))):
            return f.name
    raise ParseError(f"{ent.label} has no field labelled {text!r}")


def parse_conds(ent: EntitySpec, text: str | None, spec: Spec | None = None) -> tuple[Cond, ...]:
    """Conditions `<label> <value> [and <label> between <a> and <b>] …` (labels longest first);
    with the spec, a first condition's row said by its name too (`conds_said.ref_said`)."""
    if not text:
        return ()
    # Fields as spoken ("opening date") and as labelled ("opened on"), longest first.
    names = sorted({(n.lower(), f.name) for f in ent.fields for n in (f.label, field_noun(f))},
                   key=lambda pair: -len(pair[0]))
    conds: list[Cond] = []
    pos = 0
    while True:
        # said bare: "not withdrawn" (`render.not_state`), "on loan" (`render.phrase_state`),
        # "wifi", "no pool" (`spoken.bool_feature`)
        bare = (_bool_phrase_at(ent, text, pos) or _not_state_at(ent, text, pos) or _phrase_state_at(ent, text, pos)
                or (None if conds else _kind_at(ent, text, pos))
                or _feature_at(ent, text, pos) or _day_span_at(ent, text, pos))
        if bare is not None:
            cond, pos = bare
            conds.append(cond)
            if pos == len(text):
                return tuple(conds)
            if not text.startswith(" and ", pos):
                raise ParseError(f"expected 'and' between conditions at {text[pos:pos + 30]!r}")
            pos += len(" and ")
            continue
        first = None if conds else ((_ref_named_at(spec, ent, text, pos) if spec is not None else None)
                                    or (_at_place_at(spec, ent, text, pos) if spec is not None else None)
                                    or (_bare_for_at(spec, ent, text, pos) if spec is not None else None)
                                    or _name_first_at(ent, text, pos))
        if first is not None:  # "for the Heathrow T5 branch", "in London" (`render.name_first`)
            cond, pos = first
            conds.append(cond)
            if pos == len(text):
                return tuple(conds)
            joiner = next((j for j in (" with ", " and ") if text.startswith(j, pos)), None)
            if joiner is None:
                raise ParseError(f"expected 'with' or 'and' between conditions at {text[pos:pos + 30]!r}")
            pos += len(joiner)
            continue
        # "the folder "inbox"", "a due date between …" (`render.render_conds`); a field said with
        # its own preposition has no article; a place rows are kept in is "in the folder "inbox"".
        # "whose make is "Ford"" (`render.after_noun`): no article, the value after "is"
        whose = text.startswith("whose ", pos)
        pos += len("whose ") if whose else 0
        said = next((w for w in ("in", "for", "at", "on") if not whose and not conds
                     and text.lower().startswith(f"{w} the ", pos)), None)
        inside = said is not None
        pos += len(f"{said} ") if said else 0
        article = "" if whose else next((w for w in ("the ", "an ", "a ") if text.lower().startswith(w, pos)), "")
        hit = next(((n, name) for n, name in names if text.lower().startswith(n + " ", pos + len(article))), None)
        if hit is None and article:
            article = ""
            hit = next(((n, name) for n, name in names if text.lower().startswith(n + " ", pos)), None)
        pos += len(article)
        if hit is None:
            raise ParseError(f"unknown condition at {text[pos:pos + 40]!r} ({ent.label})")
        f = ent.field_named(hit[1])
        if said is not None and lead_word(f) != said:
            raise ParseError(f"a {ent.label.lower()} is not said '{said}' its {hit[0]}")
        pos += len(hit[0]) + 1
        kind = "int" if f.type == "reference" else f.type
        if whose:
            if not text.startswith("is ", pos) or f.type == "bool":
                raise ParseError(f"expected 'whose <field> is <value>' at {text[pos:pos + 30]!r}")
            pos += len("is ")
        elif f.type == "bool":
            if not text.startswith("set to ", pos):
                raise ParseError(f"expected 'set to yes/no' at {text[pos:pos + 30]!r}")
            pos += len("set to ")
        if text.startswith("between ", pos) and not whose:
            low, pos = scan_value(kind, text, pos + len("between "))
            if not text.startswith(" and ", pos):
                raise ParseError(f"expected 'and' in a range at {text[pos:pos + 30]!r}")
            high, pos = scan_value(kind, text, pos + len(" and "))
            conds.append(Cond(f.name, low, high))
        else:
            value, pos = scan_value(kind, text, pos)
            if f.type == "enum":  # "North America" is the stored "north america" (`conds_said.shown`)
                value = next((enum_text(v) for v in f.values or [] if enum_text(v).casefold() == value.casefold()),
                             value)
            conds.append(Cond(f.name, f'"{value}"' if text[pos - 1] == '"' else value))
        if pos == len(text):
            return tuple(conds)
        # "in the folder "x" with the category "y"" (or "and not archived": `render.render_conds`)
        joiner = next((j for j in ((" with ", " and ") if inside else (" and ",)) if text.startswith(j, pos)), None)
        if joiner is None:
            raise ParseError(f"expected {'with' if inside else 'and'!r} between conditions at {text[pos:pos + 30]!r}")
        pos += len(joiner)


def _ref_named_at(spec: Spec, ent: EntitySpec, text: str, pos: int) -> tuple[Cond, int] | None:
    """A first condition whose row is said by its name after the field's lead word ("for the Spin
    class session on June 6 at 10:00 AM (…)", `conds_said.ref_said`), read only as it is written."""
    ends = [m.start() for m in re.finditer(r" (?:and|with) ", text[pos:])] + [len(text) - pos]
    for f in ent.fields:
        lead = lead_word(f)
        if f.type != "reference" or not f.ref or lead is None or not text.startswith(f"{lead} ", pos):
            continue
        named = text[pos + len(lead) + 1:pos + ends[0]]
        try:
            ref = read_name(spec, f.ref, named)
        except ParseError:
            continue
        value = f'"{ref.text}"'
        if ref_said(spec, f, value) == named:
            return Cond(f.name, value), pos + ends[0]
    return None


def _at_place_at(spec: Spec, ent: EntitySpec, text: str, pos: int) -> tuple[Cond, int] | None:
    """A first condition naming the place a row belongs to after "at" ("at Maple Terrace":
    `conds_said.at_place`), read only as it is written."""
    f = place_field(spec, ent)
    if f is None or not text.startswith("at ", pos):
        return None
    ends = [m.start() for m in re.finditer(r" (?:and|with) ", text[pos:])] + [len(text) - pos]
    named = text[pos + len("at "):pos + ends[0]]
    return (Cond(f.name, f'"{named}"'), pos + ends[0]) if at_place(spec, ent, f, f'"{named}"') == named else None


def _bare_for_at(spec: Spec, ent: EntitySpec, text: str, pos: int) -> tuple[Cond, int] | None:
    """A first condition naming the row the rows belong to by its bare name after "for" ("for
    Lakeshore Folk Revue": `conds_said.bare_for`), read only as it is written."""
    if not text.startswith("for ", pos):
        return None
    ends = [m.start() for m in re.finditer(r" (?:and|with) ", text[pos:])] + [len(text) - pos]
    named = text[pos + len("for "):pos + ends[0]]
    for f in ent.fields:
        if bare_for(spec, ent, f, f'"{named}"') == named:
            return Cond(f.name, f'"{named}"'), pos + ends[0]
    return None


def _name_first_at(ent: EntitySpec, text: str, pos: int) -> tuple[Cond, int] | None:
    """A first condition said by a proper name at `pos` (`render.name_first`): "for the Heathrow
    T5 branch" (the name before the field's noun), "in London" (the entity's one place, alone)."""
    ends = [m.start() for m in re.finditer(r" (?:and|with) ", text[pos:])] + [len(text) - pos]
    place = bare_place(ent)
    for f in ent.fields:  # a place of a closed list first: "in Canada" is the country, whatever the cities
        if f.type != "enum" or field_noun(f) not in PLACES or lead_word(f) is None or not text.startswith("in ", pos):
            continue
        said = next((v for v in f.values or [] if named_place(f, v)
                     and text.startswith(f"in {place_said(enum_place(v))}", pos)
                     and pos + 3 + len(place_said(enum_place(v))) == pos + ends[0]), None)
        if said is not None:
            return Cond(f.name, f'"{said.replace("_", " ")}"'), pos + ends[0]
    for f in ent.fields:
        lead, name = lead_word(f), field_noun(f)
        if lead is None:
            continue
        if name in PLACES:
            if place is not f or not text.startswith("in ", pos):
                continue
            inner = text[pos + 3:pos + ends[0]]
            if inner.startswith("the ") and place_said(inner[4:]) == inner:
                inner = inner[4:]  # "in the Netherlands" (`conds_said.place_said`)
        else:
            opener = f"{lead} the "
            tail = f" {name}"
            if not text.startswith(opener, pos) or not text[pos:pos + ends[0]].endswith(tail):
                continue
            inner = text[pos + len(opener):pos + ends[0] - len(tail)]
        if (PROPER_NAME.fullmatch(inner) and any(w[:1].isupper() for w in inner.split())
                and inner.split()[0].lower() not in ("the", "a", "an")):
            return Cond(f.name, f'"{inner}"'), pos + ends[0]
    return None


def _day_span_at(ent: EntitySpec, text: str, pos: int) -> tuple[Cond, int] | None:
    """A span of the row's own date said bare at `pos`: "between May 16, 2026 and June 9, 2026"
    (`conds_said.day_field`)."""
    day = day_field(ent) if text.startswith("between ", pos) else None
    if day is None:
        return None
    low, pos = scan_value(day.type, text, pos + len("between "))
    if not text.startswith(" and ", pos):
        raise ParseError(f"expected 'and' in a range at {text[pos:pos + 30]!r}")
    high, pos = scan_value(day.type, text, pos + len(" and "))
    return Cond(day.name, low, high), pos


def _bool_phrase_at(ent: EntitySpec, text: str, pos: int) -> tuple[Cond, int] | None:
    """A yes/no state said bare ("on tonight", "not on tonight": `render.bool_phrase`) at `pos`."""
    for f in ent.fields:
        said = bool_phrase(f)
        if said is None:
            continue
        for lead, value in (("not ", "no"), ("", "yes")):
            end = pos + len(lead + said)
            if text.startswith(lead + said, pos) and (end == len(text) or text.startswith(" and ", end)):
                return Cond(f.name, value), end
    return None


def _kind_at(ent: EntitySpec, text: str, pos: int) -> tuple[Cond, int] | None:
    """A choice said by the kind that holds it ("in the hardware category", `modifiers.kind_said`)."""
    for f in ent.fields:
        for value in (f.values or []) if f.type == "enum" else []:
            said = kind_said(f, value.replace("_", " "))
            end = pos + len(said or "")
            if said is not None and text.lower().startswith(said.lower(), pos) and (
                    end == len(text) or text.startswith((" and ", " with "), end)):
                return Cond(f.name, f'"{value.replace("_", " ")}"'), end
    return None


def _phrase_state_at(ent: EntitySpec, text: str, pos: int) -> tuple[Cond, int] | None:
    """An enum value said bare ("on loan", `render.phrase_state`) at `pos`: its condition and the
    position after it."""
    for f in ent.fields:
        for value in (f.values or []) if f.type == "enum" else []:
            said = phrase_state(ent, f, f'"{value.replace("_", " ")}"')
            end = pos + len(said or "")
            if said is not None and text.startswith(said, pos) and (end == len(text) or text.startswith(" and ", end)):
                return Cond(f.name, f'"{value.replace("_", " ")}"'), end
    return None


def _not_state_at(ent: EntitySpec, text: str, pos: int) -> tuple[Cond, int] | None:
    """A yes/no state said "not <state>" at `pos`: its "no" condition and the position after it."""
    if not text.startswith("not ", pos):
        return None
    for f in ent.fields:
        state = not_state(f) if f.type == "bool" else None
        end = pos + len("not ") + len(state or "")
        if state is not None and text.startswith(state, pos + len("not ")) and (
                end == len(text) or text.startswith(" and ", end)):
            return Cond(f.name, "no"), end
    return None


def _feature_at(ent: EntitySpec, text: str, pos: int) -> tuple[Cond, int] | None:
    """A yes/no thing a row has, said alone at `pos` ("wifi", "no pool"): its condition and the
    position after it; None when none is said there (longest first)."""
    said = sorted(((feature, f.name) for f in ent.fields if (feature := bool_feature(f)) is not None),
                  key=lambda pair: -len(pair[0]))
    low = text.lower()
    for negated in (True, False):
        start = pos + (len("no ") if negated else 0)
        if negated and not low.startswith("no ", pos):
            continue
        for feature, name in said:
            end = start + len(feature)
            if low.startswith(feature, start) and (end == len(text) or text.startswith(" and ", end)):
                return Cond(name, "no" if negated else "yes"), end
    return None
