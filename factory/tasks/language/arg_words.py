"""Words one argument is said with, beside a frame (`frames.py`): a yes/no thing and its state
("the tank not full"), a due date ("due April 19"), an item "with" cannot take ("out of 50"), an
enum whose values name things ("windscreen damage"), a measure "of" its noun ("a weight of 1947
kg") and a person by name and part ("Vikram Iyer as the customs broker"). Functions of the spec
alone; the renderer and the parser both ask them, so a form is written and read by one rule."""

from __future__ import annotations

import re

from factory.spec.model import FieldSpec, ParamSpec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.measures import count_noun, value_first
from factory.tasks.language.modifiers import stands_before
from factory.tasks.language.spoken import noun, said
from factory.tasks.language.values import PERSON_NAME

# The prepositions a frame's own pieces use ("Move to …", "Transfer between …", "Mark as …").
FRAME_PREPOSITIONS = frozenset(["between", "to", "from", "for", "on", "in", "into", "at", "of", "with", "by", "toward",
                                "as"])


def names_things(values: list[str]) -> bool:
    """Whether an enum's values name things ("windscreen", "door panel", "interior"), which make a
    compound with the noun after them ("windscreen damage"): each ends in a noun, most in a word
    that is only a noun. A degree ("minor", "moderate", "high") needs its label to say what it
    grades, so it is none."""
    lasts = [v.replace("_", " ").split()[-1] for v in values]
    if not lasts or not all(grammar.is_noun(w) and grammar.known(w) and w.islower() for w in lasts):
        return False
    return 2 * sum(1 for w in lasts if not grammar.is_adjective(w)) >= len(lasts)


def bare_item(item: str) -> bool:
    """An argument said without a noun of its own ("out of 50", "due April 19", "available from
    July 8"): "with" cannot take it."""
    words = item.split()
    return words[0] in grammar.PREPOSITIONS or words[0] == "due" or (
        len(words) > 2 and words[1] in _BOUNDS and (grammar.is_participle(words[0]) or grammar.is_adjective(words[0])))\
        or (len(words) > 2 and words[1] in ("on", "at") and grammar.is_gerund(words[0]))


_BOUNDS = frozenset(["from", "until", "till", "since"])  # a day's side of a state: "available from"


def when_label(field: FieldSpec | ParamSpec) -> str | None:
    """A day labelled by a state and the preposition of its bound ("Available from", "Valid
    until", "Frozen until"): asked with those words ("When is … available from?"); None otherwise."""
    words = field.label.lower().split()
    if field.type not in ("date", "datetime") or len(words) != 2 or words[1] not in ("from", "until", "till", "since"):
        return None
    state = words[0]
    if not re.fullmatch(r"[a-z]+", state) or not (grammar.is_participle(state) or (
            grammar.is_adjective(state) and not grammar.noun_only(state))):
        return None
    return " ".join(words)


def due_word(param: ParamSpec) -> bool:
    """Whether a date is said as when something is due ("Due date", "Due at", "Due"): "due
    April 19", never "the due date April 19"."""
    words = noun(said(param)).split()
    return param.type in ("date", "datetime") and not param.say and bool(words) and words[0] == "due" \
        and all(w in ("date", "at", "on", "by") for w in words[1:])


# One-word labels of a date that say which end of a span it is: the value follows the word itself
# ("freeze my membership until July 5", never "with the end date July 5").
DAY_WORDS = frozenset(["until", "till", "by", "before", "after", "since"])


def bare_word(param: ParamSpec) -> str | None:
    """The word a value is said after in a list instead of a noun: "due" for a due date
    (`due_word`), the label itself where it is one word of `DAY_WORDS` ("Until" → "until July 5"),
    a state and its bound ("Available from" → "available from July 8", `when_label`), an act and
    its moment ("Leaving on" → "leaving on July 23"), "by" for a choice of how ("Paid by" → "by
    debit card"); else None."""
    if due_word(param):
        return "due"
    if when_label(param) is not None:
        return when_label(param)
    label = param.label.lower().split()
    if param.type == "enum" and len(label) == 2 and label[1] == "by" and grammar.is_participle(label[0]):
        return "by"  # "Paid by": "by debit card", never "the payment method "debit card""
    if param.type in ("date", "datetime") and len(label) == 2 and label[1] in ("on", "at") and grammar.is_gerund(label[0]):
        return " ".join(label)  # "Leaving on": "leaving on July 23", never "a leaving date of July 23"
    words = noun(said(param)).split()
    if param.type in ("date", "datetime") and not param.say and len(words) == 1 and words[0] in DAY_WORDS:
        return words[0]
    return None


def noun_state(param: ParamSpec) -> tuple[str, str] | None:
    """A yes/no label that is a thing and its state ("Tank full", "Seal intact"): the thing and
    the state, said as "the tank full" or "the tank not full"; None for other labels."""
    words = noun(said(param)).split()
    if param.type != "bool" or param.say or len(words) < 2 or not all(re.fullmatch(r"[a-z]+", w) for w in words):
        return None
    *thing, state = words
    if not grammar.is_noun(thing[-1]) or not (grammar.is_adjective(state) or grammar.is_participle(state)) \
            or any(w in FRAME_PREPOSITIONS for w in words):
        return None
    return " ".join(thing), state


CLASSIFIERS = frozenset(["type", "kind", "category", "class", "sort"])  # nouns that name a kind


def classifies(label: str) -> bool:
    """Whether a label names a kind: "Type", "Type of loss", "Leave type" (a classifier noun,
    alone, before "of", or as the head of a compound)."""
    words = label.split()
    return bool(words) and (words[-1] in CLASSIFIERS or (words[0] in CLASSIFIERS and words[1:2] == ["of"]))


def kind_param(workflow: WorkflowSpec, heads: list[str]) -> ParamSpec | None:
    """The one enum parameter that says what kind of thing a run makes, when each of its values can
    stand before the thing's noun `heads` (`spoken.stands_before`); left out, the thing is said
    without it ("Post an assignment")."""
    kinds = [p for p in workflow.params if p.type == "enum" and (not p.say or classifies(noun(said(p)))) and p.values
             and (classifies(noun(said(p))) or names_things(p.values))
             and all(stands_before(v.replace("_", " "), heads) for v in p.values)]
    return kinds[0] if len(kinds) == 1 else None


def measured(param: ParamSpec) -> bool:
    """A whole number that measures something named by a plain noun ("Weight (kg)", "Odometer
    reading", "Payment terms (days)"): said "a weight of 1947 kg" in a list of arguments. Counts
    ("4 guests"), clauses ("6 carried over") and prepositions ("out of 20") have words of their own."""
    words = noun(said(param)).split()
    return (param.type == "int" and not param.say and bool(words) and count_noun(param) is None
            and value_first(param) is None and all(re.fullmatch(r"[a-z]+", w) for w in words)
            and not any(w in grammar.PREPOSITIONS or w in grammar.PARTICLES for w in words)
            and grammar.is_noun(words[-1]))


def of_lead(head: str) -> str:
    """An amount's or a measure's noun before "of": "an estimate", "a weight", or a plural bare
    ("payment terms", "duties")."""
    return head if grammar.is_plural(head.split()[-1]) else grammar.with_article(head)


def named_as(param: ParamSpec, text: str) -> bool:
    """Whether a person given for a part labelled by a plain noun ("Customs broker", "Desk") is
    said by name and part, "Vikram Iyer as the customs broker", in a list of arguments, where the
    label names a part a person plays; a place ("Desk") keeps "the desk Dmitri Volkov", and a
    clause label its words ("books kept by Beatriz Santos")."""
    words = noun(said(param)).split()
    # only a part a person plays ("broker", "manager", "accountant"): a person is no "desk"
    return (param.ref == "user" and not param.say and bool(PERSON_NAME.fullmatch(text)) and bool(words)
            and all(re.fullmatch(r"[a-z]+", w) for w in words) and grammar.agent_noun(words[-1])
            and not any(w in grammar.PREPOSITIONS or w in grammar.PARTICLES or grammar.is_participle(w)
                        for w in words))



def split_label(param: ParamSpec) -> tuple[str, str] | None:
    """A text's label that is a noun and the words that tie it to someone ("Question for the
    requester", "Note to buyer"): its head noun and its tail, so the value follows the noun it
    is ("the question "Which laptop?" for the requester"), never "the question for the requester
    "Which laptop?""; None for any other label or kind of value."""
    words = noun(said(param)).split()
    if param.type not in ("string", "text") or param.say or param.values or len(words) < 3:
        return None
    cut = next((i for i, w in enumerate(words) if i and w in grammar.PREPOSITIONS), None)
    if cut is None or len(words) - cut < 2 or not all(re.fullmatch(r"[a-z]+", w) for w in words):
        return None
    if not grammar.is_noun(words[cut - 1]) or grammar.is_participle(words[cut - 1]):
        return None
    return " ".join(words[:cut]), " ".join(words[cut:])


# Nouns of words a person says to someone: a run that says only one of them says it "saying "…"".
SPEECH_NOUNS = frozenset(["message", "reply", "comment", "answer", "reason", "explanation", "response"])
QUESTION_NOUNS = frozenset(["question", "query"])  # words asked: 'asking "…"'
SPEECH_VERBS = ("saying", "asking")  # the words that lead speech (`speech`), for the reader


def speech(workflow: WorkflowSpec) -> tuple[ParamSpec, str] | None:
    """The one text of a run that is words said to someone ("Message", "Reason", "Question for
    the requester") and the words that lead it where it is all the run adds: 'saying "…"',
    'asking the requester "…"' ('Put ticket INC-41 on hold, asking the requester "…"'); None where
    a run has none, or two (which the lead could not tell apart)."""
    found = []
    for p in workflow.params:
        words = noun(said(p)).split()
        if p.type not in ("string", "text") or p.say or not words:
            continue
        to: list[str] = []
        if len(words) >= 4 and words[1] in ("for", "to") and words[2] == "the":
            head, to = words[0], words[3:]  # "question for the requester": said to someone
        elif len(words) <= 2:
            head = words[-1]
        else:
            continue
        if head in SPEECH_NOUNS:
            found.append((p, "saying" + (f" to the {' '.join(to)}" if to else "")))
        elif head in QUESTION_NOUNS:
            found.append((p, "asking" + (f" the {' '.join(to)}" if to else "")))
    return found[0] if len(found) == 1 else None

