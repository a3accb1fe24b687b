"""The expression language: parsing, type checking and the Python it compiles to."""

from __future__ import annotations

import pytest

from factory.errors import ExpressionError
from factory.expr.pycode import PyGen
from factory.expr.syntax import parse, parse_rows
from factory.expr.typecheck import BOOL, DATE, INT, MONEY, STR, Scope, Type, check

SCHEMA = {
    "user": {"id": INT, "name": STR},
    "account": {"id": INT, "balance": MONEY, "status": Type("str", values=("open", "frozen")),
                "owner": Type("ref", entity="user"), "opened_on": DATE},
    "txn": {"id": INT, "account": Type("ref", entity="account"), "amount": MONEY},
}
SCOPE = Scope(SCHEMA, {"acct": Type("ref", entity="account"), "other": Type("ref", entity="account"),
                       "amount": MONEY, "n": INT, "me": Type("ref", entity="user")})
GEN = PyGen(names={"acct": "acct", "other": "other", "amount": "amount", "n": "n", "me": "ctx.actor"},
            models={"user": "User", "account": "Account", "txn": "Txn"})


def compile_(source: str) -> str:
    node = parse(source)
    check(source, node, SCOPE)
    return GEN.expr(node)


@pytest.mark.parametrize("source,python", [
    ("acct.balance >= amount", "acct.balance >= amount"),
    ("acct.balance >= 10.5", "acct.balance >= 1050"),
    ("acct.balance / 10 + 2 > amount * 3", "acct.balance // 10 + 200 > amount * 3"),
    ("acct != other", "not same_row(acct, other)"),
    ("acct.owner == me", "same_row(load_row(session, User, acct.owner_id), ctx.actor)"),
    ("acct.owner.name == 'x'", 'get_row(session, User, acct.owner_id).name == "x"'),
    ("acct.opened_on + days(30) < today()", "acct.opened_on + timedelta(days=30) < ctx.today"),
    ("not (acct.status == 'frozen') and n > 2", 'acct.status != "frozen" and n > 2'),
    ("n - (n - 1) > 0", "n - (n - 1) > 0"),
    ("-(n + 1) < n * (n + 2)", "-(n + 1) < n * (n + 2)"),
    ("not (n > 2 or acct == other)", "n <= 2 and not same_row(acct, other)"),
    ("count(t in txn where t.account == acct and t.amount < 0) == 0",
     "query_value(session, select(func.count()).select_from(Txn)"
     ".where(and_(col(Txn.account_id) == row_id(acct), col(Txn.amount) < 0))) == 0"),
    ("sum(t.amount for t in txn where t.account == acct) == acct.balance",
     "query_value(session, select(func.coalesce(func.sum(col(Txn.amount)), 0)).select_from(Txn)"
     ".where(col(Txn.account_id) == row_id(acct))) == acct.balance"),
    ("exists(t in txn where not (t.amount > 0))",
     "query_value(session, select(func.count()).select_from(Txn).where(col(Txn.amount) <= 0)) > 0"),
])
def test_compiles_to_readable_python(source: str, python: str) -> None:
    assert compile_(source) == python


@pytest.mark.parametrize("source,refusal", [
    ("acct.balance >= amount", "acct.balance < amount"),
    ("amount <= 25000", "amount > 2500000"),
    ("acct != other", "same_row(acct, other)"),
    ("not (acct == other)", "same_row(acct, other)"),
    ("acct.owner == null", "load_row(session, User, acct.owner_id) is not None"),
    ("acct.status != 'open' and acct.status != 'frozen'", 'acct.status == "open" or acct.status == "frozen"'),
    ("n > 2 or amount > 0", "n <= 2 and amount <= 0"),
    ("exists(t in txn where t.account == acct)",
     "query_value(session, select(func.count()).select_from(Txn).where(col(Txn.account_id) == row_id(acct))) == 0"),
    ("n * 2 > 3", "n * 2 <= 3"),
])
def test_refusal_is_the_negation_simplified(source: str, refusal: str) -> None:
    """A precondition's `if` tests its negation, written without `not (...)` where an exact rewrite exists."""
    node = parse(source)
    check(source, node, SCOPE)
    assert GEN.refusal(node) == refusal


def test_values_that_may_be_none_say_so() -> None:
    """An optional value where Python fails on None goes through present(); == and != compare None as a value."""
    gen = PyGen(names={"acct": "acct", "n": "n"}, models={"user": "User", "account": "Account"},
                optional={("account", "limit")}, optional_names={"n"})
    scope = Scope({**SCHEMA, "account": {**SCHEMA["account"], "limit": MONEY}}, {"acct": Type("ref", entity="account"),
                                                                                 "n": INT})
    for source, python in [("acct.balance > acct.limit", "acct.balance > present(acct.limit)"),
                           ("n + 1 == 2", "present(n) + 1 == 2"), ("n == 2", "n == 2"),
                           ("acct.limit != null", "acct.limit is not None")]:
        node = parse(source)
        check(source, node, scope)
        assert gen.expr(node) == python, source


@pytest.mark.parametrize("source,message", [
    ("acct.balanse > 0", "has no field 'balanse'"),
    ("amount > 'x'", "cannot compare money with str"),
    ("acct.status == 'closed'", "'closed' is not one of open, frozen"),
    ("n and true", "'and' needs bools"),
    ("acct < other", "cannot order"),
    ("frobnicate(n)", "unknown function frobnicate()"),
    ("rand_int(1, 2) > 0", "only allowed in storyline"),
    ("import os", "unexpected 'os'"),
    ("__import__('os')", "unknown function __import__()"),
    ("acct.__class__", "has no field '__class__'"),
    ("n > 1 > 0", "cannot be chained"),
    ("count(t in txn where t.account.owner == me) > 0", "one field deep"),
    ("acct.balance ; 1", "unexpected character ';'"),
    ("", "empty expression"),
    ("acct.balance * 1.5 > amount", "takes a whole number"),
    ("amount % 0.05 == 0", "takes a whole number"),
])
def test_rejects_with_a_clear_message(source: str, message: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        node = parse(source)
        check(source, node, SCOPE)
    assert message in str(caught.value)


def test_condition_type_is_bool_and_rows_selector() -> None:
    assert check("n > 1", parse("n > 1"), SCOPE) == BOOL
    rows = parse_rows("a in account where a.status == 'open'")
    check("", rows, SCOPE)
    assert GEN.expr(rows) == ('session.exec(select(Account).where(col(Account.status) == "open")'
                              ".order_by(col(Account.id))).all()")


def test_null_is_assignable_to_an_optional_enum_only() -> None:
    enum = Type("str", values=("a", "b"))
    assert check("null", parse("null"), SCOPE, enum, nullable=True).kind == "null"
    with pytest.raises(ExpressionError):
        check("null", parse("null"), SCOPE, enum, nullable=False)
    with pytest.raises(ExpressionError, match="'c' is not one of a, b"):
        check("'c'", parse("'c'"), SCOPE, enum)
