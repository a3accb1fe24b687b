"""Parsing the questions a READ asks, read back from their text with nothing but the spec: lookups
("What is the balance of my Main Checking account (··3808)?", "Is my message "Hi" read?"), counts
("How many statements does my Savings account (··9357) have?"), totals and "which has the
highest …"; each form `render.render_question` writes has its reader here.
"""

from __future__ import annotations

import re

from factory.spec.model import EntitySpec, FieldSpec, Spec
from factory.spec.naming import CODE
from factory.tasks.language import grammar
from factory.tasks.language.arg_words import CLASSIFIERS, when_label
from factory.tasks.language.asks import ONLY, Cond, ParseError, Question, RefText
from factory.tasks.language.conds_said import bool_phrase, said_bare, said_bare_by, said_quality
from factory.tasks.language.indirect import direct
from factory.tasks.language.label_parts import kind_noun
from factory.tasks.language.lookup_said import done_on, in_place, possessive, prices_in
from factory.tasks.language.measures import count_noun, day_act, done_count, times_done
from factory.tasks.language.modifiers import bool_adjective, bool_feature
from factory.tasks.language.parse import DIRECTIONS, DIRS, my_phrases
from factory.tasks.language.parse_conds import entity_and_conds, entity_by, field_by, parse_conds
from factory.tasks.language.render import holder_field, says_its_noun
from factory.tasks.language.row_labels import SPOKEN_DAY, _by_name
from factory.tasks.language.row_names import CODED_THING, name_of, read_name
from factory.tasks.language.spoken import a, field_noun, noun, said, spoken_plural
from factory.tasks.language.words import my_only

# Who a row is said to belong to: "my ", "the ", or a person's name ("Ada Brennan's ").
_WHOSE = r"[A-Z][^\"?]*?'s "
_OWNED = rf"(?:my |the |{_WHOSE})[^\"]*"
# A row said by its noun and its code, with no article ("ticket INC-151": `row_names.name_of`).
_CODED = CODED_THING


_Q_PATTERNS = [
    ("lookup", re.compile(r'^What is the (?P<field>.+?) (?:of|for|on) (?:my|the) (?P<entity>.+?) "(?P<ref>[^"]+)"\?$')),
    ("lookup", re.compile(r'^Look up the (?P<field>.+?) (?:of|for|on) (?:my|the) (?P<entity>.+?) "(?P<ref>[^"]+)"\.$')),
    ("only", re.compile(r'^What is the (?P<field>.+?) (?:of|for|on) (?P<only>my [^"]+?)\?$')),  # "… of my contact details?"
    ("only", re.compile(r'^Look up the (?P<field>.+?) (?:of|for|on) (?P<only>my [^"]+?)\.$')),
    ("count", re.compile(r"^How many of (?:my|the) (?P<plural>.+?) are there\?$")),  # "…from account "X" are there?"
    ("count", re.compile(r"^How many of (?:my|the) (?P<plural>.+?) have (?P<conds>.+)\?$")),
    # "Can you count my active cards?", and a seed's own "Count my active cards."
    ("count", re.compile(r"^(?:Can you count|Count) (?:my|the) (?P<plural>.+?) with (?P<conds>.+)[.?]$")),
    ("count", re.compile(r"^(?:Can you count|Count) (?:my|the) (?P<plural>[A-Za-z0-9][A-Za-z0-9-]* .+?)[.?]$")),
    ("count", re.compile(r"^How many (?P<plural>[A-Za-z0-9][A-Za-z0-9-]* .+?) (?:do I have|are there)\?$")),
    ("sum", re.compile(r"^What is the total (?P<field>.+?) (?:of|across|for) (?:my|the) (?P<plural>.+?)"
                       r"(?: with (?P<conds>.+))?\?$")),
    ("named", re.compile(rf'^What is the (?P<field>.+?) (?:of|for|on) (?P<named>(?:my |the |{_WHOSE})[^"]+|{_CODED})\?$')),
    ("named", re.compile(rf'^Look up the (?P<field>.+?) (?:of|for|on) (?P<named>(?:my |the |{_WHOSE})[^"]+|{_CODED})\.$')),
    # a name quoted with words around it: `my rental "X" from May 7`, `Ada Brennan's hold "X"` (row_names)
    ("named", re.compile(rf'^What is the (?P<field>.+?) (?:of|for|on) (?P<named>{_OWNED}"[^"]+"(?: [^"]+)?)\?$')),
    ("named", re.compile(rf'^Look up the (?P<field>.+?) (?:of|for|on) (?P<named>{_OWNED}"[^"]+"(?: [^"]+)?)\.$')),
    ("bare", re.compile(r'^What (?:is|are) the (?P<field>.+?) (?:of|for|on) (?P<bare>[A-Z][^"]*)\?$')),  # render.says_its_noun
    ("bare", re.compile(r'^Look up the (?P<field>.+?) (?:of|for|on) (?P<bare>[A-Z][^"]*)\.$')),
    ("arg", re.compile(r"^Which of (?:my|the) (?P<plural>.+?)(?: with (?P<conds>.+?))? has the "
                       rf"(?P<dir>{DIRS}) (?P<field>.+?)\?"
                       r"(?P<tie> If several tie, name the one that comes first alphabetically\.)?$")),
]


# Lookups asked the way the field is spoken of (`lookup_said.lookup_said`): "Is <row> read?", "Does <row>
# have wifi?", "How many travellers does <row> have?"; each is read as "What is the <field> of
# <row>?" and kept only when the field is one said that way.
_SAID_LOOKUPS = [
    (re.compile(r"^Is (?P<named>.+) (?P<field>[a-z]+)\?$"), lambda f, w: bool_adjective(f, "yes") == w),
    # a state an act leaves: "Has ticket INC-8 been escalated?" (`lookup_said.lookup_said`)
    (re.compile(r"^Has (?P<named>.+) been (?P<field>[a-z]+)\?$"),
     lambda f, w: bool_adjective(f, "yes") == w and grammar.is_participle(w)),
    (re.compile(r"^Does (?P<named>.+) have (?P<field>[a-z][a-z -]*)\?$"), lambda f, w: bool_feature(f) == w),
    (re.compile(r"^How many (?P<field>[a-z]+) does (?P<named>.+) have\?$"), lambda f, w: count_noun(f) == w),
    (re.compile(r"^How many (?P<field>times) has (?P<named>.+) been (?P<done>[a-z]+)\?$"),
     lambda f, w: f"times {times_done(f)}" == w),
    # "When was the hold "X" placed?" (a date spoken "date placed")
    (re.compile(r"^When was (?P<named>.+) (?P<when>[a-z]+)\?$"), lambda f, w: field_noun(f) == w),
    (re.compile(r"^Look up when (?P<named>.+) was (?P<when>[a-z]+)\.$"), lambda f, w: field_noun(f) == w),
]
# "When is … available from?" ("Can you tell me when … is available from?" is put so first: `indirect`)
_WHEN_IS = re.compile(r"^When is (?P<named>.+) (?P<until>[a-z]+ [a-z]+)\?$")


def _when_is(spec: Spec, text: str) -> Question | None:
    """"When is Flat 14, The Tannery available from?" (`lookup_said.when_label`): the lookup of the
    one day field so labelled that the named row has; None when the text is no such question."""
    m = _WHEN_IS.match(text)
    if m is None:
        return None
    named, until = m["named"], m["until"]
    for f in (f for e in spec.entities for f in e.fields if when_label(f) == until):
        try:
            q = parse_question(spec, f"What is the {field_noun(f)} of {named}?")
        except ParseError:
            continue
        if q is not None and q.field == f.name:
            return q
    return None


_DONE_COUNT = re.compile(r"^How many (?P<things>[a-z]+) have been (?P<done>[a-z]+) in (?P<named>.+)\?$")


def _done_count(spec: Spec, text: str) -> Question | None:
    """"How many tickets have been sold in the VIP ticket tier for …?" (`measures.done_count`): the
    lookup of the one field of the named row so counted; None when the text is no such question."""
    m = _DONE_COUNT.match(text)
    if m is None:
        return None
    for e in spec.entities:
        for f in e.fields:
            if done_count(e, f) != (m["things"], m["done"]):
                continue
            try:
                q = parse_question(spec, f"What is the {field_noun(f)} of {m['named']}?")
            except ParseError:
                continue
            if q is not None and (q.entity, q.field) == (e.name, f.name):
                return q
    return None


def _said_lookup(spec: Spec, text: str) -> Question | None:
    phrased = (_is_phrase(spec, text) or _currency_of(spec, text) or _when_is(spec, text) or _place_of(spec, text)
               or _done_count(spec, text))
    if phrased is not None:
        return phrased
    for pattern, said_as in _SAID_LOOKUPS:
        m = pattern.match(text)
        if m is None:
            continue
        groups = m.groupdict()
        field = f"date {groups['when']}" if groups.get("when") else " ".join(
            w for w in (groups.get("field"), groups.get("done")) if w)
        try:
            q = parse_question(spec, f"What is the {field} of {m['named']}?")
        except ParseError:
            q = None
        if (q is None or q.field is None) and groups.get("when"):  # "decided": the day of the act (`lookup_said.done_on`)
            for f in (f for e in spec.entities for f in e.fields if done_on(f) == groups["when"]):
                try:
                    q = parse_question(spec, f"What is the {field_noun(f)} of {m['named']}?")
                except ParseError:
                    continue
                if q is not None and q.field == f.name:
                    break
                q = None
        asked = spec.entity(q.entity).field_named(q.field) if q is not None and q.field is not None else None
        if asked is None or not (said_as(asked, field) or (groups.get("when") and done_on(asked) == groups["when"])):
            raise ParseError(f"{field!r} is not how {m['named']!r} is asked about")
        return q
    return None


_CURRENCY = re.compile(r"^What currency is (?P<named>.+) in\?$")


_IN_PLACE = re.compile(r"^What (?P<kind>[a-z]+) is (?P<named>.+) in\?$")


def _place_of(spec: Spec, text: str) -> Question | None:
    """"What city is the Whiteladies Mews property in?" (`lookup_said.in_place`): the lookup of the
    place field of that kind the named row has; None for another text."""
    m = _IN_PLACE.match(text)
    if m is None:
        return None
    kind, named = m["kind"], m["named"]
    return next((q for ent in spec.entities if _by_name(ent) for f in ent.fields if in_place(f) and field_noun(f) == kind
                 for q in [_field_of(spec, ent, f, named)] if q is not None), None)


def _currency_of(spec: Spec, text: str) -> Question | None:
    """"What currency is the … event in?" (`lookup_said.prices_in`), read as a lookup of the field the
    row's amounts name as their currency; None for another text."""
    m = _CURRENCY.match(text)
    if m is None:
        return None
    named = m["named"]
    return next((q for ent in spec.entities for f in ent.fields if prices_in(ent, f)
                 for q in [_field_of(spec, ent, f, named)] if q is not None), None)


def _field_of(spec: Spec, ent: EntitySpec, f: FieldSpec, named: str) -> Question | None:
    """The lookup of `f` on the row `named` names, when it is a row of `ent`; else None."""
    try:
        q = parse_question(spec, f"What is the {field_noun(f)} of {named}?")
    except ParseError:
        return None
    return q if q is not None and q.entity == ent.name and q.field == f.name else None


def _is_phrase(spec: Spec, text: str) -> Question | None:
    """"Is <row> <a state of several words>?" ("Is the plan "X" off-peak only?": `lookup_said.lookup_said`
    with `conds_said.bool_phrase`), read as a lookup of that field; None for another text."""
    if not text.startswith("Is ") or not text.endswith("?"):
        return None
    for e, f in ((ent, f) for ent in spec.entities for f in ent.fields if f.type == "bool"):
        phrase = bool_phrase(f)
        if phrase is not None and text.endswith(f" {phrase}?"):
            q = _field_of(spec, e, f, text[len("Is "):-len(phrase) - 2])
            if q is not None:
                return q
    return None


# "What kind of assignment is "Midterm"?", "What kind of port is Los Angeles?" (`lookup_said.lookup_said`)
_CLASSIFIER = "|".join(sorted(CLASSIFIERS))
_KIND_OF = re.compile(rf'^What (?P<kind>{_CLASSIFIER}) of (?P<thing>[a-z][a-z -]*?) is (?P<name>"[^"]+"(?: [^"?]+)?)\?$')
_KIND_OF_BARE = re.compile(rf'^What (?P<kind>{_CLASSIFIER}) of (?P<thing>[a-z]+) is (?P<name>[A-Z][^"?]*)\?$')
_KIND_OF_CODE = re.compile(rf'^What (?P<kind>{_CLASSIFIER}) of (?P<thing>[a-z][a-z -]*?) is (?P<code>{CODE.pattern})\?$')
# The direct forms only: "Can you tell me how much … is?" is put so first (`indirect.direct`).
_PRICE = re.compile(r"^How much is the (?P<field>[a-z][a-z -]*?) for (?P<named>.+)\?$")
_HOW_LONG_IS = re.compile(r"^How long is (?P<named>.+)\?$")


def _lasting(spec: Spec, named: str) -> Question | None:
    """The lookup of how long the named row lasts: its field said "length" or "duration"."""
    for noun_said in ("length", "duration"):
        try:
            q = parse_question(spec, f"What is the {noun_said} of {named}?")
        except ParseError:
            continue
        if q is not None:
            return q
    raise ParseError(f"{named!r} has no length to ask about")


_AMOUNT = re.compile(r"^How much was (?P<named>.+)\?$")
_COST = re.compile(r"^How much did (?P<named>.+) cost\?$")
_POSSESSIVE = re.compile(r"^What (?:is|are) (?P<named>the [A-Z][^\"?]*?)'s (?P<field>[a-z][^\"?]*)\?$")
_MINE_ARE = re.compile(r"^How many of my (.+?) are (.+)\?$")
_THE_ARE = re.compile(r"^How many of the (.+?) are (.+)\?$")
_THERE_WHOSE = re.compile(r"^How many (?!of )(.+?) (are there|do I have) (whose .+)\?$")
_ARE_IN = re.compile(rf"^How many (?!of )(.+?) are ((?:{'|'.join(sorted(grammar.WHERE_PREPOSITIONS | {'not'}))}) .+)\?$")


def parse_question(spec: Spec, text: str) -> Question | None:
    """The question a READ asks, or None when the text is no question form. A form whose words
    match but whose names do not (e.g. a lookup pattern over "total … of my accounts with …")
    gives way to the next form; the last such problem is raised when no form fits."""
    text = re.sub(r"^What are the ", "What is the ", text)  # "What are the points on licence of …?" (`lookup_said.be`)
    text = direct(text)  # "Can you tell me how much … is?" asks "How much is …?" (`indirect`)
    # "Can you tell me the status of …?" asks what "Look up the status of ….", still read, does
    text = re.sub(r"^Can you tell me (the .+|when .+)\?$", r"Look up \1.", text)
    # "How many of my shifts are for the Transport department?" (`render.render_question`) asks
    # what "How many shifts for the Transport department do I have?" does
    mine_are = _MINE_ARE.match(text)
    if mine_are is not None and said_bare(mine_are[2]):
        text = f"How many {mine_are[1]} {mine_are[2]} do I have?"
    the_are = _THE_ARE.match(text)  # "How many of the plans are off-peak only?"
    if the_are is not None and said_quality(the_are[2]):
        text = f"How many {the_are[1]} {the_are[2]} are there?"
    whose = _THERE_WHOSE.match(text)  # "How many models are there whose model is "Golf"?" (`render_question`)
    if whose is not None:
        text = f"How many {whose[1]} {whose[3]} {whose[2]}?"
    are_in = _ARE_IN.match(text)  # "How many branches are in Bristol?" asks "How many branches in Bristol are there?"
    if are_in is not None:
        text = f"How many {are_in[1]} {are_in[2]} are there?"
    kind = _KIND_OF.match(text)  # "What kind of assignment is "Midterm"?" asks the kind of the assignment "Midterm"
    if kind is not None:
        text = f"What is the {kind['kind']} of the {kind['thing']} {kind['name']}?"
    coded_kind = _KIND_OF_CODE.match(text)  # "What type of asset is BWL-1012?": of the asset BWL-1012
    if coded_kind is not None:
        text = f"What is the {coded_kind['kind']} of {coded_kind['thing']} {coded_kind['code']}?"
    cost = _COST.match(text)  # "How much did the asset BWL-1044 cost?" (`lookup_said`)
    if cost is not None:
        text = f"What is the cost of {cost['named']}?"
    priced_at = _PRICE.match(text)  # "How much is the joining fee for the … plan?" (`lookup_said`)
    if priced_at is not None:
        text = f"What is the {priced_at['field']} of {priced_at['named']}?"
    lasting = _HOW_LONG_IS.match(text)  # "How long is the Spin class …?" (`lookup_said`)
    if lasting is not None:
        return _lasting(spec, lasting["named"])
    worth = _AMOUNT.match(text)  # "How much was my monthly fee payment on 1 April?" (`lookup_said`)
    if worth is not None:
        text = f"What is the amount of {worth['named']}?"
    bare_kind = _KIND_OF_BARE.match(text)  # "What kind of port is Los Angeles?": of the Los Angeles port
    if bare_kind is not None:
        text = f"What is the {bare_kind['kind']} of the {bare_kind['name']} {bare_kind['thing']}?"
    owned = _POSSESSIVE.match(text)  # "What is the History department's office?" (`lookup_said.possessive`)
    if owned is not None and possessive(owned["named"]):
        text = f"What is the {owned['field']} of {owned['named']}?"
    done = _DONE_BETWEEN.match(text)  # "How many assets were bought between …?" (`render_question`)
    if done is not None:
        return _done_between(spec, done)
    held = _held_count(spec, text)  # before a count field's lookup, which has the same words
    if held is not None:
        return held
    there_then = _THERE_THEN.match(text)  # "How many ticket tiers are there for the … event?" (`render_question`)
    if there_then is not None:
        text = f"How many {there_then['plural']} {there_then['conds']} are there?"
    looked = _said_lookup(spec, text)
    if looked is not None:
        return looked
    problem: ParseError | None = None
    for op, pattern in _Q_PATTERNS:
        m = pattern.match(text)
        if not m:
            continue
        try:
            return _question(spec, op, m)
        except ParseError as exc:
            problem = exc
    if problem is not None:
        raise problem
    return None


_DONE_BETWEEN = re.compile(r"^How many (?P<mine>of my )?(?P<plural>[A-Za-z][^\"?]*?) were (?P<act>[a-z]+) "
                           r"between (?P<span>.+)\?$")


def _done_between(spec: Spec, m: re.Match[str]) -> Question | None:
    """The count of rows whose day of an act falls in a span, said "were <act> between …": read
    as "have a <day> between …" of the one day field whose act it is (`measures.day_act`)."""
    problem: ParseError | None = None
    for e in spec.entities:
        for f in e.fields:
            if day_act(f) != m["act"]:
                continue
            scope = "my" if m["mine"] else "the"
            try:
                q = parse_question(spec, f"How many of {scope} {m['plural']} have {a(field_noun(f))} between {m['span']}?")
            except ParseError as exc:
                problem = exc
                continue
            if q is not None and q.entity == e.name and len(q.conds) == 1 and q.conds[0].field == f.name:
                return q
    if problem is not None:
        raise problem
    return None


_THERE_THEN = re.compile(r"^How many (?P<plural>[a-z][a-z -]*?) are there (?P<conds>(?:for|of|from|to|by|with) .+)\?$")
_HELD_COUNT = re.compile(rf"^How many (?P<plural>[a-z][a-z -]*?) does (?P<named>(?:my |the |{_WHOSE}).+|{_CODED}) have\?$")


_THERE_FOR = re.compile(rf"^How many (?P<plural>[a-z][a-z -]*?) are there for (?P<named>(?:my |the |{_WHOSE}).+)\?$")


def _held_count(spec: Spec, text: str) -> Question | None:
    """"How many statements does my Savings account (··9357) have?", or "How many payments are
    there for …?" where the holder's name ends on a day: a count of the rows that name the row said
    as their holder (`render._holder`); None when the text is no such question."""
    there = _THERE_FOR.match(text)
    if there is not None and SPOKEN_DAY.search(there["named"]):
        text = f"How many {there['plural']} does {there['named']} have?"
    m = _HELD_COUNT.match(text)
    if m is None:
        return None
    ent = next((e for e in spec.entities if spoken_plural(e) == m["plural"]), None)
    if ent is None:
        return None
    for target in sorted({f.ref for f in ent.fields if f.type == "reference" and f.ref}):
        f = holder_field(spec, ent, target)
        if f is None:
            continue
        try:
            ref = read_name(spec, target, m["named"])
            name_text = name_of(spec, target, RefText(ref.text, mine=ref.mine), "subject")
        except ParseError:
            continue
        if name_text == m["named"]:  # the name reads back as that kind of row, not as a looser reading
            return Question("count", ent.name, conds=(Cond(f.name, f'"{ref.text}"'),))
    return None


def _question(spec: Spec, op: str, m: re.Match[str]) -> Question:
    if op == "only":
        ent = next((e for e, phrase in ((spec.entity(n), t) for n, t in my_phrases(spec).items())
                    if phrase == m["only"].lower()), None)
        if ent is None:
            raise ParseError(f"{m['only']!r} is no row the user has only one of")
        return Question("lookup", ent.name, field_by(ent, m["field"]), RefText(my_only(ent), ONLY))
    if op == "named":  # "the balance of my Main Checking account (··3808)": the entity its noun names
        fits = []
        for e in spec.entities:
            # its noun, or the kind its label opens on ("the Spin class on June 19 …": a class session)
            nouns = [n for n in (noun(said(e)), kind_noun(spec, e)) if n]
            # or the act it is, of things said after it ("the … tickets transferred to me": a transfer)
            nouns += [grammar.participle(n) for n in nouns if " " not in n and grammar.is_verb(n)]
            if any(re.search(rf"\b{re.escape(n)}\b", m["named"], re.IGNORECASE) for n in nouns):
                try:  # "my enrollment for the BIOL1020-A-F25 section" names an enrollment, not a section
                    fits.append((e, read_name(spec, e.name, m["named"])))
                except ParseError:
                    continue
        if len(fits) != 1:
            raise ParseError(f"{m['named']!r} names {'no' if not fits else 'more than one'} kind of row")
        ent, ref = fits[0]
        return Question("lookup", ent.name, field_by(ent, m["field"]), RefText(ref.text))
    if op == "bare":  # a row whose name starts with its noun: "… of Flat 34, Harbour View?"
        ent = next((e for e in spec.entities if says_its_noun(spec, e, RefText(m["bare"]))), None) or (
            said_bare_by(spec, m["field"]))  # "… of Dublin Comedy Gala?" (`conds_said.said_bare_by`)
        if ent is None:
            raise ParseError(f"{m['bare']!r} names no kind of row by its first words")
        return Question("lookup", ent.name, field_by(ent, m["field"]), RefText(m["bare"]))
    if op == "lookup":
        ent = entity_by(spec, m["entity"], plural=False)
        return Question("lookup", ent.name, field_by(ent, m["field"]), RefText(m["ref"]))
    ent, first_conds = entity_and_conds(spec, m["plural"], plural=True)
    conds = first_conds + parse_conds(ent, m.groupdict().get("conds"), spec)
    if op == "count":
        return Question("count", ent.name, conds=conds)
    if op == "sum":
        try:
            field = field_by(ent, m["field"])
        except ParseError:  # "the total price": a field labelled "Total price", said once
            field = field_by(ent, f"total {m['field']}")
        return Question("sum", ent.name, field, conds=conds)
    return Question(DIRECTIONS[m["dir"]], ent.name, field_by(ent, m["field"]), conds=conds,
                    tie=bool(m["tie"]))
