"""Values a person would type: pools per field kind, seed overrides, unique contact data, label warnings, coverage."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from factory.builder.build import build_spec
from factory.builder.pools import POOLS, kind_of, pick
from factory.errors import SeedError
from factory.seed.check import label_warnings
from factory.seed.loader import load_seed, load_seed_text
from factory.tasks.coverage import coverage

ROOT = Path(__file__).resolve().parents[2]
MOCK = (ROOT / "seeds" / "mock.yaml").read_text()
FILLER = {"decentralized", "middleware", "synergy", "paradigm", "leverage", "foreground", "adapter", "lorem"}


@pytest.mark.parametrize("entity,field,kind", [
    ("transaction", "memo", "memo"), ("fine", "waiver_reason", "reason"), ("booking", "notes", "note"),
    ("message", "body", "message"), ("email", "subject", "subject"), ("expense", "merchant", "merchant"),
    ("transaction", "description", "merchant"), ("expense_report", "title", "title"), ("wishlist", "name", "title"),
    ("account", "nickname", "nickname"), ("payee", "name", "payee"), ("listing", "description", "listing"),
    ("note", "body", "note"), ("profile", "phone", None), ("payee", "account_number", None), ("user", "name", None),
])
def test_kind_is_inferred_from_field_and_entity(entity: str, field: str, kind: str | None) -> None:
    assert kind_of(entity, field) == kind


def test_pick_fits_length_and_avoids_used() -> None:
    rng = random.Random(1)
    used: set[str] = set()
    for _ in range(len(POOLS["title"])):
        value = pick("title", rng, None, 40, used)
        assert value not in used and len(value) <= 40
        used.add(value)
    assert pick(None, rng, ["only this"], 4) == "only"


def test_mock_plan_has_no_filler_and_is_deterministic() -> None:
    first = build_spec(load_seed(ROOT / "seeds" / "mock.yaml")).seed_plan
    again = build_spec(load_seed(ROOT / "seeds" / "mock.yaml")).seed_plan
    assert first.model_dump_json() == again.model_dump_json()
    notes = next(t for t in first.tables if t.entity == "note").rows
    texts = [str(r[c]) for r in notes for c in ("title", "body") if r.get(c)]
    assert texts and all(t in POOLS["title"] or t in POOLS["note"] for t in texts)
    assert not any(w in t.lower() for t in texts for w in FILLER)
    by_owner: dict[int, list[str]] = {}
    for r in notes:
        by_owner.setdefault(r["owner_id"], []).append(r["title"])
    assert all(len(set(titles)) == len(titles) for titles in by_owner.values())  # an owner's titles read apart


def test_phones_are_unique_per_row() -> None:
    plan = build_spec(load_seed(ROOT / "seeds" / "echomail.yaml")).seed_plan
    phones = [r["phone"] for t in plan.tables for r in t.rows if r.get("phone")]
    assert phones and len(phones) == len(set(phones))
    assert all("x" not in p for p in phones)


def test_seed_pool_overrides_the_builtin_pool() -> None:
    text = MOCK.replace("gen: {faker: sentence}", "gen: {pool: [Groceries to buy, Call the plumber]}", 1)
    plan = build_spec(load_seed_text(text, "pool.yaml")).seed_plan
    titles = {r["title"] for t in plan.tables if t.entity == "note" for r in t.rows}
    assert titles == {"Groceries to buy", "Call the plumber"}


def test_pool_on_a_number_is_located() -> None:
    text = MOCK.replace("{name: priority, type: int, min: 1, max: 5, gen: {min: 1, max: 5}}",
                        "{name: priority, type: int, min: 1, max: 5, gen: {pool: [one]}}", 1)
    with pytest.raises(SeedError, match="pool` applies to string and text fields"):
        build_spec(load_seed_text(text, "pool.yaml"))


def test_colliding_labels_warn_with_location() -> None:
    text = MOCK.replace("gen: {faker: sentence}", "gen: {pool: [Same title]}", 1)
    loaded = load_seed_text(text, "same.yaml")
    spec = build_spec(loaded)
    warnings = label_warnings(loaded, {t.entity: t.rows for t in spec.seed_plan.tables})
    assert len(warnings) == 1 and warnings[0].startswith("same.yaml:")
    assert "display" in warnings[0] and "'Same title'" in warnings[0]
    assert label_warnings(load_seed(ROOT / "seeds" / "mock.yaml"),
                          {t.entity: t.rows for t in build_spec(load_seed(ROOT / "seeds" / "mock.yaml")).seed_plan.tables}) == []


def test_coverage_counts_and_reasons() -> None:
    spec = build_spec(load_seed(ROOT / "seeds" / "mock.yaml"))
    wf = next(w for w in spec.workflows if not w.system and w.preconditions)
    other = next(w for w in spec.workflows if not w.system and w.name != wf.name)
    pre = wf.preconditions[0].id
    claims = {"claims": [{"provenance": f"workflows[{wf.name}]"},
                         {"provenance": f"workflows[{wf.name}].preconditions[{pre}]"}],
              "unwitnessed": [f"{other.preconditions[0].id}: unreachable: nothing breaks it"] if other.preconditions else []}
    tasks = [{"golden_steps": [{"workflow": wf.name, "params": {}}]}]
    report = {"proposer_skipped": [f"write {other.name}: no feasible candidate found"], "discarded": []}
    result = coverage(spec, claims, tasks, report)
    rows = {r.name: r for r in result.rows}
    assert rows[wf.name].tasks == 1 and rows[wf.name].claims == 2 and rows[pre].claims == 1
    assert rows[other.name].tasks == 0
    assert any("no feasible candidate" in r for r in rows[other.name].reasons)
    if other.preconditions:
        assert any("unreachable" in r for r in rows[other.preconditions[0].id].reasons)
    assert other.name in result.table()


def test_a_message_is_a_stays_only_where_the_field_belongs_to_one() -> None:
    """A guest's message to a host may ask for a crib; a help desk's reply, a course's comment or a
    shift's message never does: the built-in message pool holds only words anyone writes."""
    from factory.builder.pools import STAY_MESSAGES, themed

    assert themed("message", "booking.message_to_host") == STAY_MESSAGES
    for about in ("reply.body", "reply.message", "ticket_reply.body", "submission.comment_message"):
        drawn = {pick("message", random.Random(i), about=about) for i in range(200)}
        assert drawn and all(not re.search(r"check-in|crib|parking|party of", v, re.I) for v in drawn), drawn


@pytest.mark.parametrize(("title", "series"), [
    ("Problem set 3: Determinants", True), ("Midterm", True), ("Quiz", True),
    ("Desk phone problem", False),  # a description: "Desk phone problem 2" reads as a placeholder
    ("Slow internet at a site", False), ("Software install or licence", False),
    ("Printer on the third floor keeps jamming paper", False),
    # a clause says what happens, whatever its length: "VPN keeps dropping 2" is no title
    ("VPN keeps dropping", False), ("Emails bouncing back", False), ("Application keeps crashing", False),
])
def test_only_a_one_word_name_or_a_numbered_title_gets_a_next_one(title: str, series: bool) -> None:
    """A new title made from the world's own is the next of a series ("Midterm 2", "Problem set 4"),
    never a description or a sentence with a number stuck on ("Slow internet at a site 2")."""
    from factory.tasks.propose.text_shapes import in_series, next_of

    assert in_series(title) is series
    if series:
        assert next_of(title) != title
