"""The answer-case table (tests/unit/answer_cases.py): every case scores exactly as the rules say.

At least 200 cases per answer kind, both directions; the whole table runs in a few seconds.
"""

from __future__ import annotations

import collections
import json
import sqlite3
import time
from pathlib import Path

import pytest
from answer_cases import GENERATORS, Case, all_cases, person_forms

from factory.runtime.patch import apply_patch
from verifiers import RewardProgramError, grade, load_reward
from verifiers.answers import match_answer
from verifiers.program import AnswerCheck

CASES = all_cases()
WORLDS = Path(__file__).resolve().parents[2] / "worlds"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_answer_case(case: Case) -> None:
    result = match_answer(case.kind, case.expected, case.answer, **case.options)  # type: ignore[arg-type]
    assert result.matched is case.scores, (
        f"{case.kind} expected {case.expected!r}, answer {case.answer!r} ({case.rule}): "
        f"read as {result.normalised!r}, {result.reason or 'matched'}")


def test_every_kind_has_at_least_200_cases_both_ways() -> None:
    counts = collections.Counter((c.kind, c.scores) for c in CASES)
    for kind in GENERATORS:
        total = counts[kind, True] + counts[kind, False]
        assert total >= 200, f"{kind}: {total} cases"
        assert counts[kind, True] >= 40 and counts[kind, False] >= 40, (kind, counts)


def test_cases_are_distinct_and_deterministic() -> None:
    again = all_cases()
    assert [c.id for c in again] == [c.id for c in CASES]
    keys = [(c.kind, repr(c.expected), c.answer, repr(sorted(c.options.items()))) for c in CASES]
    clashes = [k for k, n in collections.Counter(keys).items() if n > 1]
    scores = {(c.kind, repr(c.expected), c.answer, repr(sorted(c.options.items()))): c.scores
              for c in CASES}
    # The same answer may be generated twice by different rules, never with opposite verdicts.
    assert all(scores[k] == c.scores for c in CASES
               for k in [(c.kind, repr(c.expected), c.answer, repr(sorted(c.options.items())))]
               if k in clashes)


def test_matching_is_fast() -> None:
    sample = CASES[::7]
    start = time.perf_counter()
    for case in sample:
        match_answer(case.kind, case.expected, case.answer, **case.options)  # type: ignore[arg-type]
    per_call = (time.perf_counter() - start) / len(sample)
    assert per_call < 0.003, f"{per_call * 1000:.2f} ms per answer"


def _read_tasks(world: Path) -> list[dict[str, object]]:
    """The READ tasks of a built world (lines still being written are skipped)."""
    tasks = []
    for line in (world / "tasks" / "tasks.jsonl").read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("task_type") == "read":
            tasks.append(record)
    return tasks


BUILT = sorted(p.parent.parent for p in WORLDS.glob("*/tasks/tasks.jsonl"))


@pytest.mark.skipif(not BUILT, reason="no world under worlds/ has a task corpus yet: make world SEED=seeds/mock.yaml builds one")
@pytest.mark.parametrize("world", BUILT, ids=[w.name for w in BUILT])
def test_built_world_read_tasks_grade_by_what_the_answer_asserts(world: Path,
                                                                  tmp_path: Path) -> None:
    """Every READ task's own reward program: 1 for its reference answer and the value written
    as people write it, 0 for the value qualified, negated, hedged, doubled or changed."""
    wrong = []
    for task in _read_tasks(world):
        setup = task["setup"]
        assert isinstance(setup, dict)
        initial = apply_patch(world / str(task["db_file"]), str(setup["patch"]),
                              tmp_path / f"{task['id']}.db")
        reward = task["reward"]
        assert isinstance(reward, dict)
        check = next(c for c in reward["checks"] if c["type"] == "answer")
        scores_one, scores_zero = person_forms(check)
        cases = [(task["reference_answer"], True)] + [(a, True) for a in scores_one] + [
            (a, False) for a in scores_zero]
        # The whole grade for the reference answer and one answer each way; the other answers
        # through the answer check alone (the same call grade makes), to keep the test quick.
        program = load_reward(reward)
        answer_check = next(c for c in program.checks if isinstance(c, AnswerCheck))
        for index, (answer, want) in enumerate(cases):
            if index in (0, 1, len(scores_one) + 1):
                got = grade(task, initial, initial, answer).score == 1.0  # type: ignore[arg-type]
            else:
                got = any(match_answer(answer_check.kind, list(e) if isinstance(e, tuple) else e,
                                       answer, tolerance=answer_check.tolerance,
                                       aliases=answer_check.aliases,
                                       item_kind=answer_check.item_kind).matched
                          for e in answer_check.one_of)
            if got != want:
                wrong.append(f"{task['id']} ({check['kind']} {check.get('expected')!r}): "
                             f"{answer!r} scored {int(got)}")
    assert not wrong, "\n".join(wrong[:20])


# ---- the answer kinds in reward programs: loaded strictly, graded by what the answer asserts ----
def _program(check: dict[str, object]) -> dict[str, object]:
    return {"schema_version": 1, "checks": [{"id": "answer", "type": "answer", **check}]}


@pytest.mark.parametrize("check", [
    {"kind": "label", "expected": "Quick question (Carrie Payne)", "aliases": ["Quick question"]},
    {"kind": "label", "one_of": ["Main Checking ··8488", "Main Checking ··8489"]},
    {"kind": "phone", "expected": "001-697-793-6745x11982"},
    {"kind": "phone", "expected": "(520) 790-7206"},
    {"kind": "email", "expected": "kara_white@echomail.example"},
    {"kind": "list", "item_kind": "phone", "expected": ["520-790-7206", "415-555-0182"]},
    {"kind": "text", "expected": "suspicious activity", "aliases": ["suspicious_activity"]},
    {"kind": "number", "expected": 3}, {"kind": "money", "expected": 169.77, "tolerance": 0.01},
    {"kind": "date", "expected": "2026-06-05"}, {"kind": "bool", "expected": False},
    {"kind": "list", "item_kind": "money", "expected": [20, 1234.5]},
    {"kind": "money", "expected": 12.5, "currency": "EUR"},
    {"kind": "list", "item_kind": "money", "expected": [20, 1234.5], "currency": "GBP"},
])
def test_answer_kinds_load_and_round_trip(check: dict[str, object]) -> None:
    program = load_reward(_program(check))
    assert load_reward(program.to_dict()) == program


@pytest.mark.parametrize(("check", "names"), [
    ({"kind": "phone", "expected": "12345"}, ["'expected'", "7 to 15 digits"]),
    ({"kind": "phone", "expected": 5207907206}, ["'expected'", "phone number string"]),
    ({"kind": "phone", "expected": "520-790-7206", "aliases": ["x"]}, ["'aliases'", "label"]),
    ({"kind": "email", "expected": "carrie at example.com"}, ["'expected'", "email"]),
    ({"kind": "email", "expected": "a@b.com, c@d.com"}, ["'expected'", "email"]),
    ({"kind": "label", "expected": ""}, ["'expected'", "non-empty string"]),
    ({"kind": "label", "expected": "X", "aliases": "Y"}, ["'aliases'", "list"]),
    ({"kind": "label", "expected": "X", "tolerance": 1}, ["'tolerance'", "label"]),
    ({"kind": "list", "item_kind": "label", "expected": ["X"]}, ["'item_kind'"]),
    ({"kind": "name", "expected": "X"}, ["'kind'", "label", "phone", "email"]),
    ({"kind": "money", "expected": 5, "currency": "euro"}, ["'currency'", "ISO code"]),
    ({"kind": "number", "expected": 5, "currency": "EUR"}, ["'currency'", "money"]),
    ({"kind": "list", "item_kind": "date", "expected": ["2026-01-02"], "currency": "EUR"}, ["'currency'", "money"]),
])
def test_bad_answer_checks_are_refused_with_the_field_named(check: dict[str, object],
                                                             names: list[str]) -> None:
    with pytest.raises(RewardProgramError) as caught:
        load_reward(_program(check))
    assert all(n in str(caught.value) for n in names), str(caught.value)


def test_new_kinds_grade_through_the_answer_check(tmp_path: Path) -> None:
    db = tmp_path / "one.db"
    sqlite3.connect(db).executescript("CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1);")
    label = _program({"kind": "label", "expected": "Quick question about the proposal (Carrie Payne)",
                      "aliases": ["Quick question about the proposal"]})
    assert grade(label, db, db, "It's \"Quick question about the proposal\".").score == 1
    assert grade(label, db, db, "Quick question about the proposal (Bob Smith)").score == 0
    phone = _program({"kind": "phone", "expected": "520-790-7206 x229"})
    assert grade(phone, db, db, "+1 (520) 790-7206, extension 229").score == 1
    assert grade(phone, db, db, "(520) 790-7206").score == 0
    email = _program({"kind": "email", "expected": "Kara_White@echomail.example"})
    assert grade(email, db, db, "mailto:kara_white@ECHOMAIL.example").score == 1
    assert grade(email, db, db, "kara_white@echomail.example or kara@echomail.example").score == 0
