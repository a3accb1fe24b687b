"""What a seed phrasing's own words bind: its tokens (slots, and the literals it carries: money, a
date, a bare number, a quoted text), the workflow parameter each slot and literal fills (by entity,
type and the words around it; a tie binds nothing), the parameters its words fix (an enum value, a
text default written out), its value slots, and the words an appended value could contradict.
`intents` grounds a phrasing into an `IntentForm` from these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from factory.predict.rows import enum_text
from factory.spec.model import ParamSpec, Spec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.values import MONEY

# Slots, and the literals a phrasing may carry: money, a bare number, a quoted text. A quote
# opens only after a space, a colon or a bracket, so "{sender}'s" and "I'll" are no quotes.
# An amount in any currency the app writes ("$12.50", "£12.50", "€1,200"); a double-quoted text may
# hold an apostrophe ("Cousin's wedding").
TOKEN = re.compile(
    r"\{(?P<slot>[a-z_][a-z0-9_]*)\}"
    rf"|(?P<money>{MONEY.pattern.removeprefix('-?')})"
    r"|(?P<date>(?:January|February|March|April|May|June|July|August|September|October|November|December)"
    r" \d{1,2}(?:, \d{4})?)(?!\d)"
    r"|(?<![\w$.,€£₹])(?P<int>\d+)(?![\w,])"
    r"|(?<![^\s:(])(?P<q>['\"])(?P<quoted>[^'\"{}\s](?:(?:(?!(?P=q))[^{}])*[^'\"{}\s])?)(?P=q)(?!\w)")
_LITERAL_TYPES = {"money": ("money",), "int": ("int",), "date": ("date",), "quoted": ("string", "text", "email", "enum")}
_STOP = frozenset(["a", "an", "the", "my", "your", "our", "his", "her", "their", "its", "this", "that",
                   "these", "those"])

# Words that say what a parameter appended at the end could contradict (checked with the slots
# and literals taken out). Month names count only capitalised ("may" is also a verb).
_WHEN = re.compile(r"\b(?:today|tonight|tomorrow|yesterday|now|soon|later|next|last|this|first|"
                   r"weekends?|(?:day|week|month|year|night|morning|afternoon|evening)s?|noon|midnight|"
                   r"\d+(?:st|nd|rd|th)|(?:mon|tues|wednes|thurs|fri|satur|sun)days?)\b", re.IGNORECASE)
_MONTHS = re.compile(r"\b(?:January|February|March|April|May|June|July|August|September|October|"
                     r"November|December)\b")
_HOW_MANY = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|"
                       r"couple|pair|dozen|single|double|twice|once|several|few)\b", re.IGNORECASE)
_HOW_MUCH = re.compile(r"\b(?:whole|full|entire|all|remaining|rest|balance|total|half)\b", re.IGNORECASE)
_WHAT_TO_SAY = re.compile(r"\b(?:say|says|saying|said|ask|asking|tell|telling|thank|thanking|titled|"
                          r"called|named|write|writing|mention|mentioning|explain|explaining|because)\b"
                          r"|:\s*\w", re.IGNORECASE)
KEEP = re.compile(r"\b(?:keep|keeping|unchanged|as is|everything else|the same)\b", re.IGNORECASE)
# A literal right after one of these states a change ("raise it by $15"), not the value to set.
_RELATIVE = frozenset(["by", "more", "less", "extra", "another", "increase", "decrease", "raise", "lower",
                       "reduce"])
_INFLECTIONS = r"(?:s|es|d|ed|ing|ling|led)?"


@dataclass(frozen=True)
class Token:
    kind: str  # slot | money | int | quoted
    text: str  # as written (a slot's name, a quoted literal's inner text)
    start: int
    end: int
    before: str  # the nearest word before it (articles skipped), "" when a token comes first
    after: str  # the nearest word after it


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP]


def tokens_of(phrasing: str) -> list[Token]:
    found = list(TOKEN.finditer(phrasing))
    out = []
    for i, m in enumerate(found):
        kind = next(k for k in ("slot", "money", "date", "int", "quoted") if m.group(k) is not None)
        before = _words(phrasing[found[i - 1].end() if i else 0:m.start()])
        after = _words(phrasing[m.end():found[i + 1].start() if i + 1 < len(found) else len(phrasing)])
        out.append(Token(kind, m.group(kind), m.start(), m.end(), before[-1] if before else "",
                          after[0] if after else ""))
    return out


def _like(a: str, b: str) -> bool:
    """Same word, or one a stem of the other ("night"/"nightly", "guest"/"guests")."""
    return a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))


def _best(candidates: list[ParamSpec], cues: list[tuple[str, int]]) -> ParamSpec | None:
    """The candidate whose name or label best matches the weighted cue words; None on a tie.
    Words every candidate shares ("account" in "From account" and "To account") decide nothing."""
    if len(candidates) == 1:
        return candidates[0]
    words = {p.name: set(_words(p.name.replace("_", " ")) + _words(p.label)) for p in candidates}
    common = set.intersection(*words.values())
    scores = {p.name: sum(weight for cue, weight in cues if cue and any(_like(cue, w) for w in words[p.name] - common))
              for p in candidates}
    top = max(scores.values())
    best = [p for p in candidates if scores[p.name] == top]
    return best[0] if top > 0 and len(best) == 1 else None


def labels_of(params: list[ParamSpec]) -> str:
    return " or ".join(repr(p.label) for p in params)


def bind_slots(spec: Spec, workflow: WorkflowSpec, slots: list[tuple[Token, str, str]]
                ) -> dict[str, str] | str:
    """slot -> parameter, by entity and affinity; a reason when a slot cannot be bound."""
    bound: dict[str, str] = {}
    fields: dict[str, list[str]] = {}
    for token, entity, fname in slots:
        if token.text in bound:
            continue  # the same slot again names the same value
        candidates = [p for p in workflow.params if p.ref == entity]
        if not candidates:
            return f"no parameter of {workflow.label!r} takes {grammar.with_article(spec.entity(entity).label.lower())}"
        cues = [(w, 3) for w in _words(token.text.replace("_", " "))] + [(token.before, 2)]
        p = _best(candidates, cues)
        if p is None:
            return f"{{{token.text}}} could fill {labels_of(candidates)}"
        if fname in fields.setdefault(p.name, []):
            return f"two slots name the {fname} of one {spec.entity(entity).label.lower()}"
        fields[p.name].append(fname)
        bound[token.text] = p.name
    return bound


_SPAN_START = frozenset(["from", "since", "starting", "between"])
_SPAN_END = frozenset(["to", "until", "till", "through", "and"])


def bind_literals(workflow: WorkflowSpec, tokens: list[Token], taken: set[str], forced: dict[int, str] | None = None
                   ) -> list[tuple[str, str]] | str:
    literals: list[tuple[str, str]] = []
    for token in tokens:
        written = token.text if token.kind != "quoted" else f"'{token.text}'"
        if forced and token.start in forced:  # a value slot: the parameter it is named after
            taken.add(forced[token.start])
            literals.append((written, forced[token.start]))
            continue
        if token.before in _RELATIVE:
            return f"'{token.before} {written}' states a change, not a value to set"
        candidates = [p for p in workflow.params if p.type in _LITERAL_TYPES[token.kind] and p.name not in taken]
        if not candidates:
            return f"{written} fits no parameter of {workflow.label!r}"
        p = _best(candidates, [(token.before, 2), (token.after, 2)])
        if p is None and token.kind == "date":
            # a range said as people say one: "from July 6 to July 10" is its start and its end
            ends = [c for c in candidates if (c.range_end if token.before in _SPAN_START else c.range_of)
                    and token.before in _SPAN_START | _SPAN_END]
            p = ends[0] if len(ends) == 1 else None
        if p is None:
            return f"{written} could fill {labels_of(candidates)}"
        taken.add(p.name)
        literals.append((written, p.name))
    return literals


def fixed_by_words(workflow: WorkflowSpec, text: str, taken: set[str]) -> tuple[dict[str, Any], str] | str:
    """Parameters the words state: an enum value ("travelling" → travel) or a text default written
    out ("Summer 2026"); returns them and the text with those defaults masked, or a reason."""
    fixed: dict[str, Any] = {}
    label_words = {w for p in workflow.params for w in _words(p.label)} | set(_words(workflow.label))
    # A quoted literal is replaced by a chosen text: its words state no enum value.
    free = TOKEN.sub(lambda m: " " * len(m.group(0)) if m.group("quoted") else m.group(0), text)
    for p in workflow.params:
        if p.name in taken:
            continue
        if p.type in ("string", "text") and isinstance(p.default, str) and len(p.default) >= 3:
            m = re.search(rf"(?<!\w){re.escape(p.default)}(?!\w)", text, re.IGNORECASE)
            if m:
                fixed[p.name] = p.default
                text = text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]
        if p.type == "enum":
            said = [v for v in p.values or [] if enum_text(v).lower() not in label_words
                    and re.search(rf"\b{re.escape(enum_text(v))}{_INFLECTIONS}\b", free, re.IGNORECASE)]
            if len(said) > 1:
                return f"the words name several values of {p.label!r}: {', '.join(said)}"
            if said:
                fixed[p.name] = said[0]
    return fixed, text


def contradiction(p: ParamSpec, words: str) -> str | None:
    """Why appending a value of `p` could contradict what the phrasing says, or None."""
    if p.type in ("date", "datetime") and (_WHEN.search(words) or _MONTHS.search(words)):
        return f"it says when in words, so {p.label!r} cannot be added"
    if p.type == "int" and _HOW_MANY.search(words):
        return f"it says how many in words, so {p.label!r} cannot be added"
    if p.type in ("money", "int") and _HOW_MUCH.search(words):
        return f"it says how much in words, so {p.label!r} cannot be added"
    if p.type in ("string", "text", "email") and _WHAT_TO_SAY.search(words):
        return f"it says what to write in words, so {p.label!r} cannot be added"
    label = _words(p.label)
    if p.ref is None and p.type != "bool" and label and all(
            re.search(rf"\b{re.escape(w)}\b", words, re.IGNORECASE) for w in label):
        return f"it mentions {p.label!r} without a slot or a value"
    return None


# A value slot is written as a literal of its parameter's type, so the machinery for literals
# (binding, rendering, reading back) carries it; the placeholder's text is never shown.
_PLACEHOLDERS = {"money": "$1", "int": "1", "date": "January 1, 2000", "string": '"x"', "text": '"x"',
                 "email": '"x"', "enum": '"x"'}
_FAMILY = {"money": "number", "int": "number", "string": "text", "text": "text", "email": "text", "enum": "text"}


def value_slots(spec: Spec, workflow: WorkflowSpec, decl: dict[str, str], phrasing: str
                 ) -> tuple[str, dict[int, str]]:
    """The phrasing with every value slot written as a literal, and those literals' offsets → the
    parameter each fills.

    A slot named after a parameter that takes a value, not a row (`{leaving_on}` in "give notice
    with a leaving date of {leaving_on}", declared as `lease.end_on`, the field the workflow sets
    from it), says that parameter's value. Bound by its entity instead, it would name the lease by
    its present end date and leave the new date to an appended sentence that contradicts it."""
    params = {p.name: p for p in workflow.params if p.type in _PLACEHOLDERS}
    out, forced, pos = [], {}, 0
    for m in re.finditer(r"\{([a-z_][a-z0-9_]*)\}", phrasing):
        p = params.get(m.group(1))
        entity, _, fname = decl.get(m.group(1), "").partition(".")
        declared = next((f for e in spec.entities if e.name == entity for f in e.fields if f.name == fname), None)
        if p is None or declared is None or _FAMILY.get(declared.type, declared.type) != _FAMILY.get(p.type, p.type):
            continue
        out.append(phrasing[pos:m.start()])
        forced[sum(map(len, out))] = p.name
        out.append(_PLACEHOLDERS[p.type])
        pos = m.end()
    out.append(phrasing[pos:])
    return "".join(out), forced
