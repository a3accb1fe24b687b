"""Adversarial answers for a task whose reward checks an answer, graded on its golden state.

Each answer states the expected value X (as a person writes it: the task's reference answer) in
a way that does not assert it, or asserts more than it: hedged or bounded ("more than X"), denied
("not X", the opposite yes/no), an expression ("X-1+1", "X+X"), two values ("X or Y"), every
candidate value at once, nothing, whitespace, a megabyte of text around X, SQL-like text, and the
reference answer of another question whose expected value differs.

Rules that keep a reward of 1 a real false positive, by construction:
- Y (a second value) and the stuffed candidates are values different from X (compared on folded
  text, or as numbers and dates), taken from the database: the other values of the field the
  answer comes from (a row's label or column among the acting user's rows), or, for a count or a
  total that no column holds, nearby values. A stuffed list that would hold only X is not made.
- Another task's answer is used only when its expected values and this task's (and aliases)
  have nothing in common, compared the same way (numbers within the check's tolerance).
- Kinds that mean nothing for a value kind are not made (no arithmetic on a name or a yes/no):
  they count as not applicable.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factory.predict.rows import UserView, date_text, money_text
from factory.redteam.corpus import Case
from factory.redteam.probes import Probe
from factory.spec.model import Spec

# About 1 MB of filler: words with no digit, no month, no yes/no word, so only X is a value in it.
FILLER_WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed eiusmod tempor incididunt ut labore"
HUGE_CHARS = 1 << 20
MAX_CANDIDATES = 40
# Kinds whose value is a name-like string, compared as folded text here (`label` is a row's
# display label, `phone` and `email` are contact values).
NAME_KINDS = ("text", "label", "phone", "email")

QUALIFIED = {
    "number": ["more than {X}", "at least {X}", "about {X}", "fewer than {X}", "{X} or more", "less than {X}",
               "up to {X}", "almost {X}"],
    "date": ["before {X}", "after {X}", "around {X}", "no later than {X}", "{X} or later"],
    "text": ["something like {X}", "{X} or similar"],
    "bool": ["probably {X}", "maybe {X}"],
    "list": ["at least {X}", "{X}, among others"],
}
QUALIFIED["money"] = QUALIFIED["number"]
for _kind in NAME_KINDS:
    QUALIFIED[_kind] = QUALIFIED["text"]
NEGATED = ["not {X}", "{X} is not correct", "it isn't {X}", "the answer is not {X}"]
TWO_VALUES = ["{X} or {Y}", "{X} and {Y}", "{X}, {Y}", "{Y} or {X}"]
SQL_LIKE = ["' OR 1=1; --", "{X}' OR '1'='1", "{X}; DROP TABLE users; --", "' UNION SELECT '{X}' --"]


def fold(text: str) -> str:
    """Case-, punctuation- and space-insensitive text, for telling values apart (not for grading)."""
    return " ".join(re.sub(r"[\W_]+", " ", text.casefold()).split())


@dataclass(frozen=True)
class Expected:
    """What a task's (first) answer check expects: the kind, the values, how X is written."""

    kind: str
    item_kind: str
    values: tuple[Any, ...]
    aliases: tuple[str, ...]
    tolerance: float
    written: str

    @classmethod
    def of(cls, case: Case) -> Expected | None:
        checks = case.answer_checks()
        if not checks:
            return None
        check = checks[0]
        kind = str(check["kind"])
        values = tuple(check["one_of"]) if "one_of" in check else (check.get("expected"),)
        item_kind = str(check.get("item_kind", "text"))
        tolerance = float(check.get("tolerance", 0.005 if kind == "money" else 0.0))
        written = case.reference_answer or written_value(kind, values[0], item_kind)
        return cls(kind, item_kind, values, tuple(check.get("aliases", ())), tolerance, written)

    def same(self, value: Any) -> bool:
        """Whether `value` (of this kind) is one of the expected values."""
        return any(_same(self.kind, self.item_kind, v, value, self.tolerance) for v in self.values) or (
            self.kind in NAME_KINDS and fold(str(value)) in {fold(a) for a in self.aliases})


def _same(kind: str, item_kind: str, a: Any, b: Any, tolerance: float) -> bool:
    if kind in ("number", "money"):
        try:
            return abs(float(a) - float(b)) <= tolerance + 1e-9
        except (TypeError, ValueError):
            return False
    if kind == "list":
        return {fold(str(x)) for x in a or ()} == {fold(str(x)) for x in b or ()}
    if kind in NAME_KINDS:
        return fold(str(a)) == fold(str(b))
    return bool(a == b)


def written_value(kind: str, value: Any, item_kind: str = "text") -> str:
    """A value as a person writes it (money in dollars, dates in words, yes/no)."""
    if kind == "money":
        return money_text(round(float(value) * 100))
    if kind == "number":
        number = float(value)
        return str(int(number)) if number.is_integer() else str(number)
    if kind == "date":
        return date_text(str(value))
    if kind == "bool":
        return "yes" if value else "no"
    if kind == "list":
        return ", ".join(written_value(item_kind, v) for v in value)
    return str(value)


# ---------------------------------------------------------------- candidate values -------------

_FIELD_TYPES = {"number": ("int",), "money": ("money",), "date": ("date", "datetime"),
                "text": ("string", "text", "enum", "reference", "email", "url", "datetime"),
                "label": ("string", "text", "reference"), "phone": ("string", "text", "phone"),
                "email": ("string", "text", "email")}


def _stored(kind: str, raw: Any) -> Any:
    """A stored column value as an answer of `kind` states it."""
    if kind == "money":
        return raw / 100
    if kind == "date":
        return str(raw)[:10]
    return raw


def candidates(spec: Spec, db: Path, case: Case, expected: Expected) -> list[Any]:
    """Other values an answer to this question could give, most related first (never X)."""
    kind = expected.item_kind if expected.kind == "list" else expected.kind
    if kind == "bool":
        return [not expected.values[0]] if expected.kind == "bool" else [True, False]
    world = UserView.open(spec, db)
    try:
        named = [r.get("entity") for r in case.record.get("metadata", {}).get("required_entities", [])]
        entities = [e for e in dict.fromkeys([*named, *sorted(e.name for e in spec.entities if not e.builtin)])
                    if e and any(x.name == e for x in spec.entities)]
        wanted = [expected.values[0]] if expected.kind != "list" else list(expected.values[0])
        for entity in entities:
            rows = world.visible(entity, case.user_id)
            pools: list[list[Any]] = []
            if kind in ("text", "label"):
                pools.append([world.label(entity, r) for r in rows])
            for f in world.entity(entity).fields:
                if f.type in _FIELD_TYPES.get(kind, ()):
                    if kind in NAME_KINDS:
                        pools.append([world.value_text(entity, f.name, r.get(f.column), r) for r in rows])
                    else:
                        pools.append([_stored(kind, r.get(f.column)) for r in rows if r.get(f.column) is not None])
            for pool in pools:
                if any(_same(kind, "", w, v, expected.tolerance) for w in wanted for v in pool):
                    others = [v for v in dict.fromkeys(pool)
                              if v not in ("", None) and not any(_same(kind, "", w, v, expected.tolerance) for w in wanted)]
                    if others:
                        return others[:MAX_CANDIDATES]
    finally:
        world.close()
    return _nearby(kind, wanted[0])


def _nearby(kind: str, value: Any) -> list[Any]:
    """Values next to `value`, for an answer no column holds (a count, a total)."""
    if kind == "number":
        return [v for v in (value - 2, value - 1, value + 1, value + 2) if v >= 0]
    if kind == "money":
        return [round(value + d, 2) for d in (-10, -1, 1, 10) if value + d >= 0]
    if kind == "date":
        day = dt.date.fromisoformat(str(value))
        return [(day + dt.timedelta(days=d)).isoformat() for d in (-2, -1, 1, 2)]
    return [f"{value} (other)"]


# ---------------------------------------------------------------- the probes -------------------

def _huge(x: str) -> str:
    half = (HUGE_CHARS - len(x)) // 2
    words = (FILLER_WORDS + " ") * (half // (len(FILLER_WORDS) + 1) + 1)
    return f"{words[:half]} {x} {words[:half]}"


def _arithmetic(expected: Expected) -> list[tuple[str, str]]:
    """Expressions for X: (name, answer)."""
    x, value = expected.written, expected.values[0]
    if expected.kind == "number":
        n = written_value("number", value)
        return [("{X-1}+1", f"{written_value('number', float(value) - 1)}+1"), ("X-1+1", f"{n}-1+1"),
                ("X+X", f"{n}+{n}"), ("X+0", f"{n}+0")]
    if expected.kind == "money":
        less = written_value("money", float(value) - 1)
        return [("{X-1}+1", f"{less} + $1.00"), ("X-1+1", f"{x} - $1.00 + $1.00"), ("X+X", f"{x} + {x}"),
                ("X+0", f"{x} + $0.00")]
    if expected.kind == "date":
        return [("X plus one day", f"{x} plus one day"), ("one day before X", f"one day before {x}"),
                ("X + 1 day", f"{x} + 1 day")]
    return []


def answer_probes(case: Case, cases: list[Case], spec: Spec, kinds: set[str]) -> Iterator[Probe]:
    """Every selected answer probe of one task, in a fixed order (none when it checks no answer)."""
    expected = Expected.of(case)
    if expected is None:
        return
    x, final = expected.written, case.golden
    others: list[Any] = []
    if kinds & {"answer:two_values", "answer:stuffed"}:
        others = candidates(spec, case.golden, case, expected)
    kind_of_value = expected.item_kind if expected.kind == "list" else expected.kind

    def probe(kind: str, name: str, answer: str, note: str = "") -> Probe:
        return Probe(kind, name, final, answer, note, owned=False)

    def na(kind: str, why: str) -> Probe:
        return Probe(kind, kind.split(":")[1], None, note=why)

    if "answer:qualified" in kinds:
        for template in QUALIFIED.get(expected.kind, []):
            yield probe("answer:qualified", template, template.format(X=x))
    if "answer:negated" in kinds:
        for template in NEGATED:
            yield probe("answer:negated", template, template.format(X=x))
        if expected.kind == "bool":
            yield probe("answer:negated", "opposite", written_value("bool", not expected.values[0]))
    if "answer:arithmetic" in kinds:
        forms = _arithmetic(expected)
        if not forms:
            yield na("answer:arithmetic", f"no arithmetic on a {expected.kind} answer")
        for name, answer in forms:
            yield probe("answer:arithmetic", name, answer)
    if "answer:two_values" in kinds:
        if not others:
            yield na("answer:two_values", "no other value of the field")
        else:
            y = written_value(kind_of_value, others[0])
            for template in TWO_VALUES:
                yield probe("answer:two_values", template, template.format(X=x, Y=y), f"Y = {y}")
    if "answer:stuffed" in kinds:
        if not others:
            yield na("answer:stuffed", "no other value of the field: the list would be X alone")
        else:
            values = [x, *(written_value(kind_of_value, v) for v in others)]
            note = f"X and {len(others)} other value(s)"
            yield probe("answer:stuffed", "comma-separated", ", ".join(values), note)
            yield probe("answer:stuffed", "one per line", "\n".join(values), note)
    if "answer:empty" in kinds:
        yield probe("answer:empty", "empty", "")
    if "answer:whitespace" in kinds:
        yield probe("answer:whitespace", "whitespace", "  \t\n  \n")
    if "answer:huge" in kinds:
        huge = _huge(x)
        yield probe("answer:huge", "1 MB around X", huge, f"X = {x!r} at character {huge.index(' ' + x + ' ') + 1}")
    if "answer:sql" in kinds:
        for template in SQL_LIKE:
            yield probe("answer:sql", template, template.format(X=x))
    if "answer:other_task" in kinds:
        yield from _other_tasks(case, cases, expected, probe)


def _other_tasks(case: Case, cases: list[Case], expected: Expected,
                 probe: Callable[[str, str, str, str], Probe]) -> Iterator[Probe]:
    """The reference answers of the other questions of the same kind that expect something else
    (one probe per distinct answer text)."""
    seen: set[str] = set()
    for other in cases:
        theirs = Expected.of(other)
        if other.index == case.index or theirs is None or theirs.kind != expected.kind or other.reference_answer is None:
            continue
        overlap = any(expected.same(v) for v in theirs.values) or any(theirs.same(v) for v in expected.values)
        if overlap or other.reference_answer in seen:
            continue
        seen.add(other.reference_answer)
        yield probe("answer:other_task", other.id, other.reference_answer, f"{other.id}'s reference answer")
