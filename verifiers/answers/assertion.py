"""Which located value an answer asserts, and what voids the assertion.

The readers of each kind locate candidate values in a folded answer (`Span`s); `assess` masks
them out and reads the words that are left, clause by clause:

1. the answer is cut into parts: text in brackets, and clauses (split at commas, semicolons,
   spaced dashes, sentence ends and new lines);
2. the first clause that holds a value is the *core*; clauses before it are *lead-ins* ("Well,"
   "In total,"), the clauses after it and every bracket are *explanations*;
3. the core must hold one value (a yes or a no may be repeated); code-like text,
   a hedge or a "?" anywhere, a negation anywhere (yes/no: in the core, or a bare "not" beside a
   yes), comparatives and arithmetic around a quantity, bounds around a date, an explanation that
   offers an alternative ("or ...", "..., 57"), or one that contradicts the value void the answer;
4. names (text and label kinds) are held to the strictest form: the words before a name must end
   in a copula or be wrapper words ("David Ortiz is a", "The answer is", "it's the"), the words
   after it must be nothing or a closing phrase ("is the answer"), and an explanation (after a
   comma or in brackets) must start like one ("from college", "sent on June 5", "as listed").

A `Reading` carries the asserted value, or the reason nothing is asserted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from verifiers.answers.lexicon import (
    ADDITIVE,
    ALTERNATIVE,
    ARTICLES,
    CODE,
    CONNECTORS,
    COPULAS,
    DATE_NEXT_TO,
    DATE_QUALIFIER,
    DIGITS,
    EXPLAINERS,
    EXPLANATION_QUALIFIER,
    FILLERS,
    FRAMERS,
    GLUED_OPERATOR,
    HEDGE,
    MAX_MARKS,
    NEGATION,
    NOT_THE_NAME,
    OPENS_ALTERNATIVE,
    OTHER,
    QUANTITY_NEXT_TO,
    QUANTITY_QUALIFIER,
    REPLY_PREFIXES,
    TAIL_ALTERNATIVE,
    TRAILERS,
    VALUE,
    WORD,
    mark,
    mark_index,
)

_BRACKET = re.compile(r"\(([^()\[\]]*)\)|\[([^()\[\]]*)\]")
# Clause boundaries; a full stop after "ext", "no" or "vs" abbreviates, it does not end a sentence.
_CLAUSE = re.compile(r"\n+|(?<=[.!?])(?<!ext\.)(?<!no\.)(?<!vs\.)\s+|\s*[,;]\s*"
                     r"|\s+[-\u2013\u2014]+(?:\s+|$)|[\u2013\u2014]")
# A name in quotes right after a few words: 'the message "Quick question"', 'my card "Visa"'.
_QUOTED = re.compile(r"[\"']\s*" + VALUE)
_MARKS = re.compile(VALUE)


@dataclass(frozen=True)
class Span:
    """A located value: where it is in the folded answer and what it is worth (None when it is
    written like a value of the kind but is not a valid one, e.g. "2026-02-30")."""

    start: int
    end: int
    value: object


@dataclass(frozen=True)
class Rules:
    """How strictly the words around a value of one kind are read."""

    kind: str
    quantity: bool = False  # comparatives, bounds and arithmetic void it (number, money)
    date: bool = False  # "before", "by", "or later", "the week of" void it
    name: bool = False  # only wrapper words may stand around it (text, label)
    polarity: bool = False  # yes/no: the explanation may deny what a "no" denies
    sub_values: bool = False  # an explanation may hold other values ("2 in inbox")
    stray_digits: bool = False  # digits left beside the value void it (dates, phone numbers)
    # label: a bracket right after the name reads as the label's own "(Sender)" part, so it
    # must be the label's (then it is inside the name found), never another one
    bracket_extends: bool = False
    # an identifier (phone, email) ends its clause: only a closing phrase may follow it
    exact_tail: bool = False


@dataclass(frozen=True)
class Reading:
    """What an answer asserts: `value`, or None and the `reason` nothing (valid) is asserted."""

    value: object
    reason: str = ""


def _void(reason: str) -> Reading:
    return Reading(None, reason)


def _marks(part: str) -> list[int]:
    return [mark_index(c) for c in _MARKS.findall(part)]


def _words(part: str) -> list[str]:
    return WORD.findall(part)


def _mask(text: str, spans: Sequence[Span], others: Sequence[tuple[int, int]]) -> str:
    """The answer with the i-th value replaced by mark(i) and other kinds' values by OTHER."""
    events = sorted([(s.start, s.end, mark(i)) for i, s in enumerate(spans)]
                    + [(start, end, OTHER) for start, end in others])
    out: list[str] = []
    pos = 0
    for start, end, char in events:
        if start < pos:  # overlapping: the first one found stands
            continue
        out += [text[pos:start], char]  # no spaces added: "$20-25" must stay one range
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _split(text: str) -> list[str]:
    return [p.strip() for p in _CLAUSE.split(text) if p and p.strip(" .!:\"'")]


def _parts(masked: str) -> tuple[list[str], list[str]]:
    """(clauses outside brackets, clauses of bracketed explanations)."""
    outside, notes = masked, []
    while (m := _BRACKET.search(outside)) is not None:
        notes.append(m[1] if m[1] is not None else m[2])
        outside = f"{outside[:m.start()]} {outside[m.end():]}"
    if not _MARKS.search(outside):  # the value itself is in brackets: "Total (56)"
        outside, notes = re.sub(r"[()\[\]]", " ", masked), []
    return _split(outside), [c for note in notes for c in _split(note)]


def _name_core_ok(core: str, rules: Rules) -> bool:
    """A name's clause: wrapper words before it, nothing (or a closing phrase) after it."""
    first = _MARKS.search(core)
    last = list(_MARKS.finditer(core))[-1]
    assert first is not None
    before = _words(core[:first.start()])
    while before and before[-1] in ARTICLES:
        before.pop()
    if before[-2:-1] and before[-1] == ":" and before[-2] in REPLY_PREFIXES:
        return False
    quoted = _QUOTED.search(core[:first.end()]) is not None
    if NOT_THE_NAME & set(before):
        return False
    if quoted and len(before) <= 3:
        pass  # the quotes set the name off from the words that say what kind of row it is
    elif before and before[-1] not in COPULAS and not all(w in FILLERS for w in before):
        return False
    after = " ".join(_words(core[last.end():]))
    return not after or after in TRAILERS


_BRACKET_AFTER_NAME = re.compile(VALUE + r"\s*[(\[]")


def _lead_ok(part: str, rules: Rules) -> bool:
    """A lead-in clause before a name only frames it ("Well", "Based on the list")."""
    words = _words(part)
    return not words or all(w in FILLERS for w in words) or words[0] in FRAMERS


def assess(text: str, spans: Sequence[Span], rules: Rules,
           others: Sequence[tuple[int, int]] = ()) -> Reading:
    """The value a folded answer asserts among the located `spans`, or why it asserts none.
    `others` are the places of values of other kinds (dates in a number answer), which are
    neither counted nor read as words."""
    if not spans:
        return _void(f"no {rules.kind} value was found in the answer")
    if len(spans) >= MAX_MARKS:
        return _void("the answer holds too many values")
    masked = _mask(text, spans, others)
    if CODE.search(masked):
        return _void("the answer looks like code or SQL, not like an answer")
    if HEDGE.search(masked):
        return _void("the answer is hedged (a guess, an approximation or a question)")
    clauses, notes = _parts(masked)
    core_at = next((i for i, c in enumerate(clauses) if _MARKS.search(c)), None)
    if core_at is None:  # every value overlapped a value of another kind
        return _void(f"no {rules.kind} value was found in the answer")
    leads, core, explanations = clauses[:core_at], clauses[core_at], clauses[core_at + 1:]
    if OPENS_ALTERNATIVE.match(core) or TAIL_ALTERNATIVE.search(core):
        return _void("the answer offers its value as an alternative")
    marks = _marks(core)
    values = [spans[i].value for i in marks]
    value = values[0]
    # A yes may be said twice ("Definitely yes"); any other value once per clause, or whatever
    # stands between two mentions ("friend or colleague or friend") would go unread.
    if len(marks) > 1 and (not rules.polarity or len(set(map(repr, values))) > 1):
        return _void(f"the answer gives more than one {rules.kind} value")
    if value is None:
        return _void(f"the answer's value is not a valid {rules.kind}")
    if rules.polarity:
        if NEGATION.search(core):
            return _void("the yes/no is negated")
        for part in leads + explanations + notes:
            # A statement may deny what a "no" denies ("No, it isn't locked"); a bare "not"
            # beside a yes takes it back.
            if NEGATION.search(part) and (value is True and len(_words(part)) < 2):
                return _void("the yes/no is negated")
    elif NEGATION.search(masked):
        return _void("the answer is negated or excludes something")
    framing = [core, *leads]
    if rules.quantity and any(p.search(c) for c in framing for p in (
            QUANTITY_QUALIFIER, QUANTITY_NEXT_TO, GLUED_OPERATOR, ALTERNATIVE)):
        return _void("the value is qualified (a comparison, a bound, a range or arithmetic)")
    if rules.date and any(p.search(c) for c in framing
                          for p in (DATE_QUALIFIER, DATE_NEXT_TO, GLUED_OPERATOR)):
        return _void("the date is qualified (a bound, a range or an approximation)")
    if rules.exact_tail:
        after = " ".join(_words(core[list(_MARKS.finditer(core))[-1].end():]))
        if after and after not in TRAILERS:
            return _void(f"words after the {rules.kind} qualify it")
    if rules.stray_digits and DIGITS.search(core):
        return _void(f"the {rules.kind}'s clause holds another number")
    if rules.name:
        if rules.bracket_extends and _BRACKET_AFTER_NAME.search(masked):
            return _void("a bracket after the name gives it another part than the label's")
        if not _name_core_ok(core, rules):
            return _void("the name is not asserted alone (other words qualify or extend it)")
        if not all(_lead_ok(p, rules) for p in leads):
            return _void("a clause before the name may name something else")
    for part in explanations + notes:
        reason = _explanation_problem(part, value, spans, rules)
        if reason:
            return _void(reason)
    return Reading(value)


def _explanation_problem(part: str, value: object, spans: Sequence[Span], rules: Rules) -> str:
    """Why an explanation voids the answer ('' when it does not)."""
    if ADDITIVE.match(part):
        return "an explanation offers an alternative or a second value"
    marks = _marks(part)
    others = [spans[i].value for i in marks if repr(spans[i].value) != repr(value)]
    only_values = not [w for w in _words(part) if w not in CONNECTORS]
    if others and (not rules.sub_values or only_values):
        return f"the answer gives more than one {rules.kind} value"
    if rules.quantity and OTHER in part and only_values:  # "$20 - 25": a bare second amount
        return f"the answer gives more than one {rules.kind} value"
    if rules.quantity and EXPLANATION_QUALIFIER.search(part):
        return "an explanation bounds the value (at least, at most, or more)"
    if not marks and rules.date and (DATE_QUALIFIER.search(part) or DATE_NEXT_TO.search(part)):
        return "an explanation bounds the date"
    if rules.name:  # "friend (family)", "friend, colleague": a second name, not an explanation
        words = _words(part)
        if words and words[0] not in EXPLAINERS:
            return "an explanation after the name may name something else"
    return ""
