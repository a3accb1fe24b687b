"""Grading: every check type passes and fails on real databases; scoring, strict loading,
read-only SQL, untouched files and determinism."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from verifiers import (
    CheckError,
    DatabaseNotFoundError,
    ReadOnlyQueryError,
    RewardProgramError,
    VerifierError,
    grade,
    load_reward,
)

REPO = Path(__file__).resolve().parents[2]

SCHEMA = """
CREATE TABLE account(id INTEGER PRIMARY KEY, owner TEXT NOT NULL, balance INTEGER NOT NULL);
CREATE TABLE payee(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE bill(id INTEGER PRIMARY KEY, payee_id INT, amount INTEGER, status TEXT COLLATE NOCASE,
                  paid_on TEXT);
CREATE TABLE card(id INTEGER PRIMARY KEY, status TEXT);
CREATE TABLE "transaction"(id INTEGER PRIMARY KEY, account_id INT, amount INTEGER, memo TEXT);
INSERT INTO account VALUES (1, 'ann', 100000), (2, 'bob', 5000);
INSERT INTO payee VALUES (3, 'Metro Water'), (4, 'Acme Inc');
INSERT INTO bill VALUES (845, 3, 16977, 'due', NULL), (846, 4, 2500, 'due', NULL);
INSERT INTO card VALUES (7, 'active');
INSERT INTO "transaction" VALUES (1, 1, 100000, 'opening');
"""
# The golden end state of "pay bill 845 from account 1 and delete payee 4".
GOLDEN = """
UPDATE bill SET status = 'paid', paid_on = '2026-06-10' WHERE id = 845;
UPDATE account SET balance = balance - 16977 WHERE id = 1;
INSERT INTO "transaction" VALUES (2, 1, 16977, 'Metro Water');
DELETE FROM payee WHERE id = 4;
"""


def make_db(path: Path, edit: str = "") -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA + edit)
    conn.commit()
    conn.close()
    return path


@pytest.fixture()
def dbs(tmp_path: Path) -> tuple[Path, Path]:
    """(initial, golden final)."""
    return make_db(tmp_path / "initial.db"), make_db(tmp_path / "final.db", GOLDEN)


def program(*checks: dict, mode: str = "all") -> dict:
    return {"schema_version": 1, "mode": mode, "checks": list(checks)}


PASSING = [
    {"id": "paid", "type": "row_matches", "table": "bill", "key": {"id": 845},
     "expect": {"status": "paid", "paid_on": "2026-06-10"}},
    {"id": "was_due", "type": "row_matches", "db": "initial", "table": "bill", "key": {"id": 845},
     "expect": {"status": "due", "paid_on": None}},
    {"id": "balance", "type": "field_delta", "table": "account", "key": {"id": 1},
     "column": "balance", "delta": -16977},
    {"id": "txn", "type": "rows_added", "table": "transaction",
     "where": {"account_id": 1, "amount": 16977}, "count": 1},
    {"id": "gone", "type": "rows_removed", "table": "payee", "where": {"id": 4}},
    {"id": "nothing_else", "type": "diff_within", "allowed": {
        "bill": {"update": ["status", "paid_on"]}, "account": {"update": ["balance"]},
        "transaction": {"insert": True}, "payee": {"delete": True}}},
    {"id": "untouched", "type": "unchanged", "tables": ["card"]},
    {"id": "q", "type": "sql", "query": "SELECT count(*) FROM bill WHERE status = 'due'",
     "expect": [[1]]},
    {"id": "answer", "type": "answer", "kind": "money", "expected": 169.77, "tolerance": 0.01},
]

# For each check type, a variant the golden state fails, with a phrase its message must hold.
FAILING = [
    ({"id": "paid", "type": "row_matches", "table": "bill", "key": {"id": 846},
      "expect": {"status": "paid"}}, "status = 'due'"),
    # The column is NOCASE, yet grading compares exactly: 'PAID' is not 'paid'.
    ({"id": "paid", "type": "row_matches", "table": "bill", "key": {"id": 845},
      "expect": {"status": "PAID"}}, "expected 'PAID'"),
    ({"id": "paid", "type": "row_matches", "table": "bill", "key": {"id": 999},
      "expect": {"status": "paid"}}, "0 rows"),
    ({"id": "balance", "type": "field_delta", "table": "account", "key": {"id": 1},
      "column": "balance", "delta": -16978}, "changed by -16977"),
    ({"id": "balance", "type": "field_delta", "table": "account", "key": {"id": 2},
      "column": "balance", "delta": -16977}, "changed by 0"),
    ({"id": "txn", "type": "rows_added", "table": "transaction", "where": {"amount": 16977},
      "count": 2}, "1 inserted"),
    ({"id": "txn", "type": "rows_added", "table": "transaction", "where": {"account_id": 2}},
      "0 inserted"),
    ({"id": "gone", "type": "rows_removed", "table": "payee", "where": {"id": 3}}, "0 deleted"),
    ({"id": "nothing_else", "type": "diff_within", "allowed": {
        "bill": {"update": ["status"]}, "account": {"update": True},
        "transaction": {"insert": True}, "payee": {"delete": True}}},
     "bill update key [845] (paid_on)"),
    ({"id": "nothing_else", "type": "diff_within", "allowed": {"bill": {"update": True}}},
     "payee delete key [4]"),
    ({"id": "untouched", "type": "unchanged", "tables": ["card", "payee"]}, "payee: 1 deleted"),
    ({"id": "q", "type": "sql", "query": "SELECT count(*) FROM bill WHERE status = 'due'",
      "expect": [[2]]}, "expected [[2]]"),
    ({"id": "answer", "type": "answer", "kind": "money", "expected": 196.77}, "expected 196.77"),
]


@pytest.mark.parametrize("check", PASSING, ids=lambda c: f"{c['type']}-{c['id']}")
def test_each_check_passes_on_the_golden_state(dbs: tuple[Path, Path], check: dict) -> None:
    result = grade(program(check), *dbs, answer="$169.77")
    assert result.passed and result.score == 1.0, result.explanation
    assert result.checks[0].evidence


@pytest.mark.parametrize(("check", "phrase"), FAILING, ids=lambda c: str(c))
def test_each_check_fails_when_it_should(dbs: tuple[Path, Path], check: dict, phrase: str) -> None:
    result = grade(program(check), *dbs, answer="$169.77")
    assert not result.passed and result.score == 0.0
    assert phrase in result.checks[0].message, result.checks[0].message
    assert repr(check["id"]) in result.explanation and phrase in result.explanation


def test_initial_state_scores_zero_and_golden_one(dbs: tuple[Path, Path]) -> None:
    initial, final = dbs
    assert grade(program(*PASSING), initial, final, "$169.77").score == 1.0
    before = grade(program(*PASSING), initial, initial, "")
    assert before.score == 0.0
    failed = {c.id for c in before.checks if not c.passed}
    assert failed == {"paid", "balance", "txn", "gone", "q", "answer"}


def test_evidence_holds_expected_actual_and_offending_rows(tmp_path: Path,
                                                           dbs: tuple[Path, Path]) -> None:
    initial, _ = dbs
    sloppy = make_db(tmp_path / "sloppy.db", GOLDEN + "UPDATE card SET status = 'locked';")
    result = grade(program(*PASSING), initial, sloppy, "$169.77")
    by_id = {c.id: c for c in result.checks}
    assert by_id["nothing_else"].evidence["offending"] == [
        {"table": "card", "change": "update", "key": [7], "columns": ["status"]}]
    assert by_id["untouched"].evidence["changed"] == {"card": "card: 1 updated (status)"}
    assert by_id["balance"].evidence["actual_delta"] == -16977
    assert by_id["txn"].evidence["matching"] == [
        {"id": 2, "account_id": 1, "amount": 16977, "memo": "Metro Water"}]
    json.dumps(result.to_json())  # evidence is JSON-serialisable


def test_answer_kinds_and_one_of(dbs: tuple[Path, Path]) -> None:
    def passes(check: dict, answer: object) -> bool:
        return grade(program({"id": "a", "type": "answer", **check}), *dbs, answer).passed

    assert passes({"kind": "date", "expected": "2026-06-05"}, "Jun 5 2026")
    assert not passes({"kind": "date", "expected": "2026-06-05"}, "June 6")
    assert passes({"kind": "text", "one_of": ["Metro Water", "Metro Water Utility"]},
                  "metro water utility")
    assert not passes({"kind": "text", "one_of": ["Metro Water"]}, "Metro Gas")
    assert passes({"kind": "list", "item_kind": "number", "expected": [845, 846]}, "846 and 845")
    assert passes({"kind": "bool", "expected": True}, "Yes")
    assert not passes({"kind": "number", "expected": 0}, None)


def test_checklist_partial_credit_is_weighted(dbs: tuple[Path, Path]) -> None:
    good, bad = PASSING[0], FAILING[0][0]
    checks = [{**good, "id": "a", "weight": 1}, {**bad, "id": "b", "weight": 2},
              {**good, "id": "c", "weight": 3}]
    partial = grade(program(*checks, mode="checklist"), *dbs)
    assert partial.score == pytest.approx(4 / 6) and not partial.passed
    assert "'b'" in partial.explanation and "'a'" not in partial.explanation
    assert grade(program(*checks), *dbs).score == 0.0  # binary mode
    assert grade(program(checks[0], checks[2], mode="checklist"), *dbs).score == 1.0
    unweighted = grade(program(*[{k: v for k, v in c.items() if k != "weight"} for c in checks],
                               mode="checklist"), *dbs)
    assert unweighted.score == pytest.approx(2 / 3)


def test_grading_is_deterministic_whatever_the_key_order(dbs: tuple[Path, Path]) -> None:
    checks = PASSING + [FAILING[8][0] | {"id": "strict"}, FAILING[3][0] | {"id": "delta"}]
    data = program(*checks, mode="checklist")

    def reverse(value: object) -> object:
        if isinstance(value, dict):
            return {k: reverse(value[k]) for k in reversed(list(value))}
        if isinstance(value, list):
            return [reverse(v) for v in value]
        return value

    reordered = reverse(copy.deepcopy(data))
    reordered["checks"] = list(reversed(reordered["checks"]))  # type: ignore[index]
    first = grade(data, *dbs, "169.77 dollars")
    assert all(grade(data, *dbs, "169.77 dollars") == first for _ in range(3))
    other = grade(reordered, *dbs, "169.77 dollars")  # type: ignore[arg-type]
    # Same results per check (the program's check order is the report's order).
    assert sorted(json.dumps(c.to_json()) for c in other.checks) == sorted(
        json.dumps(c.to_json()) for c in first.checks)
    assert other.score == first.score and other.passed == first.passed


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("query", [
    "UPDATE bill SET status = 'paid'",
    "DELETE FROM card",
    "ATTACH DATABASE ':memory:' AS other",
    "PRAGMA writable_schema = 1",
    "PRAGMA query_only = 0",
    "CREATE TABLE x(a)",
    "SELECT 1; DELETE FROM card",
    "INSERT INTO card VALUES (8, 'new') RETURNING id",
    "SELECT random()",
])
def test_sql_checks_refuse_anything_but_one_read_only_statement(
        dbs: tuple[Path, Path], query: str) -> None:
    initial, final = dbs
    hashes = (sha(initial), sha(final))
    with pytest.raises(ReadOnlyQueryError) as info:
        grade(program({"id": "evil", "type": "sql", "query": query, "expect": [[1]]}), *dbs)
    assert "'evil'" in str(info.value)
    assert (sha(initial), sha(final)) == hashes


def test_sql_with_and_recursive_queries_are_allowed(dbs: tuple[Path, Path]) -> None:
    query = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) "
             "SELECT i, upper('x') FROM n")
    check = {"id": "q", "type": "sql", "query": query, "expect": [[3, "X"], [1, "X"], [2, "X"]]}
    assert grade(program(check), *dbs).passed
    assert not grade(program({**check, "ordered": True}), *dbs).passed


def test_grading_never_modifies_either_database(dbs: tuple[Path, Path]) -> None:
    initial, final = dbs
    hashes = (sha(initial), sha(final))
    for _ in range(2):
        failing = [{**c, "id": f"f{i}"} for i, (c, _) in enumerate(FAILING)]
        grade(program(*PASSING, *failing, mode="checklist"), *dbs, "x")
    assert (sha(initial), sha(final)) == hashes
    assert sorted(p.name for p in initial.parent.iterdir()) == ["final.db", "initial.db"]


def test_checks_that_cannot_run_raise_naming_the_check(dbs: tuple[Path, Path]) -> None:
    bad = [
        {"id": "t", "type": "row_matches", "table": "nope", "key": {"id": 1}, "expect": {"a": 1}},
        {"id": "c", "type": "row_matches", "table": "bill", "key": {"id": 845},
         "expect": {"colour": 1}},
        {"id": "r", "type": "rows_added", "table": "nope"},
        {"id": "w", "type": "rows_added", "table": "bill", "where": {"colour": 1}},
        {"id": "d", "type": "diff_within", "allowed": {"nope": {"insert": True}}},
        {"id": "s", "type": "sql", "query": "SELECT * FROM nope", "expect": []},
    ]
    for check in bad:
        with pytest.raises(CheckError, match=f"check '{check['id']}'"):
            grade(program(check), *dbs)


def test_missing_database_is_an_error(tmp_path: Path, dbs: tuple[Path, Path]) -> None:
    with pytest.raises(DatabaseNotFoundError):
        grade(program(PASSING[0]), dbs[0], tmp_path / "absent.db")


def test_task_record_or_program_object_are_accepted(dbs: tuple[Path, Path]) -> None:
    data = program(*PASSING)
    assert grade({"id": "t1", "reward": data}, *dbs, "$169.77").passed
    assert grade(load_reward(data), *dbs, "$169.77").passed
    assert load_reward(load_reward(data).to_dict()) == load_reward(data)
    with pytest.raises(RewardProgramError):
        grade({"id": "t1"}, *dbs)


@pytest.mark.parametrize(("check", "phrases"), [
    ({"id": "x", "type": "row_match", "table": "bill"}, ["'x'", "'type'", "row_matches"]),
    ({"id": "x", "type": "row_matches", "table": "bill", "key": {"id": 1}},
     ["'x'", "'expect'", "missing"]),
    ({"id": "x", "type": "row_matches", "table": "bill", "key": {"id": 1},
      "expect": {"a": 1}, "expext": {}}, ["'x'", "unknown key 'expext'"]),
    ({"id": "x", "type": "field_delta", "table": "a", "key": {"id": 1}, "column": "b",
      "delta": "5"}, ["'x'", "'delta'", "number"]),
    ({"id": "x", "type": "rows_added", "table": "a", "count": -1}, ["'x'", "'count'"]),
    ({"id": "x", "type": "diff_within", "allowed": {"a": {"update": "yes"}}},
     ["'x'", "allowed['a']", "'update'"]),
    ({"id": "x", "type": "diff_within", "allowed": {"a": {"inserts": True}}},
     ["'x'", "unknown key 'inserts'"]),
    ({"id": "x", "type": "unchanged", "tables": []}, ["'x'", "'tables'"]),
    ({"id": "x", "type": "sql", "query": "SELECT 1", "expect": [1]}, ["'x'", "'expect'"]),
    ({"id": "x", "type": "answer", "kind": "money", "expected": "$5"}, ["'x'", "'expected'"]),
    ({"id": "x", "type": "answer", "kind": "date", "expected": "June 5"}, ["'x'", "ISO"]),
    ({"id": "x", "type": "answer", "kind": "text", "expected": "a", "one_of": ["b"]},
     ["'x'", "exactly one"]),
    ({"id": "x", "type": "answer", "kind": "colour", "expected": "a"}, ["'x'", "'kind'"]),
    ({"id": "x", "type": "answer", "kind": "text", "expected": "a", "tolerance": 1},
     ["'x'", "'tolerance'"]),
    ({"id": "x", "type": "answer", "kind": "number", "expected": 1, "weight": 0},
     ["'x'", "'weight'"]),
    ({"type": "unchanged", "tables": ["a"]}, ["checks[0]", "'id'", "missing"]),
])
def test_strict_loading_names_the_check_and_field(check: dict, phrases: list[str]) -> None:
    with pytest.raises(RewardProgramError) as info:
        load_reward(program(check))
    for phrase in phrases:
        assert phrase in str(info.value), str(info.value)
    assert isinstance(info.value, VerifierError)


def test_loading_reports_every_problem_at_once() -> None:
    data = {"schema_version": 2, "mode": "some", "extra": 1, "checks": [
        {"id": "a", "type": "unchanged", "tables": ["t"]},
        {"id": "a", "type": "unchanged", "tables": ["t"]},
        {"id": "b", "type": "nope"}]}
    with pytest.raises(RewardProgramError) as info:
        load_reward(data)
    text = str(info.value)
    for phrase in ["'schema_version' must be 1", "'mode'", "unknown key 'extra'",
                   "'a': duplicate id", "check 'b'"]:
        assert phrase in text, text
    assert len(info.value.problems) == 5
    with pytest.raises(RewardProgramError, match="non-empty list"):
        load_reward({"schema_version": 1, "checks": []})


@pytest.fixture()
def mock_dbs(tmp_path: Path, mock_world: Path) -> tuple[Path, Path]:
    """Two copies of the mock world's seed database (built once per session by tests/conftest.py)."""
    seed = mock_world / "data" / "seed.db"
    initial, final = tmp_path / "initial.db", tmp_path / "final.db"
    shutil.copyfile(seed, initial)
    conn = sqlite3.connect(initial)  # note 1 active and pinned, whatever the generated data made it
    conn.execute("UPDATE note SET status = 'active', pinned = 1 WHERE id = 1")
    conn.commit()
    conn.close()
    shutil.copyfile(initial, final)
    conn = sqlite3.connect(final)
    conn.execute("UPDATE note SET status = 'archived', pinned = 0 WHERE id = 1")
    conn.commit()
    conn.close()
    return initial, final


def test_mock_world_archive_a_note(mock_dbs: tuple[Path, Path]) -> None:
    initial, final = mock_dbs
    conn = sqlite3.connect(initial)
    title, archived = conn.execute(
        "SELECT title, (SELECT count(*) FROM note WHERE status = 'archived') FROM note "
        "WHERE id = 1").fetchone()
    conn.close()
    checks = [
        {"id": "archived", "type": "row_matches", "table": "note", "key": {"id": 1},
         "expect": {"status": "archived", "pinned": False}},
        {"id": "only", "type": "diff_within", "allowed": {"note": {"update": ["status", "pinned"]}}},
        {"id": "books", "type": "unchanged", "tables": ["notebook", "user"]},
        {"id": "count", "type": "sql", "query": "SELECT count(*) FROM note WHERE status = 'archived'",
         "expect": [[archived + 1]]},
        {"id": "title", "type": "answer", "kind": "text", "expected": title},
    ]
    hashes = (sha(initial), sha(final))
    assert grade(program(*checks), initial, final, f"  {title.upper()}. ").passed
    failing = grade(program(*checks), initial, initial, "something else")
    assert not failing.passed
    assert {c.id for c in failing.checks if not c.passed} == {"archived", "count", "title"}
    assert (sha(initial), sha(final)) == hashes


# ---- diff_within: `rows` limits updates and deletes to named keys; `insert` may be a count ----
ROWS_ALLOWED = {"bill": {"update": ["status", "paid_on"], "rows": [845]},
                "account": {"update": ["balance"], "rows": [1]},
                "transaction": {"insert": 1}, "payee": {"delete": True, "rows": [4]}}


def within(allowed: dict) -> dict:
    return {"id": "nothing_else", "type": "diff_within", "allowed": allowed}


def test_diff_within_rows_and_insert_count_pass_on_exactly_the_allowed_changes(
        dbs: tuple[Path, Path]) -> None:
    result = grade(program(within(ROWS_ALLOWED)), *dbs)
    assert result.passed, result.explanation
    assert result.checks[0].evidence["offending"] == []


@pytest.mark.parametrize(("edit", "offence", "phrase"), [
    # The right column, the wrong row: allowed by columns, refused by rows.
    ("UPDATE bill SET status = 'paid' WHERE id = 846;",
     {"table": "bill", "change": "update", "key": [846], "columns": ["status"],
      "reason": "row not in rows"}, "bill update key [846] (status) (row not in rows)"),
    ("DELETE FROM payee WHERE id = 3;",
     {"table": "payee", "change": "delete", "key": [3], "reason": "row not in rows"},
     "payee delete key [3] (row not in rows)"),
    # One transaction more than the limit: the newest key is named.
    ("INSERT INTO \"transaction\" VALUES (3, 1, 5, 'extra');",
     {"table": "transaction", "change": "insert", "key": [3], "limit": 1},
     "transaction insert key [3] (over the limit of 1 new rows)"),
])
def test_diff_within_rows_and_insert_count_name_the_offending_row(
        tmp_path: Path, dbs: tuple[Path, Path], edit: str, offence: dict, phrase: str) -> None:
    initial, _ = dbs
    final = make_db(tmp_path / "sloppy.db", GOLDEN + edit)
    result = grade(program(within(ROWS_ALLOWED)), initial, final)
    assert not result.passed and result.score == 0.0
    assert result.checks[0].evidence["offending"] == [offence]
    assert phrase in result.checks[0].message, result.checks[0].message


def test_diff_within_insert_zero_or_false_allows_none_and_true_any(dbs: tuple[Path, Path]) -> None:
    base = {"bill": {"update": True}, "account": {"update": True}, "payee": {"delete": True}}
    for insert in (0, False):
        result = grade(program(within({**base, "transaction": {"insert": insert}})), *dbs)
        assert not result.passed
        assert result.checks[0].evidence["offending"] == [
            {"table": "transaction", "change": "insert", "key": [2]}]
    assert grade(program(within({**base, "transaction": {"insert": True}})), *dbs).passed
    assert grade(program(within({**base, "transaction": {"insert": 2}})), *dbs).passed


def test_diff_within_rows_compare_keys_strictly(dbs: tuple[Path, Path]) -> None:
    allowed = {**ROWS_ALLOWED, "bill": {"update": True, "rows": ["845"]}}  # text is not a number
    result = grade(program(within(allowed)), *dbs)
    assert not result.passed
    assert "bill update key [845]" in result.checks[0].message


def test_diff_within_rows_and_insert_round_trip(dbs: tuple[Path, Path]) -> None:
    loaded = load_reward(program(within({**ROWS_ALLOWED, "card": {"insert": 0, "delete": True,
                                                                  "rows": [9, 7, 7, "x"]}})))
    allowed = loaded.to_dict()["checks"][0]["allowed"]  # type: ignore[index]
    assert allowed["transaction"] == {"insert": 1}
    assert allowed["card"] == {"delete": True, "rows": [7, 9, "x"]}  # 0 reads as no inserts
    assert load_reward(loaded.to_dict()) == loaded
    # "any number of inserts" and "at most one" must not compare equal although True == 1.
    anyhow = load_reward(program(within({"transaction": {"insert": True}})))
    once = load_reward(program(within({"transaction": {"insert": 1}})))
    assert anyhow != once and json.dumps(anyhow.to_dict()) != json.dumps(once.to_dict())


@pytest.mark.parametrize(("allowance", "phrases"), [
    ({"insert": -1}, ["'nothing_else'", "allowed['t']", "'insert'", "whole number"]),
    ({"insert": 1.5}, ["'insert'", "whole number"]),
    ({"insert": "2"}, ["'insert'"]),
    ({"update": True, "rows": []}, ["'rows'", "non-empty list"]),
    ({"update": True, "rows": [1, True]}, ["'rows'", "primary-key values"]),
    ({"update": True, "rows": [1.5]}, ["'rows'"]),
    ({"update": True, "rows": 7}, ["'rows'"]),
    ({"insert": True, "rows": [7]}, ["'rows'", "needs 'update' or 'delete'"]),
    ({"update": True, "row": [7]}, ["unknown key 'row'", "rows"]),
])
def test_diff_within_loader_names_bad_rows_and_insert(allowance: dict, phrases: list[str]) -> None:
    with pytest.raises(RewardProgramError) as info:
        load_reward(program(within({"t": allowance})))
    for phrase in phrases:
        assert phrase in str(info.value), str(info.value)


def test_diff_within_rows_need_a_one_column_key(tmp_path: Path) -> None:
    for name in ("a.db", "b.db"):
        conn = sqlite3.connect(tmp_path / name)
        conn.execute("CREATE TABLE pair(x INT, y INT, v TEXT, PRIMARY KEY (x, y))")
        conn.execute("INSERT INTO pair VALUES (1, 2, 'v')")
        conn.commit()
        conn.close()
    with pytest.raises(CheckError, match="names rows, but the table's key has 2 columns"):
        grade(program(within({"pair": {"update": True, "rows": [1]}})), tmp_path / "a.db",
              tmp_path / "b.db")
