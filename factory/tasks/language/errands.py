"""Compound instructions written as a person's errand: the purpose first, then the actions in order.

"I'm going away soon: lock my card "Visa ··4599", then transfer between accounts from account
"Main Checking ··3808", to account "Emergency Fund ··5290" and amount $200." An errand is two or
more workflow runs (a find-then-act run among them, for a READ_WRITE) joined by a connector after
one of three openers (none, "Please ", "Could you … ?"): in sequence (`, then `, `, and then `,
`. After that, `), as two things to do (`. Also, `, `, and also `), or a row in place of one
taken back (`, and … instead`). Or one run and then a question about the result
(`render_report`: "… Afterwards, what is the balance of my account "Emergency Fund ··5290"?", a
READ_WRITE too). A purpose sentence from a closed pool goes first where one fits the act, else none.

The pool is closed on purpose: the parser (`parse_errands.parse_compound`) strips a purpose only
when it is one of these sentences, so the purpose never carries a value the reward must check; a
text without one is read as an errand only when it reads as no single action. Purposes are picked
by what the errand does (the first word of its first action's verb phrase), so "lock" reads "I'm
going away soon" and "pay" reads "It's the end of the month"; a row made and taken straight back
says why ("I want to see how this works"); a redo and two unrelated actions have none.
"""

from __future__ import annotations

import re

from factory.spec.model import Spec, WorkflowSpec
from factory.tasks.language.asks import ONLY, Ask, AskStep, Question, RefText
from factory.tasks.language.back_refs import back_ref, it_again
from factory.tasks.language.lookup_said import be
from factory.tasks.language.measures import count_noun, done_count, times_done
from factory.tasks.language.render import lower_first, render_question, render_step
from factory.tasks.language.row_names import name_of, read_name
from factory.tasks.language.seed_context import spoken_in
from factory.tasks.language.spoken import field_noun, verb_phrase
from factory.tasks.language.words import subject_entity

# Purpose sentences by the first verb of the errand's first action; each ends with ":" or "."
# and is followed by one space. Keep them free of quotes, digits and field values.
PURPOSES: dict[str, tuple[str, ...]] = {
    "lock": ("I'm going away soon:", "I can't find my wallet, so to be safe:"),
    "unlock": ("I found my wallet again:", "I'm back from my trip:"),
    "report": ("My wallet was stolen yesterday:", "I lost my bag on the train:"),
    "pay": ("It's the end of the month, so:", "I'm catching up on what I owe:"),
    "transfer": ("I'm moving some money around this week:", "Before rent is due:"),
    "schedule": ("I'm planning ahead for next month:", "So I don't forget later:"),
    "cancel": ("Plans changed, so:", "I'm cutting back this month:"),
    "remove": ("I'm cleaning up my lists:", "I don't need some of these anymore:"),
    "add": ("I'm setting things up for later:", "Someone new joined my circle:"),
    "update": ("Some of my details are out of date:", "I'm tidying up my settings:"),
    "rename": ("I'm tidying up my settings:", "The names confuse me:"),
    "set": ("I want fewer surprises:", "I'm tidying up my settings:"),
    "book": ("I'm planning a trip:", "We finally picked our dates:"),
    "save": ("I'm shortlisting places for a trip:", "I want to keep track of a few things:"),
    "block": ("I'll be away from my place for a while:", "My calendar filled up:"),
    "unblock": ("My calendar freed up:", "My plans fell through, so:"),
    "review": ("I'm back home after my stay:", "While I still remember the details:"),
    "snooze": ("I'm taking a break from hosting:", "I need a pause:"),
    "edit": ("I'm reworking my listing:", "I want to fix a few things:"),
    "create": ("I'm getting organised:", "So I don't forget later:"),
    "reply": ("I'm catching up on my inbox:", "Before I log off today:"),
    "forward": ("I'm passing a few things on:", "I'm catching up on my inbox:"),
    "send": ("I'm catching up on my inbox:", "Before I log off today:"),
    "mark": ("I'm sorting my inbox:", "I'm catching up on my inbox:"),
    "star": ("I want to find these again later:", "I'm sorting my inbox:"),
    "archive": ("I'm clearing my inbox:", "I'm sorting my inbox:"),
    "delete": ("I'm clearing out old stuff:", "I'm cleaning up my lists:"),
    "restore": ("I deleted something by mistake:", "I need something back:"),
    "move": ("I'm sorting my inbox:", "I'm moving some things around:"),
    "apply": ("I'm sorting my inbox:", "I'm getting organised:"),
}
# No purpose at all: two unrelated things to do, a change tried and taken back, a row undone and
# made again are said as the actions alone ("Please retire the car "X", then …"). A stock sentence
# in front of them ("Before the weekend:") reads as a template wherever the world has nothing to
# say about why, and a purpose reads as one only where it fits the act (`PURPOSES`).
NO_PURPOSE = ""
GENERIC = (NO_PURPOSE,)
# Make, then undo at once: without a word of why, making a row and taking it straight back reads
# as a mistake in the task, so it says why, in a few words (the actions say the rest: "…, then
# cancel it").
UNDO = ("Just to see how it works:", "As a quick test:")
# Said by earlier versions; still read, so a world built then parses the same.
_WAS_UNDO = ("I want to see how this works, then undo it:", "I'm trying this out, then taking it back:")
# Undo, then redo: a purpose only where the world's rows have dates that can move.
REDO = ("My dates moved, so let's start over:",)

ALL_PURPOSES: tuple[str, ...] = tuple(sorted({p for pool in PURPOSES.values() for p in pool} | set(REDO) | set(UNDO)
                                             | set(_WAS_UNDO),
                                             key=lambda p: -len(p)))
CONNECTORS = (", and then ", ", then ", ". After that, ")
# Two things to do that do not follow from each other are said as two, not as a sequence:
# "Buy 4 tickets for A. Also, ask for a refund for my order for B" ("then" would make the second
# sound like it comes of the first).
ALSO = (". Also, ", ", and also ")
# A row taken back and one like it made in its place: "cancel my booking for A, and book B instead".
INSTEAD, INSTEAD_END = ", and ", " instead"
ALL_CONNECTORS = CONNECTORS + ALSO
# Two runs of one workflow with the verb said once: "rate my ticket A 3 out of 5, and my ticket B 5 out of 5".
ALSO_ONE = ", and "
# How an errand's acts are joined (`render_errand`'s `join`): in sequence, as two things, in place.
THEN, APART, SWAPPED = "then", "apart", "instead"
# The same action on another row, said once: "lock my card "A", and then do the same for my card "B"".
SAME = "do the same for "
REPORT = " Afterwards, "  # act, then report: the question about the result follows
OPENERS = ("", "Please ", "Could you ")


# A purpose that names a thing of some domain ("my inbox", "my wallet", "a trip") fits a world only
# when that world speaks of it: archiving a note is not clearing an inbox. Each such word, with the
# words (as word starts) of which one must occur in the world's title, scenario or the first action's
# workflow and entity.
TOPICS: dict[str, tuple[str, ...]] = {
    "inbox": ("inbox", "mail", "message", "email", "conversation", "thread"),
    "wallet": ("card", "wallet"),
    "bag": ("card", "wallet"),
    "trip": ("trip", "travel", "stay", "booking", "flight", "hotel", "vacation"),
    "rent": ("rent", "bank", "account", "balance"),
    "owe": ("bill", "loan", "fine", "fee", "invoice", "debt", "owe", "payment"),
    "month": ("bill", "rent", "invoice", "statement", "salary", "payment", "budget"),
    # "transfer" is no money word: tickets, queues and shifts are transferred too
    "money": ("money", "account", "balance", "bank", "payment"),
    "hosting": ("host", "listing"),
    "listing": ("listing",),
    "stay": ("stay", "booking", "reservation"),
    "place": ("listing", "stay", "home", "room", "property", "place"),
    "circle": ("contact", "friend", "member", "team", "group", "circle"),
    "calendar": ("calendar", "availability", "booking", "reservation", "schedule", "block"),
    "dates": ("booking", "reservation", "stay", "trip"),
}


# Purposes that speak of the kind of row acted on ("my settings", "my lists") fit only actions on
# such rows: setting a reminder on a note is not tidying one's settings, and removing a message's
# star is not cleaning up a list. Each such word, with the word starts one of which must occur in
# the acting workflow's own label, description or entity (never the world's title).
ACTION_TOPICS: dict[str, tuple[str, ...]] = {
    "settings": ("setting", "alert", "preference", "notification", "profile", "detail", "password", "limit",
                 "privacy", "polic", "rule", "contact"),
    "lists": ("list", "payee", "contact", "label", "favourite", "favorite", "member", "tag", "subscri", "follow",
              "friend", "bookmark", "watch", "saved"),
    "dates": ("book", "reserv", "stay", "trip", "block", "date", "availab", "appointment", "schedul", "event"),
}


def _action_words(spec: Spec, workflow_name: str) -> set[str]:
    """The words of one workflow and of the entity it acts on (lower case)."""
    workflow = next(w for w in spec.workflows if w.name == workflow_name)
    texts = [workflow.label, workflow.description or ""]
    entity = next((e for e in spec.entities if e.name == workflow.subject_entity), None)
    if entity is not None:
        texts += [entity.label, entity.plural]
    return set(re.findall(r"[a-z]+", " ".join(texts).lower()))


def _world_words(spec: Spec, ask: Ask) -> set[str]:
    """The words a world uses of itself and of what `ask` does first (lower case)."""
    own = set(re.findall(r"[a-z]+", f"{spec.title} {spec.scenario}".lower()))
    return own | _action_words(spec, ask.steps[0].workflow)


def _fits(purpose: str, words: set[str], topics: dict[str, tuple[str, ...]]) -> bool:
    """Whether each word of `purpose` that `topics` lists is said by one of `words` (as a word start)."""
    for topic in re.findall(r"[a-z]+", purpose.lower()):
        wanted = topics.get(topic)
        if wanted is not None and not any(w.startswith(stem) for w in words for stem in wanted):
            return False
    return True


def fits_world(purpose: str, words: set[str]) -> bool:
    """Whether each domain word of `purpose` is one the world speaks of (`TOPICS`)."""
    return _fits(purpose, words, TOPICS)


def fits_action(purpose: str, words: set[str]) -> bool:
    """Whether each word of `purpose` about a kind of row (`ACTION_TOPICS`) is said of the action."""
    return _fits(purpose, words, ACTION_TOPICS)


def purposes_for(spec: Spec, ask: Ask, redo: bool = False, undo: bool = False) -> tuple[str, ...]:
    """The purpose sentences that fit what `ask` does first and the world it is in, and no purpose
    (`NO_PURPOSE`); `redo` (undo a row, make it again) has its own or none, `undo` (make a row,
    take it back at once) always says why (`UNDO`)."""
    words = _world_words(spec, ask)
    # A find-then-act step acts itself ("find my oldest booking, then cancel it"): its verb is the act's.
    workflow = next(w for w in spec.workflows if w.name == ask.steps[0].workflow)
    verb = verb_phrase(workflow).split()[0]
    acting = _action_words(spec, workflow.name)
    if undo:  # made and taken straight back: the one errand that needs its why said
        return UNDO
    if redo:  # the two actions say it: "drop my enrollment "X", then enroll in the Y section"
        return tuple(p for p in REDO if fits_world(p, words) and fits_action(p, acting)) + (NO_PURPOSE,)
    found = tuple(p for p in PURPOSES.get(verb, ()) if fits_world(p, words) and fits_action(p, acting))
    return found + GENERIC


def _part(spec: Spec, step: AskStep) -> str:
    """One action inside the errand sentence: the terse form, lower-cased, without its period."""
    text = render_step(spec, step, 0)
    return lower_first(text[:-1] if text.endswith(".") else text)


def render_errand(spec: Spec, ask: Ask, purpose: str, variant: int, join: str = THEN) -> str:
    """The errand text of a compound `ask` (two or more steps), behind `purpose` (one of
    `ALL_PURPOSES`); `variant` picks the opener and the connector; `join` says how the acts hang
    together: in sequence (`THEN`), as two things to do (`APART`), or the second in place of the
    first (`SWAPPED`, two acts)."""
    with spoken_in(spec):
        return _errand(spec, ask, purpose, variant, join)


def _errand(spec: Spec, ask: Ask, purpose: str, variant: int, join: str) -> str:
    if purpose not in ALL_PURPOSES and purpose != NO_PURPOSE:
        raise ValueError(f"{purpose!r} is not one of the purposes the parser knows")
    opener = OPENERS[variant % len(OPENERS)]
    joins = {THEN: CONNECTORS, APART: ALSO, SWAPPED: (INSTEAD,)}[join]
    connector = joins[(variant // len(OPENERS)) % len(joins)]
    if opener == "Could you " and connector.startswith("."):
        connector = ALSO[-1] if join == APART else ", then "  # a question is one sentence
    parts: list[str] = []
    for i, s in enumerate(ask.steps):
        said_again = same_for(spec, ask.steps[i - 1], s) if i else None
        again = it_again(spec, ask.steps[i - 1], s) if i and said_again is None else None
        if again is not None:  # "…, then escalate it": the row the step before acted on
            parts.append(_part(spec, again))
            continue
        # a row the step before named in the same words is "that class" (`back_refs.back_ref`)
        parts.append(said_again or (back_ref(spec, parts[-1], _part(spec, s), s) if i else _part(spec, s)))
    shared = verb_shared(spec, ask.steps, parts) if join != SWAPPED else ""
    if shared:  # "cancel my booking for A, and my booking for B": the verb said once
        body = parts[0] + ALSO_ONE + parts[1][len(shared) + 1:]
    else:
        body = parts[0]
        for part in parts[1:]:
            body += connector + part
    body += INSTEAD_END if join == SWAPPED else ""
    text = f"{opener}{body}{'?' if opener == 'Could you ' else '.'}"
    # After a colon the errand runs on in lower case; after a full stop it starts a sentence.
    text = lower_first(text) if purpose.endswith(":") else text[:1].upper() + text[1:]
    return f"{purpose} {text}" if purpose else text


def verb_shared(spec: Spec, steps: tuple[AskStep, ...], parts: list[str]) -> str:
    """The words of the verb two runs of one workflow both open on ("cancel" of "cancel my booking
    for A" and "cancel my booking for B"), said once: '' when the errand is not two such runs."""
    if len(steps) != 2 or steps[0].workflow != steps[1].workflow or any(s.pick for s in steps):
        return ""
    return next((verb for verb in verbs_of(parts[0], spec, steps[0].workflow)
                 if parts[1].startswith(verb + " ") and parts[0].startswith(verb + " ")), "")


def verbs_of(part: str, spec: Spec, workflow: str) -> list[str]:
    """The leading words of `part` that are its workflow's verb, longest first: what a second run
    said without its verb takes back (`verb_shared`, read by `parse_errands`)."""
    verb = set(verb_phrase(_workflow(spec, workflow)).split())
    words: list[str] = []
    for word in part.split():
        if word.lower() not in verb:
            break
        words.append(word.lower())
    return [" ".join(words[:k]) for k in range(len(words), 0, -1)]


def same_for(spec: Spec, before: AskStep, step: AskStep) -> str | None:
    """The action `step` said as `before` again on another row ("do the same for my card "B""),
    when it runs the same workflow with the same arguments on another row; else None."""
    found = subject_entity(spec, _workflow(spec, step.workflow))
    if step.workflow != before.workflow or found is None:
        return None
    param, ent = found
    mine, theirs = step.args.get(param.name), before.args.get(param.name)
    if not isinstance(mine, RefText) or not isinstance(theirs, RefText) or mine == theirs or ONLY in (mine.by, theirs.by):
        return None
    if {k: v for k, v in step.args.items() if k != param.name} != {k: v for k, v in before.args.items() if k != param.name}:
        return None
    if mine.by is not None or mine.also:
        return None  # a row named by its fields is said inside its action's own words
    return SAME + name_of(spec, ent.name, mine, "subject")


def read_same(spec: Spec, before: AskStep, part: str) -> AskStep | None:
    """The step `same_for` wrote as `part` after `before`, or None when `part` is no such text."""
    if not part.startswith(SAME):
        return None
    found = subject_entity(spec, _workflow(spec, before.workflow))
    if found is None:
        return None
    return AskStep(before.workflow, {**before.args, found[0].name: read_name(spec, found[1].name, part[len(SAME):])})


def render_report(spec: Spec, ask: Ask, purpose: str, variant: int) -> str:
    """Act, then report: the errand of `ask`'s steps, then its question about the result
    ("… Afterwards, what is the balance of my account "Emergency Fund ··5290"?")."""
    with spoken_in(spec):
        return _report(spec, ask, purpose, variant)


def _report(spec: Spec, ask: Ask, purpose: str, variant: int) -> str:
    assert ask.question is not None
    acts = render_errand(spec, Ask("write", steps=ask.steps), purpose, variant)
    if acts.endswith("?"):  # "Could you …?" asks one thing: the report needs its own sentence
        acts = render_errand(spec, Ask("write", steps=ask.steps), purpose, 0)
    own = its_field(spec, ask.steps, ask.question)
    if own is not None:  # the row just acted on is "it": "… Afterwards, what is its status?"
        return f"{acts}{REPORT}what {be(own)} its {own}?"  # "what are its fees owed?" (`lookup_said.be`)
    return acts + REPORT + lower_first(render_question(spec, ask.question, 0))


def its_field(spec: Spec, steps: tuple[AskStep, ...], q: Question) -> str | None:
    """The field a report asks of the row a step named (said "its <field>"), None when the
    question is about another row or its field has words of its own ("How many …")."""
    if q.op != "lookup" or q.field is None or q.target is None:
        return None
    f = spec.entity(q.entity).field_named(q.field)
    if f.type == "bool" or count_noun(f) is not None or times_done(f) is not None \
            or done_count(spec.entity(q.entity), f) is not None:  # "how many tickets have been sold in …?"
        return None
    named = {a for s in steps for p in _workflow(spec, s.workflow).params if p.ref == q.entity
             for a in [s.args.get(p.name)] if isinstance(a, RefText)}
    # only one row of its kind was named: "its" cannot mean another ("Transfer … from A to B")
    return field_noun(f) if named == {q.target} and _said_once(spec, steps, field_noun(f)) else None


def _said_once(spec: Spec, steps: tuple[AskStep, ...], field_said: str) -> bool:
    """Whether exactly one row the steps name has a field said `field_said` (so "its" is one)."""
    rows = {(p.ref, a) for s in steps for p in _workflow(spec, s.workflow).params
            for a in [s.args.get(p.name)] if p.ref and isinstance(a, RefText)
            and any(field_noun(f) == field_said for f in spec.entity(p.ref).fields)}
    return len(rows) == 1


def read_its(spec: Spec, steps: tuple[AskStep, ...], field_said: str) -> Question | None:
    """The question "what is its <field> now?" asks after `steps` (`its_field`, read back)."""
    for s in reversed(steps):
        for p in _workflow(spec, s.workflow).params:
            arg = s.args.get(p.name)
            if p.ref is None or not isinstance(arg, RefText):
                continue
            f = next((f for f in spec.entity(p.ref).fields if field_noun(f) == field_said), None)
            if f is not None:
                return Question("lookup", p.ref, f.name, arg)
    return None


def _workflow(spec: Spec, name: str) -> WorkflowSpec:
    return next(w for w in spec.workflows if w.name == name)
