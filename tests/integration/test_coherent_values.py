"""Values a task sends hang together as a person's would (issue 15, point 3): a review's rating
agrees with its words, a new payee named like one the world holds takes that payee's category, a
note's title is never a notebook's name, and no text to type carries a number an app made
("Your receipt #513468"). Worlds are built without a frontend (seconds each) and filled by the
proposer many times over."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from factory.tasks.propose.proposer import Proposer
from factory.tasks.propose.sentiment import agreeing, is_rating, leaning
from factory.tasks.propose.text_shapes import typed
from factory.world.assemble import build_world
from factory.world.layout import World

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
FILLS = 60


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, World]:
    root = tmp_path_factory.mktemp("coherent")
    return {name: World(build_world(SEEDS / f"{name}.yaml", root, frontend=False).path)
            for name in ("echostay", "echobank", "echomail", "mock")}


@pytest.fixture()
def proposers(built: dict[str, World]) -> Iterator[dict[str, Proposer]]:
    out = {name: Proposer(w.spec, w.seed_db) for name, w in built.items()}
    yield out
    for p in out.values():
        p.close()


def _fills(proposer: Proposer, workflow_name: str) -> list[dict[str, object]]:
    workflow = next(w for w in proposer.spec.workflows if w.name == workflow_name)
    out = []
    for i in range(FILLS):
        step = proposer._fill(workflow, proposer.users[i % len(proposer.users)])
        if step is not None:
            out.append(step.params)
    assert len(out) >= FILLS // 2, f"{workflow_name}: only {len(out)} fills of {FILLS}"
    return out


def test_a_review_rating_agrees_with_its_words(proposers: dict[str, Proposer]) -> None:
    proposer = proposers["echostay"]
    workflow = next(w for w in proposer.spec.workflows if w.name == "leave_review")
    rating = next(p for p in workflow.params if p.name == "rating")
    assert is_rating(rating)
    leaning_seen = set()
    for values in _fills(proposer, "leave_review"):
        lean = leaning(str(values["comment"]))
        if lean is None:
            continue
        leaning_seen.add(lean)
        sent = values.get("rating", rating.default)
        assert sent in agreeing(rating, lean), f"rating {sent} beside {values['comment']!r}"
    assert {"good", "mixed"} <= leaning_seen  # the world's comments praise, and praise with a "but"


def test_a_new_row_named_like_one_the_world_holds_takes_its_kind(proposers: dict[str, Proposer]) -> None:
    proposer = proposers["echobank"]
    kinds = {}
    for row in proposer.world.rows("payee"):
        kinds.setdefault(row["name"], set()).add(row["category"])
    paired = unknown = 0
    for values in _fills(proposer, "add_payee"):
        known = kinds.get(str(values["name"]))
        if known is not None and len(known) == 1:
            paired += 1
            assert values["category"] in known, f"payee {values['name']!r} filed under {values['category']!r}"
        elif known is None:  # a name the world does not hold: a kind its words say, else "other"
            unknown += 1
            said = str(values["category"]).replace("_", " ") in str(values["name"]).lower()
            assert said or values["category"] == "other", f"payee {values['name']!r} filed under {values['category']!r}"
    assert paired >= 5 and unknown >= 1  # most new payees are named like the world's own, some are new


def test_a_title_is_drawn_from_the_rows_it_is_stored_in(proposers: dict[str, Proposer]) -> None:
    proposer = proposers["mock"]
    notebooks = {str(r["title"]) for r in proposer.world.rows("notebook")}
    titles = {str(r["title"]) for r in proposer.world.rows("note")}
    for values in _fills(proposer, "write_note"):
        title = str(values["title"])
        assert title not in notebooks - titles, f"the note title {title!r} is a notebook's name"


def test_no_text_to_type_carries_a_number_an_app_made(proposers: dict[str, Proposer]) -> None:
    proposer = proposers["echomail"]
    subjects = {str(r["subject"]) for r in proposer.world.rows("message")}
    assert any(re.search(r"#\d{3,}", s) for s in subjects)  # the world holds such subjects
    for values in _fills(proposer, "send_message"):
        assert not re.search(r"#\s*\d{3,}|^re:", str(values["subject"]), re.IGNORECASE), values["subject"]


def test_leanings_and_agreeing_ratings() -> None:
    assert leaning("Spotless and right in the middle of everything.") == "good"
    assert leaning("Lovely place but the street was noisy at night.") == "mixed"
    assert leaning("The wifi was unreliable, which made working hard.") == "bad"
    assert leaning("See you on Tuesday.") is None
    assert typed(["Invoice #6683", "Re: Lunch", "Lunch on Friday", "Fwd: plans"]) == ["Lunch on Friday"]


def test_an_account_number_is_new_and_shaped_like_the_worlds(proposers: dict[str, Proposer]) -> None:
    proposer = proposers["echobank"]
    held = {str(r["account_number"]) for r in proposer.world.rows("payee")}
    shapes = {re.sub(r"\d", "9", v) for v in held}
    for values in _fills(proposer, "add_payee"):
        number = str(values["account_number"])
        assert number not in held, f"{number} is another row's account number"
        assert re.sub(r"\d", "9", number) in shapes, number


def test_a_phone_number_is_contact_data_not_an_identifier(proposers: dict[str, Proposer]) -> None:
    """A parameter named "phone_number" holds "number" but is contact data: a made-up 555-01xx
    number (reserved for fiction), never another row's number with its digits redrawn."""
    proposer = proposers["echobank"]
    workflow = next(w for w in proposer.spec.workflows if w.name == "update_contact_info")
    phone = next(p for p in workflow.params if p.name == "phone").model_copy(update={"name": "phone_number"})
    for _ in range(10):
        assert re.fullmatch(r"\(\d{3}\) 555-01\d\d", proposer._text(phone, workflow.name))


@pytest.fixture(scope="module")
def helpdesk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proposer]:
    world = World(build_world(SEEDS / "suite" / "helpdesk.yaml", tmp_path_factory.mktemp("helpdesk"), frontend=False).path)
    proposer = Proposer(world.spec, world.seed_db)
    yield proposer
    proposer.close()


def test_a_question_asks_and_a_summary_is_no_numbered_clause(helpdesk: Proposer) -> None:
    """The world's comments mix questions and status notes: "put on hold with the question for the
    requester …" takes one that asks; a ticket's summary copied from the world stays as people
    write it, never "VPN keeps dropping 2" (a clause is no title of a series)."""
    asked = [str(v["question"]) for v in _fills(helpdesk, "put_on_hold")]
    assert asked and all(q.rstrip().endswith("?") for q in asked), asked
    summaries = [str(v["summary"]) for v in _fills(helpdesk, "raise_ticket")]
    assert summaries and not [s for s in summaries if re.search(r"(?:ing|ping|ck) \d+$", s)], summaries
