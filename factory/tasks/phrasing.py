"""The instruction language of stage two: what a task asks (`Ask`), rendered to text and parsed back.

The proposer renders an `Ask` into an instruction; reward-gen, in its own process, parses the text
back with nothing but the spec, then resolves the named rows against the initial database. Both
directions are functions of the spec only, so a parse never depends on how the task was made.

Instructions name rows the way the app shows them: by their display label in quotes
(`"Main Checking ··8488"`) or, in the seed's own task phrasings, by field values (`card ending
in 4599`, `the payment to Jordan Lee on June 5, 2026`). Values are written as people write them:
`$1,250.00`, `June 5, 2026`, `yes`.

Generic write forms (the seed's task intents add their own phrasings on top, `intents.py`):

- `Transfer between accounts: from account "A"; to account "B"; amount $250.00.`
  (also `Please <label>: …` and `I need to <label> with …`); two steps: `First, … Then, …`
- sentences: `Lock my card "Visa ··4599", reason "travel".`,
  `Please transfer between accounts with from account "A", to account "B" and amount $250.00.`,
  `Could you star my message "Q2 planning" for me?`, `Could you <label> for me? <Args>.`
- read: `What is the <field> of my <entity> "<ref>"?`, `How many of my <plural> have <conds>?`,
  `What is the total <field> of my <plural> with <conds>?`,
  `Which of my <plural> with <conds> has the highest <field>?`
- read_write: `Find my <entity> with <conds> that has the highest <field>, and use "<workflow>"
  on it with <args>.`

Conditions: `<field> "<value>"`, `<field> $5.00`, or `<field> between <a> and <b>`, joined by
` and `; arguments are joined by `; ` (the colon forms) or listed `a, b and c` (the sentences).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from factory.errors import TaskError
from factory.spec.model import EntitySpec, ParamSpec, Spec, WorkflowSpec
from factory.tasks.rows import date_text, enum_text, money_text

DIRECTIONS = {"highest": "max", "lowest": "min", "latest": "max", "earliest": "min"}
TIE_BREAK = " If several tie, name the one that comes first alphabetically."
ONLY = "only"  # RefText.by for "my profile": the acting user's one and only row of the entity


class ParseError(TaskError):
    """An instruction does not follow any phrasing the spec allows."""


class _NoForm(ParseError):
    """No form's opening words fit (as opposed to a form whose arguments do not parse)."""


@dataclass(frozen=True)
class Cond:
    """A condition on one field as written: equality (`value`) or a range (`value`, `upper`)."""

    field: str
    value: str
    upper: str | None = None


@dataclass(frozen=True)
class RefText:
    """A row named in an instruction: by its display label, or by one field's value (`by`).

    `also` holds more (field, value text) pairs the same row must match: a seed phrasing that
    names one row by several slots ("the payment to {payee} on {date}") names it by all of them."""

    text: str
    by: str | None = None
    also: tuple[tuple[str, str], ...] = ()


def joint_ref(pairs: list[tuple[str, str]]) -> RefText:
    """The reference made of (field, value text) pairs, in one canonical order (by field name), so
    the same row named by two phrasings' slots in another order is the same `RefText`."""
    ordered = sorted(pairs)
    (by, text), rest = ordered[0], ordered[1:]
    return RefText(text, by, tuple(rest))


@dataclass(frozen=True)
class Question:
    """What a READ asks: `op` over the rows of `entity` that meet `conds`."""

    op: str  # lookup | count | sum | max | min
    entity: str
    field: str | None = None
    target: RefText | None = None
    conds: tuple[Cond, ...] = ()
    tie: bool = False  # superlatives: a tie goes to the first label alphabetically (said so)


@dataclass(frozen=True)
class AskStep:
    """One workflow run: argument texts per parameter; `pick` names a parameter found by a question."""

    workflow: str
    args: dict[str, Any] = field(default_factory=dict)  # param -> RefText (refs) or value text
    pick: tuple[str, Question] | None = None


@dataclass(frozen=True)
class Ask:
    """Everything an instruction asks for."""

    kind: str  # read | write | read_write
    steps: tuple[AskStep, ...] = ()
    question: Question | None = None


# ---------------------------------------------------------------- values ------------------------

def param_text(param: ParamSpec, value: Any) -> str:
    """How an instruction writes an API-level value of `param` (references are RefTexts)."""
    if isinstance(value, RefText):
        return value.text if value.by == ONLY else f'"{value.text}"'
    return field_value_text(param.type, value)


def field_value_text(kind: str, value: Any) -> str:
    """A value as written, by type: money, dates and numbers bare, yes/no, the rest quoted."""
    if kind == "money":
        return money_text(int(value))
    if kind == "date":
        return date_text(str(value))
    if kind == "datetime":
        return f"{date_text(str(value))} at {str(value)[11:16]}"
    if kind == "bool":
        return "yes" if value else "no"
    if kind == "int":
        return str(int(value))
    if kind == "enum":
        return f'"{enum_text(str(value))}"'
    return f'"{value}"'


def _flag(kind: str) -> str:
    """Yes/no values read "<label> set to yes", for arguments and conditions alike."""
    return "set to " if kind == "bool" else ""


# Thousands groups only (`$1,250.00`), so a comma after a value ("$45, memo …") is not eaten.
MONEY = re.compile(r"-?\$-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?")
_INT = re.compile(r"-?\d+")
DATE = re.compile(r"([A-Z][a-z]+) (\d{1,2}), (\d{4})")
_TIME = re.compile(r" at (\d{2}):(\d{2})")
_QUOTED = re.compile(r'"([^"]*)"')
_BOOL = re.compile(r"(yes|no)\b", re.IGNORECASE)


def scan_value(kind: str, text: str, pos: int) -> tuple[str, int]:
    """Read one value of `kind` at `pos`; return its text (quotes removed) and the end position."""
    if text.startswith('"', pos):
        m = _QUOTED.match(text, pos)
        if m:
            return m.group(1), m.end()
    for pattern in ((MONEY,) if kind == "money" else (DATE,) if kind in ("date", "datetime")
                    else (_BOOL,) if kind == "bool" else (_INT,) if kind == "int" else ()):
        m = pattern.match(text, pos)
        if m:
            end = m.end()
            if kind == "datetime":
                t = _TIME.match(text, end)
                if t:
                    end = t.end()
            return text[pos:end], end
    raise ParseError(f"expected a {kind} value at {text[pos:pos + 30]!r}")


def parse_scalar(kind: str, text: str) -> Any:
    """An API-level value from its written form (money → cents, dates → ISO)."""
    try:
        if kind == "money":
            body = text.replace("$", "").replace(",", "")
            return round(float(body) * 100)
        if kind in ("date", "datetime"):
            m = DATE.match(text)
            if not m:
                raise ValueError(text)
            day = dt.datetime.strptime(f"{m.group(1)} {m.group(2)} {m.group(3)}", "%B %d %Y").date()
            if kind == "date":
                return day.isoformat()
            t = _TIME.search(text)
            hh, mm = (t.group(1), t.group(2)) if t else ("00", "00")
            return f"{day.isoformat()}T{hh}:{mm}:00"
        if kind == "int":
            return int(text)
        if kind == "bool":
            return text.lower() == "yes"
    except ValueError as exc:
        raise ParseError(f"{text!r} is not a {kind} value") from exc
    return text


# ---------------------------------------------------------------- rendering ---------------------

def _lc(label: str) -> str:
    return label[:1].lower() + label[1:]


def _scope(entity: EntitySpec) -> str:
    return "the" if entity.visibility == "public" else "my"


def render_conds(spec: Spec, entity: str, conds: tuple[Cond, ...]) -> str:
    ent = spec.entity(entity)
    parts = []
    for c in conds:
        f = ent.field_named(c.field)
        if c.upper is not None:
            parts.append(f"{_lc(f.label)} between {c.value} and {c.upper}")
        elif f.type == "bool":
            parts.append(f"{_lc(f.label)} {_flag(f.type)}{c.value}")
        else:
            parts.append(f"{_lc(f.label)} {c.value}")
    return " and ".join(parts)


def render_args(workflow: WorkflowSpec, args: dict[str, Any]) -> str:
    """`"<subject>"; <label> <value>; …`: the row acted on needs no label, it comes first."""
    params = {p.name: p for p in workflow.params}
    parts = []
    if workflow.subject in args:
        parts.append(param_text(params[workflow.subject], args[workflow.subject]))
    parts += [arg_phrase(params[name], value) for name, value in args.items() if name != workflow.subject]
    return "; ".join(parts)


def arg_phrase(param: ParamSpec, value: Any, joiner: str = " ") -> str:
    """One argument: `<label> <value>`, or `<label> to <value>` (joiner " to ") after "Set the"."""
    flag = _flag(param.type) if joiner == " " else ""
    return f"{_lc(param.label)}{joiner}{flag}{param_text(param, value)}"


def listed(parts: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`: how a person lists things."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def render_list(workflow: WorkflowSpec, args: dict[str, Any], joiner: str = " ", lead: str = "") -> str:
    """The arguments as a list (`from account "A", to account "B" and amount $5.00`); `lead`
    goes before each label ("the "), `joiner` between label and value (" to ")."""
    params = {p.name: p for p in workflow.params}
    return listed([lead + arg_phrase(params[name], value, joiner) for name, value in args.items()])


def _subject_entity(spec: Spec, workflow: WorkflowSpec) -> tuple[ParamSpec, EntitySpec] | None:
    p = next((p for p in workflow.params if p.name == workflow.subject), None)
    if p is None or p.ref is None:
        return None
    return p, spec.entity(p.ref)


def possessed_head(spec: Spec, workflow: WorkflowSpec) -> str | None:
    """The workflow's label with the row it acts on possessed, when the label ends with that row's
    noun: "Lock card" → "Lock my card", "Pay a bill" → "Pay my bill" (rows everyone sees: "the")."""
    found = _subject_entity(spec, workflow)
    if found is None:
        return None
    words, noun = workflow.label.split(), found[1].label.lower().split()
    if len(words) <= len(noun) or [w.lower() for w in words[-len(noun):]] != noun:
        return None
    verb = words[:-len(noun)]
    if verb[-1].lower() in ("a", "an", "the", "my", "your"):  # "Pay a bill": the article gives way
        verb = verb[:-1]
    if not verb:
        return None
    return " ".join([*verb, _scope(found[1]), *words[-len(noun):]])


def _subject_phrase(spec: Spec, workflow: WorkflowSpec, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The verb phrase with the row acted on (`Lock my card "Visa ··4599"`,
    `Block dates for my listing "Loft"`, `Star my message "Hi"`) and the other arguments."""
    found = _subject_entity(spec, workflow)
    if found is None or found[0].name not in args:
        return workflow.label, args
    param, ent = found
    value = args[param.name]
    rest = {k: v for k, v in args.items() if k != param.name}
    only = isinstance(value, RefText) and value.by == ONLY
    head = possessed_head(spec, workflow)
    if head is not None:  # "my card" already says which when it is the user's only one
        return (head if only else f"{head} {param_text(param, value)}"), rest
    noun = value.text if only else f"{_scope(ent)} {ent.label.lower()} {param_text(param, value)}"
    link = " " if len(workflow.label.split()) == 1 else " for "  # "Star my message", "Block dates for …"
    return f"{workflow.label}{link}{noun}", rest


def render_sentence(spec: Spec, workflow: WorkflowSpec, args: dict[str, Any], style: int) -> str:
    """A write as a person would type it: `Lock my card "A", reason "travel".` (style 0),
    `Please … with ….` (1), `Could you … for me? Reason "travel".` (2)."""
    phrase, rest = _subject_phrase(spec, workflow, args)
    items = render_list(workflow, rest) if rest else ""
    if style % 3 == 1:
        return f"Please {_lc(phrase)}" + (f" with {items}." if items else ".")
    if style % 3 == 2:
        return f"Could you {_lc(phrase)} for me?" + (f" {items[:1].upper()}{items[1:]}." if items else "")
    if not items:
        return f"{phrase}."
    return f"{phrase}{', ' if len(rest) < len(args) else ' with '}{items}."


def _word(spec: Spec, entity: str, field: str, op: str) -> str:
    kind = spec.entity(entity).field_named(field).type
    if kind in ("date", "datetime"):
        return "latest" if op == "max" else "earliest"
    return "highest" if op == "max" else "lowest"


def render_question(spec: Spec, q: Question, variant: int) -> str:
    ent = spec.entity(q.entity)
    scope, label, plural = _scope(ent), _lc(ent.label), _lc(ent.plural)
    conds = render_conds(spec, q.entity, q.conds)
    if q.op == "lookup":
        assert q.target is not None and q.field is not None
        f = _lc(ent.field_named(q.field).label)
        if variant % 2:
            return f'Look up the {f} of {scope} {label} "{q.target.text}".'
        return f'What is the {f} of {scope} {label} "{q.target.text}"?'
    if q.op == "count":
        if variant % 2:
            return f"Count {scope} {plural} with {conds}."
        return f"How many of {scope} {plural} have {conds}?"
    if q.op == "sum":
        assert q.field is not None
        f = _lc(ent.field_named(q.field).label)
        return f"What is the total {f} of {scope} {plural}" + (f" with {conds}?" if conds else "?")
    assert q.field is not None
    f = _lc(ent.field_named(q.field).label)
    which = f" with {conds}" if conds else ""
    tie = TIE_BREAK if q.tie else ""
    return f"Which of {scope} {plural}{which} has the {_word(spec, q.entity, q.field, q.op)} {f}?{tie}"


def render_step(spec: Spec, step: AskStep, variant: int) -> str:
    """One workflow run: variants 0–2 the colon forms (`Lock card: "A"; reason "travel".`, kept
    as they were: older corpora are written in them), 3–5 the sentences of `render_sentence`."""
    workflow = next(w for w in spec.workflows if w.name == step.workflow)
    args = render_args(workflow, step.args)
    if step.pick is not None:
        _param, q = step.pick
        ent = spec.entity(q.entity)
        conds = render_conds(spec, q.entity, q.conds)
        assert q.field is not None
        f = _lc(ent.field_named(q.field).label)
        which = f" with {conds}" if conds else ""
        tail = f" with {args}" if args else ""
        return (f"Find {_scope(ent)} {_lc(ent.label)}{which} that has the "
                f"{_word(spec, q.entity, q.field, q.op)} {f}, and use \"{workflow.label}\" on it{tail}.")
    if variant % 6 >= 3:
        return render_sentence(spec, workflow, step.args, variant % 6 - 3)
    if variant % 6 == 1:
        return f"Please {_lc(workflow.label)}: {args}."
    if variant % 6 == 2:
        bare = args.startswith(chr(34)) or args.lower().startswith("my ")
        return f"I need to {_lc(workflow.label)} {'' if bare else 'with '}{args}."
    return f"{workflow.label}: {args}."


def render(spec: Spec, ask: Ask, variant: int) -> str:
    """The instruction text of `ask`; `variant` picks among equivalent phrasings."""
    if ask.question is not None:
        return render_question(spec, ask.question, variant)
    if len(ask.steps) == 2:
        first, second = (render_step(spec, s, 0) for s in ask.steps)
        return f"First, {_lc(first)} Then, {_lc(second)}"
    return render_step(spec, ask.steps[0], variant)


# ---------------------------------------------------------------- parsing -----------------------

_Q_PATTERNS = [
    ("lookup", re.compile(r'^What is the (?P<field>.+?) of (?:my|the) (?P<entity>.+?) "(?P<ref>[^"]+)"\?$')),
    ("lookup", re.compile(r'^Look up the (?P<field>.+?) of (?:my|the) (?P<entity>.+?) "(?P<ref>[^"]+)"\.$')),
    ("count", re.compile(r"^How many of (?:my|the) (?P<plural>.+?) have (?P<conds>.+)\?$")),
    ("count", re.compile(r"^Count (?:my|the) (?P<plural>.+?) with (?P<conds>.+)\.$")),
    ("sum", re.compile(r"^What is the total (?P<field>.+?) of (?:my|the) (?P<plural>.+?)(?: with (?P<conds>.+))?\?$")),
    ("arg", re.compile(r"^Which of (?:my|the) (?P<plural>.+?)(?: with (?P<conds>.+?))? has the "
                       r"(?P<dir>highest|lowest|latest|earliest) (?P<field>.+?)\?"
                       r"(?P<tie> If several tie, name the one that comes first alphabetically\.)?$")),
]
_PICK = re.compile(r'^Find (?:my|the) (?P<entity>.+?)(?: with (?P<conds>.+?))? that has the '
                   r'(?P<dir>highest|lowest|latest|earliest) (?P<field>.+?), and use "(?P<wf>[^"]+)" '
                   r"on it(?: with (?P<args>.+))?\.$")
_STEP_PREFIXES = ("Please ", "I need to ", "")
_STEP_SEPARATORS = (": ", " with ", " ")
_MULTI = re.compile(r"^First, (?P<a>.+?\.) Then, (?P<b>.+\.)$")


def _same(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


def _entity_by(spec: Spec, text: str, plural: bool) -> EntitySpec:
    for ent in spec.entities:
        if _same(ent.plural if plural else ent.label, text):
            return ent
    raise ParseError(f"no entity is called {text!r}")


def _field_by(ent: EntitySpec, text: str) -> str:
    for f in ent.fields:
        if _same(f.label, text):
            return f.name
    raise ParseError(f"{ent.label} has no field labelled {text!r}")


def parse_conds(ent: EntitySpec, text: str | None) -> tuple[Cond, ...]:
    """Conditions `<label> <value> [and <label> between <a> and <b>] …` (labels longest first)."""
    if not text:
        return ()
    fields = sorted(ent.fields, key=lambda f: -len(f.label))
    conds: list[Cond] = []
    pos = 0
    while True:
        f = next((f for f in fields if text.lower().startswith(f.label.lower() + " ", pos)), None)
        if f is None:
            raise ParseError(f"unknown condition at {text[pos:pos + 40]!r} ({ent.label})")
        pos += len(f.label) + 1
        kind = "int" if f.type == "reference" else f.type
        if f.type == "bool":
            if not text.startswith("set to ", pos):
                raise ParseError(f"expected 'set to yes/no' at {text[pos:pos + 30]!r}")
            pos += len("set to ")
        if text.startswith("between ", pos):
            low, pos = scan_value(kind, text, pos + len("between "))
            if not text.startswith(" and ", pos):
                raise ParseError(f"expected 'and' in a range at {text[pos:pos + 30]!r}")
            high, pos = scan_value(kind, text, pos + len(" and "))
            conds.append(Cond(f.name, low, high))
        else:
            value, pos = scan_value(kind, text, pos)
            conds.append(Cond(f.name, f'"{value}"' if text[pos - 1] == '"' else value))
        if pos == len(text):
            return tuple(conds)
        if not text.startswith(" and ", pos):
            raise ParseError(f"expected 'and' between conditions at {text[pos:pos + 30]!r}")
        pos += len(" and ")


def my_only(entity: EntitySpec) -> str:
    """How an instruction names the acting user's single row of an entity: `my profile`."""
    return f"my {entity.label.lower()}"


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
    params = sorted(workflow.params, key=lambda p: -len(p.label))
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
        p = next((p for p in params if lowered.startswith(p.label.lower() + joiner, pos)), None)
        if p is None:
            raise ParseError(f"unknown argument at {text[pos:pos + 40]!r} ({workflow.label})")
        pos += len(p.label) + len(joiner)
        if p.name in args:
            raise ParseError(f"argument {p.label!r} is given twice")
        mine = _mine(spec_of_refs, p, text, pos)
        if mine:
            args[p.name], pos = RefText(mine, ONLY), pos + len(mine)
        else:
            if p.type == "bool" and joiner == " " and text.startswith("set to ", pos):
                pos += len("set to ")
            quoted = text.startswith('"', pos)
            value, pos = scan_value(p.type if not quoted else "string", text, pos)
            args[p.name] = RefText(value) if p.type == "reference" else value
        if pos == len(text):
            return args
        pos = _separator(text, pos, separators)


def my_phrases(spec: Spec) -> dict[str, str]:
    """Entity name → how an instruction names the acting user's only row of it ("my profile")."""
    return {e.name: my_only(e) for e in spec.entities if e.visibility != "public" and e.owner_fields}


def _workflow_by(spec: Spec, label: str) -> WorkflowSpec:
    for w in spec.workflows:
        if not w.system and _same(w.label, label):
            return w
    raise ParseError(f"no workflow is called {label!r}")


def parse_step(spec: Spec, text: str) -> AskStep:
    """One workflow run in any write form: find-and-act, the colon forms, the sentences."""
    m = _PICK.match(text)
    if m:
        ent = _entity_by(spec, m["entity"], plural=False)
        workflow = _workflow_by(spec, m["wf"])
        q = Question(DIRECTIONS[m["dir"]], ent.name, _field_by(ent, m["field"]),
                     conds=parse_conds(ent, m["conds"]))
        param = next((p.name for p in workflow.params if p.ref == ent.name
                      and p.name == (workflow.subject or p.name)), None)
        if param is None:
            raise ParseError(f"{workflow.label!r} takes no {ent.label}")
        return AskStep(workflow.name, parse_args(workflow, m["args"], my_phrases(spec)), (param, q))
    try:
        return _parse_colon_form(spec, text)
    except ParseError as exc:
        colon = exc
    try:
        return _parse_sentence(spec, text)
    except ParseError as exc:
        # Report the form the text came closest to: the colon form when its words matched.
        raise (exc if isinstance(colon, _NoForm) else colon) from None


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
            for head, is_possessed in ((possessed, True), (workflow.label, False)):
                if head is None or not body.lower().startswith(head.lower()):
                    continue
                try:
                    return _sentence_rest(spec, workflow, body, len(head), is_possessed, opener, refs)
                except ParseError as exc:
                    problem = exc
    raise problem or ParseError(f"no workflow phrasing matches {text[:60]!r}")


def _subject_ref(ent: EntitySpec, body: str, pos: int) -> tuple[RefText, int]:
    """The row acted on, right after its noun: a quoted label, or nothing ("my card": the only one)."""
    if body.startswith(' "', pos):
        value, pos = scan_value("string", body, pos + 1)
        return RefText(value), pos
    if _scope(ent) == "my":
        return RefText(my_only(ent), ONLY), pos
    raise ParseError(f"expected the quoted name of the {ent.label.lower()} at {body[pos:pos + 30]!r}")


def _sentence_rest(spec: Spec, workflow: WorkflowSpec, body: str, pos: int, possessed: bool,
                   opener: str, refs: dict[str, str]) -> AskStep:
    args: dict[str, Any] = {}
    found = _subject_entity(spec, workflow)
    if possessed and found is not None:
        args[found[0].name], pos = _subject_ref(found[1], body, pos)
    elif found is not None:
        param, ent = found
        for link in (" for ", " "):
            noun = f"{link}{_scope(ent)} {ent.label.lower()}"
            if body.lower().startswith(noun, pos):
                args[param.name], pos = _subject_ref(ent, body, pos + len(noun))
                break
    rest = body[pos:]
    if opener == "Could you ":
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
        link = next((k for k in (", ", " with ") if rest.startswith(k)), None)
        if link is None or not rest.endswith("."):
            raise ParseError(f"expected ', ' or ' with ' and the arguments at {rest[:30]!r}")
        items = rest[len(link):-1]
    more = parse_args(workflow, items, refs, separators=LIST_SEPARATORS, subject_first=False)
    if set(more) & set(args):
        raise ParseError(f"the row acted on is given twice in {body[:60]!r}")
    return AskStep(workflow.name, {**args, **more})


def parse_question(spec: Spec, text: str) -> Question | None:
    """The question a READ asks, or None when the text is no question form. A form whose words
    match but whose names do not (e.g. a lookup pattern over "total … of my accounts with …")
    gives way to the next form; the last such problem is raised when no form fits."""
    problem: ParseError | None = None
    for op, pattern in _Q_PATTERNS:
        m = pattern.match(text)
        if not m:
            continue
        try:
            return _question(spec, op, m)
        except ParseError as exc:
            problem = exc
    if problem is not None:
        raise problem
    return None


def _question(spec: Spec, op: str, m: re.Match[str]) -> Question:
    if op == "lookup":
        ent = _entity_by(spec, m["entity"], plural=False)
        return Question("lookup", ent.name, _field_by(ent, m["field"]), RefText(m["ref"]))
    ent = _entity_by(spec, m["plural"], plural=True)
    conds = parse_conds(ent, m["conds"])
    if op == "count":
        return Question("count", ent.name, conds=conds)
    if op == "sum":
        return Question("sum", ent.name, _field_by(ent, m["field"]), conds=conds)
    return Question(DIRECTIONS[m["dir"]], ent.name, _field_by(ent, m["field"]), conds=conds,
                    tie=bool(m["tie"]))


def parse(spec: Spec, text: str) -> Ask:
    """The `Ask` behind an instruction, from the spec alone; ParseError when nothing fits."""
    text = " ".join(text.split())
    question = parse_question(spec, text)
    if question is not None:
        return Ask("read", question=question)
    # The seed's phrasings build on this module's grammar, so their module is imported here.
    from factory.tasks.intents import parse_intent

    intent = parse_intent(spec, text)
    if intent is not None:
        return intent
    m = _MULTI.match(text)
    if m:
        steps = tuple(parse_step(spec, s[:1].upper() + s[1:]) for s in (m["a"], m["b"]))
        return Ask("write", steps=steps)
    step = parse_step(spec, text)
    return Ask("read_write" if step.pick else "write", steps=(step,))
