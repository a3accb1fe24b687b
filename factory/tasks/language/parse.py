"""Parsing the instruction language: arguments and workflow runs read back from their text, with
nothing but the spec (reward-gen parses in its own process); questions are read by
`parse_questions.py`, conditions by `parse_conds.py`.

Each form `render.py` writes has its reader here; where a text fits a form's opening
words but not its names, the next form is tried, and the problem of the closest form is what
is reported. The entry point that also tries the seed's own phrasings is `phrasing.parse`.
"""

from __future__ import annotations

import re
from typing import Any

from factory.spec.model import EntitySpec, ParamSpec, Spec, WorkflowSpec
from factory.tasks.language.arg_phrases import dated_noun
from factory.tasks.language.arg_words import bare_word, measured, of_lead, speech
from factory.tasks.language.asks import MADE, ONLY, AskStep, ParseError, Question, RefText
from factory.tasks.language.frames import IT
from factory.tasks.language.frames_read import parse_frame
from factory.tasks.language.measures import with_unit
from factory.tasks.language.parse_conds import entity_and_conds, field_by, parse_conds, same
from factory.tasks.language.parse_picks import pick_ranked, pick_superlative, pick_whichever
from factory.tasks.language.parse_shaped import _said_at
from factory.tasks.language.registers import drop_context
from factory.tasks.language.render import bulk_sentence, lower_first, pick_verb, split_verb
from factory.tasks.language.spoken import (
    amount_said,
    entity_noun,
    noun,
    param_noun,
    param_said,
    said,
    verb_phrase,
)
from factory.tasks.language.values import PERSON_NAME, scan_value
from factory.tasks.language.words import my_only, possessed_head, scope_word, subject_entity

DIRECTIONS = {"highest": "max", "lowest": "min", "latest": "max", "earliest": "min", "most": "max", "fewest": "min"}
DIRS = "highest|lowest|latest|earliest|most|fewest"


class _NoForm(ParseError):
    """No form's opening words fit (as opposed to a form whose arguments do not parse)."""


_PICK = re.compile(r'^Find (?:my|the) (?P<entity>.+?)(?: with (?P<conds>.+?))? that has the '
                   rf'(?P<dir>{DIRS}) (?P<field>.+?), and use "(?P<wf>[^"]+)" '
                   r"on it(?: with (?P<args>.+))?\.$")
# Find-then-act as written now: "…, then pay it with …" (the verb: `render.pick_verb`).
_PICK_THEN = re.compile(r'^Find (?:my|the) (?P<entity>.+?)(?: with (?P<conds>.+?))? that has the '
                        rf'(?P<dir>{DIRS}) (?P<field>.+?), then (?P<verb>.+?) it'
                        r"(?: with (?P<args>.+))?\.$")
_STEP_PREFIXES = ("Please ", "I need to ", "")
_STEP_SEPARATORS = (": ", " with ", " ")


def _mine(labels: dict[str, str], p: ParamSpec | None, text: str, pos: int) -> str | None:
    if p is None or p.ref is None or p.ref not in labels:
        return None
    phrase = labels[p.ref]
    return text[pos:pos + len(phrase)] if text.lower().startswith(phrase, pos) else None


LIST_SEPARATORS = (", and ", " and ", ", ")  # a list `a, b and c` (longest first: ", and " before ", ")


def _separator(text: str, pos: int, separators: tuple[str, ...]) -> int:
    for sep in separators:
        if text.startswith(sep, pos):
            return pos + len(sep)
    raise ParseError(f"expected {' or '.join(repr(s) for s in separators)} between arguments at "
                     f"{text[pos:pos + 30]!r}")


def parse_args(workflow: WorkflowSpec, text: str | None, spec_of_refs: dict[str, str] | None = None,
               *, separators: tuple[str, ...] = ("; ",), joiner: str = " ", lead: str = "",
               subject_first: bool = True) -> dict[str, Any]:
    """`<param label> <value>; …` → param name → RefText (references) or value text.
    `spec_of_refs` maps entity names to their `my <entity>` phrase. The list forms pass their
    `separators`, the word between label and value (`joiner`, " to " in "Set the …") and an
    optional `lead` before each label ("the "); only the colon forms name the subject first."""
    spec_of_refs = spec_of_refs or {}
    if not text:
        return {}
    # Parameters as spoken (`spoken.noun`) and as labelled, longest first.
    names = sorted([*((n.lower(), p) for p in workflow.params for n in {p.label, noun(said(p)), param_noun(said(p)),
                                                                          param_said(p), param_said(p, True)}),
                    *((str(bare_word(p)), p) for p in workflow.params if joiner == " " and bare_word(p)),  # "due", "until"
                    *((found[1], found[0]) for found in [speech(workflow)] if found is not None and joiner == " ")],
                   key=lambda pair: -len(pair[0]))
    # an amount's noun said apart from the words after it ("a premium of £30 on top")
    amounts = [*names, *((amount_said(p)[0], p) for p in workflow.params if p.type == "money"),
               *((day, p) for p in workflow.params if (day := dated_noun(p)))]  # "a move-in date of July 18"
    args: dict[str, Any] = {}
    pos = 0
    subject = next((p for p in workflow.params if p.name == workflow.subject), None)
    mine = _mine(spec_of_refs, subject, text, 0) if subject is not None else None
    if subject_first and subject is not None and (text.startswith('"') or mine):
        if mine:
            args[subject.name], pos = RefText(mine, ONLY), len(mine)
        else:
            value, pos = scan_value("string", text, 0)
            args[subject.name] = RefText(value)
        if pos == len(text):
            return args
        pos = _separator(text, pos, separators)
    lowered = text.lower()
    while True:
        if lead and lowered.startswith(lead, pos):
            pos += len(lead)
        owned = next(((q, phrase) for q in workflow.params if joiner == " " and q.name not in args
                      and (phrase := _mine(spec_of_refs, q, text, pos))), None)
        if owned is not None:  # "… with my client, the name …" (`frames.arg_phrase`)
            args[owned[0].name] = RefText(owned[1], ONLY)
            pos += len(owned[1])
            if pos == len(text):
                return args
            pos = _separator(text, pos, separators)
            continue
        shaped = _said_at(workflow, text, pos, lead) if joiner == " " else None
        if shaped is not None:  # "4 guests", "the tank not full", "high priority", … (`arg_phrases.arg_phrase`)
            p, value, pos = shaped
            if p.name in args:
                raise ParseError(f"argument {p.label!r} is given twice")
            args[p.name] = value
            if pos == len(text):
                return args
            pos = _separator(text, pos, separators)
            continue
        amount = None
        trailer = ""
        if lead and joiner == " ":  # "an estimate of £20", "payment terms of 15 days" (`frames.arg_phrase`)
            amount = next(((p, lead_of) for n, p in amounts if p.type == "money" or measured(p) or dated_noun(p) == n
                           if lowered.startswith(lead_of := of_lead(n) + " of ", pos)), None)
            trailer = amount_said(amount[0])[1] if amount is not None else ""
        hit = None if amount is not None else next(((p, n) for n, p in names if lowered.startswith(n + joiner, pos)),
                                                   None)
        if hit is not None:
            p, pos = hit[0], pos + len(hit[1]) + len(joiner)
        elif amount is not None:
            p, pos = amount[0], pos + len(amount[1])
        else:
            raise ParseError(f"unknown argument at {text[pos:pos + 40]!r} ({workflow.label})")
        if p.name in args:
            raise ParseError(f"argument {p.label!r} is given twice")
        mine = _mine(spec_of_refs, p, text, pos)
        if mine:
            args[p.name], pos = RefText(mine, ONLY), pos + len(mine)
        else:
            if p.type == "bool" and joiner == " " and text.startswith("set to ", pos):
                pos += len("set to ")
            quoted = text.startswith('"', pos)
            person_name = PERSON_NAME.match(text, pos) if p.ref == "user" and not quoted else None
            chosen = next((v for v in sorted(p.values or [], key=len, reverse=True)
                           if lowered.startswith(v.replace("_", " ").lower(), pos)), None) \
                if p.type == "enum" and not quoted and hit is not None and hit[1] == bare_word(p) else None
            if chosen is not None:  # "by debit card" (`arg_phrases.arg_phrase`): the value as a word
                value, pos = chosen, pos + len(chosen)
            elif person_name is not None:  # "the customs broker Vikram Iyer" (`values.param_text`)
                value, pos = person_name[0], person_name.end()
            else:
                value, pos = scan_value(p.type if not quoted else "string", text, pos)
            args[p.name] = RefText(value) if p.type == "reference" else value
            if trailer and lowered.startswith(" " + trailer, pos):  # "a premium of £30 on top"
                pos += len(trailer) + 1
            unit = with_unit(p, str(value)).removeprefix(str(value))
            if unit and text.startswith(unit, pos):  # "the allowance 25 days" (`frames.arg_phrase`)
                pos += len(unit)
            end = next((q for q in workflow.params if q.name == p.range_end), None)
            if end is not None and joiner == " " and text.startswith(" to ", pos):
                # "period May 5, 2026 to May 11, 2026": a range's end said with its start
                if end.name in args:
                    raise ParseError(f"argument {end.label!r} is given twice")
                args[end.name], pos = scan_value(end.type, text, pos + len(" to "))
        if pos == len(text):
            return args
        pos = _separator(text, pos, separators)


def my_phrases(spec: Spec) -> dict[str, str]:
    """Entity name → how an instruction names the acting user's only row of it ("my profile")."""
    return {e.name: my_only(e) for e in spec.entities if e.visibility != "public" and e.owner_fields}


def _workflow_by(spec: Spec, label: str) -> WorkflowSpec:
    for w in spec.workflows:
        if not w.system and same(w.label, label):
            return w
    raise ParseError(f"no workflow is called {label!r}")


def parse_step(spec: Spec, text: str) -> AskStep:
    """One workflow run in any write form: find-and-act, the colon forms, the sentences, each
    also after a context that says who is asking ("I travel for work, so lock …", `registers.py`)."""
    bare = drop_context(text)
    if bare is not None:
        try:
            return parse_step(spec, bare)
        except ParseError:
            pass  # "I …, so" may be the words of a seed phrasing: the forms below are tried as well
    for w in spec.workflows:  # a run of a workflow without parameters, said by what it does
        whole = bulk_sentence(w) if not w.params and not w.system else None
        if whole is not None and text in (f"{whole}.", f"Please {lower_first(whole)}.", f"Could you {lower_first(whole)}?"):
            return AskStep(w.name, {})
    framed = (_pick_framed(spec, text) or pick_whichever(spec, text, my_phrases(spec), LIST_SEPARATORS, parse_args)
              or pick_ranked(spec, text, my_phrases(spec), LIST_SEPARATORS, parse_args)
              or pick_superlative(spec, text, my_phrases(spec), LIST_SEPARATORS, parse_args))
    if framed is not None:
        return framed
    m = _PICK_THEN.match(text)
    if m:
        ent, first_conds = entity_and_conds(spec, m["entity"], plural=False)
        workflow = next((w for w in spec.workflows if not w.system
                         and pick_verb(spec, w, ent.name).lower() == f"{m['verb']} it".lower()), None)
        if workflow is None:
            raise ParseError(f"no workflow is done by {m['verb']!r}")
        q = Question(DIRECTIONS[m["dir"]], ent.name, field_by(ent, m["field"]),
                     conds=first_conds + parse_conds(ent, m["conds"], spec))
        param = next((p.name for p in workflow.params if p.ref == ent.name
                      and p.name == (workflow.subject or p.name)), None)
        if param is None:
            raise ParseError(f"{workflow.label!r} takes no {ent.label}")
        args = parse_args(workflow, m["args"], my_phrases(spec), separators=LIST_SEPARATORS, subject_first=False)
        return AskStep(workflow.name, args, (param, q))
    m = _PICK.match(text)
    if m:
        ent, first_conds = entity_and_conds(spec, m["entity"], plural=False)
        workflow = _workflow_by(spec, m["wf"])
        q = Question(DIRECTIONS[m["dir"]], ent.name, field_by(ent, m["field"]),
                     conds=first_conds + parse_conds(ent, m["conds"], spec))
        param = next((p.name for p in workflow.params if p.ref == ent.name
                      and p.name == (workflow.subject or p.name)), None)
        if param is None:
            raise ParseError(f"{workflow.label!r} takes no {ent.label}")
        return AskStep(workflow.name, parse_args(workflow, m["args"], my_phrases(spec)), (param, q))
    framed = _parse_framed(spec, text)
    if framed is not None:
        return framed
    try:
        return _parse_colon_form(spec, text)
    except ParseError as exc:
        colon = exc
    try:
        return _parse_sentence(spec, text)
    except ParseError as exc:
        # Report the form the text came closest to: the colon form when its words matched.
        raise (exc if isinstance(colon, _NoForm) else colon) from None


_PICK_ACT = re.compile(r'^Find (?:my|the) (?P<entity>.+?)(?: with (?P<conds>.+?))? that has the '
                       rf'(?P<dir>{DIRS}) (?P<field>.+?), then (?P<act>.+)\.$')


def _pick_framed(spec: Spec, text: str) -> AskStep | None:
    """Find-then-act whose act is a frame's sentence with the row found said "it" (`frames.py`)."""
    m = _PICK_ACT.match(text)
    if m is None:
        return None
    try:
        ent, first_conds = entity_and_conds(spec, m["entity"], plural=False)
        found = parse_frame(spec, m["act"][:1].upper() + m["act"][1:], my_phrases(spec), LIST_SEPARATORS, parse_args,
                            it=ent.name)
        if found is None:
            return None
        q = Question(DIRECTIONS[m["dir"]], ent.name, field_by(ent, m["field"]),
                     conds=first_conds + parse_conds(ent, m["conds"], spec))
    except ParseError:  # an older find-then-act form may fit
        return None
    workflow, args = found
    param = next(k for k, v in args.items() if v == RefText(IT, ONLY))
    return AskStep(workflow, {k: v for k, v in args.items() if k != param}, (param, q))


def _parse_framed(spec: Spec, text: str) -> AskStep | None:
    """A sentence written by a workflow's frame (`frames.py`), in each register's opener and stop."""
    for opener, stop in (("Please ", "."), ("Could you ", "?"), ("", ".")):
        if text.startswith(opener) and text.endswith(stop):
            body = text[len(opener):-1]
            try:
                found = parse_frame(spec, body[:1].upper() + body[1:], my_phrases(spec), LIST_SEPARATORS, parse_args)
            except ParseError:  # the words fit a frame but not its values: an older form may fit
                continue
            if found is not None:
                return AskStep(found[0], found[1])
    return None


def parse_on_made(spec: Spec, text: str, before: str) -> AskStep | None:
    """An action on the row the action before it created, said "it" ("…, then cancel it"): a
    frame's sentence whose row of an entity workflow `before` creates is the pronoun. None when
    `text` is no such sentence."""
    made = [e.entity for w in spec.workflows if w.name == before for e in w.effects if e.kind == "create"]
    for entity in dict.fromkeys(made):
        found = parse_on_it(spec, text, entity, RefText(IT, MADE))
        if found is not None:
            return found
    return None


def parse_on_it(spec: Spec, text: str, entity: str, meant: RefText) -> AskStep | None:
    """An action whose row of `entity` is said "it", with `meant` in its place (the row the
    action before made, or the one it acted on: "…, then escalate it"); None when `text` is no
    such sentence."""
    body = text[:-1] if text.endswith(".") else text
    try:
        found = parse_frame(spec, body, my_phrases(spec), LIST_SEPARATORS, parse_args, it=entity)
    except ParseError:
        return None
    if found is None:
        return None
    workflow, args = found
    return AskStep(workflow, {k: meant if v == RefText(IT, ONLY) else v for k, v in args.items()})


def _parse_colon_form(spec: Spec, text: str) -> AskStep:
    # Workflow labels are matched whole, longest first ("Move note" before "Move").
    workflows = sorted((w for w in spec.workflows if not w.system), key=lambda w: -len(w.label))
    lowered = text.lower()
    for prefix in _STEP_PREFIXES:
        for workflow in workflows:
            head = (prefix + workflow.label).lower()
            if not lowered.startswith(head) or not text.endswith("."):
                continue
            rest = text[len(head):-1]
            for sep in _STEP_SEPARATORS:
                if rest.startswith(sep) and (sep != " " or rest[1:2] == '"' or rest[1:4].lower() == "my "):
                    return AskStep(workflow.name, parse_args(workflow, rest[len(sep):], my_phrases(spec)))
    raise _NoForm(f"no workflow phrasing matches {text[:60]!r}")


_OPENERS = ("Please ", "Could you ", "")


def _parse_sentence(spec: Spec, text: str) -> AskStep:
    """The sentence forms of `render_sentence`: an opener, the workflow's label (or its possessed
    head, "Lock my card"), the row acted on, then the other arguments as a list."""
    refs = my_phrases(spec)
    workflows = sorted((w for w in spec.workflows if not w.system), key=lambda w: -len(w.label))
    problem: ParseError | None = None
    for opener in _OPENERS:
        if not text.startswith(opener):
            continue
        body = text[len(opener):]
        for workflow in workflows:
            possessed = possessed_head(spec, workflow)
            split = split_verb(verb_phrase(workflow))  # "Save the listing "Loft" to the wishlist"
            heads = ((possessed, True, ""), (verb_phrase(workflow), False, ""), (workflow.label, False, ""),
                     (split[0] + " " if split else None, False, split[1] if split else ""))
            for head, is_possessed, tail in heads:
                if head is None or not body.lower().startswith(head.lower()):
                    continue
                try:
                    return _sentence_rest(spec, workflow, body, len(head), is_possessed, opener, refs, tail)
                except ParseError as exc:
                    problem = exc
    raise problem or ParseError(f"no workflow phrasing matches {text[:60]!r}")


def _subject_ref(ent: EntitySpec, body: str, pos: int) -> tuple[RefText, int]:
    """The row acted on, right after its noun: a quoted label, or nothing ("my card": the only one)."""
    if body.startswith(' "', pos):
        value, pos = scan_value("string", body, pos + 1)
        return RefText(value), pos
    if scope_word(ent) == "my":
        return RefText(my_only(ent), ONLY), pos
    raise ParseError(f"expected the quoted name of the {ent.label.lower()} at {body[pos:pos + 30]!r}")


def _sentence_rest(spec: Spec, workflow: WorkflowSpec, body: str, pos: int, possessed: bool,
                   opener: str, refs: dict[str, str], tail: str = "") -> AskStep:
    args: dict[str, Any] = {}
    found = subject_entity(spec, workflow)
    if possessed and found is not None:
        args[found[0].name], pos = _subject_ref(found[1], body, pos)
    elif tail and found is not None:  # the verb split around its row: "save <row> to the wishlist"
        param, ent = found
        noun = f"{scope_word(ent)} {entity_noun(ent)}"
        if not body.lower().startswith(noun, pos):
            raise ParseError(f"expected {noun!r} at {body[pos:pos + 30]!r}")
        args[param.name], pos = _subject_ref(ent, body, pos + len(noun))
        if not body.startswith(f" {tail}", pos):
            raise ParseError(f"expected {tail!r} at {body[pos:pos + 30]!r}")
        pos += len(tail) + 1
    elif tail:
        raise ParseError(f"{workflow.label!r} acts on no one row to say inside its verb")
    elif found is not None:
        param, ent = found
        for link in (" for ", " "):
            noun = f"{link}{scope_word(ent)} {entity_noun(ent)}"
            if body.lower().startswith(noun, pos):
                args[param.name], pos = _subject_ref(ent, body, pos + len(noun))
                break
    rest = body[pos:]
    if opener == "Could you " and rest.startswith(" with ") and rest.endswith("?"):
        items = rest[len(" with "):-1]  # "Could you … with the title "X", the amount $5?"
    elif opener == "Could you ":
        if not rest.startswith(" for me?"):
            raise ParseError(f"expected 'for me?' at {rest[:30]!r}")
        rest = rest[len(" for me?"):]
        if not rest:
            return AskStep(workflow.name, args)
        if not rest.startswith(" ") or not rest.endswith("."):
            raise ParseError(f"expected the arguments as a sentence at {rest[:30]!r}")
        items = rest[1:-1]
    else:
        if rest == ".":
            return AskStep(workflow.name, args)
        lead = next((k for k in (", ", " with ") if rest.startswith(k)), None)
        if lead is None or not rest.endswith("."):
            raise ParseError(f"expected ', ' or ' with ' and the arguments at {rest[:30]!r}")
        items = rest[len(lead):-1]
    more = parse_args(workflow, items, refs, separators=LIST_SEPARATORS, lead="the ", subject_first=False)
    if set(more) & set(args):
        raise ParseError(f"the row acted on is given twice in {body[:60]!r}")
    return AskStep(workflow.name, {**args, **more})

