"""Explicit seed rows name the rows they reference by label, unique value or username; a name that
matches no row or several is a located one-line error; an optional reference left out stays empty."""

from __future__ import annotations

from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.cli import main
from factory.errors import SeedError
from factory.seed.loader import load_seed_text

APPROVALS = Path(__file__).resolve().parents[1] / "fixtures" / "approvals.yaml"
TOMAS = "team_budget: Engineering travel, manager_staff: grace, finance_staff: Priya Raman"


def _staff(text: str) -> list[dict]:
    spec = build_spec(load_seed_text(text, "approvals.yaml"))
    return next(t for t in spec.seed_plan.tables if t.entity == "staff").rows


def test_references_by_label_unique_value_and_username_resolve_to_their_rows() -> None:
    text = APPROVALS.read_text()
    assert TOMAS in text
    rows = _staff(text)
    tomas = next(r for r in rows if r["member_id"] == 4)
    # budget 1 is "Engineering travel"; staff 1 is Grace's row (named by username), 3 Priya's (by name)
    assert (tomas["team_budget_id"], tomas["manager_staff_id"], tomas["finance_staff_id"]) == (1, 1, 3)
    # the same rows named by id give the same plan
    by_id = _staff(text.replace(TOMAS, "team_budget: 1, manager_staff: 1, finance_staff: 3"))
    assert by_id == rows


def test_an_optional_reference_left_out_stays_empty() -> None:
    grace = _staff(APPROVALS.read_text())[0]
    assert grace["member_id"] == 1
    assert grace["manager_id"] is None and grace["team_budget_id"] is None and grace["manager_staff_id"] is None


@pytest.mark.parametrize(("value", "words"), [
    ("team_budget: Marketing travel", ["team_budget", "no budget row is labelled 'Marketing travel'"]),
    ("team_budget: 12", ["no budget has id 12"]),
    ("team_budget: [1, 2]", ["an id or a label"]),
])
def test_a_name_that_fits_no_row_is_a_located_error(value: str, words: list[str]) -> None:
    text = APPROVALS.read_text().replace("team_budget: Engineering travel", value, 1)
    with pytest.raises(SeedError) as caught:
        _staff(text)
    message = str(caught.value)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if value in t)
    assert message.startswith(f"approvals.yaml:{line}: ") and "\n" not in message
    assert all(w in message for w in words), message


def test_a_label_two_rows_share_is_refused_and_check_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = APPROVALS.read_text().replace("name: Engineering software", "name: Engineering travel", 1)
    seed = tmp_path / "approvals.yaml"
    seed.write_text(text)
    assert main(["check", str(seed)]) == 2
    err = capsys.readouterr().err
    assert "2 budget rows (ids 1, 2) are labelled 'Engineering travel'" in err
    assert not (tmp_path / "worlds").exists()
