"""Computed fields, row lookups, messages with values and currencies: how each parses, type-checks,
compiles, and how a seed that misuses one gets a one-line located error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.errors import ExpressionError, SeedError
from factory.expr.pycode import PyGen, lookup_message
from factory.expr.syntax import Query, parse
from factory.expr.template import Hole, display_kind, has_holes, split_template
from factory.expr.typecheck import INT, MONEY, Scope, Type, check
from factory.seed.loader import load_seed_text
from factory.spec.labels import money_label, value_label

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "lookups.yaml"
TEXT = FIXTURE.read_text()
SCHEMA = {
    "copy": {"id": INT, "book": Type("ref", entity="book"), "status": Type("str", values=("available", "loaned"))},
    "book": {"id": INT, "title": Type("str"), "free": Type("int", computed=True)},
    "user": {"id": INT},
}


def _checked(source: str, names: dict[str, Type]) -> Type:
    node = parse(source)
    return check(source, node, Scope(SCHEMA, names))


def _seed(old: str, new: str) -> str:
    assert old in TEXT, f"fixture text {old!r} not in lookups.yaml"
    return TEXT.replace(old, new, 1)


def _error(text: str) -> SeedError:
    with pytest.raises(SeedError) as info:
        build_spec(load_seed_text(text, "lookups.yaml"))
    return info.value


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# ---- parse and type-check -------------------------------------------------------------------
def test_a_lookup_parses_with_its_message_and_is_a_row() -> None:
    node = parse("first(c in copy where c.book == book and c.status == 'available', 'None left for \\'you\\'')")
    assert isinstance(node, Query) and node.fn == "first" and node.entity == "copy"
    assert node.message == "None left for 'you'"
    assert _checked("first(c in copy where c.book == book)", {"book": Type("ref", entity="book")}) == Type("ref", entity="copy")
    assert lookup_message(parse("first(c in copy)")) == "No matching copy was found."  # type: ignore[arg-type]


def test_a_lookup_message_must_be_quoted() -> None:
    with pytest.raises(ExpressionError, match="in quotes"):
        parse("first(c in copy where c.book == book, book)")


def test_a_computed_field_reads_like_a_field_but_not_inside_a_query() -> None:
    assert _checked("book.free + 1", {"book": Type("ref", entity="book")}) == INT
    with pytest.raises(ExpressionError, match="computed field"):
        _checked("count(b in book where b.free > 0)", {})


def test_message_templates_split_into_text_and_checked_holes() -> None:
    parts = split_template("Over the {limit} limit, {{really}}")
    assert parts[0] == "Over the " and isinstance(parts[1], Hole) and parts[1].source == "limit"
    assert parts[2] == " limit, {really}"
    assert not has_holes("Plain {{braces}} only") and has_holes("{x}")
    for bad, words in (("Open {limit", "without its '}'"), ("Close } here", "without its '{'"), ("Empty {}", "empty"),
                       ("Bad {limit +}", "in {limit +}")):
        with pytest.raises(ExpressionError, match=re.escape(words)):
            split_template(bad)
    assert display_kind(MONEY) == "money" and display_kind(Type("str", values=("a",))) == "enum"
    assert display_kind(Type("ref", entity="book")) == "ref" and display_kind(INT) == "text"


def test_a_lookup_compiles_to_find_row_in_list_order_then_id() -> None:
    node = parse("first(c in copy where c.status == 'available')")
    check("", node, Scope(SCHEMA, {}))
    code = PyGen(names={}, models={"copy": "Copy"}, orders={"copy": ["-code"]}).expr(node)
    assert code == ('find_row(session, select(Copy).where(col(Copy.status) == "available")'
                    '.order_by(col(Copy.code).desc(), col(Copy.id)), "No matching copy was found.")')


def test_money_labels_take_a_currency() -> None:
    assert money_label(1250, "EUR") == "€12.50" and money_label(-123456, "GBP") == "-£1,234.56"
    assert money_label(1250) == "$12.50" and value_label("money", 99, "INR") == "₹0.99"


# ---- the fixture builds, and what it compiles to ----------------------------------------------
def test_the_fixture_compiles_each_construct() -> None:
    spec = build_spec(load_seed_text(TEXT, "lookups.yaml"))
    hold = spec.entity("hold")
    assert [f.name for f in hold.computed] == ["queue_position"] and "queue_position" not in [f.name for f in hold.fields]
    assert "queue_position_of_hold" not in (hold.computed[0].compute_py or "")
    borrow = next(w for w in spec.workflows if w.name == "borrow")
    copy = next(p for p in borrow.params if p.name == "book_copy")
    assert not copy.required and copy.lookup_py and copy.lookup_py.startswith("find_row(session, select(Copy)")
    fines = next(c for c in borrow.preconditions if "fines_owed <=" in c.source)
    assert fines.message_py == ('"You owe " + label_text("money", fines_owed_of_membership(session, membership)) '
                                '+ "; pay down to $20.00 to borrow."')
    pay = next(w for w in spec.workflows if w.name == "pay_fine")
    assert 'currency_text(fine.amount, value_text(fine.currency))' in (pay.preconditions[0].message_py or "")
    fine = spec.entity("fine")
    assert fine.field_named("amount").currency_field == "currency" and spec.entity("tote").field_named("price").currency == "GBP"


def test_a_spec_without_the_new_constructs_writes_none_of_their_keys() -> None:
    spec = build_spec(load_seed_text(TEXT, "lookups.yaml"))
    dumped = spec.entity("copy").model_dump(mode="json")
    assert "computed" not in dumped and all("compute" not in f and "currency" not in f for f in dumped["fields"])
    assert "computed" in spec.entity("hold").model_dump(mode="json")


# ---- located one-line errors --------------------------------------------------------------------
ERRORS = [
    ("computed_with_gen", '{name: days_left, type: int, compute: "due_on - today()"}',
     '{name: days_left, type: int, compute: "due_on - today()", gen: {min: 1}}', "gen: {min: 1}", ["gen", "computed"]),
    ("computed_reference", '{name: days_left, type: int, compute: "due_on - today()"}',
     '{name: days_left, type: reference, to: book, compute: "copy.book"}', "name: days_left", ["cannot be a reference"]),
    ("computed_type", '{name: days_left, type: int, compute: "due_on - today()"}',
     '{name: days_left, type: int, compute: "due_on"}', "name: days_left", ["expected int but the expression is date"]),
    ("computed_names_me", '{name: days_left, type: int, compute: "due_on - today()"}',
     '{name: days_left, type: int, compute: "len(me.name)"}', "name: days_left", ["unknown name 'me'"]),
    ("computed_in_display", 'display: "{book} hold"', 'display: "{book} hold {queue_position}"',
     'display: "{book} hold {queue_position}"', ["computed", "label"]),
    ("set_computed", '{set: book_copy.status, to: "\'loaned\'"}', '{set: membership.loans_out, to: "1"}',
     "set: membership.loans_out", ["read-only"]),
    ("where_reads_computed", "{name: book, type: reference, to: book}\n      - {name: placed_on",
     "{name: book, type: reference, to: book, where: \"it.copies_available == 0\"}\n      - {name: placed_on",
     "it.copies_available == 0", ["computed field", "option list"]),
    ("currency_on_int", "{name: loan_limit, type: int, min: 1, max: 10,",
     "{name: loan_limit, type: int, currency: EUR, min: 1, max: 10,", "currency: EUR", ["money fields"]),
    ("unknown_currency", "currency: GBP", "currency: XYZ", "currency: XYZ", ["unknown currency 'XYZ'"]),
    ("param_currency_on_date", '{name: placed_on, type: date, default: "2026-06-15"}',
     '{name: placed_on, type: date, currency: EUR, default: "2026-06-15"}', "currency: EUR, default", ["money parameters"]),
    ("param_unknown_currency", '{name: placed_on, type: date, default: "2026-06-15"}',
     '{name: placed_on, type: date, default: "2026-06-15"}\n      - {name: tip, type: money, required: false, currency: ABC}',
     "currency: ABC", ["unknown currency 'ABC'"]),
    ("currency_field_not_enum", "currency_field: currency", "currency_field: reason", "currency_field: reason",
     ["not a stored enum field"]),
    ("lookup_on_scalar", "{name: placed_on, type: date, default: \"2026-06-15\"}",
     "{name: placed_on, type: date, lookup: \"first(b in book)\"}", "lookup: \"first(b in book)\"", ["reference parameters"]),
    ("lookup_wrong_entity",
     'lookup: "first(m in membership where m.member == me)"}\n    preconditions:\n      - {check: "book_copy',
     'lookup: "first(b in book)"}\n    preconditions:\n      - {check: "book_copy', 'lookup: "first(b in book)"',
     ["expected reference to membership"]),
    ("message_hole_type", 'message: "You already hold {book}."', 'message: "You already hold {book.pages}."',
     "You already hold {book.pages}", ["no field 'pages'"]),
]


@pytest.mark.parametrize("case,old,new,line_text,words", ERRORS, ids=[e[0] for e in ERRORS])
def test_misused_constructs_are_located(case: str, old: str, new: str, line_text: str, words: list[str]) -> None:
    text = _seed(old, new)
    error = _error(text)
    message = str(error)
    assert message.count("\n") == 0 and message.startswith("lookups.yaml:")
    assert error.line == _line_of(text, line_text), message
    for word in words:
        assert word in message, message


def test_a_lookup_over_owned_rows_that_never_names_me_is_warned_of() -> None:
    from factory.seed.check import lookup_warnings

    assert lookup_warnings(load_seed_text(TEXT, "lookups.yaml")) == []
    text = _seed('lookup: "first(m in membership where m.member == me)"', 'lookup: "first(m in membership)"')
    warnings = lookup_warnings(load_seed_text(text, "lookups.yaml"))
    assert len(warnings) == 1 and warnings[0].startswith(f"lookups.yaml:{_line_of(text, 'first(m in membership)')}:")
    assert "never names `me`" in warnings[0] and "m.member == me" in warnings[0], warnings
