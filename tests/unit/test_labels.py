"""A row's label is written by one rule (`factory.spec.labels`) and by the generated app's own copy
of it (`runtime.label_text`): the two must agree on every kind of value, or a task names a row
by a label the page never shows."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest

from factory.spec.labels import value_label

RUNTIME = Path(__file__).resolve().parents[2] / "templates" / "backend" / "runtime.py.j2"


def _app_function() -> Any:
    """`label_text` and `money_text` as the generated runtime defines them."""
    source = RUNTIME.read_text()
    blocks = [re.search(rf"^def {name}\(.*?(?=^\S)", source, re.S | re.M) for name in ("money_text", "label_text")]
    assert all(blocks), "the runtime template lost money_text or label_text"
    namespace: dict[str, Any] = {"dt": dt, "Any": Any}
    for block in blocks:
        exec(block[0], namespace)  # the template's own code, read to compare it
    return namespace["label_text"]


CASES = [
    ("money", 123456, "$1,234.56"), ("money", -50, "-$0.50"), ("money", 0, "$0.00"),
    ("enum", "visa", "Visa"), ("enum", "suspicious_activity", "Suspicious activity"),
    ("date", dt.date(2026, 6, 5), "Jun 5, 2026"), ("date", "2025-12-22", "Dec 22, 2025"),
    ("datetime", dt.datetime(2026, 6, 5, 14, 30), "Jun 5, 2026, 2:30 PM"),
    ("datetime", "2026-06-05T00:05:00", "Jun 5, 2026, 12:05 AM"),
    ("bool", True, "Yes"), ("bool", False, "No"),
    ("string", "Main Checking", "Main Checking"), ("int", 4599, "4599"), (None, None, ""),
]


@pytest.mark.parametrize(("kind", "raw", "shown"), CASES)
def test_the_factory_and_the_app_write_a_label_alike(kind: str | None, raw: Any, shown: str) -> None:
    assert value_label(kind, raw) == shown
    assert _app_function()(kind, raw) == shown
