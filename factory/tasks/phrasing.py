"""The instruction language of stage two: what a task asks (`Ask`), rendered to text and parsed back.

The proposer renders an `Ask` into an instruction; reward-gen, in its own process, parses the text
back with nothing but the spec, then resolves the named rows against the initial database. Both
directions are functions of the spec only, so a parse never depends on how the task was made.

Instructions name rows the way the app shows them: by their display label in quotes
(`"Main Checking ··8488"`) or, in the seed's own task phrasings, by a field value (`card ending
in 4599`). Values are written as people write them: `$1,250.00`, `June 5, 2026`, `yes`.

Generic forms (the seed's task intents add their own phrasings on top):

- write: `Transfer between accounts: from account "A"; to account "B"; amount $250.00.`
  (also `Please <label>: …` and `I need to <label> with …`); two steps: `First, … Then, …`
- read: `What is the <field> of my <entity> "<ref>"?`, `How many of my <plural> have <conds>?`,
  `What is the total <field> of my <plural> with <conds>?`,
  `Which of my <plural> with <conds> has the highest <field>?`
- read_write: `Find my <entity> with <conds> that has the highest <field>, and use "<workflow>"
  on it with <args>.`

Conditions: `<field> "<value>"`, `<field> $5.00`, or `<field> between <a> and <b>`, joined by
` and `; arguments are joined by `; `.
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


@dataclass(frozen=True)
class Cond:
    """A condition on one field as written: equality (`value`) or a range (`value`, `upper`)."""

    field: str
    value: str
    upper: str | None = None


@dataclass(frozen=True)
class RefText:
    """A row named in an instruction: by its display label, or by one field's value (`by`)."""

    text: str
    by: str | None = None


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


_MONEY = re.compile(r"-?\$-?[\d,]+(?:\.\d{1,2})?")
_INT = re.compile(r"-?\d+")
_DATE = re.compile(r"([A-Z][a-z]+) (\d{1,2}), (\d{4})")
_TIME = re.compile(r" at (\d{2}):(\d{2})")
_QUOTED = re.compile(r'"([^"]*)"')
_BOOL = re.compile(r"(yes|no)\b", re.IGNORECASE)


def scan_value(kind: str, text: str, pos: int) -> tuple[str, int]:
    """Read one value of `kind` at `pos`; return its text (quotes removed) and the end position."""
    if text.startswith('"', pos):
        m = _QUOTED.match(text, pos)
        if m:
            return m.group(1), m.end()
    for pattern in ((_MONEY,) if kind == "money" else (_DATE,) if kind in ("date", "datetime")
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
            m = _DATE.match(text)
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
    parts += [f"{_lc(params[name].label)} {_flag(params[name].type)}{param_text(params[name], value)}"
              for name, value in args.items() if name != workflow.subject]
    return "; ".join(parts)


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
    if variant % 3 == 1:
        return f"Please {_lc(workflow.label)}: {args}."
    if variant % 3 == 2:
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


def parse_args(workflow: WorkflowSpec, text: str | None, spec_of_refs: dict[str, str] | None = None
               ) -> dict[str, Any]:
    """`<param label> <value>; …` → param name → RefText (references) or value text.
    `spec_of_refs` maps entity names to their `my <entity>` phrase."""
    spec_of_refs = spec_of_refs or {}
    if not text:
        return {}
    params = sorted(workflow.params, key=lambda p: -len(p.label))
    args: dict[str, Any] = {}
    pos = 0
    subject = next((p for p in workflow.params if p.name == workflow.subject), None)
    mine = _mine(spec_of_refs, subject, text, 0) if subject is not None else None
    if subject is not None and (text.startswith('"') or mine):
        if mine:
            args[subject.name], pos = RefText(mine, ONLY), len(mine)
        else:
            value, pos = scan_value("string", text, 0)
            args[subject.name] = RefText(value)
        if pos == len(text):
            return args
        if not text.startswith("; ", pos):
            raise ParseError(f"expected '; ' between arguments at {text[pos:pos + 30]!r}")
        pos += 2
    while True:
        p = next((p for p in params if text.lower().startswith(p.label.lower() + " ", pos)), None)
        if p is None:
            raise ParseError(f"unknown argument at {text[pos:pos + 40]!r} ({workflow.label})")
        pos += len(p.label) + 1
        if p.name in args:
            raise ParseError(f"argument {p.label!r} is given twice")
        mine = _mine(spec_of_refs, p, text, pos)
        if mine:
            args[p.name], pos = RefText(mine, ONLY), pos + len(mine)
        else:
            if p.type == "bool" and text.startswith("set to ", pos):
                pos += len("set to ")
            quoted = text.startswith('"', pos)
            value, pos = scan_value(p.type if not quoted else "string", text, pos)
            args[p.name] = RefText(value) if p.type == "reference" else value
        if pos == len(text):
            return args
        if not text.startswith("; ", pos):
            raise ParseError(f"expected '; ' between arguments at {text[pos:pos + 30]!r}")
        pos += 2


def _my_phrases(spec: Spec) -> dict[str, str]:
    return {e.name: my_only(e) for e in spec.entities if e.visibility != "public" and e.owner_fields}


def _workflow_by(spec: Spec, label: str) -> WorkflowSpec:
    for w in spec.workflows:
        if not w.system and _same(w.label, label):
            return w
    raise ParseError(f"no workflow is called {label!r}")


def parse_step(spec: Spec, text: str) -> AskStep:
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
        return AskStep(workflow.name, parse_args(workflow, m["args"], _my_phrases(spec)), (param, q))
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
                    return AskStep(workflow.name, parse_args(workflow, rest[len(sep):], _my_phrases(spec)))
    raise ParseError(f"no workflow phrasing matches {text[:60]!r}")


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
    intent = parse_intent(spec, text)
    if intent is not None:
        return intent
    m = _MULTI.match(text)
    if m:
        steps = tuple(parse_step(spec, s[:1].upper() + s[1:]) for s in (m["a"], m["b"]))
        return Ask("write", steps=steps)
    step = parse_step(spec, text)
    return Ask("read_write" if step.pick else "write", steps=(step,))


# ---------------------------------------------------------------- the seed's own phrasings -----

_SLOT = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
_LIT = re.compile(r"\$\d[\d,]*(?:\.\d{2})?|(?<![\w$.,])\d+(?![\w,])")


@dataclass(frozen=True)
class IntentForm:
    """A seed phrasing usable for tasks: which parameter each slot and literal fills."""

    intent: str
    kind: str
    workflow: str | None
    phrasing: str
    slots: dict[str, tuple[str, str, str | None]]  # slot -> (entity, field, param or None)
    literals: list[tuple[str, str]]  # (literal text, param) in order of appearance
    lookup: str | None = None  # read: the field the phrasing asks for
    pattern: re.Pattern[str] = field(default=re.compile(""), compare=False)


_FORMS: dict[tuple[str, str, str], list[IntentForm]] = {}


def intent_forms(spec: Spec) -> list[IntentForm]:
    """Every seed phrasing the generic machinery can ground; the others are left out (the
    proposer reports them). A write phrasing must fill every required parameter without a
    default, by a slot naming a row of the parameter's entity or by a literal of its type.

    Built once per spec (named by its world, seed hash and factory version): every parse of an
    instruction asks for them, and building them compiles a pattern per phrasing."""
    key = (spec.world, spec.seed_sha256, spec.factory_version)
    if key not in _FORMS:
        forms: list[IntentForm] = []
        for intent in spec.task_intents:
            workflow = next((w for w in spec.workflows if w.name == intent.get("workflow")), None)
            for phrasing in intent.get("phrasings", []):
                form = _form(spec, intent, workflow, phrasing)
                if form is not None:
                    forms.append(form)
        _FORMS[key] = forms
    return _FORMS[key]


def _form(spec: Spec, intent: dict[str, Any], workflow: WorkflowSpec | None,
          phrasing: str) -> IntentForm | None:
    slots_decl: dict[str, str] = intent.get("slots", {})
    slots: dict[str, tuple[str, str, str | None]] = {}
    names = _SLOT.findall(phrasing)
    if any(n not in slots_decl or slots_decl[n].count(".") != 1 for n in names):
        return None
    literals: list[tuple[str, str]] = []
    lookup = None
    if intent.get("kind") == "write" and workflow is not None and not workflow.system:
        free = [p for p in workflow.params]
        for name in names:
            entity, fname = slots_decl[name].split(".")
            p = next((p for p in free if p.ref == entity), None)
            if p is None:
                return None
            free.remove(p)
            slots[name] = (entity, fname, p.name)
        for lit in _LIT.findall(_SLOT.sub("", phrasing)):
            kind = "money" if lit.startswith("$") else "int"
            p = next((p for p in free if p.type == kind), None)
            if p is None:
                return None
            free.remove(p)
            literals.append((lit, p.name))
        if any(p.required and p.default is None for p in free):
            return None
    elif intent.get("kind") == "read" and len(names) == 1 and not _LIT.findall(_SLOT.sub("", phrasing)):
        entity, fname = slots_decl[names[0]].split(".")
        if not any(e.name == entity for e in spec.entities):
            return None
        ent = spec.entity(entity)
        rest = _SLOT.sub("", phrasing).lower()
        hits = [f.name for f in ent.fields if f.name != fname and f.type != "reference"
                and re.search(rf"\b{re.escape(f.label.lower())}\b", rest)]
        if len(hits) != 1:
            return None
        slots[names[0]] = (entity, fname, None)
        lookup = hits[0]
    else:
        return None
    return IntentForm(intent["name"], intent["kind"], workflow.name if workflow else None, phrasing,
                      slots, literals, lookup, _intent_pattern(phrasing))


def _intent_pattern(phrasing: str) -> re.Pattern[str]:
    out, pos, lit = [], 0, 0
    for m in re.finditer(r"\{([a-z_][a-z0-9_]*)\}|" + _LIT.pattern, phrasing):
        out.append(re.escape(phrasing[pos:m.start()]))
        if m.group(1):
            out.append(f"(?P<s_{m.group(1)}>.+?)")
        else:
            out.append(f"(?P<l_{lit}>" + (r"\$[\d,]+(?:\.\d{2})?" if m.group(0).startswith("$") else r"\d+")
                       + ")")
            lit += 1
        pos = m.end()
    out.append(re.escape(phrasing[pos:]))
    return re.compile("^" + "".join(out) + "$", re.IGNORECASE)


def render_intent(form: IntentForm, slot_texts: dict[str, str], literal_texts: list[str]) -> str:
    """Fill a seed phrasing: slot texts in, literals replaced (they carry the chosen values)."""
    lits = iter(literal_texts)
    out, pos = [], 0
    for m in re.finditer(r"\{([a-z_][a-z0-9_]*)\}|" + _LIT.pattern, form.phrasing):
        out.append(form.phrasing[pos:m.start()])
        out.append(slot_texts[m.group(1)] if m.group(1) else next(lits))
        pos = m.end()
    out.append(form.phrasing[pos:])
    return "".join(out)


def parse_intent(spec: Spec, text: str) -> Ask | None:
    for form in intent_forms(spec):
        m = form.pattern.match(text)
        if not m:
            continue
        if form.kind == "read":
            (slot, (entity, fname, _)), = form.slots.items()
            return Ask("read", question=Question("lookup", entity, form.lookup,
                                                 RefText(m[f"s_{slot}"], fname)))
        workflow = next(w for w in spec.workflows if w.name == form.workflow)
        args: dict[str, Any] = {}
        for slot, (_entity, fname, param) in form.slots.items():
            assert param is not None
            args[param] = RefText(m[f"s_{slot}"], fname)
        for i, (_lit, param) in enumerate(form.literals):
            args[param] = m[f"l_{i}"]
        return Ask("write", steps=(AskStep(workflow.name, args),))
    return None
