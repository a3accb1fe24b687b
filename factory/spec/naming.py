"""Naming rules shared by the builder: plurals, labels, paths, class names, safe variables, and
which fields name a row rather than measure it."""

from __future__ import annotations

import builtins
import keyword
import re
from typing import Protocol

# Names the generated code uses itself; a parameter with one of these names gets a trailing _.
_TAKEN = {"session", "ctx", "select", "func", "and_", "or_", "not_", "timedelta", "created", "row", "params", "col",
          "true", "false", "row_id", "same_row", "load_row", "get_row", "query_value", "money_text", "value_text",
          "label_of",
          "l", "O", "I"}  # and the names pycodestyle finds ambiguous (E741), which the generated code must not use


def plural(name: str) -> str:
    """English plural of a snake_case noun (last word only)."""
    if name.endswith("y") and not name.endswith(("ay", "ey", "oy", "uy")):
        return name[:-1] + "ies"
    if name.endswith(("s", "x", "ch", "sh")):
        return name + "es"
    return name + "s"


def title(name: str) -> str:
    """`scheduled_payment` → `Scheduled payment`."""
    words = name.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def kebab(name: str) -> str:
    return name.replace("_", "-")


def class_name(name: str) -> str:
    """`scheduled_payment` → `ScheduledPayment`."""
    return "".join(part.capitalize() for part in name.split("_"))


def py_var(name: str) -> str:
    """A Python variable for an expression name that cannot clash with generated code."""
    if keyword.iskeyword(name) or name in _TAKEN or hasattr(builtins, name):
        return name + "_"
    return name


class _Labelled(Protocol):
    name: str
    label: str


# A code a row is known by: letters and digits, a dash or a slash, no space ("INC-16", "BWL-1042").
CODE = re.compile(r"[A-Z0-9][A-Za-z0-9/#.-]*\d[A-Za-z0-9/#.-]*")


def identifier(field: _Labelled) -> bool:
    """Fields that name a row rather than measure it (last four digits, numbers, codes): a person
    never asks which row has the "highest" of them, nor counts by them, and the app shows them as
    written ("4863", never "4,863")."""
    label = field.label.lower()
    if re.search(r"\bnumber of\b", label):  # "Number of guests" counts; "Account number" names
        return False
    words = set(re.findall(r"[a-z0-9]+", label))
    return bool(words & {"digits", "number", "code", "serial", "id", "iban", "routing", "last4"}) or field.name in (
        "last4", "last_four")
