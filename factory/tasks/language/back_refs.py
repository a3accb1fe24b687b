"""A row an errand's step names again, said as people refer back to it: "Take Paula Mitchell off
the waitlist for the Reformer Pilates class on 16 June at 7:00 AM, then cancel that class", never
the class named in full twice.

`back_ref` writes "that <noun>" in place of the row's name where the step before said the same
words and said that noun once; `it_again` says "it" of the row the step before acted on too
("Reply to ticket INC-34 saying …, then escalate it"); `resolve_back_ref` reads it back: each name in the step before
that reads as a row of that noun, and writes back as the same words, is tried in its place, and
the step that parses with it is the one meant (the draft gate checks it is the step proposed).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from factory.spec.model import Spec
from factory.tasks.language.asks import ONLY, AskStep, ParseError, RefText
from factory.tasks.language.frames import IT
from factory.tasks.language.label_parts import kind_noun
from factory.tasks.language.row_names import name_of, read_name
from factory.tasks.language.spoken import noun, said
from factory.tasks.language.words import subject_entity

_THAT = re.compile(r"\bthat (?P<noun>[a-z]+)\b")


def _head(spec: Spec, entity: str) -> str:
    """The one word a row of `entity` is referred back by: "class" of a class session said "the
    Spin class on …", "flat" of a flat."""
    ent = spec.entity(entity)
    return kind_noun(spec, ent) or noun(said(ent)).split()[-1]


def back_ref(spec: Spec, before: str, part: str, step: AskStep) -> str:
    """`part` with the row the step acts on said "that <noun>" where `before` (the step before,
    as said) names it in the same words and says that noun once; `part` unchanged otherwise."""
    workflow = next(w for w in spec.workflows if w.name == step.workflow)
    found = subject_entity(spec, workflow)
    arg = step.args.get(found[0].name) if found is not None else None
    if found is None or not isinstance(arg, RefText) or arg.by is not None or step.pick is not None:
        return part
    try:
        named = name_of(spec, found[1].name, arg, "subject")
    except ParseError:
        return part
    core = re.sub(r"^(?:the|my) ", "", named)
    head = _head(spec, found[1].name)
    if '"' in named or part.count(named) != 1 or core not in before or len(re.findall(rf"\b{head}\b", before)) != 1:
        return part
    if not re.search(rf"\b{re.escape(head)}\b", core) or _THAT.search(part):
        return part
    return part.replace(named, f"that {head}", 1)


def _names_in(text: str) -> Iterator[str]:
    """Every run of words in `text` that opens on "the" or "my", longest first from each start."""
    words = list(re.finditer(r"\S+", text))
    for i, w in enumerate(words):
        if w.group() not in ("the", "my"):
            continue
        for j in range(len(words) - 1, i, -1):
            yield text[w.start():words[j].end()].rstrip(",.?")


def resolve_back_ref(spec: Spec, before: str, part: str, parse: Callable[[str], AskStep]) -> AskStep | None:
    """The step `part` says with "that <noun>" read as the row `before` names by that noun, or
    None when `part` says no such thing or no name in `before` makes it parse."""
    m = _THAT.search(re.sub(r'"[^"]*"', lambda q: " " * len(q.group()), part))  # never inside a quoted text
    if m is None:
        return None
    for ent in (e for e in spec.entities if not e.builtin and _head(spec, e.name) == m["noun"]):
        for candidate in _names_in(before):
            if not re.search(rf"\b{re.escape(m['noun'])}\b", candidate):
                continue
            try:
                ref = read_name(spec, ent.name, candidate)
                if name_of(spec, ent.name, ref, "subject") != candidate:
                    continue
                return parse(part[:m.start()] + candidate + part[m.end():])
            except ParseError:
                continue
    return None


def acted_on(spec: Spec, step: AskStep) -> tuple[str, str, RefText] | None:
    """(parameter, entity, name) of the row `step` acts on, when it names it by its words."""
    workflow = next(w for w in spec.workflows if w.name == step.workflow)
    found = subject_entity(spec, workflow)
    arg = step.args.get(found[0].name) if found is not None else None
    if found is None or not isinstance(arg, RefText) or arg.by is not None or arg.text == IT or step.pick is not None:
        return None
    return found[0].name, found[1].name, arg


def it_again(spec: Spec, before: AskStep, step: AskStep) -> AskStep | None:
    """`step` with its row said "it" when the step before acted on that row too and makes no row
    of its kind (whose "it" would be the new one: `parse.parse_on_made`); else None."""
    mine, theirs = acted_on(spec, step), acted_on(spec, before)
    if mine is None or theirs is None or mine[1:] != theirs[1:]:
        return None
    workflow = next(w for w in spec.workflows if w.name == before.workflow)
    if any(e.kind == "create" and e.entity == mine[1] for e in workflow.effects):
        return None
    return AskStep(step.workflow, {**step.args, mine[0]: RefText(IT, ONLY)})
