"""The seed's own task phrasings: which ones can be grounded, what fills each slot, text ↔ Ask.

A phrasing (`"Move $250 from {from} to {to}."`) is grounded once per spec into an `IntentForm`:

- a slot names a field of a row (`account.nickname`); it fills the workflow parameter that
  references that entity, and when several do, the one whose name or label best matches the
  slot's name and the word before it (`from {account}` → "From account"). A tie makes the
  phrasing unusable: a binding is never guessed;
- slots naming different fields of one entity that a single parameter references name that one
  row together (`the payment to {payee} on {date}`: every field must match, `RefText.also`);
- literals (`$250`, `2 guests`, `'Spotless and central.'`) fill a free parameter of their type,
  by the same affinity; the proposer writes its own values in their place;
- words that state a parameter's value fix it: an enum value (`I'm travelling` → reason
  "travel"), a text default written out (`my Summer 2026 wishlist`);
- the required parameters left over are appended as one sentence of the generic grammar
  (`Set the from account to "Main Checking ··8488".`), unless the phrasing says something the
  appended value could contradict (when, how many, how much, what to say, "keep the rest"):
  such a phrasing is unusable.

Every unusable phrasing is reported with its reason (`unusable_phrasings`), never rewritten. What
a phrasing's words bind (tokens, slots, literals, fixed values, contradictions) is `intent_binding`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from factory.spec.model import FieldSpec, Spec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.asks import Ask, AskStep, ParseError, Question, RefText, joint_ref
from factory.tasks.language.intent_binding import (
    KEEP,
    TOKEN,
    Token,
    bind_literals,
    bind_slots,
    contradiction,
    fixed_by_words,
    labels_of,
    tokens_of,
    value_slots,
)
from factory.tasks.language.intent_extras import EXTRA_OPENER, OPENERS, SPAN_OPENER, TOLD_OPENER, read_extras
from factory.tasks.language.row_names import name_of, read_name
from factory.tasks.language.spoken import field_noun, noun, spoken_label
from factory.tasks.language.values import (
    DATE,
    DAY_SAID,
    MOMENT_SAID,
    MONEY,
    day_first,
    this_year,
    time_first,
    year_dropped,
)


@dataclass(frozen=True)
class IntentForm:
    """A seed phrasing usable for tasks: which parameter each slot and literal fills."""

    intent: str
    kind: str
    workflow: str | None
    phrasing: str
    slots: dict[str, tuple[str, str, str | None]]  # slot -> (entity, field, param or None)
    literals: list[tuple[str, str]]  # (literal as written, param) in order of appearance
    lookup: str | None = None  # read: the field the phrasing asks for
    extras: tuple[str, ...] = ()  # required parameters said in the appended "Set the …" sentence
    fixed: dict[str, Any] = field(default_factory=dict)  # param -> API value the words state
    template: tuple[tuple[str, str], ...] = ()  # ("text", words) | ("slot", name) | ("literal", quote)
    pattern: re.Pattern[str] = field(default=re.compile(""), compare=False)

    def params(self) -> set[str]:
        """Every parameter an instruction of this form gives a value."""
        return ({p for _e, _f, p in self.slots.values() if p is not None} | {p for _l, p in self.literals}
                | set(self.extras) | set(self.fixed))


_GROUNDED: dict[tuple[str, str, str], tuple[list[IntentForm], list[tuple[str, str, str]]]] = {}


def intent_forms(spec: Spec) -> list[IntentForm]:
    """Every seed phrasing the generic machinery can ground (the others: `unusable_phrasings`).

    Built once per spec (named by its world, seed hash and factory version): every parse of an
    instruction asks for them, and building them compiles a pattern per phrasing."""
    return _grounded(spec)[0]


def unusable_phrasings(spec: Spec) -> list[tuple[str, str, str]]:
    """(intent, phrasing, why) for every seed phrasing that cannot be grounded."""
    return _grounded(spec)[1]


def _grounded(spec: Spec) -> tuple[list[IntentForm], list[tuple[str, str, str]]]:
    key = (spec.world, spec.seed_sha256, spec.factory_version)
    if key not in _GROUNDED:
        forms: list[IntentForm] = []
        unusable: list[tuple[str, str, str]] = []
        for intent in spec.task_intents:
            workflow = next((w for w in spec.workflows if w.name == intent.get("workflow")), None)
            for phrasing in intent.get("phrasings", []):
                form = _form(spec, intent, workflow, phrasing)
                if isinstance(form, str):
                    unusable.append((intent["name"], phrasing, form))
                else:
                    forms.append(form)
        _GROUNDED[key] = (forms, unusable)
    return _GROUNDED[key]


# ---------------------------------------------------------------- grounding --------------------

_WORD_OR_SLOT = r"(?:\{\w+\}|[A-Za-z][\w'-]*)"


def _moment_after_noun(spec: Spec, decl: dict[str, str], phrasing: str) -> str:
    """A phrasing that puts a moment before a noun ("Get me a place on the {starts_at} {class_type}
    class.") said as English says one, after it: "… on the {class_type} class at {starts_at}" (a day
    and a time of day are no modifier: "the June 20 at 9:30 AM Body Pump class" is no English).
    The noun phrase ends at a mark, a preposition or the end."""
    stops = "|".join(sorted(grammar.PREPOSITIONS, key=len, reverse=True))
    pattern = re.compile(rf"\bthe \{{(?P<slot>\w+)\}} (?P<np>{_WORD_OR_SLOT}(?: (?!(?:{stops})\b){_WORD_OR_SLOT})*)"
                         rf"(?=[.,;:?!]|$| (?:{stops})\b)")

    def moved(m: re.Match[str]) -> str:
        entity, _, fname = decl.get(m["slot"], "").partition(".")
        ent = next((e for e in spec.entities if e.name == entity), None)
        f = next((g for g in ent.fields if g.name == fname), None) if ent is not None else None
        if f is None or f.type != "datetime":
            return m[0]
        return f"the {m['np']} at {{{m['slot']}}}"

    return pattern.sub(moved, phrasing)


def _form(spec: Spec, intent: dict[str, Any], workflow: WorkflowSpec | None, phrasing: str) -> IntentForm | str:
    """The grounded form of one phrasing, or the reason it cannot be grounded."""
    decl: dict[str, str] = intent.get("slots", {})
    forced: dict[int, str] = {}
    phrasing = _moment_after_noun(spec, decl, phrasing)
    written = phrasing  # the form keeps the seed's words; the value slots are literals inside
    if intent.get("kind") == "write" and workflow is not None:
        phrasing, forced = value_slots(spec, workflow, decl, phrasing)
    tokens = tokens_of(phrasing)
    slots: list[tuple[Token, str, str]] = []
    for t in (t for t in tokens if t.kind == "slot"):
        target = decl.get(t.text, "")
        entity, _, fname = target.partition(".")
        if not any(e.name == entity for e in spec.entities) or not any(
                f.name == fname for f in spec.entity(entity).fields):
            return f"slot {{{t.text}}} names no field of a row ({target or 'undeclared'})"
        slots.append((t, entity, fname))
    if intent.get("kind") == "read":
        return _read_form(spec, intent, phrasing, tokens, slots)
    if intent.get("kind") != "write":
        return f"{intent.get('kind')} phrasings are not grounded: only write and lookup phrasings are"
    if workflow is None or workflow.system:
        return f"{intent.get('workflow')!r} is no workflow a user can run"
    if not tokens:
        return "it names no row and no value: every task would read the same"
    bound = bind_slots(spec, workflow, slots)
    if isinstance(bound, str):
        return bound
    # Words are read with the slots taken out, so a slot's name never counts as a word.
    words = TOKEN.sub(lambda m: " " * len(m.group(0)) if m.group("slot") else m.group(0), phrasing)
    fixed_text = fixed_by_words(workflow, words, set(bound.values()))
    if isinstance(fixed_text, str):
        return fixed_text
    fixed, masked = fixed_text
    live = [t for t in tokens if t.kind != "slot" and masked[t.start:t.end].strip()]
    literals = bind_literals(workflow, live, set(bound.values()) | set(fixed), forced)
    if isinstance(literals, str):
        return literals
    said = set(bound.values()) | set(fixed) | {p for _l, p in literals}
    extras = [p for p in workflow.params if p.name not in said and p.required and p.default is None]
    plain = TOKEN.sub(" ", masked)  # the words alone: no slots, no literals
    for p in extras:
        why = contradiction(p, plain)
        if why:
            return why
    if extras and KEEP.search(plain):
        return f"it asks to keep the rest, so {labels_of(extras)} cannot be added"
    form_slots: dict[str, tuple[str, str, str | None]] = {
        t.text: (entity, fname, bound[t.text]) for t, entity, fname in slots}
    template = _template(phrasing, tokens, live)
    return IntentForm(intent["name"], "write", workflow.name, written, form_slots, literals, None,
                      tuple(p.name for p in extras), fixed, template,
                      _pattern(spec, template, form_slots, literals, bool(extras)))


def _read_form(spec: Spec, intent: dict[str, Any], phrasing: str, tokens: list[Token],
               slots: list[tuple[Token, str, str]]) -> IntentForm | str:
    """A lookup: slots naming one row, and exactly one other field of it mentioned by its label."""
    if not slots or len(slots) != len(tokens):
        return "a read phrasing is grounded as a lookup: slots naming one row, no other values"
    entities = {entity for _t, entity, _f in slots}
    fields = [fname for _t, _e, fname in slots]
    if len(entities) != 1 or len(set(fields)) != len(fields):
        return "its slots do not name one row by different fields"
    ent = spec.entity(entities.pop())
    rest = TOKEN.sub(" ", phrasing).lower()
    hits = [f.name for f in ent.fields if f.name not in fields and f.type != "reference" and _mentioned(f, rest)]
    if len(hits) != 1:
        asked = [f for f in [*ent.fields, *ent.computed] if f.name not in fields and _mentioned(f, rest)]
        unasked = [f for f in asked if f.compute is not None or f.type == "reference"]
        if not hits and unasked:  # say what the author can change, not only that it failed
            f = unasked[0]
            kind = "a computed field" if f.compute is not None else "a reference to another row"
            return (f"it asks for {f.label!r}, {kind}; a seed's read phrasing asks for a stored value of the row "
                    "(the proposer asks about computed fields and references on its own)")
        named = ", ".join(repr(ent.field_named(h).label) for h in hits)
        thing = grammar.with_article(ent.label.lower())
        return (f"it asks for {len(hits)} fields of {thing}{' (' + named + ')' if named else ''}; "
                "a lookup names one field by its label, its spoken name or a form of its word (\"start\" for \"Started\")")
    form_slots: dict[str, tuple[str, str, str | None]] = {t.text: (ent.name, fname, None)
                                                          for t, _e, fname in slots}
    template = _template(phrasing, tokens, [])
    return IntentForm(intent["name"], "read", None, phrasing, form_slots, [], hits[0], template=template,
                      pattern=_pattern(spec, template, form_slots, [], False))


def _mentioned(f: FieldSpec, rest: str) -> bool:
    """Whether a phrasing's words (slots and literals taken out) ask for `f`: its label, its label
    without a unit ("Budget (hours)"), its spoken name ("amount spent"), its `say:`, or a one-word
    label in any form of the word ("When did … start?" for "Started", "How many are left" for "Left")."""
    forms = {f.label.lower(), noun(f.label).lower(), field_noun(f).lower()} | ({noun(f.say).lower()} if f.say else set())
    if any(re.search(rf"\b{re.escape(x)}\b", rest) for x in forms if x):
        return True
    words = grammar.words_of(noun(f.label))
    if len(words) != 1 or words[0] in grammar.CLOSED:
        return False
    said = {w for w in grammar.words_of(rest) if w not in grammar.CLOSED}
    return bool(_lemma_set(words[0]) & {x for w in said for x in _lemma_set(w)})


def _lemma_set(word: str) -> set[str]:
    return {word, *(lemma for pos in ("VERB", "NOUN", "ADJ") for lemma in grammar.lemmas(word, pos))}


def _slot_regex(spec: Spec, entity: str, fname: str) -> str:
    """A slot's value as the rows module writes it: dates as dates, money as money (so a date
    slot next to a text slot splits where the date starts), anything else as short as it can be."""
    kind = spec.entity(entity).field_named(fname).type
    if kind == "date":
        return DAY_SAID
    if kind == "datetime":
        return MOMENT_SAID
    if kind == "money":
        return MONEY.pattern
    if kind == "int":
        return r"-?\d+"
    return ".+?"


def slot_said(spec: Spec, entity: str, fname: str, shown: str) -> str:
    """A slot's value as a person writes it into a seed phrasing, from the value the app shows
    (`UserView.value_text`): this year's days without the year ("June 22 at 7:30 PM"), a row by
    the words a sentence names it with where its label is made of fields ("the Boxfit class
    session on June 20 at 11:00 AM (…)", `row_names.name_of`), else its label with dates in words."""
    f = spec.entity(entity).field_named(fname)
    year = spec.today[:4]
    if f.type in ("date", "datetime"):
        return year_dropped(shown, year)
    if f.type == "reference" and f.ref:
        label = spoken_label(shown, year)
        try:
            named = name_of(spec, f.ref, RefText(label, mine=False), "subject")
        except ParseError:
            return label
        return named if named.startswith("the ") and '"' not in named else label
    return shown


def slot_key(spec: Spec, entity: str, fname: str, shown: str) -> str:
    """The text a slot's value is compared by, whichever way it was written (`slot_said`): a day
    as the app writes it, a row by its label with dates in words and this year's without the year."""
    f = spec.entity(entity).field_named(fname)
    year = spec.today[:4]
    if f.type in ("date", "datetime"):
        return day_first(shown, year)
    if f.type == "reference" and f.ref:
        if shown.startswith(("the ", "my ")):
            return read_name(spec, f.ref, shown).text
        return spoken_label(shown, year)
    return shown


def _template(phrasing: str, tokens: list[Token], live: list[Token]) -> tuple[tuple[str, str], ...]:
    """The phrasing as pieces: ("text", words), ("slot", name), ("literal", its quote or "")."""
    pieces: list[tuple[str, str]] = []
    pos = 0
    for t in tokens:
        if t.kind != "slot" and t not in live:
            continue  # a number inside a default written out ("Summer 2026") is plain text
        pieces.append(("text", phrasing[pos:t.start]))
        pieces.append(("slot", t.text) if t.kind == "slot" else
                      ("literal", phrasing[t.start] if t.kind == "quoted" else ""))
        pos = t.end
    pieces.append(("text", phrasing[pos:]))
    return tuple(pieces)


def _pattern(spec: Spec, template: tuple[tuple[str, str], ...], slots: dict[str, tuple[str, str, str | None]],
             literals: list[tuple[str, str]], extras: bool) -> re.Pattern[str]:
    out: list[str] = []
    lit = 0
    after_number = False
    for kind, text in template:
        if kind == "text":
            single = _counted_one(text) if after_number else text
            # after a number the noun is plural, or singular after a 1 (`render_intent`)
            out.append(f"(?:{re.escape(text)}|{re.escape(single)})" if single != text else re.escape(text))
        elif kind == "slot":
            entity, fname, _param = slots[text]
            # A slot used twice names the same value: the second must repeat the first.
            seen = f"(?P<s_{text}>" in "".join(out)
            out.append(f"(?P=s_{text})" if seen else f"(?P<s_{text}>{_slot_regex(spec, entity, fname)})")
        else:
            body = {"money": MONEY.pattern.removeprefix("-?"), "int": r"\d+", "date": DATE.pattern,
                    "quoted": r"[^\"]+" if text == '"' else r"[^']+"}[literal_kind(literals[lit][0])]
            out.append(f"{re.escape(text)}(?P<l_{lit}>{body}){re.escape(text)}")
            lit += 1
        after_number = kind == "literal" and not text
    if _ends_quoted(template):
        out.append(r"\.?")
    if extras:
        out.append(" (?P<extras>(?:" + "|".join(re.escape(o) for o in (EXTRA_OPENER, SPAN_OPENER, TOLD_OPENER, *OPENERS))
                   + r").+)\.")
    return re.compile("^" + "".join(out) + "$", re.IGNORECASE)


# ---------------------------------------------------------------- text ↔ Ask -------------------

_DATE_LITERAL = re.compile(r"[A-Z][a-z]+ \d{1,2}(?:, \d{4})?")


def literal_kind(written: str) -> str:
    """money, date, int or quoted: how a literal of a form is written."""
    if MONEY.match(written):
        return "money"
    return "date" if _DATE_LITERAL.fullmatch(written) else "int" if written.isdigit() else "quoted"


def render_intent(form: IntentForm, slot_texts: dict[str, str], literal_texts: list[str],
                  extras: str = "") -> str:
    """Fill a seed phrasing: slot texts in, literals replaced (they carry the chosen values; a
    quoted literal keeps its quotes), then the sentence of the other values (`extras_sentence`)."""
    lits = iter(literal_texts)
    out: list[str] = []
    one = False  # the literal before was the number 1: "1 day carried over", never "1 days"
    before = ""
    for kind, text in form.template:
        if kind == "text" and one:
            text = _counted_one(text)
        filled = text if kind == "text" else slot_texts[text] if kind == "slot" else f"{text}{next(lits)}{text}"
        if kind == "slot" and before.rstrip().endswith(" at"):
            filled = time_first(filled)  # "Book me into Yoga at 7:30 PM on June 22", never "at June 22"
        before = filled  # the words right before the next piece
        one = kind == "literal" and filled == "1"
        out.append(filled)
    body = "".join(out)
    if _ends_quoted(form.template) and body[-2:-1] not in (".", "?", "!"):
        body += "."  # the seed's "… the reason "Too busy."" filled with a reason without its stop
    return body + (f" {extras}" if extras else "")


def _counted_one(text: str) -> str:
    """The words after a count of one, its noun made singular: " days carried over" → " day carried over"."""
    m = re.match(r" ([a-z]+)\b", text)
    if m is None or grammar.singular(m[1]) == m[1]:
        return text
    return f" {grammar.singular(m[1])}{text[m.end():]}"


def _ends_quoted(template: tuple[tuple[str, str], ...]) -> bool:
    """Whether a phrasing ends on a quoted literal, so its stop may sit inside the quotes."""
    said = [(kind, text) for kind, text in template if kind != "text" or text]
    return bool(said) and said[-1][0] not in ("text", "slot") and said[-1][1] in ('"', "'")


def parse_intent(spec: Spec, text: str) -> Ask | None:
    """The Ask behind a text written in one of the seed's phrasings, or None; a day without its
    year is in the spec's current one."""
    with this_year(spec.today[:4]):
        return _parse_intent(spec, text)


def _parse_intent(spec: Spec, text: str) -> Ask | None:
    for form in intent_forms(spec):
        m = form.pattern.match(text)
        if not m:
            continue
        try:
            return _ask(spec, form, m)
        except ParseError:
            continue  # the words fit but the appended values do not: another form may fit
    return None


def _ask(spec: Spec, form: IntentForm, m: re.Match[str]) -> Ask:
    by_param: dict[str | None, list[tuple[str, str]]] = {}
    entity = ""
    for slot, (entity, fname, param) in form.slots.items():
        by_param.setdefault(param, []).append((fname, slot_key(spec, entity, fname, m[f"s_{slot}"])))
    if form.kind == "read":
        return Ask("read", question=Question("lookup", entity, form.lookup, joint_ref(by_param[None])))
    workflow = next(w for w in spec.workflows if w.name == form.workflow)
    args: dict[str, Any] = {param: joint_ref(pairs) for param, pairs in by_param.items() if param is not None}
    for i, (_lit, param) in enumerate(form.literals):
        args[param] = m[f"l_{i}"]
    args.update(form.fixed)
    if form.extras:
        more = read_extras(spec, workflow, m["extras"])
        if set(more) != set(form.extras):
            raise ParseError(f"the appended sentence gives {sorted(more)}, not {sorted(form.extras)}")
        args.update(more)
    return Ask("write", steps=(AskStep(workflow.name, args),))
