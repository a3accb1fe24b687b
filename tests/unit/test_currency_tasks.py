"""Tasks about amounts in another currency than US dollars: the instruction writes the amount with
its own symbol and reads it back, the reward's answer check carries the currency, and the grader
scores the amount in that currency 1 and the same number in dollars 0 (the lookups fixture: tote
prices in pounds, fines in dollars or euros row by row)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.predict.rows import UserView
from factory.seed.loader import load_seed_text
from factory.spec.model import Spec
from factory.tasks.gates import answer_text
from factory.tasks.hard_negatives import wrong_answer, wrong_currency
from factory.tasks.language.phrasing import Ask, Cond, Question, RefText, parse, render
from factory.tasks.language.resolve import AmbiguousError, answer
from factory.tasks.language.values import field_value_text, parse_scalar
from factory.tasks.reward.gen import deterministic_policy
from factory.world.assemble import build_world
from verifiers import grade

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "lookups.yaml"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_world(FIXTURE, tmp_path_factory.mktemp("lookups"), frontend=False).path


@pytest.fixture(scope="module")
def spec(world: Path) -> Spec:
    return Spec.model_validate_json((world / "spec.json").read_text())


def _graded(reward: dict[str, object], db: Path, said: str) -> float:
    return grade(reward, db, db, said).score


def _reward(spec: Spec, db: Path, question: Question) -> tuple[str, dict[str, object]]:
    text = render(spec, Ask("read", question=question), 0)
    assert parse(spec, text) == Ask("read", question=question), text  # the instruction reads back
    return text, deterministic_policy({"user": "alice", "goal": text}, spec, db)


def test_a_price_in_pounds_is_asked_and_graded_in_pounds(spec: Spec, world: Path) -> None:
    db = world / "data" / "seed.db"
    text, reward = _reward(spec, db, Question("lookup", "tote", "price", RefText("Natural tote")))
    check = next(c for c in reward["checks"] if c["type"] == "answer")  # type: ignore[attr-defined,union-attr]
    assert check["currency"] == "GBP" and check["expected"] == 12.5, (text, check)
    assert _graded(reward, db, "£12.50") == 1.0 and _graded(reward, db, "It costs 12.50 pounds.") == 1.0
    assert _graded(reward, db, "$12.50") == 0.0 and _graded(reward, db, "€12.50") == 0.0


def test_a_total_in_pounds_and_a_condition_on_an_amount_in_pounds(spec: Spec, world: Path) -> None:
    db = world / "data" / "seed.db"
    _text, total = _reward(spec, db, Question("sum", "tote", "price"))
    assert _graded(total, db, "£40.50") == 1.0 and _graded(total, db, "$40.50") == 0.0
    assert field_value_text("money", 1400, "GBP") == "£14" and parse_scalar("money", "£14") == 1400
    text, counted = _reward(spec, db, Question("count", "tote", conds=(Cond("price", "£14"),)))
    assert "£14" in text and "$" not in text, text
    assert _graded(counted, db, "2") == 1.0 and _graded(counted, db, "1") == 0.0


def test_an_amount_in_the_rows_own_currency(spec: Spec, world: Path) -> None:
    """A fine's amount is in the currency its row names: the answer, its text and the negatives."""
    db = world / "data" / "seed.db"
    conn = sqlite3.connect(db)
    fines = conn.execute("SELECT member_id, currency, amount FROM fine ORDER BY id").fetchall()
    conn.close()
    assert {c for _m, c, _a in fines} == {"USD", "EUR"}, fines  # the fixture's seed draws both
    view = UserView.open(spec, db)
    try:
        for member in sorted({m for m, _c, _a in fines}):
            for row in view.visible("fine", member):
                found = answer(view, Question("lookup", "fine", "amount", RefText(view.label("fine", row))), member)
                symbol = "€" if row["currency"] == "EUR" else "$"
                assert found.currency == (None if row["currency"] == "USD" else "EUR")
                assert answer_text(found).startswith(symbol)  # type: ignore[union-attr]
                assert wrong_answer(found, view, member, "fine").startswith(symbol)
                assert (wrong_currency(found) or "$").startswith("$")
            mixed = {r["currency"] for r in view.visible("fine", member)}
            if len(mixed) > 1:  # amounts in two currencies do not add up
                with pytest.raises(AmbiguousError, match="several currencies"):
                    answer(view, Question("sum", "fine", "amount"), member)
    finally:
        view.close()


WORKFLOW = """  - name: reprice_tote
    label: Change a tote's price
    subject: tote
    params:
      - {name: tote, type: reference, to: tote}
      - {name: price, type: money, min: 1}
    effects:
      - {set: tote.price, to: price}
    success: Price changed.
tasks:"""


def test_a_money_parameter_takes_the_currency_of_the_field_it_sets() -> None:
    text = FIXTURE.read_text().replace("tasks:", WORKFLOW, 1)
    spec = build_spec(load_seed_text(text, "lookups.yaml"))
    reprice = next(w for w in spec.workflows if w.name == "reprice_tote")
    assert next(p for p in reprice.params if p.name == "price").currency == "GBP"
    explicit = build_spec(load_seed_text(text.replace("{name: price, type: money, min: 1}",
                                                      "{name: price, type: money, min: 1, currency: EUR}"), "x.yaml"))
    assert next(p for p in next(w for w in explicit.workflows if w.name == "reprice_tote").params
                if p.name == "price").currency == "EUR"
    plain = build_spec(load_seed_text(FIXTURE.read_text(), "lookups.yaml"))
    assert all(p.currency is None for w in plain.workflows for p in w.params)


@pytest.mark.parametrize(("currency", "right", "wrong_symbol"), [("CAD", "$14", "€"), ("AUD", "A$14", "€"),
                                                                  ("EUR", "€14", "$"), ("GBP", "£14", "$")])
def test_the_wrong_currency_is_one_its_own_people_would_not_write(currency: str, right: str, wrong_symbol: str) -> None:
    """A Canadian writes "$14" for CA$14.00, so "$14" is no wrong currency for it (the gate found
    such negatives scoring 1 and threw good tasks away): the negative is an amount in euros."""
    from factory.tasks.language.answer import Answer
    from verifiers.answers.match import read_quantity

    found = Answer("money", 14.0, currency=currency)
    text = wrong_currency(found)
    assert text is not None and text.startswith(wrong_symbol)
    assert read_quantity(right, money=True, currency=currency).value == 14.0
    assert read_quantity(text, money=True, currency=currency).value is None
