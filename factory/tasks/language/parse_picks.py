"""Reading back a find-then-act said as one sentence (`render.whichever`): "Retire whichever car
for the Heathrow T5 branch has the latest service date.", "Accept the offer for whichever of my
applications for the flat "Flat 26" has the highest offer.".

The row found stands where the act says "it": the words from "whichever" up to the end of its
ranking ("has the highest offer") are the pick, the rest is the act with "it" put back, read by the
workflow frames. Where the ranking's field ends is not marked, so each word boundary after "has the
<direction>" is tried, shortest first, until the field, the conditions and the act all read.
The parser passes in how it reads a row the user holds, a list's separators and its argument
reader (as `frames_read.parse_frame` takes them), so this module stays beneath it.
"""

from __future__ import annotations

import re
from typing import Any

from factory.spec.model import Spec
from factory.tasks.language.asks import ONLY, AskStep, ParseError, Question, RefText
from factory.tasks.language.frames import IT
from factory.tasks.language.frames_read import parse_frame
from factory.tasks.language.measures import CHEAPEST, DEAREST, LARGEST, SMALLEST, amount_field, price_field
from factory.tasks.language.parse_conds import entity_and_conds, field_by

_DIRECTIONS = {"highest": "max", "lowest": "min", "latest": "max", "earliest": "min", "most": "max", "fewest": "min"}
_WHICHEVER = re.compile(r"\b[Ww]hichever (?P<mine>of my )?")
_RANK = re.compile(rf" has the (?P<dir>{'|'.join(_DIRECTIONS)}) ")


def pick_whichever(spec: Spec, text: str, mine: dict[str, str], separators: tuple[str, ...],
                   parse_args: Any) -> AskStep | None:
    """The find-then-act step a "whichever" sentence says, or None when it says none."""
    body = text[:-1] if text.endswith((".", "?")) else text
    start = _WHICHEVER.search(body)
    if start is None:
        return None
    head, rest = body[:start.start()], body[start.end():]
    plural = start["mine"] is not None
    for rank in _RANK.finditer(rest):
        said_row = rest[:rank.start()]
        try:
            ent, conds = entity_and_conds(spec, said_row, plural=plural)
        except ParseError:
            continue
        found = _act(spec, ent.name, head, rest[rank.end():], mine, separators, parse_args)
        if found is not None:
            field, workflow, args, param = found
            q = Question(_DIRECTIONS[rank["dir"]], ent.name, field, conds=conds)
            return AskStep(workflow, {k: v for k, v in args.items() if k != param}, (param, q))
    return None


_WITH_RANK = re.compile(rf" with the (?P<dir>{'|'.join(_DIRECTIONS)}) ")
_DETERMINER = re.compile(r"\b(?:the|my) ", re.IGNORECASE)


def pick_ranked(spec: Spec, text: str, mine: dict[str, str], separators: tuple[str, ...],
                parse_args: Any) -> AskStep | None:
    """The find-then-act step a sentence says by a superlative after its row ("Hold the ticket
    tier for the Fennel & Rye event with the lowest price": `render.whichever`), or None. Where
    the row's words start is not marked: each "the" or "my" before the ranking is tried, the
    farthest first, until the row, the field and the act all read."""
    body = text[:-1] if text.endswith((".", "?")) else text
    for rank in _WITH_RANK.finditer(body):
        for start in sorted(_DETERMINER.finditer(body[:rank.start()]), key=lambda m: m.start()):
            try:
                ent, conds = entity_and_conds(spec, body[start.end():rank.start()], plural=False)
            except ParseError:
                continue
            found = _act(spec, ent.name, body[:start.start()], body[rank.end():], mine, separators, parse_args)
            if found is not None:
                field, workflow, args, param = found
                q = Question(_DIRECTIONS[rank["dir"]], ent.name, field, conds=conds)
                return AskStep(workflow, {k: v for k, v in args.items() if k != param}, (param, q))
    return None


_SUPERLATIVE = re.compile(rf"\b(?:the|my) (?P<sup>{CHEAPEST}|{DEAREST}|{LARGEST}|{SMALLEST}) ")


def pick_superlative(spec: Spec, text: str, mine: dict[str, str], separators: tuple[str, ...],
                     parse_args: Any) -> AskStep | None:
    """The find-then-act step a sentence says by a superlative before its row ("Hold the most
    expensive ticket tier for the Fennel & Rye event": `render.whichever`), ranked by the row's
    one price (`measures.price_field`), or None. Where the row's words end is not marked: each
    word boundary is tried, the farthest first, until the row and the act both read."""
    body = text[:-1] if text.endswith((".", "?")) else text
    for sup in _SUPERLATIVE.finditer(body):
        head, rest = body[:sup.start()], body[sup.end():]
        ends = sorted((m.start() for m in re.finditer(r"[ ,]", rest)), reverse=True)
        for end in [len(rest), *ends]:
            try:
                ent, conds = entity_and_conds(spec, rest[:end], plural=False)
            except ParseError:
                continue
            price = amount_field(ent) if sup["sup"] in (LARGEST, SMALLEST) else price_field(ent)
            act = head + IT + rest[end:]
            try:
                found = parse_frame(spec, act[:1].upper() + act[1:], mine, separators, parse_args, it=ent.name) \
                    if price is not None else None
            except ParseError:
                continue
            param = next((k for k, v in found[1].items() if v == RefText(IT, ONLY)), None) if found else None
            if found is not None and price is not None and param is not None:
                q = Question("max" if sup["sup"] in (DEAREST, LARGEST) else "min", ent.name, price.name, conds=conds)
                return AskStep(found[0], {k: v for k, v in found[1].items() if k != param}, (param, q))
    return None


def _act(spec: Spec, entity: str, head: str, rest: str, mine: dict[str, str], separators: tuple[str, ...],
         parse_args: Any) -> tuple[str, str, dict[str, Any], str] | None:
    """The ranking's field and the act around the row found ("it"): each word boundary after the
    ranking is tried as the field's end, shortest first."""
    ends = [m.start() for m in re.finditer(r"[ ,]", rest)] + [len(rest)]
    for end in ends:
        try:
            field = field_by(spec.entity(entity), rest[:end])
            act = head + IT + rest[end:]
            found = parse_frame(spec, act[:1].upper() + act[1:], mine, separators, parse_args, it=entity)
        except ParseError:
            continue
        if found is None:
            continue
        workflow, args = found
        param = next((k for k, v in args.items() if v == RefText(IT, ONLY)), None)
        if param is not None:
            return field, workflow, args, param
    return None


__all__ = ["pick_ranked", "pick_superlative", "pick_whichever"]
