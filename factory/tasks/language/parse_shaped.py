"""Arguments said in a shape of their own rather than `<label> <value>` (`parse.parse_args` tries
these first at each place in a list): a count ("4 guests"), a value before its words ("6 carried
over"), a state ("the tank not full"), a value of a scale ("high priority"), a text inside its
label ("the question "…" for the requester"), a row's name before its noun ("the Docklands
Off-Peak plan"), a person by name and part ("Vikram Iyer as the customs broker") and a text that
repeats the row named before it ("that as the summary"). Each is the reading of one form
`arg_phrases.arg_phrase` writes.
"""

from __future__ import annotations

import re
from typing import Any

from factory.spec.model import ParamSpec, WorkflowSpec
from factory.tasks.language.arg_phrases import SameAsNamed, named_before_noun, same_as_named
from factory.tasks.language.arg_words import named_as, noun_state, split_label
from factory.tasks.language.asks import ParseError, RefText
from factory.tasks.language.measures import count_noun, counted, value_first
from factory.tasks.language.modifiers import graded
from factory.tasks.language.spoken import (
    noun,
    said,
)
from factory.tasks.language.values import PERSON_NAME, scan_value


def _named_as_at(workflow: WorkflowSpec, text: str, pos: int) -> tuple[ParamSpec, str, int] | None:
    """A person said by name and part at `pos` ("Vikram Iyer as the customs broker"): the
    parameter, the name and the end."""
    m = PERSON_NAME.match(text, pos)
    if m is None:
        return None
    for p in workflow.params:
        tail = f" as the {noun(said(p))}"
        if named_as(p, m[0]) and text.startswith(tail, m.end()):
            return p, m[0], m.end() + len(tail)
    return None


def _said_at(workflow: WorkflowSpec, text: str, pos: int, lead: str) -> tuple[ParamSpec, Any, int] | None:
    """An argument said in a shape of its own at `pos` rather than `<label> <value>`: a count ("4
    guests"), a value before its words ("6 carried over"), a state ("the tank not full"), a value
    of a scale ("high priority"), a text inside its label ("the question "…" for the requester")
    or, in a list of "the …", a person by name and part ("Vikram Iyer as the customs broker")."""
    lowered = text.lower()
    found = _count_at(workflow, lowered, pos) or _value_first_at(workflow, text, pos)
    if found is not None:
        return found
    state = _noun_state_at(workflow, lowered, pos)
    if state is not None:
        return state[0], "yes" if state[1] else "no", state[2]
    found = _graded_at(workflow, lowered, pos) or _split_label_at(workflow, text, pos)
    if found is not None:
        return found
    for p in workflow.params:  # "that as the summary" (`arg_phrases.same_as_named`)
        again = same_as_named(p) if p.type in ("string", "text") else ""
        end = pos + len(again)
        if again and text.lower().startswith(again, pos) and (end == len(text) or not text[end].isalnum()):
            return p, SameAsNamed(""), end
    before = _named_before_at(workflow, text, pos) if lead else None
    if before is not None:  # "the Docklands Off-Peak plan" (`arg_phrases.named_before_noun`)
        return before
    named = _named_as_at(workflow, text, pos) if lead else None
    if named is not None:
        p, value, end = named
        return p, RefText(value) if p.type == "reference" else value, end
    return None


def _named_before_at(workflow: WorkflowSpec, text: str, pos: int) -> tuple[ParamSpec, RefText, int] | None:
    """A row named before its argument's noun at `pos` ("Docklands Off-Peak plan", the list's "the"
    read already): the parameter, the row and the end; the longest such noun first."""
    for p in sorted((q for q in workflow.params if q.type == "reference"), key=lambda q: -len(noun(said(q)))):
        thing = noun(said(p))
        m = re.compile(rf"(?P<name>[A-Z0-9][^\",;]*?) {re.escape(thing)}(?=$|[,;]| and )").match(text, pos)
        if m is not None and named_before_noun(p, RefText(m["name"])):
            return p, RefText(m["name"]), m.end()
    return None


def _graded_at(workflow: WorkflowSpec, lowered: str, pos: int) -> tuple[ParamSpec, str, int] | None:
    """A value of a scale said with what it grades at `pos` ("high priority"): the parameter, the
    value and the end."""
    for p in workflow.params:
        for v in (p.values or []) if p.type == "enum" else []:
            said_v = (graded(p, v.replace("_", " ")) or "").replace("-", " ")
            end = pos + len(said_v)
            if said_v and lowered.startswith(said_v, pos) and (end == len(lowered) or not lowered[end].isalnum()):
                return p, v, end
    return None


def _split_label_at(workflow: WorkflowSpec, text: str, pos: int) -> tuple[ParamSpec, str, int] | None:
    """A text said inside its label at `pos` ("question "…" for the requester"): the parameter,
    the value and the end."""
    for p in workflow.params:
        split = split_label(p)
        if split is None or not text.lower().startswith(split[0] + ' "', pos):
            continue
        value, end = scan_value("string", text, pos + len(split[0]) + 1)
        if text.startswith(f" {split[1]}", end):
            return p, value, end + len(split[1]) + 1
    return None


def _count_at(workflow: WorkflowSpec, lowered: str, pos: int) -> tuple[ParamSpec, str, int] | None:
    """A count said at `pos` ("4 guests", "1 guest"): the parameter, the number and the end."""
    m = re.compile(r"(\d+) ([a-z]+)\b").match(lowered, pos)
    if m is None:
        return None
    for p in workflow.params:
        word = count_noun(p)
        if word is not None and m[2] == counted(word, m[1]).split(" ", 1)[1]:
            return p, m[1], m.end()
    return None


def _value_first_at(workflow: WorkflowSpec, text: str, pos: int) -> tuple[ParamSpec, Any, int] | None:
    """A value said before its label ("6 carried over", "£40 per day": `spoken.value_first`)."""
    for p in workflow.params:
        after = value_first(p)
        if after is None:
            continue
        try:
            value, end = scan_value(p.type, text, pos)
        except ParseError:
            continue
        if text.lower().startswith(f" {after}", end) and (end + len(after) + 1 == len(text)
                                                           or not text[end + len(after) + 1].isalnum()):
            return p, value, end + len(after) + 1
    return None


def _noun_state_at(workflow: WorkflowSpec, lowered: str, pos: int) -> tuple[ParamSpec, bool, int] | None:
    """A yes/no argument said as a thing and its state at `pos`: "tank full" (yes), "tank not
    full" (no); the parameter, the value and the position after it."""
    for p in workflow.params:
        state = noun_state(p)
        for said_as, value in ((f"{state[0]} not {state[1]}", False), (f"{state[0]} {state[1]}", True)) if state else ():
            end = pos + len(said_as)
            if lowered.startswith(said_as, pos) and (end == len(lowered) or not lowered[end].isalnum()):
                return p, value, end
    return None


