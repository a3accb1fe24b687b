"""Errands read back: a purpose from `errands`' closed pool, then two or more actions joined by
connectors (outside quoted labels), or actions and then a question about their result. Each action
is read by `parse.parse_step`, so an errand parses only when every one of its steps does."""

from __future__ import annotations

import re

from factory.spec.model import Spec
from factory.tasks.language.asks import Ask, AskStep, ParseError
from factory.tasks.language.back_refs import acted_on, resolve_back_ref
from factory.tasks.language.errands import (
    ALL_CONNECTORS,
    ALL_PURPOSES,
    ALSO_ONE,
    INSTEAD,
    INSTEAD_END,
    OPENERS,
    REPORT,
    read_its,
    read_same,
    verbs_of,
)
from factory.tasks.language.parse import parse_on_it, parse_on_made, parse_step
from factory.tasks.language.parse_questions import parse_question


def _splits(text: str, connectors: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where a connector starts and ends in `text`, outside quoted labels, in text order."""
    found: list[tuple[int, int]] = []
    quoted = False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted:
            found += [(i, i + len(c)) for c in connectors if text.startswith(c, i)]
    return found


def _steps_of_errand(spec: Spec, body: str, connectors: tuple[str, ...], problem: list[ParseError],
                     before: AskStep | None = None, said_before: str = "") -> tuple[AskStep, ...] | None:
    """The actions of an errand body: the first split into a step that parses and a rest that
    parses as one step or, recursively, as more (every connector outside quotes is tried);
    `before` is the action before the body, which "do the same for …" repeats."""
    for start, end in _splits(body, connectors):
        head = _one_step(spec, body[:start], problem, before, said_before)
        if head is None:
            continue
        tail = body[end:]
        rest = _one_step(spec, tail, problem, head, body[:start])
        if rest is not None:
            return (head, rest)
        more = _steps_of_errand(spec, tail, connectors, problem, head, body[:start])
        if more is not None:
            return (head, *more)
    return None


def parse_compound(spec: Spec, text: str, bare: bool = False) -> Ask | None:
    """An errand (`errands.render_errand`): a purpose from the closed pool, then two or more
    actions joined by connectors, or (`errands.render_report`) actions and then a question
    about the result. None when the text opens with no known purpose; with `bare`, a text
    without one is read as the actions alone (the caller tries that only once the text read as
    no single action)."""
    purpose = next((p for p in ALL_PURPOSES if text.startswith(p + " ")), None)
    if purpose is None and not bare:
        return None
    body = text[len(purpose) + 1:] if purpose is not None else text
    question = None
    its = None
    cut = next((start for start, _end in _splits(body, (REPORT,)) if body[start - 1:start] == "."), None)
    if cut is not None:  # act, then report: the question about the result comes last
        asked = body[cut + len(REPORT):]
        its = re.fullmatch(r"what (?:is|are) its (?P<field>.+?)(?: now)?\?", asked)
        question = None if its else parse_question(spec, asked[:1].upper() + asked[1:])
        if question is None and its is None:
            raise ParseError(f"no question follows {REPORT.strip()!r} in {text[-60:]!r}")
        body = body[:cut]
    ending = "."
    for opener in OPENERS[1:]:
        if body.lower().startswith(opener.lower()):
            body, ending = body[len(opener):], "?" if opener == "Could you " else "."
            break
    if not body.endswith(ending):
        raise ParseError(f"an errand ends with {ending!r}: {text[-30:]!r}")
    problem: list[ParseError] = []
    single = None if question is None and its is None else _one_step(spec, body[:-1], problem)
    steps = (single,) if single is not None else _steps_of_errand(spec, body[:-1], ALL_CONNECTORS, problem)
    if steps is None and question is None:
        steps = _verb_once(spec, body[:-1], problem)
    if steps is None and question is None and body[:-1].endswith(INSTEAD_END):
        # "cancel my booking for A, and book B instead": two acts, the second in place of the first
        steps = _steps_of_errand(spec, body[:-1 - len(INSTEAD_END)], (INSTEAD,), problem)
        steps = steps if steps is not None and len(steps) == 2 else None
    if steps is None:
        raise problem[-1] if problem else ParseError(f"no actions follow the purpose in {text[:60]!r}")
    if its is not None:  # "… Afterwards, what is its status now?": the row a step named
        question = read_its(spec, steps, its["field"])
        if question is None:
            raise ParseError(f"no row of {text[:40]!r} has a {its['field']!r}")
    kind = "read_write" if question is not None or any(s.pick for s in steps) else "write"
    return Ask(kind, steps=steps, question=question)


def _verb_once(spec: Spec, body: str, problem: list[ParseError]) -> tuple[AskStep, AskStep] | None:
    """Two runs of one workflow, the second without the verb the first opens on ("cancel my booking
    for A, and my booking for B", `errands.verb_shared`), or None."""
    for start, end in _splits(body, (ALSO_ONE,)):
        head = _one_step(spec, body[:start], problem)
        if head is None:
            continue
        for verb in verbs_of(body[:start], spec, head.workflow):
            tail = _one_step(spec, f"{verb} {body[end:]}", problem, head, body[:start])
            if tail is not None and tail.workflow == head.workflow:
                return head, tail
    return None


def _one_step(spec: Spec, part: str, problem: list[ParseError], before: AskStep | None = None,
              said_before: str = "") -> AskStep | None:
    """One action of an errand, or None (its reason kept in `problem`); after `before`, "do the
    same for …" is `before` on another row, and "that class" a row `said_before` names."""
    try:
        if said_before:
            back = resolve_back_ref(spec, said_before, part, lambda t: parse_step(spec, t[:1].upper() + t[1:] + "."))
            if back is not None:  # "…, then cancel that class" (`back_refs`)
                return back
        if before is not None:
            same = read_same(spec, before, part)
            if same is not None:
                return same
            made = parse_on_made(spec, part[:1].upper() + part[1:], before.workflow)
            if made is not None:  # "…, then cancel it": the row the action before created
                return made
            acted = acted_on(spec, before)
            again = parse_on_it(spec, part[:1].upper() + part[1:], acted[1], acted[2]) if acted else None
            if again is not None:  # "…, then escalate it": the row the action before acted on
                return again
        return parse_step(spec, part[:1].upper() + part[1:] + ".")
    except ParseError as exc:
        problem.append(exc)
        return None


__all__ = ["parse_compound"]
