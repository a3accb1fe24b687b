"""A workflow's run said by its frame (`frames.frame`): each piece with its value, the values the
pieces do not place after "with", a span "from … to …", and the row found said "it"
(`frames_read.parse_frame` reads the same sentences back)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from factory.spec.model import ParamSpec, Spec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.arg_phrases import arg_phrase, same_as_named
from factory.tasks.language.arg_words import DAY_WORDS, bare_item, speech
from factory.tasks.language.asks import MADE, ONLY, ParseError, RefText
from factory.tasks.language.frame_params import COUNT, echoed
from factory.tasks.language.frames import (
    COMPLEMENT,
    IT,
    KIND,
    KIND_A,
    KIND_REF,
    PARTICLE_AFTER,
    PARTICLE_BEFORE,
    REST_ARTICLE,
    SCORE,
    Frame,
    Piece,
    its_form,
    span_words,
)
from factory.tasks.language.measures import rate_per, with_unit
from factory.tasks.language.modifiers import modifier_said
from factory.tasks.language.row_labels import SPOKEN_DAY
from factory.tasks.language.row_names import name_of
from factory.tasks.language.self_moves import gift_shape, given, move_shape, moved, ungiven, unmoved
from factory.tasks.language.spoken import noun, param_said, said
from factory.tasks.language.things import own_lookup
from factory.tasks.language.unit_fold import fold_shape, folded, held_folded, held_shape, held_unfold, unfold
from factory.tasks.language.values import param_text, priced, said_by_amount, without_this_year


def _unechoed(spec: Spec, f: Frame, p: ParamSpec, text: str) -> str:
    """The row acted on named without the verb's own word ("Refund the request for the order …"
    of a refund request; `frame_params.echoed`)."""
    thing = noun(said(spec.entity(p.ref or ""))) if p.ref else ""
    short = echoed(f.pieces[0].lead.split()[0], thing) if thing and f.pieces[0].param is None else None
    if short is not None and text.startswith(f"the {thing} for the "):
        # a request the verb grants is said by what it is for: "Refund the order of 3 VIP
        # tickets …", never "refund the request for the order of 3 VIP tickets …"
        return text[len(f"the {thing} for "):]
    for owner in ("the ", "my "):
        if short is not None and text.startswith(f"{owner}{thing} "):
            return f"{owner}{short} {text[len(owner) + len(thing) + 1:]}"
    return text


def _names_again(p: ParamSpec, value: Any, named: list[str]) -> bool:
    """Whether a text argument repeats the name of the one row the sentence names ("summary"
    "Desk phone problem" of the common issue "Desk phone problem"): said "that as the summary"."""
    return p.type in ("string", "text") and isinstance(value, str) and len(named) == 1 and value == named[0]


def _value_text(spec: Spec, p: ParamSpec, value: Any, role: str) -> str:
    if p.ref and isinstance(value, RefText) and role == COMPLEMENT:
        return name_of(spec, p.ref, replace(value, mine=False), "subject")
    if p.ref and isinstance(value, RefText):
        return name_of(spec, p.ref, value, role)
    return without_this_year(p.type, param_text(p, value))  # "June 18", "June 18 at 9:00 AM" this year


def render_frame(spec: Spec, f: Frame, workflow: WorkflowSpec, args: dict[str, Any]) -> str:
    """The run `args` of `workflow` as a sentence (no final stop), or ParseError when it cannot be said."""
    params = priced(workflow.params, args, workflow.subject)
    missing = [pc.param for pc in f.pieces if pc.param and params[pc.param].required and pc.param not in args
               and pc.role != COUNT and not (pc.role in (KIND, KIND_A) and params[pc.param].default is not None)]
    # "Buy tickets": the app's own default count; "Take a payment": its own default kind
    if missing:
        raise ParseError(f"a sentence of {workflow.label!r} says its {', '.join(missing)}")
    out = []
    pronoun = any(p.role == "subject" and args.get(p.param or "") in (RefText(IT, ONLY), RefText(IT, MADE))
                  for p in f.pieces)
    skip: Piece | None = None
    rows: dict[int, str] = {}  # each piece's value as said, by its place in the frame
    for piece in f.pieces:
        if piece is skip:
            continue
        if piece.role in (PARTICLE_BEFORE, PARTICLE_AFTER):
            if (piece.role == PARTICLE_AFTER) == pronoun:
                out.append(piece.lead)
        elif piece.param is None:
            out.append(piece.lead)
        elif piece.role in (KIND, KIND_A) and piece.param in args:
            word = modifier_said(str(args[piece.param]).replace("_", " "))
            out.append(piece.lead + (grammar.with_article(word) if piece.role == KIND_A else word))
        elif piece.role == KIND_REF and piece.param in args:  # 'a "VPN keeps dropping" problem'
            name = args[piece.param].text if isinstance(args[piece.param], RefText) else str(args[piece.param])
            thing = piece.values[0]
            said_kind = f'"{name}"' if name.lower().split()[-1:] == [thing] else f'"{name}" {thing}'
            out.append(f"{piece.lead}{grammar.with_article(name).split()[0]} {said_kind}")
        elif piece.role == SCORE and piece.param in args:  # "4 out of 5"
            out.append(f"{piece.lead}{args[piece.param]} out of {piece.values[0]}")
        elif piece.role == COUNT and piece.param in args:
            out.append(f"{piece.lead}{args[piece.param]}")
            nxt = f.pieces[f.pieces.index(piece) + 1]
            if str(args[piece.param]) == "1":  # "Buy 1 ticket": the noun after it said once
                out.append(" " + grammar.singular(nxt.lead.strip()))
                skip = nxt
        elif piece.role == KIND_A:  # no kind given: "Post an assignment"
            after = f.pieces[f.pieces.index(piece) + 1].lead.split()
            out.append(piece.lead + grammar.with_article(after[0] if after else "thing").split()[0])
        elif piece.param in args:
            text = _value_text(spec, params[piece.param], args[piece.param], piece.role)
            text = _unechoed(spec, f, params[piece.param], text) if piece.role == "subject" else text
            rows[f.pieces.index(piece)] = text
            out.append(piece.lead + text)
        elif piece.role == "subject" and own_lookup(params[piece.param]):
            # the app finds the user's own row ("Freeze my membership until …"): said, never left out
            out.append(piece.lead + "my " + noun(said(spec.entity(params[piece.param].ref or ""))))
    settings = [n for n in f.settings if n in args]
    if len(f.settings) == 1 and settings:
        one = params[settings[0]]  # a measure with its unit: "adjust the allowance for it to 33 days"
        text = _value_text(spec, one, args[settings[0]], "setting")
        per = rate_per(one)  # "reprice the model "Kia Sportage" to £79 a day"
        out.append(f.setting_lead + (with_unit(one, text) if one.type == "int" else f"{text} {per}" if per else text))
    elif settings:
        items = [f"{param_said(params[n], setting=True)} to {param_text(params[n], args[n])}" for n in settings]
        out.append(": set the " + grammar.listed([items[0], *(f"the {i}" for i in items[1:])]))
    # a row named by its day ends the sentence so far: a list after it takes a comma (below)
    named_day = bool(SPOKEN_DAY.search("".join(out)))
    implied = said_by_amount(workflow.params, args)  # "a declared value of £22,000" says the currency
    rest = [n for n in args if n not in f.params() and params[n].range_of not in args and n != implied]
    if f.span is not None and f.span[0] in args and f.span[1] in args:
        start, end = param_text(params[f.span[0]], args[f.span[0]]), param_text(params[f.span[1]], args[f.span[1]])
        years = [re.search(r", \d{4}\b", t) for t in (start, end)]
        if years[0] and years[1] and years[0][0] == years[1][0]:
            # "from June 24 to June 26": one year for both, none this year; "… at 9:00 AM" alike
            start = start.replace(years[0][0], "", 1)
            end = without_this_year(params[f.span[1]].type, end)
        first, then = span_words(f)
        out.append(f" {first} {start} {then} {end}")
        rest = [n for n in rest if n not in f.span]
        named_day = False
    spoken = speech(workflow)
    if len(rest) == 1 and spoken is not None and rest[0] == spoken[0].name and isinstance(args[rest[0]], str):
        # the one thing said is said as speech is: 'Reply to ticket INC-9 saying "Restarted"',
        # 'Put ticket INC-41 on hold, asking the requester "…"' (a comma before words asked)
        comma = "," if named_day or spoken[1] != "saying" else ""  # after a day, a comma
        out.append(f'{comma} {spoken[1]} "{args[rest[0]]}"')
        rest = []
    if rest:  # "… with the note "Back at 10" and the reason "travel""; a range's end goes with its start
        named = [v.text for k, v in args.items() if k in f.params() and isinstance(v, RefText) and v.by is None]
        items = [same_as_named(params[n]) if _names_again(params[n], args[n], named) else
                 arg_phrase(params[n], args[n], article=REST_ARTICLE)
                 + (f" to {param_text(params[end], args[end])}" if (end := params[n].range_end or "") in args else "")
                 for n in rest]
        # "with" takes a noun first ("with the note … and out of 50", never "with out of 50"); a
        # list with no noun goes after a comma: "…, due April 19 and out of 50"
        nominal = next((i for i, item in enumerate(items) if not bare_item(item)), None)
        if nominal is None:
            # "…, due April 19 and out of 50"; an end said by its own word follows its row: "until July 5"
            opening = items[0].split()
            out.append((" " if opening[0] in DAY_WORDS and opening[1:2] and opening[1][:1].isupper() else ", ")
                       + grammar.listed(items))
        else:
            items.insert(0, items.pop(nominal))
            # after a row named by its day, a comma: "… logged on May 2 at 9:00 AM, with the
            # reason …", never a reason that reads as the logging's
            lead = "," + f.rest_lead if f.rest_lead == " with " and named_day else f.rest_lead
            out.append(lead + grammar.listed(items))
    said_its = its_form(f) if pronoun else None
    text = "".join(out)
    text = _folded(spec, f, workflow, text, rows)
    return text.replace(*said_its, 1) if said_its else text  # "adjust its allowance", not "the allowance for it"


def _folded(spec: Spec, f: Frame, workflow: WorkflowSpec, text: str, rows: dict[int, str]) -> str:
    """"Buy 3 General admission tickets for …" where the frame says "Buy 3 tickets to the General
    admission ticket tier for …" (`unit_fold`), kept only when it reads back to the same words."""
    move = move_shape(spec, f, workflow)
    said_moved = moved(text, move) if move is not None else None
    if move is not None and said_moved is not None and unmoved(said_moved, move) == text:
        return said_moved  # "Take Paula Mitchell off the waitlist for …", never "Leave Paula Mitchell's waitlist spot"
    gift = gift_shape(spec, f, workflow)
    said_given = given(text, gift) if gift is not None else None
    if gift is not None and said_given is not None and ungiven(said_given, gift) == text:
        return said_given  # "Offer Ashley Vega the place for …", never "Offer the place for Ashley Vega's waitlist spot"
    held = held_shape(spec, f, workflow)
    if held is not None and held.row_piece in rows:
        unit = f.pieces[held.noun_piece].lead
        whole = unit + f.pieces[held.row_piece].lead + rows[held.row_piece]
        said_held = held_folded(rows[held.row_piece], held, unit.strip())
        candidate = text.replace(whole, f" {said_held}") if said_held and text.count(whole) == 1 else None
        if candidate is not None and held_unfold(f, held, candidate) == text:
            return candidate  # "Transfer my 3 VIP tickets for …", never "Transfer tickets for my order of 3 VIP tickets"
    shape = fold_shape(spec, f, workflow)
    if shape is None or shape.row_piece not in rows:
        return text
    said_unit = " " + grammar.singular(f.pieces[shape.noun_piece].lead.strip())
    for unit in (f.pieces[shape.noun_piece].lead, said_unit):
        whole = unit + f.pieces[shape.row_piece].lead + rows[shape.row_piece]
        parts = folded(rows[shape.row_piece], shape.row_noun, unit.strip())
        if parts is None or text.count(whole) != 1:
            continue
        candidate = text.replace(whole, f" {parts[0]}{unit}{parts[1]}")
        if unfold(f, shape, candidate) == text:
            return candidate
    return text
