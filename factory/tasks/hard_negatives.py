"""What a hard negative is made of: a wrong answer of the right kind, another value of a
parameter, a nudged column value, and the tests of which fields and effects a task's values reach.

The gates (`factory.tasks.gates`) build counterfactual final states from these; each one must be
plausible (same kind, same user's rows) and wrong, so a reward that grades it 1 is too loose.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from factory.predict.rows import UserView, date_text
from factory.spec.labels import money_label
from factory.spec.model import ParamSpec
from factory.tasks.language.answer import Answer, phone_text
from verifiers.answers import normalize_text


def wrong_currency(found: Answer) -> str | None:
    """The right amount in the wrong currency ("$12.50" for €12.50), for an amount that is not in
    US dollars: the number alone must not score."""
    if found.kind != "money" or not found.currency:
        return None
    # A dollar of another country is still written "$" by its own people ("$14" for CA$14.00 is
    # right), so its wrong currency is one with a symbol of its own.
    other = "EUR" if found.currency in _DOLLARS else None
    return money_label(round(found.value * 100), other)


_DOLLARS = frozenset({"CAD", "AUD"})


def wrong_answer(found: Answer, world: UserView, user_id: int, entity: str) -> str:
    """A plausible but wrong answer of the same kind: another amount, number or day, the other
    polarity, another phone number or email address, another of the user's rows (a label:
    another row of the entity the label belongs to, named by none of the answer's names)."""
    if found.kind == "money":
        return money_label(round(found.value * 100) + 137, found.currency)
    if found.kind == "number":
        return str(found.value + 1)
    if found.kind == "date":
        return date_text((dt.date.fromisoformat(found.value) + dt.timedelta(days=1)).isoformat())
    if found.kind == "bool":
        return "no" if found.value else "yes"
    if found.kind == "phone":
        return phone_text(str(found.value), change_last_digit=True)
    if found.kind == "email":
        local, _, domain = str(found.value).rpartition("@")
        return f"{local}1@{domain}"
    names = {normalize_text(n) for n in (str(found.value), *found.aliases)}
    holder = entity
    if found.kind == "label":  # a reference's label belongs to the referenced entity's rows
        holder = next((e.name for e in [world.entity(entity), *world.spec.entities]
                       if any(world.label(e.name, r) == found.value
                              for r in world.visible(e.name, user_id))), entity)
    others = [world.label(holder, r) for r in world.visible(holder, user_id)]
    other = next((o for o in others if normalize_text(o) not in names), None)
    # No other row to name: the right name, denied (a hard negative for the negation rule).
    return other or f"not {found.value}"


def other_value(kind: str, value: Any, values: list[str] | None) -> Any:
    if kind == "money":
        return int(value) + 100
    if kind == "int":
        return int(value) + 1
    if kind == "date":
        return (dt.date.fromisoformat(str(value)) + dt.timedelta(days=1)).isoformat()
    if kind == "datetime":
        return str(value)[:11] + ("11" if str(value)[11:13] != "11" else "12") + str(value)[13:]
    if kind == "enum":
        return next((v for v in values or [] if v != value), None)
    if kind == "bool":
        return not value
    if isinstance(value, str) and value:
        return value[:-1] + ("x" if value[-1] != "x" else "y")
    return None


def nudge(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.0
    if isinstance(value, str) and value and not value[:4].isdigit():
        return value + " (edited)"
    return None


def key_text(key: tuple[Any, ...]) -> str:
    """A row's primary key as the notes print it (`3`, or `3, 7` for a composite key)."""
    return ", ".join(str(v) for v in key)


def skippable(p: ParamSpec) -> bool:
    """Whether a user can leave the field blank and still submit: an optional field, or one the
    form prefills with a default. A required field left blank is refused, never stored."""
    return not p.required or p.default is not None


def uses_task_value(source: str, params: list[ParamSpec]) -> bool:
    """Whether an effect's expression takes a value the task gives.

    It does when it is a parameter itself (a chosen row included: `to: target`) or computes with
    a non-reference parameter (`account.balance - amount`). A reference parameter that only
    reaches a row's attribute (`min(note.priority + 1, 5)`) does not count: that value is the
    row's, which the task does not give.
    """
    if source.strip() in {p.name for p in params}:
        return True
    plain = re.sub(r"'[^']*'|\"[^\"]*\"", "", source)  # words inside string literals are no names
    words = set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", plain))
    return any(p.name in words for p in params if not p.ref)


__all__ = ["key_text", "nudge", "other_value", "skippable", "uses_task_value", "wrong_answer", "wrong_currency"]
