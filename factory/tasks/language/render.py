"""Rendering the instruction language: an `Ask`'s questions, conditions, arguments and workflow
runs as text, in the colon forms (`Lock card: "Visa ··4599"; lock reason "travel".`) and the
sentences a person would type (`Lock my card "Visa ··4599", lock reason "travel".`).

Every form written here is read back by `parse.py` (questions by `parse_questions.py`); the
conditions after a noun are said by `conds_said.py`. The entry point that picks among them (and
joins two steps) is `phrasing.render`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from factory.spec.model import EntitySpec, FieldSpec, Spec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.arg_phrases import arg_phrase
from factory.tasks.language.asks import ONLY, AskStep, Cond, ParseError, Question, RefText
from factory.tasks.language.conds_said import (
    PROPER_NAME,
    after_noun,
    day_field,
    lead_word,
    render_conds,
    said_bare_by,
    said_quality,
    with_conds,
)
from factory.tasks.language.frames import IT, frame
from factory.tasks.language.frames_render import render_frame
from factory.tasks.language.lookup_said import be, head_noun, lookup_said
from factory.tasks.language.measures import (
    CHEAPEST,
    DEAREST,
    LARGEST,
    PRICE_NOUNS,
    SMALLEST,
    amount_field,
    count_noun,
    day_act,
    done_count,
    price_field,
    times_done,
)
from factory.tasks.language.modifiers import adjective
from factory.tasks.language.row_labels import SPOKEN_DAY, person_split
from factory.tasks.language.row_names import name_of
from factory.tasks.language.spoken import (
    a,
    entity_noun,
    field_noun,
    noun,
    recency_field,
    said,
    spoken_plural,
    verb_phrase,
)
from factory.tasks.language.values import param_text, priced
from factory.tasks.language.words import possessed_head, scope_word, subject_entity

TIE_BREAK = " If several tie, name the one that comes first alphabetically."


def lower_first(label: str) -> str:
    """A label inside a sentence: "Lock card" → "lock card" (the rest keeps its capitals)."""
    return label[:1].lower() + label[1:]


def render_args(workflow: WorkflowSpec, args: dict[str, Any]) -> str:
    """`"<subject>"; <label> <value>; …`: the row acted on needs no label, it comes first."""
    params = {p.name: p for p in workflow.params}
    parts = []
    if workflow.subject in args:
        parts.append(param_text(params[workflow.subject], args[workflow.subject]))
    parts += [arg_phrase(params[name], value) for name, value in args.items() if name != workflow.subject]
    return "; ".join(parts)


def render_list(workflow: WorkflowSpec, args: dict[str, Any], joiner: str = " ", lead: str = "") -> str:
    """The arguments as a list (`from account "A", to account "B" and amount $5.00`); `lead`
    goes before each label ("the "), `joiner` between label and value (" to "). A range's end
    goes with its start: `period May 5, 2026 to May 11, 2026`."""
    params = priced(workflow.params, args, workflow.subject)
    parts = []
    for name, value in args.items():
        p = params[name]
        if joiner == " " and p.range_of in args:
            continue  # said with its start
        part = arg_phrase(p, value, joiner, article=lead)  # a predicate label ("starts on") takes none
        if joiner == " " and p.range_end in args:
            part += " to " + param_text(params[p.range_end or ""], args[p.range_end or ""])
        parts.append(part)
    return grammar.listed(parts)


def _subject_phrase(spec: Spec, workflow: WorkflowSpec, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The verb phrase with the row acted on (`Lock my card "Visa ··4599"`,
    `Block dates for my listing "Loft"`, `Star my message "Hi"`) and the other arguments."""
    found = subject_entity(spec, workflow)
    verb = verb_phrase(workflow)
    if found is None or found[0].name not in args:
        return verb, args
    param, ent = found
    value = args[param.name]
    rest = {k: v for k, v in args.items() if k != param.name}
    only = isinstance(value, RefText) and value.by == ONLY
    head = possessed_head(spec, workflow)
    if head is not None:  # "my card" already says which when it is the user's only one
        return (head if only else f"{head} {param_text(param, value)}"), rest
    named = value.text if only else f"{scope_word(ent)} {entity_noun(ent)} {param_text(param, value)}"
    split = split_verb(verb)
    if split is not None:  # "Save the listing "Loft" to the wishlist", never "Save to wishlist for …"
        return f"{split[0]} {named} {split[1]}", rest
    link = " " if len(verb.split()) == 1 else " for "  # "Star my message", "Block dates for …"
    return f"{verb}{link}{named}", rest


_SPLIT_PREPOSITIONS = frozenset(["to", "into", "onto", "from", "in", "as", "off", "out"])


def split_verb(verb: str) -> tuple[str, str] | None:
    """A verb phrase whose object goes inside it ("save to wishlist" → ("save", "to the
    wishlist"), "add to favourites" → ("add", "to my favourites"), "mark as read" → ("mark",
    "as read")); None for the others. `parse._parse_sentence` reads the same split back."""
    words = verb.split()
    if len(words) < 2 or words[1] not in _SPLIT_PREPOSITIONS:
        return None
    tail = words[1:]
    if len(tail) == 2 and tail[0] != "as" and tail[1] not in ("a", "an", "the", "my", "it"):
        tail = [tail[0], "my" if tail[1].endswith("s") and not tail[1].endswith("ss") else "the", tail[1]]
    return words[0], " ".join(tail)


def render_sentence(spec: Spec, workflow: WorkflowSpec, args: dict[str, Any], style: int) -> str:
    """A write as a person would type it: `Lock my card "A", reason "travel".` (style 0),
    `Please … with ….` (1), `Could you … with the reason "travel"?` (2). A workflow whose label
    starts with a verb is said by its frame (`frames.py`): "Transfer $200 from my … to my …"
    (terse), "Please transfer …." (polite) or "Could you transfer …?" (a question)."""
    found = frame(spec, workflow)
    whole = bulk_sentence(workflow) if not workflow.params else None
    if whole is not None:  # "Mark every sent invoice … as overdue" says what a run of "Chase overdue" does
        return (f"Please {lower_first(whole)}." if style % 3 == 1 else
                f"Could you {lower_first(whole)}?" if style % 3 == 2 else f"{whole}.")
    if found is not None:
        try:
            body = render_frame(spec, found, workflow, args)
        except ParseError:
            body = ""  # a row named by its fields: the older sentence names it
        if body:
            return (f"Please {lower_first(body)}." if style % 3 == 1 else
                    f"Could you {lower_first(body)}?" if style % 3 == 2 else f"{body}.")
    phrase, rest = _subject_phrase(spec, workflow, args)
    # an amount in the currency of the row the run is for (`values.priced`), as a frame says it
    workflow = workflow.model_copy(update={"params": list(priced(workflow.params, args, workflow.subject).values())})
    # each value with its article, as a frame's list says it ("with the title "Taxi rides", the amount $150")
    items = render_list(workflow, rest, lead="the ") if rest else ""
    if style % 3 == 1:
        return f"Please {lower_first(phrase)}" + (f" with {items}." if items else ".")
    if style % 3 == 2:  # one question: "Could you create a new expense report with the title …?"
        return f"Could you {lower_first(phrase)} with {items}?" if items else f"Could you {lower_first(phrase)} for me?"
    phrase = phrase[:1].upper() + phrase[1:]
    if not items:
        return f"{phrase}."
    return f"{phrase}{', ' if len(rest) < len(args) else ' with '}{items}."


# The seed's description speaks to the user ("your freelancers"); the user's request speaks of them.
_FIRST_PERSON = {"your": "my", "you": "I", "yours": "mine", "yourself": "myself"}


def bulk_sentence(workflow: WorkflowSpec) -> str | None:
    """What a run of a workflow without parameters does, as its user asks for it: the first
    sentence of its description when that is a request ("Mark every sent invoice of your
    freelancers that is past due as overdue." → "Mark every sent invoice of my freelancers …"),
    else None (the label says it). `parse.parse_step` reads it back."""
    first = re.split(r"(?<=[.!?])\s", (workflow.description or "").strip(), maxsplit=1)[0].rstrip(".!? ")
    words = first.split()
    if not words or not grammar.is_verb(words[0]) or re.search(r"[\"{};:()]", first):
        return None
    return " ".join(_FIRST_PERSON.get(w.lower(), w) for w in words)


def _word(spec: Spec, entity: str, field: str, op: str) -> str:
    f = spec.entity(entity).field_named(field)
    if f.type in ("date", "datetime"):
        return "latest" if op == "max" else "earliest"
    # "the fewest paid hours", "the most classes held at once": the head noun is what is counted
    plural = f.type != "money" and grammar.is_plural(head_noun(field_noun(f)))
    if count_noun(f) is not None or times_done(f) is not None or plural:  # "the most travellers", not "the highest"
        return "most" if op == "max" else "fewest"
    return "highest" if op == "max" else "lowest"


def ranked(spec: Spec, entity: str, field: str, op: str) -> str:
    """What the row found has the most or least of: "has the highest balance", "has the most
    guests", for a count of times "has been lent the most times", by its plain date "is the most
    recent", by its price "is the cheapest" (`parse_conds.unranked` reads the last three back)."""
    f = spec.entity(entity).field_named(field)
    done = times_done(f)
    if done is not None:
        return f"has been {done} the {_word(spec, entity, field, op)} times"
    if recency_field(spec.entity(entity)) is f:  # "the message that is the most recent", not "has the latest day"
        return "is the most recent" if op == "max" else "is the oldest"
    if price_field(spec.entity(entity)) is f:  # "the tier that is the cheapest", not "has the lowest price"
        return f"is the {DEAREST if op == 'max' else CHEAPEST}"
    if amount_field(spec.entity(entity)) is f:  # "the payment that is the largest", not "has the highest amount"
        return f"is the {LARGEST if op == 'max' else SMALLEST}"
    done_to = done_count(spec.entity(entity), f)
    if done_to is not None:  # "has the most tickets sold", never "has the highest number sold"
        return f"has the {'most' if op == 'max' else 'fewest'} {done_to[0]} {done_to[1]}"
    # a count is ranked by the things counted: "has the most reopens", never "the most reopen count"
    return f"has the {_word(spec, entity, field, op)} {count_noun(f) or field_noun(f)}"


def holder_field(spec: Spec, ent: EntitySpec, target: str) -> FieldSpec | None:
    """The one field of a private entity's rows naming a private row of `target` they belong to
    (a statement's account), so "the statements my account has" are exactly those the user sees
    with that account; None when there is no such single field, or when `target` counts a field of
    that name itself ("How many travellers does my trip have?" asks its own field)."""
    refs = [f for f in ent.fields if f.type == "reference" and f.ref == target]
    held = spec.entity(target) if len(refs) == 1 and target != ent.name and not spec.entity(target).builtin else None
    # Rows everyone sees are counted whole ("How many holds does the book … have?"); rows only their
    # owners see are counted as the user sees them, so only of a row the user holds too.
    if held is None or (ent.visibility != "public" and held.visibility == "public"):
        return None
    if any(count_noun(f) == spoken_plural(ent) for f in held.fields):
        return None
    # a plain belonging ("account"), not a role the field gives the row ("from account", "payer")
    return refs[0] if noun(refs[0].label) == noun(said(held)) else None


def _holder(spec: Spec, ent: EntitySpec, conds: tuple[Cond, ...]) -> str | None:
    """The row a count's one condition names as the holder of the rows counted, as a sentence
    names it ("my High-Yield Savings account (··9357)"); None when the condition is another."""
    if len(conds) != 1 or conds[0].upper is not None or not conds[0].value.startswith('"'):
        return None
    f = ent.field_named(conds[0].field)
    if f.type != "reference" or f.ref is None or holder_field(spec, ent, f.ref) is not f:
        return None
    text = conds[0].value[1:-1]
    # a holder named after a person is theirs ("Wendy Walker's … membership"), whoever asks
    someones = person_split(spec, spec.entity(f.ref), text) is not None
    try:
        return name_of(spec, f.ref, RefText(text, mine=False if someones else None), "subject")
    except ParseError:
        return None


def spoken_order(ent: EntitySpec, conds: tuple[Cond, ...]) -> tuple[Cond, ...]:
    """The conditions in the order a person says them: one said as a word before the noun first
    ("my unpinned notes", `adjective`), then the place the rows are kept in ("in the notebook …",
    `container`), then the rest as proposed. A question's conditions have no order of their own
    (`Question.__eq__`)."""
    lead = next((c for c in conds if adjective(ent, (c,))[0]), None)
    rest = [c for c in conds if c is not lead]
    place = next((c for c in rest if c.upper is None and lead_word(ent.field_named(c.field)) is not None), None)
    return tuple(([lead] if lead else []) + ([place] if place else []) + [c for c in rest if c is not place])


def says_its_noun(spec: Spec, ent: EntitySpec, ref: RefText) -> bool:
    """Whether a row's name starts with its own noun and so needs no "the flat" before it ("Flat
    34, Harbour View"), asked about bare; only one entity's noun may start it, and no quote, so the
    parser knows which kind of row it is (`parse._bare_lookup`)."""
    if ref.by is not None or '"' in ref.text or not ref.text[:1].isupper():
        return False
    starts = [e for e in spec.entities if not e.builtin
              and re.match(rf"{re.escape(noun(said(e)))}\b", ref.text, re.IGNORECASE)]
    return starts == [ent]


def question_scope(ent: EntitySpec, q: Question) -> str:
    """ "my" or "the" before the rows a question asks over: "the" where the user does not hold
    them ("Approve whichever of the pending leave requests …", said by their manager)."""
    return "the" if q.mine is False else scope_word(ent)


def render_question(spec: Spec, q: Question, variant: int) -> str:
    ent = spec.entity(q.entity)
    q = replace(q, conds=spoken_order(ent, q.conds))
    scope, label, plural = question_scope(ent, q), noun(said(ent)), spoken_plural(ent)
    adj, rest = adjective(ent, q.conds)
    if adj and (q.op != "count" or rest):  # "my active payees" (a count still needs a condition after)
        plural, q = adj + plural, replace(q, conds=rest)
    conds = render_conds(spec, q.entity, q.conds)
    if q.op == "lookup":
        assert q.target is not None and q.field is not None
        field = ent.field_named(q.field)
        if q.target.by == ONLY:  # the user's only one: "What is the city of my contact details?"
            return lookup_said(field, q.target.text, variant)
        if says_its_noun(spec, ent, q.target):  # "What is the availability date of Flat 34, Harbour View?"
            return lookup_said(field, q.target.text, variant, currency_of=ent)
        try:  # the row as people name it: "my Main Checking account (··3808)", "my visa card ··9591"
            named = name_of(spec, q.entity, q.target, "subject")
        except ParseError:  # named by its fields
            named = f'{scope} {label} "{q.target.text}"'
        asked = lookup_said(field, named, variant, ent)
        if f" {label}'s " in asked and said_bare_by(spec, field_noun(field)) is ent and q.target.by is None \
                and PROPER_NAME.fullmatch(q.target.text) and q.target.text.split()[0].lower() not in ("the", "a", "an"):
            # a row other labels carry by its bare name is asked of by it: "What is the status of
            # Dublin Comedy Gala?", never "What is the Dublin Comedy Gala event's status?"
            return lookup_said(field, q.target.text, variant, currency_of=ent)
        return asked
    if q.op == "count":
        held = _holder(spec, ent, q.conds) if not adj and variant % 2 == 0 else None
        if held is not None and SPOKEN_DAY.search(held):  # "How many payments are there for Wendy
            return f"How many {plural} are there for {held}?"  # Walker's membership since 2 February?"
        if held is not None:  # "How many statements does my Savings account (··9357) have?"
            return f"How many {plural} does {held} have?"
        # a count is asked "How many …?", as people ask one, never "Count …" nor "Can you count …?"
        span = q.conds[0] if len(q.conds) == 1 and q.conds[0].upper is not None and not adj else None
        act = day_act(ent.field_named(span.field)) if span is not None and day_field(ent) is not ent.field_named(
            span.field) else None
        if span is not None and act is not None:  # "How many assets were bought between 1 and 7 September?"
            return f"How many {'of my ' if scope == 'my' else ''}{plural} were {act} between {span.value} and {span.upper}?"
        if adj and not rest:  # only the status: "How many active cards do I have?"
            return f"How many {adj}{plural} {'do I have' if scope == 'my' else 'are there'}?"
        after = after_noun(spec, q.entity, q.conds)
        if after.startswith(" whose "):  # "How many models are there whose model is "Golf"?"
            return f"How many {plural} {'do I have' if scope == 'my' else 'are there'}{after}?"
        if with_conds(conds) == f" {conds}" and scope == "my":  # "How many of my shifts are for the Transport
            return f"How many of my {plural} are {conds}?"        # department?", never "… do I have?"
        if with_conds(conds) == f" {conds}" and said_quality(conds):  # "How many of the plans are off-peak only?"
            return f"How many of {scope} {plural} are {conds}?"
        if with_conds(conds) == f" {conds}" and conds.split(" ", 1)[0] in grammar.WHERE_PREPOSITIONS | {"not"}:
            return f"How many {plural} are {conds}?"  # "How many branches are in Bristol?", "… tiers are on sale?"
        if with_conds(conds) == f" {conds}":  # "How many cars are there for the … branch?", not "have for"
            return f"How many {plural} are there {conds}?"
        return f"How many of {scope} {plural} have {conds}?"
    if q.op == "sum":
        assert q.field is not None
        field = ent.field_named(q.field)
        counted = count_noun(field)
        f = f"number of {counted}" if counted is not None else field_noun(field)
        total = f if f.startswith("total ") else f"total {f}"  # never "the total total price"
        # "the total amount spent across the budgets": "of" would join the budgets to "spent"
        over = "of" if len(f.split()) == 1 else "across"
        if f.split()[-1] in PRICE_NOUNS and f.split()[-1] != "cost":
            over = "for"  # what is paid is paid for things: "the total rent for the flats at Maple Terrace"
        return f"What {be(total)} the {total} {over} {scope} {plural}{after_noun(spec, q.entity, q.conds)}?"
    assert q.field is not None
    which = after_noun(spec, q.entity, q.conds)
    tie = TIE_BREAK if q.tie else ""
    return f"Which of {scope} {plural}{which} {ranked(spec, q.entity, q.field, q.op)}?{tie}"


# Verbs whose object takes a preposition ("reply to it"), and words after a verb that put the
# object before them ("mark it as read", "move it to inbox", "delete it forever").
_INTRANSITIVE = {verb: f"{prep} " for verb, prep in grammar.INTRANSITIVE.items()}
_PARTICLES = frozenset({"as", "to", "from", "forever", "into", "onto", "in", "out", "off", "back", "up", "down",
                        "over", "away", "aside"})
_STATES = frozenset({"lost", "stolen", "missing", "damaged", "done", "paid", "complete", "read", "unread", "closed",
                     "open", "active", "inactive", "resolved"})


def pick_verb(spec: Spec, workflow: WorkflowSpec, entity: str | None = None) -> str:
    """What a find-then-act instruction does to the row found: "pay it", "lock it", "update the
    notification settings for it" (the verb of the possessed head, else the verb phrase + "for")."""
    head = possessed_head(spec, workflow)
    found = subject_entity(spec, workflow)
    if head is not None and found is not None:
        verb = head.split()[: -len(found[1].label.split()) - 1]
        return lower_first(" ".join(verb)) + " it"
    phrase = verb_phrase(workflow)
    if entity is None:
        return f"{phrase} for it"
    words = phrase.split()
    act, rest = words[0], words[1:]
    # the row found named after the verb ("pay a payee", "send the draft", "report card lost or
    # stolen") becomes "it": "pay it", "send it", "report it lost or stolen"
    subject = next((p for p in workflow.params if p.name == workflow.subject and p.ref == entity), None)
    for name in [noun(said(spec.entity(entity)))] + ([noun(said(subject))] if subject is not None else []):
        thing = name.split()
        at = 1 + (1 if rest[:1] and rest[0] in ("a", "an", "the", "my") else 0)
        after = words[at + len(thing):]
        # only when the noun is the object, not a modifier ("change budget limit" keeps its noun)
        if words[at:at + len(thing)] == thing and (not after or after[0] in _PARTICLES or after[0] in _STATES):
            return " ".join([act, "it", *after])
    if not rest:  # one verb: "archive it"; a verb that takes its object with a preposition: "reply to it"
        return f"{act} {_INTRANSITIVE.get(act, '')}it".replace("  ", " ")
    if rest[0] in _PARTICLES:  # "mark as read" → "mark it as read", "delete forever" → "delete it forever"
        return " ".join([act, "it", *rest])
    obj = " ".join(rest[1:] if rest[0] in ("a", "an", "the") else rest)
    if act in ("remove", "clear", "take"):  # "remove star" → "remove the star from it"
        return f"{act} the {obj} from it"
    if act in ("apply", "attach", "assign"):  # "apply label" → "apply a label to it"
        return f"{act} {a(obj)} to it"
    return f"{phrase} for it"


_IT_WORD = re.compile(r"(?<![\w\"'])it(?![\w\"'])")


def whichever(spec: Spec, ent: EntitySpec, adj: str, which: str, rank: str, act: str,
              scope: str | None = None) -> str | None:
    """A find-then-act said as one sentence, the row found in the act's own place: "Retire
    whichever car for the Heathrow T5 branch has the latest service date.", "Accept the offer for
    whichever of my applications for the flat "Flat 26" has the highest offer."; None when the act
    has no single "it" outside quotes to put it in, or the row is ranked by its age ("the most
    recent", said "Find …, then …"). `parse_picks.pick_whichever` reads it back."""
    outside = re.sub(r'"[^"]*"', lambda m: " " * len(m.group(0)), act)
    places = list(_IT_WORD.finditer(outside))
    priced = rank.removeprefix("is the ") in (CHEAPEST, DEAREST, LARGEST, SMALLEST)
    if not act or len(places) != 1 or not (rank.startswith("has ") or priced):
        return None
    mine = (scope or scope_word(ent)) == "my"
    if priced and (" with " in which or which.startswith(" whose ")):
        return None  # "the cheapest tier with …" would read its conditions as the act's
    if priced:  # "Hold the most expensive ticket tier for the … event" (`parse_picks.pick_superlative`)
        said_row = f"{'my' if mine else 'the'} {rank.removeprefix('is the ')} {adj}{noun(said(ent))}{which}"
    elif rank.startswith("has the ") and " with " not in which and not which.startswith(" whose "):
        # "Buy 1 ticket in the ticket tier for the … event with the highest price", as people put
        # a superlative; "whichever" only where a "with" or "whose" is said already
        said_row = f"{'my' if mine else 'the'} {adj}{noun(said(ent))}{which} with {rank.removeprefix('has ')}"
    elif mine:
        said_row = f"whichever of my {adj}{spoken_plural(ent)}{which} {rank}"
    else:
        said_row = f"whichever {adj}{noun(said(ent))}{which} {rank}"
    at = places[0]
    head, tail = act[:at.start()], act[at.end():]
    if tail.strip() in grammar.PARTICLES:  # "check it out" → "Check out whichever …": the particle
        head, tail = f"{head}{tail.strip()} ", ""  # goes before a long object, never after it
    elif tail:  # "log the damage for it with the area …": a clause mid-sentence reads as two
        return None
    text = head + said_row + tail
    return text[:1].upper() + text[1:] + "."


def render_step(spec: Spec, step: AskStep, variant: int) -> str:
    """One workflow run, as a person would type it (`render_sentence`: terse, "Please …", "Could
    you … for me?"). The older colon forms (`Lock card: "A"; reason "travel".`) are still read
    (`parse.py`) but no longer written: they paste the workflow's label where a verb belongs."""
    workflow = next(w for w in spec.workflows if w.name == step.workflow)
    if step.pick is not None:
        param, q = step.pick
        ent = spec.entity(q.entity)
        q = replace(q, conds=spoken_order(ent, q.conds))
        adj, rest_conds = adjective(ent, q.conds)
        assert q.field is not None
        which = after_noun(spec, q.entity, rest_conds)
        rest = {k: v for k, v in step.args.items() if k != param}
        found = frame(spec, workflow)
        act = ""
        if found is not None:  # "…, then pay it $25 from my Main Checking account (··3808)."
            try:
                act = render_frame(spec, found, workflow, {**rest, param: RefText(IT, ONLY)})
            except ParseError:
                act = ""
        age = ranked(spec, q.entity, q.field, q.op).removeprefix("is the ")
        scope = question_scope(ent, q)
        # one sentence wherever the act has a place for the row ("Retire whichever car …"); "Find
        # …, then …" reads as a template where it can be helped
        chosen = whichever(spec, ent, adj, which, ranked(spec, q.entity, q.field, q.op), act, scope)
        if chosen is not None:  # "Retire whichever car for the Heathrow T5 branch has the latest service date."
            return chosen
        if act and age in ("most recent", "oldest", CHEAPEST, DEAREST, LARGEST, SMALLEST):  # "Find my most recent …, then …"
            return f"Find {scope} {age} {adj}{noun(said(ent))}{which}, then {lower_first(act)}."
        if act:
            return (f"Find {scope} {adj}{noun(said(ent))}{which} that "
                    f"{ranked(spec, q.entity, q.field, q.op)}, then {lower_first(act)}.")
        which = after_noun(spec, q.entity, q.conds)
        tail = f" with {render_list(workflow, rest)}" if rest else ""
        return (f"Find {scope} {noun(said(ent))}{which} that "
                f"{ranked(spec, q.entity, q.field, q.op)}, then {pick_verb(spec, workflow, q.entity)}{tail}.")
    return render_sentence(spec, workflow, step.args, variant % 3)
