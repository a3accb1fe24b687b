"""Values a run makes a row with agree with each other and with the rows it names: its kinds, texts
and numbers come from one row the world holds, of the rows most like the run's (issue 30, point 3)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

from factory.builder.build import build_spec
from factory.predict.rows import UserView
from factory.seed.loader import load_seed
from factory.tasks.propose.proposer import Proposer

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def _proposer(rows: dict[str, list[dict[str, Any]]]) -> Proposer:
    """A proposer over the courses spec whose world holds exactly `rows` (by entity)."""
    spec = build_spec(load_seed(SEEDS / "suite" / "courses.yaml"))
    view = UserView(spec, sqlite3.connect(":memory:"), _rows=rows,
                    _by_id={e: {r["id"]: r for r in rs} for e, rs in rows.items()})
    proposer = object.__new__(Proposer)
    proposer.spec, proposer.world, proposer.rng = spec, view, random.Random(3)
    proposer._existing_cache = {}
    return proposer


def _columns(proposer: Proposer, entity: str, **values: Any) -> dict[str, Any]:
    ent = proposer.spec.entity(entity)
    return {ent.field_named(k).column if k != "id" else "id": v for k, v in values.items()}


def test_a_new_rows_kind_text_and_number_come_from_one_row_of_the_same_course() -> None:
    """Posting to a history section takes a history assignment's kind, points and title ("Book
    review", another section's; "Book review 2" would read as a placeholder), never a computing
    lab's title with an essay's kind."""
    probe = _proposer({})
    rows = {
        "course": [_columns(probe, "course", id=1, code="HIST1100", title="History"),
                   _columns(probe, "course", id=2, code="COMP1010", title="Computing")],
        "section": [_columns(probe, "section", id=10, course=1, term="winter_2026"),
                    _columns(probe, "section", id=11, course=1, term="fall_2025"),
                    _columns(probe, "section", id=20, course=2, term="winter_2026")],
        "assignment": [_columns(probe, "assignment", id=100, section=11, title="Book review", kind="essay", points=50),
                       _columns(probe, "assignment", id=200, section=20, title="Lab 1: Hello, variables",
                                kind="lab_report", points=10)],
    }
    proposer = _proposer(rows)
    post = next(w for w in proposer.spec.workflows if w.name == "post_assignment")
    for seed in range(6):
        proposer.rng = random.Random(seed)
        values = {"section": 10, "title": "Lab 1: Hello, variables", "kind": "quiz", "points": 3,
                  "due_at": "2026-04-02T10:00:00"}
        assert proposer._from_one_row(post, values)
        assert values == {"section": 10, "title": "Book review", "kind": "essay", "points": 50,
                          "due_at": "2026-04-02T10:00:00"}, values


def test_a_world_without_such_rows_leaves_the_values_as_drawn() -> None:
    proposer = _proposer({"assignment": [], "section": [], "course": []})
    post = next(w for w in proposer.spec.workflows if w.name == "post_assignment")
    values = {"section": 10, "title": "Quiz 1", "kind": "quiz", "points": 3}
    assert not proposer._from_one_row(post, dict(values))


def test_a_row_made_again_keeps_the_old_rows_name_and_kind() -> None:
    """Redo: "remove the quiz "Big-O", then post "Big-O" again with a new due date", never an
    unrelated new assignment; its dates and numbers stay the run's own."""
    from factory.runtime.step import Step

    proposer = _proposer({})
    post = next(w for w in proposer.spec.workflows if w.name == "post_assignment")
    old = _columns(proposer, "assignment", id=100, section=10, title="Quiz: Big-O", kind="quiz", points=10)
    step = Step("post_assignment", {"section": 10, "title": "ER diagram exercise 2", "kind": "homework",
                                    "points": 20, "due_at": "2026-04-05T16:00:00"})
    again = proposer._same_kind(post, "assignment", old, step)
    assert again is not None and again.params == {**step.params, "title": "Quiz: Big-O", "kind": "quiz"}
    assert step.params["title"] == "ER diagram exercise 2"  # the draft's own step is left as it was


def test_a_number_a_run_sets_moves_from_the_rows_own() -> None:
    """Raising a section's cap from 30 goes to a cap near 30 (24 … 38, never 30 itself), not to the
    small fixed draws ("raise the cap to 6", "reprice the Ford Galaxy to £12", issue 30's readings)."""
    probe = _proposer({})
    rows = {"section": [_columns(probe, "section", id=10, capacity=30)]}
    proposer = _proposer(rows)
    raise_cap = next(w for w in proposer.spec.workflows if w.name == "raise_cap")
    seen = set()
    for seed in range(12):
        proposer.rng = random.Random(seed)
        values = {"section": 10, "new_capacity": 6}
        proposer._near_current(raise_cap, values)
        seen.add(values["new_capacity"])
    assert seen and all(24 <= v <= 38 and v != 30 for v in seen), seen
    proposer.world._by_id["section"][10]["capacity"] = None  # no value to move from: the draw stays
    values = {"section": 10, "new_capacity": 6}
    proposer._near_current(raise_cap, values)
    assert values["new_capacity"] == 6
