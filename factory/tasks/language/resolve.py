"""Resolve a parsed instruction against a database: named rows to ids, questions to answers.

Strict on purpose: a name that matches no visible row is unresolved, one that matches two rows
is ambiguous, and a superlative with a tie has no single answer. Each of these fails the task
(the instruction must be repaired), it is never guessed.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from typing import Any

from factory.errors import TaskError
from factory.predict.rows import Row, UserView, enum_text
from factory.runtime.step import Step
from factory.spec.labels import currency_of
from factory.spec.model import ParamSpec, WorkflowSpec
from factory.tasks.language.answer import Answer
from factory.tasks.language.asks import MADE, ONLY, Ask, Cond, Question, RefText
from factory.tasks.language.frame_params import set_fields
from factory.tasks.language.row_labels import person_split, person_template
from factory.tasks.language.spoken import said_once, spoken_label
from factory.tasks.language.values import parse_scalar
from factory.tasks.language.words import my_only
from verifiers.answers import normalize_text


class UnresolvedError(TaskError):
    """A name in the instruction matches no row the acting user can see."""


class AmbiguousError(TaskError):
    """A name or a superlative in the instruction fits more than one row."""


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def _shows(world: UserView, entity: str, field: str, want: str, row: Row) -> bool:
    """Whether the row's `field` reads `want`: as the app shows it ("$5.00", "June 5, 2026") or
    as stored ("5", "2026-06-05")."""
    f = world.field(entity, field)
    raw = row.get(f.column)
    if raw is None:
        return False
    shown = world.value_text(entity, field, raw, row)
    if f.type == "reference":  # a row named by its label in any written form (`_forms`)
        return want in (*_forms(shown, world.spec.today[:4]), _norm(str(raw)))
    return want in (_norm(shown), _norm(str(raw)))


def find_rows(world: UserView, entity: str, user_id: int, ref: RefText) -> list[Row]:
    """Visible rows of `entity` that `ref` names (by label, or by every field it names)."""
    rows = world.visible(entity, user_id)
    want = _norm(ref.text)
    if ref.by == ONLY:  # "my profile": every row the user sees (exactly one, or it is ambiguous)
        return list(rows) if want == _norm(my_only(world.entity(entity))) else []
    if ref.by == MADE:  # "…, then cancel it": only the steps before it tell which row (`steps_of`'s `made`)
        return []
    if ref.by is None:
        # "my shift "May 29 Night"": the user's own row without their own name (not of a row said
        # to be someone else's)
        named = _labelled(world, entity, rows, want) or (_own_labelled(world, entity, rows, want, user_id)
                                                         if ref.mine is not False else [])
        if named or ", " not in want:
            return named
        # "Conference travel (Tomas Silva), draft": a label two rows share, then after a comma
        # the value of one field that tells them apart (`qualified_name`).
        for cut in (i for i in range(len(want)) if want.startswith(", ", i)):
            label, value = want[:cut], want[cut + 2:]
            matches = [r for r in _labelled(world, entity, rows, label)
                       if any(_shows(world, entity, f, value, r) for f in qualifiers(world, entity))]
            if matches:
                return matches
        return []
    pairs = [(ref.by, want), *((f, _norm(text)) for f, text in ref.also)]
    return [r for r in rows if all(_shows(world, entity, f, text, r) for f, text in pairs)]


def _labelled(world: UserView, entity: str, rows: list[Row], want: str) -> list[Row]:
    """The rows labelled `want` as the app shows it, or as a person writes it (ISO dates in words)."""
    year = world.spec.today[:4]
    # a shorter name the row goes by (`UserView.short_labels`) names it too; where two rows
    # answer to it, it names neither (the caller finds both)
    return [r for r in rows if want in _forms(world.label(entity, r), year)
            or any(want in _forms(short, year) for short in world.short_labels(entity, r))]


@functools.lru_cache(maxsize=65536)
def _forms(label: str, year: str) -> tuple[str, ...]:
    """Every way a label may be written: as shown, its dates in words, this year's without the
    year, and each of those without the time of day (`spoken.spoken_label`) or said once
    (`spoken.said_once`). Cached: the proposer resolves the same labels many thousand times."""
    forms = (label, spoken_label(label), spoken_label(label, year),
             spoken_label(label, timeless=True), spoken_label(label, year, timeless=True))
    return tuple(_norm(f) for f in (*forms, *(said_once(f) for f in forms)))


def _own_labelled(world: UserView, entity: str, rows: list[Row], want: str, user_id: int) -> list[Row]:
    """The user's own rows labelled `want` once their own name is left out ("my shift "May 29
    Night"" of "Priya Raman, May 29 Night", said by Priya: `row_names.person_split`)."""
    shape = person_template(world.spec, world.entity(entity))
    if shape is None:
        return []
    column = world.field(entity, shape[0]).column
    year = world.spec.today[:4]
    out = []
    for r in rows:
        if r.get(column) != user_id:
            continue
        for form in (form for named in (world.label(entity, r), *world.short_labels(entity, r))
                     for form in (named, spoken_label(named), spoken_label(named, year),
                                  spoken_label(named, year, timeless=True))):
            split = person_split(world.spec, world.entity(entity), form)
            if split is not None and _norm(split[1]) == want:
                out.append(r)
                break
    return out


def qualifiers(world: UserView, entity: str) -> list[str]:
    """The fields whose value may tell apart rows that share a label: a status, a date, an amount
    (what a person adds: "the draft one", "the one from May 6"), in the entity's field order."""
    ent = world.entity(entity)
    order = ("enum", "date", "money")  # "the draft one" before "the one from May 6"
    return [f.name for f in sorted(ent.fields, key=lambda f: order.index(f.type) if f.type in order else 9)
            if f.type in order and f.name not in ent.display_fields and f.name not in ent.owner_fields]


def qualified_name(world: UserView, entity: str, row: Row, user_id: int) -> str | None:
    """How an instruction names `row` when its label is shared by other rows the user sees: the
    label, a comma, and the value of the first qualifier field no other such row has. None when
    the label names it alone already, or no one field tells it apart."""
    label = world.label(entity, row)
    same = find_rows(world, entity, user_id, RefText(label))
    if len(same) < 2 or '"' in label:
        return None
    for f in qualifiers(world, entity):
        raw = row.get(world.field(entity, f).column)
        if raw is None or raw == "":
            continue
        text = world.value_text(entity, f, raw, row)
        text = text.lower() if world.field(entity, f).type == "enum" else text
        named = find_rows(world, entity, user_id, RefText(f"{label}, {text}"))
        if [r["id"] for r in named] == [row["id"]] and '"' not in text:
            return f"{label}, {text}"
    return None


def describe(ref: RefText) -> str:
    """How an error names a reference: 'Jordan Lee' and 'June 5, 2026' (every field it names)."""
    return " and ".join(repr(t) for t in (ref.text, *(text for _f, text in ref.also)))


def resolve_ref(world: UserView, entity: str, user_id: int, ref: RefText) -> Row:
    rows = find_rows(world, entity, user_id, ref)
    label = world.entity(entity).label.lower()
    if not rows:
        raise UnresolvedError(f"no {label} of this user is called {describe(ref)}")
    if len(rows) > 1:
        ids = ", ".join(str(r["id"]) for r in rows[:5])
        raise AmbiguousError(f"{len(rows)} {world.entity(entity).plural.lower()} are called "
                             f"{describe(ref)} (ids {ids})")
    return rows[0]


def _enum_value(values: list[str] | None, text: str) -> str:
    for v in values or []:
        if _norm(enum_text(v)) == _norm(text) or _norm(v) == _norm(text):
            return v
    raise UnresolvedError(f"{text!r} is not one of {', '.join(values or [])}")


def field_value(world: UserView, entity: str, field: str, text: str, user_id: int) -> Any:
    """The stored value a condition's text stands for."""
    f = world.field(entity, field)
    raw = text[1:-1] if text.startswith('"') and text.endswith('"') else text
    if f.type == "reference" and f.ref:
        return resolve_ref(world, f.ref, user_id, RefText(raw))["id"]
    if f.type == "enum":
        return _enum_value(f.values, raw)
    if f.type in ("money", "date", "int", "bool"):
        value = parse_scalar(f.type, raw)
        return int(value) if f.type == "bool" else value
    return raw


def _predicate(world: UserView, entity: str, cond: Cond, user_id: int) -> Any:
    """A test on a row for one condition (the condition's values resolved once)."""
    f = world.field(entity, cond.field)
    column = f.column
    if cond.upper is not None:
        low = field_value(world, entity, cond.field, cond.value, user_id)
        high = field_value(world, entity, cond.field, cond.upper, user_id)
        cut = 10 if f.type == "date" else None
        return lambda row: row.get(column) is not None and low <= (
            row[column][:cut] if cut else row[column]) <= high
    want = field_value(world, entity, cond.field, cond.value, user_id)
    if f.type == "string":
        return lambda row: row.get(column) is not None and _norm(row[column]) == _norm(want)
    return lambda row: row.get(column) is not None and row[column] == want


def select(world: UserView, q: Question, user_id: int) -> list[Row]:
    """The rows a question ranges over: visible to the user and meeting every condition."""
    tests = [_predicate(world, q.entity, c, user_id) for c in q.conds]
    return [r for r in world.visible(q.entity, user_id) if all(t(r) for t in tests)]


def comparable(world: UserView, q: Question, user_id: int) -> bool:
    """Whether an aggregate compares like with like: every row asked about has a value (a
    "lowest typical bill" must not skip payees with none) and, for money, one currency."""
    ent = world.entity(q.entity)
    assert q.field is not None
    field = ent.field_named(q.field)
    column = field.column
    rows = select(world, q, user_id)
    if not rows or any(r.get(column) in (None, "") for r in rows):
        return False
    if field.currency:  # one currency for every row
        return True
    # the field naming each row's currency (`currency_field`), else one a seed names so
    currency = field.currency_field or next((f.column for f in ent.fields if f.name in ("currency", "currency_code")), None)
    return currency is None or len({r.get(currency) for r in rows}) == 1


def extreme(world: UserView, q: Question, user_id: int) -> Row:
    """The single row with the highest/lowest value of `q.field`; ties are ambiguous."""
    assert q.field is not None
    column = world.field(q.entity, q.field).column
    rows = [r for r in select(world, q, user_id) if r.get(column) is not None]
    if not rows:
        raise UnresolvedError(f"no {world.entity(q.entity).plural.lower()} meet the conditions")
    best = max(r[column] for r in rows) if q.op == "max" else min(r[column] for r in rows)
    top = [r for r in rows if r[column] == best]
    if len(top) > 1 and q.tie:  # the instruction said how to break it
        return min(top, key=lambda r: (_norm(world.label(q.entity, r)), r["id"]))
    if len(top) > 1:
        raise AmbiguousError(f"{len(top)} {world.entity(q.entity).plural.lower()} tie for the "
                             f"{'highest' if q.op == 'max' else 'lowest'} {q.field}")
    return top[0]


# Field-name words that say a string holds a phone number (split on "_": "home_phone", "fax").
PHONE_WORDS = frozenset({"phone", "phones", "telephone", "tel", "mobile", "cell", "cellphone",
                         "fax", "landline"})
# A stored value that is written like a phone number: digits in groups with separators, an
# optional "+" and extension ("(520) 790-7206", "+1-520-790-7206x229", "520.790.7206").
_PHONE_VALUE = re.compile(r"\+?[\d(][\d\s().\-/]{5,}\d(?:\s*(?:x|ext\.?|extension|#)\s*\d{1,6})?")
_EMAIL_VALUE = re.compile(r"[^@\s<>()]+@[^@\s<>()]+\.[^@\s<>().]+")


def _digits(text: str) -> int:
    return sum(c.isdigit() for c in text.split("x")[0].split("ext")[0].split("#")[0])


def is_phone_value(text: str) -> bool:
    """Whether a stored string is a phone number (7 to 15 digits, written as one)."""
    return bool(_PHONE_VALUE.fullmatch(text.strip())) and 7 <= _digits(text) <= 15


def is_phone_field(world: UserView, entity: str, field: str) -> bool:
    """Whether a string field holds phone numbers: its name says so ("phone", "mobile_number",
    "fax"), or every stored value (at least three) is written like a phone number with separators
    (a bare run of digits could be an account number, so it does not count)."""
    f = world.field(entity, field)
    if f.type != "string":
        return False
    if PHONE_WORDS & set(f.name.lower().split("_")) or "phone" in f.name.lower():
        return True
    values = [str(r[f.column]).strip() for r in world.rows(entity) if r.get(f.column) not in (None, "")]
    return len(values) >= 3 and all(is_phone_value(v) and not v.isdigit() for v in values)


def label_names(world: UserView, entity: str, row: Row, user_id: int) -> tuple[str, ...]:
    """Further names of a row besides its display label, each identifying it alone among the
    rows the user sees (compared as answers are: case, accents and punctuation aside):

    - its main field (the first field of the label template) as the app shows it ("Quick
      question about the proposal" for "Quick question about the proposal (Carrie Payne)"),
      when no other row has that main value or that label;
    - the label and that main name followed by the entity's name ("Main Checking account",
      "Main Checking ··8488 account"), as people say "my Main Checking account"."""
    spec = world.entity(entity)
    label = world.label(entity, row)
    noun = spec.label.lower()
    names: list[str] = []
    if spec.display_fields:
        main_field = spec.display_fields[0]
        column = world.field(entity, main_field).column
        raw = row.get(column)
        main = "" if raw is None or raw == "" else world.value_text(entity, main_field, raw, row)
        key = normalize_text(main)
        taken = {normalize_text(world.label(entity, r)) for r in world.visible(entity, user_id)
                 if r["id"] != row["id"]}
        taken |= {normalize_text(world.value_text(entity, main_field, r[column], r))
                  for r in world.visible(entity, user_id)
                  if r["id"] != row["id"] and r.get(column) not in (None, "")}
        if key and key != normalize_text(label) and key not in taken:
            names.append(main)
    # A noun after a name only restates what kind of row it is; no other row gets the same name.
    names += [f"{name} {noun}" for name in (label, *names)
              if noun and not normalize_text(name).endswith(normalize_text(noun))]
    return tuple(names)


def row_answer(world: UserView, entity: str, row: Row, user_id: int, rows: tuple[int, ...]) -> Answer:
    """A row as a READ's answer: kind `label`, its label and its further unambiguous names."""
    return Answer("label", world.label(entity, row), label_names(world, entity, row, user_id), rows)


def _answer_of(world: UserView, entity: str, field: str, row: Row, user_id: int) -> Answer:
    f = world.field(entity, field)
    raw = row[f.column]
    rows = (row["id"],)
    if f.type == "money":
        return Answer("money", raw / 100, (), rows, currency_of(f, row))
    if f.type == "int":
        return Answer("number", raw, (), rows)
    if f.type == "date":
        return Answer("date", str(raw)[:10], (), rows)
    if f.type == "bool":
        return Answer("bool", bool(raw), (), rows)
    if f.type == "enum":
        text = enum_text(str(raw))
        return Answer("text", text, ((str(raw),) if text != raw else ()), rows)
    if f.type == "reference" and f.ref:
        target = world.row(f.ref, raw)
        if target is not None and any(r["id"] == raw for r in world.visible(f.ref, user_id)):
            return row_answer(world, f.ref, target, user_id, rows)
        return Answer("text", world.value_text(entity, field, raw), (), rows)
    if f.type == "datetime":
        return Answer("text", str(raw)[:16].replace("T", " "), (), rows)
    if f.type == "email" and _EMAIL_VALUE.fullmatch(str(raw).strip()):
        return Answer("email", str(raw).strip(), (), rows)
    if f.type == "string" and is_phone_value(str(raw)) and is_phone_field(world, entity, field):
        return Answer("phone", str(raw).strip(), (), rows)
    return Answer("text", str(raw), (), rows)


def answer(world: UserView, q: Question, user_id: int) -> Answer:
    """Compute a question's answer over the database."""
    if q.op == "lookup":
        assert q.target is not None and q.field is not None
        row = resolve_ref(world, q.entity, user_id, q.target)
        raw = row.get(world.field(q.entity, q.field).column)
        if raw is None or raw == "":
            raise UnresolvedError(f"the {q.field} of {q.target.text!r} is empty")
        return _answer_of(world, q.entity, q.field, row, user_id)
    rows = select(world, q, user_id)
    ids = tuple(r["id"] for r in rows)
    if q.op == "count":
        if not rows:
            raise UnresolvedError("no rows meet the conditions (a count of zero is not asked)")
        return Answer("number", len(rows), (), ids)
    if q.op == "sum":
        assert q.field is not None
        f = world.field(q.entity, q.field)
        total = sum(r.get(f.column) or 0 for r in rows)
        if not rows:
            raise UnresolvedError("no rows meet the conditions")
        if f.type != "money":
            return Answer("number", total, (), ids)
        if len({currency_of(f, r) for r in rows}) > 1:
            raise AmbiguousError(f"the {q.field} amounts are in several currencies: they do not add up")
        # `comparable` let only amounts in one currency be added up
        return Answer("money", total / 100, (), ids, currency_of(f, rows[0]))
    row = extreme(world, q, user_id)
    return row_answer(world, q.entity, row, user_id, (row["id"],))


def arg_value(param: ParamSpec, text: Any) -> Any:
    """The API value of a non-reference argument as an instruction writes it ("$45.00" → 4500,
    "June 5, 2026" → "2026-06-05", "suspicious activity" → "suspicious_activity")."""
    if param.type == "enum":
        return _enum_value(param.values, str(text))
    if param.type in ("money", "int", "date", "datetime", "bool"):
        return parse_scalar(param.type, str(text))
    return str(text)


def steps_of(world: UserView, ask: Ask, user_id: int, made: dict[str, int] | None = None) -> list[Step]:
    """API-level workflow steps for a write or read-write `ask`; `made` holds, by entity, the id of
    the row the steps before `ask` created (what "it" names: `asks.MADE`)."""
    steps: list[Step] = []
    for ask_step in ask.steps:
        workflow = next(w for w in world.spec.workflows if w.name == ask_step.workflow)
        params = {p.name: p for p in workflow.params}
        values: dict[str, Any] = {}
        for name, text in ask_step.args.items():
            p = params[name]
            if p.type == "reference" and p.ref:
                ref = text if isinstance(text, RefText) else RefText(str(text))
                if ref.by == MADE:
                    if p.ref not in (made or {}):
                        raise UnresolvedError(f"no step before this one creates the {p.ref} said {ref.text!r}")
                    values[name] = (made or {})[p.ref]
                    continue
                values[name] = resolve_ref(world, p.ref, user_id, ref)["id"]
            else:
                values[name] = arg_value(p, text)
        if ask_step.pick is not None:
            param, q = ask_step.pick
            values[param] = extreme(world, q, user_id)["id"]
        values.update(_kept(world, workflow, values))
        steps.append(Step(workflow.name, values))
    return steps


def _kept(world: UserView, workflow: WorkflowSpec, values: dict[str, Any]) -> dict[str, Any]:
    """Fields an instruction leaves unsaid ("change my phone to …" says nothing of the city): the
    row acted on keeps its own value, as the person asking means (the proposer sends it too)."""
    subject = next((p for p in workflow.params if p.name == workflow.subject and p.ref), None)
    if subject is None or subject.ref is None or values.get(subject.name) is None:
        return {}
    row = world.row(subject.ref, values[subject.name])
    params = {p.name: p for p in workflow.params}
    kept: dict[str, Any] = {}
    for name, fname in set_fields(workflow).items():
        if name in values or params[name].default is not None or row is None:
            continue  # a form's default fills what is unsaid before the row's own value does
        f = world.field(subject.ref, fname)
        raw = row.get(f.column)
        if raw is not None:
            kept[name] = bool(raw) if f.type == "bool" else raw
    return kept


def today(world: UserView) -> dt.date:
    return dt.date.fromisoformat(world.spec.today)
