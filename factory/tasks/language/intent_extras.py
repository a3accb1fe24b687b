"""The sentences appended to a seed's phrasing for the values it leaves over (`intents.py`): where
money comes from and goes to ("Take it from my Main Checking account (··8488)."), whom a thing is for
("It's for Jonathan Haynes."), a span ("From May 31 to June 2, 2026."), one text told as a fact
('The reason is "I moved away".'), and the rest as a list ("Set the amount to $45."), each read back.
"""

from __future__ import annotations

import re
from typing import Any

from factory.spec.model import ParamSpec, Spec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.asks import ParseError, RefText
from factory.tasks.language.frames import frame
from factory.tasks.language.parse import LIST_SEPARATORS, my_phrases, parse_args
from factory.tasks.language.render import render_list
from factory.tasks.language.row_names import name_of, read_name
from factory.tasks.language.spoken import field_noun, noun, said
from factory.tasks.language.things import person
from factory.tasks.language.values import param_text, scan_value, this_year, without_this_year

EXTRA_OPENER = "Set the "  # the appended sentence: `Set the <label> to <value>, the … and the ….`
SPAN_OPENER = "From "  # a span left over is a sentence of its own: "From May 31 to June 2, 2026."


# Where money comes from and goes to is said, not set ("Take it from my Main Checking account
# (··8488).", not `Set the from account to "Main Checking ··8488".`).
# The row a payment is for is pointed out ("I mean my Travel Rewards Card account (··1683).").
ROLE_OPENERS = {"source": "Take it from ", "dest": "Put it into ", "which": "I mean "}
# A person is no account: nothing is put into them ("It's for Jonathan Haynes.", never "Put it
# into Jonathan Haynes.").
PERSON_OPENERS = {"source": "It's from ", "dest": "It's for "}
OPENERS = (*ROLE_OPENERS.values(), *PERSON_OPENERS.values())


def _opener(spec: Spec, role: str, entity: str) -> str:
    """How an appended sentence names the row playing `role`: by its kind of thing."""
    return PERSON_OPENERS.get(role, ROLE_OPENERS[role]) if person(spec, entity) else ROLE_OPENERS[role]


def _role_of(spec: Spec | None, workflow: WorkflowSpec) -> dict[str, str]:
    """Parameter → its role among ROLE_OPENERS, for roles only one parameter of the frame plays."""
    found = frame(spec, workflow) if spec is not None else None
    if found is None:
        return {}
    roles = {p.param: ("which" if p.role in ("thing", "object") else p.role) for p in found.pieces if p.param}
    return {n: r for n, r in roles.items() if r in ROLE_OPENERS and list(roles.values()).count(r) == 1}


def extras_sentence(workflow: WorkflowSpec, args: dict[str, Any], spec: Spec | None = None) -> str:
    """`_extras_sentence` said in the spec's current year: "Set the end date to July 21"."""
    if spec is None:
        return _extras_sentence(workflow, args, spec)
    with this_year(spec.today[:4]):
        return _extras_sentence(workflow, args, spec)


def _extras_sentence(workflow: WorkflowSpec, args: dict[str, Any], spec: Spec | None = None) -> str:
    """The values a seed phrasing leaves over, appended: with the spec, the source and destination
    of money as sentences of their own ("Take it from my Main Checking account (··8488)."), the
    rest as `Set the amount to $45.00.` (without it, everything in the `Set the …` sentence)."""
    if not args:
        return ""
    roles = _role_of(spec, workflow)
    said: list[str] = []
    rest = dict(args)
    for name, value in args.items():
        p = next(p for p in workflow.params if p.name == name)
        if spec is not None and name in roles and isinstance(value, RefText) and p.ref:
            try:
                said.append(f"{_opener(spec, roles[name], p.ref)}{name_of(spec, p.ref, value, roles[name])}.")
            except ParseError:
                continue  # a row named by its fields: set, not said
            del rest[name]
    span = _span(workflow)
    if span is not None and span[0].name in rest and span[1].name in rest:
        start = without_this_year(span[0].type, param_text(span[0], rest.pop(span[0].name)))
        end = without_this_year(span[1].type, param_text(span[1], rest.pop(span[1].name)))
        said.append(f"{SPAN_OPENER}{start} to {end}.")  # never "Set the start date to … and the end date to …"
    told = _told(workflow, rest)
    if told is not None:  # one text left over, told as a fact: 'The reason is "I moved away".'
        said.append(told)
    elif rest:
        said.append(EXTRA_OPENER + render_list(workflow, rest, joiner=" to ", lead="the ").removeprefix("the ") + ".")
    return " ".join(said)


TOLD_OPENER = "The "  # one text left over: `The <noun> is "<text>".`


def _told(workflow: WorkflowSpec, rest: dict[str, Any]) -> str | None:
    """One text a seed phrasing leaves over, labelled by a plain noun, said as a fact about the
    errand ('The reason is "I booked the wrong date by mistake".'), never as a form's "Set the
    reason to …"; None for anything else."""
    if len(rest) != 1:
        return None
    name, value = next(iter(rest.items()))
    p = next(q for q in workflow.params if q.name == name)
    # a label that is a question ("What's still wrong") is told by the noun it asks for ("reason")
    words = noun(said(p)).split() if re.fullmatch(r"[a-z ]+", noun(said(p))) else field_noun(p).split()
    if (p.type not in ("string", "text") or not isinstance(value, str) or p.values or not words
            or not all(re.fullmatch(r"[a-z]+", w) for w in words) or not grammar.is_noun(words[-1])
            or any(w in grammar.PREPOSITIONS or grammar.is_participle(w) for w in words)):
        return None
    return f'{TOLD_OPENER}{" ".join(words)} is {param_text(p, value)}.'


def _read_told(workflow: WorkflowSpec, sentence: str) -> dict[str, Any] | None:
    """The text `_told` says, read back, or None."""
    for p in workflow.params:
        told = _told(workflow, {p.name: "x"}) if p.type in ("string", "text") else None
        lead = told[: -len('"x".')] if told else None
        if lead and sentence.startswith(lead):
            value, end = scan_value("string", sentence, len(lead))
            if end == len(sentence):
                return {p.name: value}
    return None


def _span(workflow: WorkflowSpec) -> tuple[ParamSpec, ParamSpec] | None:
    """The one date range a workflow takes (a start and its `range_end`), or None."""
    spans = [(p, q) for p in workflow.params for q in workflow.params
             if p.range_end == q.name and p.type in ("date", "datetime") and q.type == p.type]
    return spans[0] if len(spans) == 1 else None


def read_extras(spec: Spec, workflow: WorkflowSpec, text: str) -> dict[str, Any]:
    """The appended sentences (`extras_sentence`), read back."""
    roles = {role: name for name, role in _role_of(spec, workflow).items()}
    params = {p.name: p for p in workflow.params}
    openers = "|".join(re.escape(o) for o in (EXTRA_OPENER, SPAN_OPENER, TOLD_OPENER, *OPENERS))
    args: dict[str, Any] = {}
    for sentence in re.split(rf"\. (?=(?:{openers}))", text):
        role = next((r for r in ROLE_OPENERS if (name := roles.get(r)) is not None
                     and sentence.startswith(_opener(spec, r, params[name].ref or ""))), None)
        if role is None and any(sentence.startswith(o) for o in OPENERS):
            raise ParseError(f"{sentence!r} names no row its opener says in {workflow.label!r}")
        if role is not None:
            name = roles[role]
            if name in args:
                raise ParseError(f"{sentence!r} names the {role} of {workflow.label!r} twice")
            opener = _opener(spec, role, params[name].ref or "")
            args[name] = read_name(spec, params[name].ref or "", sentence[len(opener):])
            continue
        span = _span(workflow)
        if sentence.startswith(SPAN_OPENER) and span is not None:  # "From May 31 to June 2, 2026"
            start, pos = scan_value(span[0].type, sentence, len(SPAN_OPENER))
            if not sentence.startswith(" to ", pos):
                raise ParseError(f"expected ' to ' in a span at {sentence[pos:pos + 30]!r}")
            end, pos = scan_value(span[1].type, sentence, pos + len(" to "))
            if pos != len(sentence) or {span[0].name, span[1].name} & set(args):
                raise ParseError(f"{sentence!r} is not one span of {workflow.label!r}")
            args.update({span[0].name: start, span[1].name: end})
            continue
        told = _read_told(workflow, sentence) if sentence.startswith(TOLD_OPENER) else None
        if told is not None:
            if set(told) & set(args):
                raise ParseError(f"the appended sentences give {sorted(told)} twice")
            args.update(told)
            continue
        if not sentence.startswith(EXTRA_OPENER):
            raise ParseError(f"expected {EXTRA_OPENER!r} at {sentence[:30]!r}")
        more = parse_args(workflow, sentence[len(EXTRA_OPENER):], my_phrases(spec), separators=LIST_SEPARATORS,
                          joiner=" to ", lead="the ", subject_first=False)
        if set(more) & set(args):
            raise ParseError(f"the appended sentences give {sorted(set(more) & set(args))} twice")
        args.update(more)
    return args
