"""The instruction language: every generic form renders and parses back to the same Ask."""

from __future__ import annotations

from pathlib import Path

import pytest

from factory.builder import build_spec
from factory.seed.loader import load_seed
from factory.spec.model import Spec
from factory.tasks.phrasing import (
    Ask,
    AskStep,
    Cond,
    ParseError,
    Question,
    RefText,
    intent_forms,
    parse,
    render,
    render_intent,
)

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


@pytest.fixture(scope="module")
def spec() -> Spec:
    return build_spec(load_seed(SEEDS / "mock.yaml"))


QUESTIONS = [
    Question("lookup", "note", "priority", RefText("Buy milk")),
    Question("count", "note", conds=(Cond("status", '"archived"'),)),
    Question("count", "note", conds=(Cond("pinned", "yes"), Cond("notebook", '"Work notes"'))),
    Question("count", "note", conds=(Cond("updated_on", "May 1, 2026", "June 3, 2026"),)),
    Question("max", "note", "priority", conds=(Cond("status", '"active"'),)),
    Question("min", "note", "updated_on"),
    Question("max", "note", "priority", tie=True),
]


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.op)
@pytest.mark.parametrize("variant", [0, 1])
def test_questions_round_trip(spec: Spec, question: Question, variant: int) -> None:
    text = render(spec, Ask("read", question=question), variant)
    assert parse(spec, text) == Ask("read", question=question)


@pytest.mark.parametrize("variant", [0, 1, 2])
def test_write_steps_round_trip(spec: Spec, variant: int) -> None:
    step = AskStep("write_note", {"notebook": RefText("Work notes"), "title": "Call the bank", "priority": 4})
    text = render(spec, Ask("write", steps=(step,)), variant)
    ask = parse(spec, text)
    assert ask.kind == "write" and ask.steps[0].workflow == "write_note"
    assert ask.steps[0].args == {"notebook": RefText("Work notes"), "title": "Call the bank", "priority": "4"}


def test_two_steps_and_read_write(spec: Spec) -> None:
    a = AskStep("archive_note", {"note": RefText("Old list")})
    b = AskStep("set_reminder", {"note": RefText("Trip"), "remind_on": "2026-07-01"})
    ask = parse(spec, render(spec, Ask("write", steps=(a, b)), 0))
    assert [s.workflow for s in ask.steps] == ["archive_note", "set_reminder"]
    assert ask.steps[1].args["remind_on"] == "July 1, 2026"
    pick = AskStep("archive_note", {}, ("note", Question("max", "note", "priority", conds=(Cond("status", '"active"'),))))
    text = render(spec, Ask("read_write", steps=(pick,)), 0)
    back = parse(spec, text)
    assert back.kind == "read_write" and back.steps[0].pick == pick.pick


def test_seed_phrasings_are_grounded(spec: Spec) -> None:
    forms = intent_forms(spec)
    assert {f.phrasing for f in forms} == {"Archive my note titled {note}.", 'Please archive the note "{note}".'}
    form = forms[0]
    text = render_intent(form, {"note": "Groceries for Sunday"}, [])
    ask = parse(spec, text)
    assert ask.steps[0].args == {"note": RefText("Groceries for Sunday", "title")}


@pytest.mark.parametrize("text", [
    "Do something nice.",
    "Write a note: colour \"red\".",
    "How many of my notes have status \"archived\" and?",
    "Write a note: title \"a\"; title \"b\".",
])
def test_unparsable_instructions_are_errors(spec: Spec, text: str) -> None:
    with pytest.raises(ParseError):
        parse(spec, text)


@pytest.mark.parametrize("variant", [0, 1, 2])
def test_the_row_acted_on_is_named_first_without_a_label(spec: Spec, variant: int) -> None:
    step = AskStep("move_note", {"note": RefText("Trip plan"), "target": RefText("Work notes")})
    text = render(spec, Ask("write", steps=(step,)), variant)
    assert '"Trip plan"; destination notebook "Work notes"' in text
    assert "note note" not in text.lower()
    assert parse(spec, text).steps[0] == step


def test_bool_conditions_read_naturally(spec: Spec) -> None:
    q = Question("count", "note", conds=(Cond("pinned", "no"),))
    text = render(spec, Ask("read", question=q), 0)
    assert text == "How many of my notes have pinned set to no?"
    assert parse(spec, text).question == q


def test_a_total_is_not_mistaken_for_a_lookup(spec: Spec) -> None:
    q = Question("sum", "note", "priority", conds=(Cond("status", '"active"'),))
    text = render(spec, Ask("read", question=q), 0)
    assert text == 'What is the total priority of my notes with status "active"?'
    assert parse(spec, text).question == q


def test_a_users_only_row_is_named_my_entity(spec: Spec) -> None:
    from factory.tasks.phrasing import ONLY

    step = AskStep("write_note", {"notebook": RefText("my notebook", ONLY), "title": "Plan"})
    text = render(spec, Ask("write", steps=(step,)), 0)
    assert text == 'Write a note: notebook my notebook; title "Plan".'
    assert parse(spec, text).steps[0].args["notebook"] == RefText("my notebook", ONLY)
    subject = AskStep("archive_note", {"note": RefText("my note", ONLY)})
    for variant in range(3):
        text = render(spec, Ask("write", steps=(subject,)), variant)
        assert parse(spec, text).steps[0] == subject, text


def test_superlatives_say_how_a_tie_is_broken(spec: Spec, tmp_path: Path) -> None:
    import sqlite3

    from factory.tasks.resolve import AmbiguousError, answer
    from factory.tasks.rows import World

    q = Question("max", "note", "priority", tie=True)
    text = render(spec, Ask("read", question=q), 0)
    assert text.endswith("If several tie, name the one that comes first alphabetically.")
    db = tmp_path / "t.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, owner_id INT, notebook_id INT, title TEXT, "
                 "body TEXT, status TEXT, pinned INT, priority INT, updated_on TEXT)")
    conn.executemany("INSERT INTO note VALUES (?, 1, 1, ?, '', 'active', 0, ?, '2026-06-01')",
                     [(1, "Zebra", 5), (2, "apple", 5), (3, "Mango", 2)])
    conn.commit()
    conn.close()
    world = World.open(spec, db)
    assert answer(world, q, 1).value == "apple"
    with pytest.raises(AmbiguousError):
        answer(world, Question("max", "note", "priority"), 1)
    world.close()


def test_a_row_named_by_a_field_value_resolves_to_that_row_only(spec: Spec, tmp_path: Path) -> None:
    import sqlite3

    from factory.tasks.resolve import (
        AmbiguousError,
        UnresolvedError,
        find_rows,
        resolve_ref,
    )
    from factory.tasks.rows import World

    db = tmp_path / "t.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, owner_id INT, notebook_id INT, title TEXT, "
                 "body TEXT, status TEXT, pinned INT, priority INT, updated_on TEXT)")
    conn.executemany("INSERT INTO note VALUES (?, ?, 1, ?, '', 'active', 0, 3, '2026-06-01')",
                     [(1, 1, "Trip"), (2, 1, "Groceries"), (3, 2, "Trip"), (4, 1, "Taxes"), (5, 1, "Taxes")])
    conn.commit()
    conn.close()
    world = World.open(spec, db)
    assert [r["id"] for r in find_rows(world, "note", 1, RefText("trip", "title"))] == [1]
    assert resolve_ref(world, "note", 1, RefText("Groceries", "title"))["id"] == 2
    with pytest.raises(AmbiguousError):
        resolve_ref(world, "note", 1, RefText("Taxes", "title"))
    with pytest.raises(UnresolvedError):
        resolve_ref(world, "note", 2, RefText("Groceries", "title"))
    world.close()


def test_a_yes_no_parameter_reads_set_to_yes_or_no() -> None:
    bank = build_spec(load_seed(SEEDS / "echobank.yaml"))
    workflow = next(w for w in bank.workflows if any(p.type == "bool" for p in w.params))
    flag = next(p for p in workflow.params if p.type == "bool")
    step = AskStep(workflow.name, {flag.name: False})
    text = render(bank, Ask("write", steps=(step,)), 0)
    assert f"{flag.label[:1].lower() + flag.label[1:]} set to no" in text
    assert parse(bank, text).steps[0].args == {flag.name: "no"}
