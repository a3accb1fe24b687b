"""Reading back a sentence a workflow's frame writes (`frames.render_frame`): the frame's pieces
compiled into one pattern (`frame_pattern`), each slot's text read as one value (`whole_value`),
and the workflow and arguments of a sentence found among the spec's frames (`parse_frame`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from factory.spec.labels import currency_in
from factory.spec.model import ParamSpec, Spec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.arg_phrases import SameAsNamed
from factory.tasks.language.arg_words import DAY_WORDS, SPEECH_VERBS
from factory.tasks.language.asks import ONLY, ParseError, RefText
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
    frame,
    its_form,
    span_words,
)
from factory.tasks.language.measures import rate_per, with_unit
from factory.tasks.language.row_labels import titled
from factory.tasks.language.row_names import code_named, read_name
from factory.tasks.language.self_moves import gift_shape, move_shape, ungiven, unmoved
from factory.tasks.language.spoken import noun, said
from factory.tasks.language.things import own_lookup, person
from factory.tasks.language.unit_fold import fold_shape, held_shape, held_unfold, unfold
from factory.tasks.language.values import MONEY, TIME, currency_chooser, scan_value
from factory.tasks.language.words import my_only

# A slot's text by its kind: amounts and dates as written, anything else lazily up to the next
# words of the frame, never splitting a quoted name.
# amounts in any currency ("£45"); a day, or the moment of a thing made ("on July 7 at 2:00 PM")
_SLOTS = {"amount": MONEY.pattern, "date": r"[A-Z][a-z]+ \d{1,2}(?:, \d{4})?" + f"(?:{TIME})?"}
_MOMENT = _SLOTS["date"]  # a range's ends: days, or moments ("June 6, 2026 at 10:00 AM")
_TEXT = r'(?:[^"]|"[^"]*")+?'
_SOMEONES = re.compile(r"[A-Z][^\"]*?'s [A-Za-z]")


def frame_pattern(f: Frame) -> re.Pattern[str]:
    """The frame's pieces as one pattern: literals as written, each slot lazily up to the next."""
    parts = []
    for piece in f.pieces:
        if piece.role in (PARTICLE_BEFORE, PARTICLE_AFTER):
            parts.append(f"(?:{re.escape(piece.lead)})?")  # said in one of its two places
        elif piece.role in (KIND, KIND_A):  # "sick", "an express": one of the parameter's values
            words = "|".join(re.escape(v.replace("_", " ")) for v in sorted(piece.values, key=len, reverse=True))
            if piece.role == KIND_A:  # "a homework assignment", or "an assignment" with no kind said
                parts.append(f"{re.escape(piece.lead)}(?:an? (?P<{piece.param}>{words})|an?)")
            else:  # "Request sick leave", or "Request leave"
                parts.append(f"(?:{re.escape(piece.lead)}(?P<{piece.param}>{words}))?")
        elif piece.role == KIND_REF:  # 'a "VPN keeps dropping" problem', 'a "Desk phone problem"'
            parts.append(f'{re.escape(piece.lead)}an? "(?P<{piece.param}>[^"]+)"(?: {re.escape(piece.values[0])})?')
        elif piece.role == COUNT:  # "Buy 4 tickets", "Buy 1 ticket", or "Buy tickets" with none said
            after = f.pieces[f.pieces.index(piece) + 1].lead.strip()
            parts.append(f"(?:{re.escape(piece.lead)}(?P<{piece.param}>\\d+)(?= {re.escape(grammar.singular(after))}\\b|"
                         f" {re.escape(after)}\\b))?")
        elif piece.role == SCORE:  # "4 out of 5" (`frames._scored`)
            parts.append(f"(?:{re.escape(piece.lead)}(?P<{piece.param}>\\d+) out of {re.escape(piece.values[0])})?")
        elif piece.param is None and f.pieces.index(piece) > 0 and f.pieces[f.pieces.index(piece) - 1].role == COUNT:
            one = grammar.singular(piece.lead.strip())
            parts.append(f"(?:{re.escape(piece.lead)}|{re.escape(' ' + one)})")
        elif piece.param is None:
            parts.append(re.escape(piece.lead))
        else:
            parts.append(f"(?:{re.escape(piece.lead)}(?P<{piece.param}>{_SLOTS.get(piece.role, _TEXT)}))?")
    if len(f.settings) == 1:  # an amount may say what it is paid by: "to £79 a day" (`measures.rate_per`)
        one = _SLOTS.get(f.one_kind, _TEXT) + (r"(?: an? [a-z]+)?" if f.one_kind == "amount" else "")
        parts.append(f"(?:{re.escape(f.setting_lead)}(?P<_one>{one}))?")
    elif f.settings:
        parts.append(r"(?:: set the (?P<_many>.+))?")  # a list of its own: "…, the city to … and …"
    if f.span is not None:
        first, then = span_words(f)
        parts.append(f"(?: {first} (?P<_from>{_MOMENT}) {then} (?P<_to>{_MOMENT}))?")
    # the rest after "with", or after a comma when none of it is a noun ("…, due April 19 and out of 50")
    days = "|".join(sorted(DAY_WORDS))  # "… until July 5": an end said by its own word (`frames.render_frame`)
    # (lower case meant: "…, Harbour View" goes on naming a row, "…, due April 19" starts the rest)
    parts.append(f"(?:(?:,?{re.escape(f.rest_lead)}|, (?=(?-i:due |[a-z]+ ))| (?=(?-i:(?:{days}) [A-Z]))"
                 f'|,? (?=(?:{"|".join(SPEECH_VERBS)})(?: [a-z]+)* "))(?P<_rest>.+?))?')  # 'saying "…"' (`arg_words.speech`)
    return re.compile("".join(parts) + "$", re.IGNORECASE)


def whole_value(p: ParamSpec, text: str) -> str:
    """A slot's text as one value of `p` (all of it, or ParseError)."""
    kind = "int" if p.type == "reference" else p.type
    value, end = scan_value(kind if not text.startswith('"') else "string", text, 0)
    if end != len(text):
        raise ParseError(f"{text!r} is not one {p.label.lower()} value")
    if p.type == "money" and not MONEY.fullmatch(text):
        raise ParseError(f"{text!r} is not an amount")
    return value


def parse_frame(spec: Spec, text: str, mine: dict[str, str], separators: tuple[str, ...], parse_args: Any,
                it: str | None = None) -> tuple[str, dict[str, Any]] | None:
    """The workflow and argument texts of a sentence a frame writes (`render_frame`), or None when
    no frame's words fit; ParseError when one fits but its values do not read. With `it` (an
    entity), one parameter referencing that entity is said "it" (RefText(IT, ONLY)). The parser
    passes in how it reads a row the user holds (`mine`), a list's separators and its argument
    reader, so this module stays beneath it (no import circle)."""

    problem: ParseError | None = None
    fits: list[tuple[int, str, dict[str, Any]]] = []
    whole = text
    for workflow in (w for w in spec.workflows if not w.system):
        f = frame(spec, workflow)
        move = move_shape(spec, f, workflow) if f is not None else None
        gift = gift_shape(spec, f, workflow) if f is not None else None
        back = (unmoved(whole, move) if move is not None else None) or (  # "Take Paula off the waitlist …"
            ungiven(whole, gift) if gift is not None else None)  # "Offer Ashley Vega the place …" (`self_moves`)
        if f is None or not (back or whole).lower().startswith(f.pieces[0].lead.lower() + " "):
            continue
        said_its = its_form(f) if it is not None else None
        text = back or whole
        text = text.replace(said_its[1], said_its[0], 1) if said_its else text  # "adjust its allowance …"
        shape = fold_shape(spec, f, workflow)
        m = frame_pattern(f).match(text)
        unfolded = unfold(f, shape, text) if shape is not None and m is None else None
        if unfolded is not None:  # "Buy 3 General admission tickets for …" (`unit_fold`)
            m = frame_pattern(f).match(unfolded)
        held = held_shape(spec, f, workflow) if m is None else None
        unheld = held_unfold(f, held, text) if held is not None else None
        if unheld is not None:  # "Transfer my 3 VIP tickets for …" (`unit_fold.held_shape`)
            m = frame_pattern(f).match(unheld)
        if m is None:
            continue
        try:
            args = _args(spec, f, workflow, m, mine, separators, parse_args, it)
        except ParseError as exc:
            problem = exc
            continue
        # "Pay Sunvale Energy $45 from …" fits "Pay a bill" too (a bill named "Sunvale Energy $45"):
        # the frame whose own pieces say the most is the one meant; a tie is no reading at all.
        fits.append((sum(1 for pc in f.pieces if pc.param and m[pc.param]), workflow.name, args))
    if fits:
        best = max(n for n, _w, _a in fits)
        top = [(w, a) for n, w, a in fits if n == best]
        if len(top) > 1:
            raise ParseError(f"{whole[:60]!r} reads as {' or '.join(w for w, _a in top)}")
        return top[0]
    if problem is not None:
        raise problem
    return None


def _args(spec: Spec, f: Frame, workflow: WorkflowSpec, m: re.Match[str], refs: dict[str, str],
          separators: tuple[str, ...], parse_args: Any, it: str | None = None) -> dict[str, Any]:
    params = {p.name: p for p in workflow.params}
    args: dict[str, Any] = {}
    found_by_app: set[str] = set()
    for piece in f.pieces:
        if piece.param is None or m[piece.param] is None:
            continue
        p = params[piece.param]
        if piece.role in (KIND, KIND_A):
            args[p.name] = next(v for v in p.values or [] if v.replace("_", " ") == m[p.name].lower())
            continue
        if piece.role == KIND_REF:  # a row of a list of kinds, by its name (`frames.KIND_REF`)
            args[p.name] = RefText(m[p.name])
            continue
        if it is not None and m[p.name] == IT and p.ref == it:
            args[p.name] = RefText(IT, ONLY)
            continue
        said_as = m[p.name]
        if piece.role == "subject" and p.ref:  # "refund the request for …": the noun the verb echoed said whole
            thing = noun(said(spec.entity(p.ref)))
            short = echoed(f.pieces[0].lead.split()[0], thing) if f.pieces[0].param is None else None
            for owner in ("the ", "my "):
                if short is not None and said_as.lower().startswith(f"{owner}{short} "):
                    said_as = f"{said_as[:len(owner)]}{thing} {said_as[len(owner) + len(short) + 1:]}"
                    break
            else:
                if short is not None and said_as.startswith("the ") and not said_as.lower().startswith(f"the {thing} "):
                    said_as = f"the {thing} for {said_as}"  # "Refund the order of …": the request for it
        if piece.role == "subject" and own_lookup(p) and m[p.name].lower() == f"my {noun(said(spec.entity(p.ref or '')))}":
            found_by_app.add(p.name)
            continue  # "Freeze my membership …": the row the app finds itself, left out of the call
        # "my …", "the …", or someone's ("Félix Gagnon's submission "…"", `row_names.person_split`)
        owned = m[p.name].lower().startswith(("my ", "the ")) or bool(_SOMEONES.match(m[p.name])) or (
            p.ref is not None and titled(m[p.name], noun(said(spec.entity(p.ref))))) or (  # "Flat 20, Ropewalk Apartments"
            p.ref is not None and code_named(spec, p.ref, m[p.name]))  # "ticket INC-151"
        # Rows are "my …" / "the …", except one paid by name; a shared row stays "the tool "X"" even
        # as the thing acted on (`name_of`).
        named = piece.role != "object" or (p.ref is not None and spec.entity(p.ref).visibility == "public")
        if p.ref is not None and person(spec, p.ref):
            named = False  # a person is named by their name, whatever their part (`name_of`)
        if p.ref and not owned and piece.role in ("source", "dest") and spec.entity(p.ref).visibility == "public":
            named = False  # "from Busan to Los Angeles": a place everyone knows, by its name (`name_of`)
        if p.ref and owned != named:
            raise ParseError(f"{m[p.name]!r} is not how this sentence names its {p.label.lower()}")
        args[p.name] = read_name(spec, p.ref, said_as) if p.ref else whole_value(p, _with_year(spec, p, m[p.name]))
        if piece.role == COMPLEMENT:  # "for the … plan" says no one's own (`frames.COMPLEMENT`)
            args[p.name] = replace(args[p.name], mine=None)
    subject = workflow.subject
    if subject in params and subject not in args and subject not in found_by_app and params[subject].ref:
        ent = spec.entity(params[subject].ref or "")
        if any(pc.param == subject for pc in f.pieces) and ent.name in refs:
            args[subject] = RefText(my_only(ent), ONLY)  # "Update my contact details": the user's only one
    missing = [pc.param for pc in f.pieces if pc.param and params[pc.param].required and pc.param not in args
               and pc.param not in found_by_app and pc.role != COUNT
               and not (pc.role in (KIND, KIND_A) and params[pc.param].default is not None)]
    if missing:
        raise ParseError(f"the sentence does not say its {', '.join(missing)}")
    if m["_one"] if len(f.settings) == 1 else None:
        one = params[f.settings[0]]
        args[one.name] = whole_value(one, _with_year(spec, one, _without_unit(one, m["_one"])))
    if len(f.settings) > 1 and m["_many"]:
        args.update(parse_args(workflow, m["_many"], refs, separators=separators, joiner=" to ", lead="the ",
                               subject_first=False))
    if it is not None and sum(1 for v in args.values() if v == RefText(IT, ONLY)) != 1:
        raise ParseError(f"nothing in {m.string[:60]!r} is the row found")
    if f.span is not None and m["_from"]:
        end_text = _with_year(spec, params[f.span[1]], m["_to"])
        year = re.search(r", (\d{4})\b", end_text)
        start_text = add_year(m["_from"], year[1]) if year else m["_from"]  # "from June 24 to June 26, 2026"
        args[f.span[0]] = whole_value(params[f.span[0]], _with_year(spec, params[f.span[0]], start_text))
        args[f.span[1]] = whole_value(params[f.span[1]], end_text)
    if m["_rest"]:
        more = parse_args(workflow, m["_rest"], refs, separators=separators, lead=REST_ARTICLE, subject_first=False)
        if set(more) & set(args):
            raise ParseError(f"an argument is given twice in {m.string[:60]!r}")
        said_rows = [v.text for k, v in args.items() if k in f.params() and isinstance(v, RefText) and v.by is None]
        for k, v in more.items():
            if isinstance(v, SameAsNamed):  # "with that as the summary": the one row named before it
                if len(said_rows) != 1:
                    raise ParseError(f"{m.string[:60]!r} says \"that\" with no one row named before it")
                more[k] = said_rows[0]
        args.update(more)
    chooser = currency_chooser(workflow.params)
    if chooser is not None and chooser.name not in args:  # "a declared value of £22,000" chose GBP
        codes = {currency_in(str(args[p.name])) for p in workflow.params if p.type == "money" and p.currency is None
                 and isinstance(args.get(p.name), str)}
        code = codes.pop() if len(codes) == 1 else None
        if code is not None and code != (chooser.default or "USD") and code in (chooser.values or []):
            args[chooser.name] = code
    return args


def _without_unit(p: ParamSpec, text: str) -> str:
    """A measure's number without the unit `frames.render_frame` says after it ("33 days" → "33")."""
    number = text.split(" ", 1)[0]
    per = rate_per(p)  # "£79 a day" (`frames.render_frame`)
    if per is not None and text.endswith(" " + per):
        return text[: -len(per) - 1]
    return number if p.type == "int" and with_unit(p, number) == text and number != text else text


def _with_year(spec: Spec, p: ParamSpec, text: str) -> str:
    """A date or a moment said without its year is in the world's current year (`spec.today`)."""
    return add_year(text, spec.today[:4]) if p.type in ("date", "datetime") else text


def add_year(text: str, year: str) -> str:
    """`text` with `year` after its day where it says none: "June 24" → "June 24, 2026", "June 24
    at 9:00 AM" → "June 24, 2026 at 9:00 AM"."""
    if re.search(r", \d{4}\b", text):
        return text
    day, at, time = text.partition(" at ")
    return f"{day}, {year}{at}{time}"
