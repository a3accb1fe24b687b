"""A count of things taken from a row that is a kind of those things, said as people say it: "Buy 3
General admission tickets for Lakeshore Folk Revue", never "Buy 3 tickets to the General admission
ticket tier for Lakeshore Folk Revue".

The shape is grammar, read from the frame and the seed: a verb, a count, the counted noun
("tickets"), and then the row they come from, whose own noun is that noun and a word that classes
it ("ticket tier", "room type", "seat class"). The row's name then modifies the counted noun, and
what followed the row's noun follows it. `unfold` reads the folded sentence back into the frame's
own words, so `frames_read` parses it unchanged.

A row that counts the very things a label's verb acts on is said as those things, the user's own:
"Transfer my 3 VIP tickets for Canal Street Pride Party to …", never "Transfer tickets for my order
of 3 VIP tickets for …" (`held_shape`); `held_unfold` reads it back the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from factory.spec.model import Spec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.counted_names import count_shape
from factory.tasks.language.frame_params import COUNT, classes_things
from factory.tasks.language.frames import Frame
from factory.tasks.language.spoken import noun, said


@dataclass(frozen=True)
class Fold:
    """Where a frame folds: the counted noun's piece, the row's piece and the row's noun."""

    noun_piece: int  # index of the counted noun (" tickets")
    row_piece: int  # index of the row they come from (" to " + the tier)
    row_noun: str  # "ticket tier"


def fold_shape(spec: Spec, f: Frame, workflow: WorkflowSpec) -> Fold | None:
    """The fold of `f`: a count, its noun, then the row that noun is a kind of; None otherwise."""
    pieces = f.pieces
    for i, piece in enumerate(pieces[:-2]):
        counted, row = pieces[i + 1], pieces[i + 2]
        if piece.role != COUNT or counted.param is not None or row.param is None:
            continue
        p = next((q for q in workflow.params if q.name == row.param), None)
        if p is None or not p.ref or row.lead.strip() not in grammar.PREPOSITIONS:
            return None
        row_noun = noun(said(spec.entity(p.ref)))
        unit = counted.lead.strip()
        if re.fullmatch(r"[a-z]+", unit) and grammar.singular(unit) == classes_things(row_noun):
            return Fold(i + 1, i + 2, row_noun)
        return None
    return None


def folded(row_text: str, row_noun: str, unit: str) -> tuple[str, str] | None:
    """The words of a row's name before and after its noun ("General admission", " for Lakeshore
    Folk Revue" of "the General admission ticket tier for Lakeshore Folk Revue"), when the name is
    said so and its words do not themselves hold the counted noun; None otherwise."""
    m = re.fullmatch(rf"the (?P<pre>[^\"]+?) {re.escape(row_noun)}(?P<post>(?: [^\"]*)?)", row_text)
    if m is None:
        return None
    pre = m["pre"]
    counted = {unit, grammar.singular(unit), grammar.plural(grammar.singular(unit))}
    if set(pre.lower().split()) & counted or set(m["post"].lower().split()) & counted:
        return None  # "the Two tickets deal ticket tier" would read back wrong
    return pre, m["post"]


def unfold(f: Frame, fold: Fold, text: str) -> str | None:
    """A folded sentence in the frame's own words ("Buy 3 tickets to the General admission ticket
    tier for Lakeshore Folk Revue"), or None when `text` is not folded."""
    # "Buy", then the count if one is said ("Buy 3", "Buy")
    head = "".join(rf"(?:{re.escape(p.lead)}\d+)?" if p.role == COUNT else re.escape(p.lead)
                   for p in f.pieces[:fold.noun_piece] if p.param is None or p.role == COUNT)
    unit = f.pieces[fold.noun_piece].lead.strip()
    one = grammar.singular(unit)
    m = re.match(rf"(?P<head>{head}) (?P<pre>[^\"]+?) (?P<unit>{re.escape(unit)}|{re.escape(one)})"
                 rf"(?P<post>(?: .*)?)$", text, re.IGNORECASE)
    if m is None:
        return None
    lead = f.pieces[fold.row_piece].lead
    return f"{m['head']} {m['unit']}{lead}the {m['pre']} {fold.row_noun}{m['post']}"


@dataclass(frozen=True)
class HeldFold:
    """Where a frame says the things a row counts, then that row: the noun's piece (" tickets"),
    the row's piece (" for " + the order) and the row's noun ("order")."""

    noun_piece: int
    row_piece: int
    row_noun: str


def held_shape(spec: Spec, f: Frame, workflow: WorkflowSpec) -> HeldFold | None:
    """The held fold of `f` ("Transfer tickets for my order of 3 VIP tickets for …"): the verb, the
    label's own plural noun, then " for " the row acted on, whose label counts that noun (a count
    shape whose unit it is); None otherwise."""
    pieces = f.pieces
    for i in range(1, len(pieces) - 1):
        things, row = pieces[i], pieces[i + 1]
        if things.param is not None or row.role != "subject" or row.lead != " for ":
            continue
        if any(p.param is not None for p in pieces[:i]):
            return None
        p = next((q for q in workflow.params if q.name == row.param), None)
        ent = spec.entity(p.ref) if p is not None and p.ref else None
        shape = count_shape(spec, ent, ent.display, lambda _label: []) if ent is not None else None
        if ent is None or shape is None or things.lead.strip().lower() != shape.unit:
            return None
        return HeldFold(i, i + 1, noun(said(ent)))
    return None


def held_folded(row_text: str, fold: HeldFold, unit: str) -> str | None:
    """The things a row counts said as the user's own ("my 3 VIP tickets for Canal Street Pride
    Party" of "my order of 3 VIP tickets for …"), where the name is said so; None otherwise."""
    m = re.fullmatch(rf"(?P<det>my|the) {re.escape(fold.row_noun)} of (?P<rest>[^\"]+)", row_text)
    one = grammar.singular(unit)
    if m is None or not re.search(rf"\b(?:{re.escape(unit)}|{re.escape(one)})\b", m["rest"]):
        return None
    # one thing is said without its count: "my General admission ticket for …", never "my 1 …"
    return f"{m['det']} {m['rest'].removeprefix('1 ')}"


def held_unfold(f: Frame, fold: HeldFold, text: str) -> str | None:
    """A held-folded sentence in the frame's own words ("Transfer tickets for my order of 3 VIP
    tickets for …"), or None when `text` is not said so."""
    head = "".join(re.escape(p.lead) for p in f.pieces[:fold.noun_piece])
    m = re.match(rf"(?P<head>{head}) (?P<det>my|the) (?P<rest>.+)$", text, re.IGNORECASE)
    if m is None:
        return None
    things, row = f.pieces[fold.noun_piece].lead, f.pieces[fold.row_piece].lead
    unit = things.strip()
    rest = m["rest"]
    if re.search(rf"\b{re.escape(grammar.singular(unit))}\b", rest) and not re.search(rf"\b{re.escape(unit)}\b", rest) \
            and not rest[:1].isdigit():
        rest = f"1 {rest}"  # "my General admission ticket": one of them (`held_folded`)
    return f"{m['head']}{things}{row}{m['det']} {fold.row_noun} of {rest}"
