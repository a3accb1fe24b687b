"""The home page's panels (`factory/builder/home.py`): a seed's `home` resolved into the list
queries the app answers, a default drawn from the entities, and a located error for a panel that
names what the entity does not have."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.errors import SeedError
from factory.seed.loader import load_seed_text

REPO = Path(__file__).resolve().parents[2]
BANK = (REPO / "seeds" / "echobank.yaml").read_text()
HOME = re.compile(r"^home:.*?\n(?=\S)", re.MULTILINE | re.DOTALL)


def _home(panels: str | None) -> object:
    text = HOME.sub("" if panels is None else f"home:\n{panels}\n", BANK)
    return build_spec(load_seed_text(text, "echobank.yaml")).home


def test_panels_become_list_queries_in_the_apis_own_terms() -> None:
    panels = _home("  - {title: Big bills, entity: bill, where: {amount: {min: 100.5}, due_on: {max: today}, status: due},"
                   " show: amount, sort: -amount, total: true}\n"
                   "  - {title: Credits, entity: transaction, where: {direction: credit}}")
    big, credits = panels  # type: ignore[misc]
    assert big.query == {"amount_min": "10050", "due_on_max": "2026-06-15", "status": "due"}  # cents; today
    assert (big.sort, big.show, big.total, big.limit) == ("-amount", "amount", True, 5)
    assert credits.query == {"direction": "credit"} and credits.show is None


def test_the_repos_bank_states_balances_bills_due_and_activity() -> None:
    titles = [p.title for p in _home(HOME.search(BANK).group(0).split("\n", 1)[1])]  # type: ignore[union-attr, attr-defined]
    assert titles == ["Your accounts", "Bills due", "Recent activity"]


def test_a_seed_without_home_gets_its_latest_rows() -> None:
    (panel,) = _home(None)  # type: ignore[misc]
    assert (panel.title, panel.entity, panel.sort, panel.show) == ("Latest transactions", "transaction", "-posted_on", "amount")


@pytest.mark.parametrize(("panel", "where", "message"), [
    ("{title: X, entity: vault}", "home[0].entity", "'vault' is not a listed entity"),
    ("{title: X, entity: bill, show: colour}", "home[0].show", "bill has no field 'colour'"),
    ("{title: X, entity: bill, show: due_on, total: true}", "home[0].total", "a total adds up a money field"),
    ("{title: X, entity: bill, sort: memo}", "home[0].sort", "not 'memo'"),
    ("{title: X, entity: bill, where: {issued_on: today}}", "home[0].where.issued_on", "no list filter on 'issued_on'"),
    ("{title: X, entity: bill, where: {due_on: today}}", "home[0].where.due_on", "a range filter takes {min"),
    ("{title: X, entity: bill, where: {status: [due, paid]}}", "home[0].where.status", "takes one value"),
])
def test_a_panel_the_entity_cannot_answer_is_a_located_error(panel: str, where: str, message: str) -> None:
    with pytest.raises(SeedError) as caught:
        _home(f"  - {panel}")
    text = str(caught.value)
    assert re.match(rf"echobank\.yaml:\d+: {re.escape(where)}", text), text
    assert message in text
