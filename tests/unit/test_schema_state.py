"""The whole schema is state: indexes, triggers, views, statistics, definitions and pragmas are
diffed, named, replayed by patches, and fail every grade whose program does not allow them."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from verifiers import diff_databases, grade, render_sqldiff

SCHEMA = """
CREATE TABLE message(id INTEGER PRIMARY KEY, subject TEXT, starred INTEGER DEFAULT 0);
CREATE TABLE folder(id INTEGER PRIMARY KEY, name TEXT);
CREATE INDEX message_subject ON message(subject);
"""
ROWS = [(1, "Invoice #7462", 0), (2, "Lunch", 0), (3, "Report", 1)]

# Each adversarial schema change made on top of the golden state, with a word its report names.
SCHEMA_EDITS: dict[str, tuple[str, str]] = {
    "trigger": (("CREATE TRIGGER star_all AFTER UPDATE ON message BEGIN "
                 "UPDATE message SET starred = 1; END;"), "trigger 'star_all' on message added"),
    "view": ("CREATE VIEW inbox AS SELECT * FROM message;", "view 'inbox' added"),
    "index": ("CREATE INDEX message_starred ON message(starred);",
              "index 'message_starred' on message added"),
    "drop index": ("DROP INDEX message_subject;", "index 'message_subject' on message dropped"),
    "unique index": (("DROP INDEX message_subject; CREATE UNIQUE INDEX message_subject "
                      "ON message(subject);"), "index 'message_subject' on message changed"),
    "analyze": ("ANALYZE;", "statistics 'sqlite_stat1' added"),
    "user_version": ("PRAGMA user_version = 7;", "pragma 'user_version' added"),
    "extra table": ("CREATE TABLE scratch(x);", "scratch: table added"),
    "add column": ("ALTER TABLE folder ADD COLUMN colour TEXT;", "folder: columns added (colour)"),
    "edited definition": (("PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = "
                           "replace(sql, 'starred INTEGER DEFAULT 0', 'starred INTEGER DEFAULT 1') "
                           "WHERE name = 'message'; PRAGMA writable_schema = OFF;"),
                          "table 'message' changed"),
}


def make(path: Path, edit: str = "") -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    conn.executemany("INSERT INTO message VALUES (?, ?, ?)", ROWS)
    conn.execute("INSERT INTO folder VALUES (1, 'Inbox')")
    conn.commit()
    if edit:
        conn.executescript(edit)
    conn.commit()
    conn.close()
    return path


@pytest.fixture()
def states(tmp_path: Path) -> tuple[Path, Path]:
    """The initial state and the golden one (message 1 starred)."""
    return make(tmp_path / "initial.db"), make(tmp_path / "golden.db",
                                                  "UPDATE message SET starred = 1 WHERE id = 1;")


def tamper(golden: Path, tmp_path: Path, edit: str) -> Path:
    final = tmp_path / "final.db"
    shutil.copyfile(golden, final)
    conn = sqlite3.connect(final)
    conn.executescript(edit)
    conn.commit()
    conn.close()
    return final


STAR = {"id": "starred", "type": "row_matches", "table": "message", "key": {"id": 1},
        "expect": {"starred": 1}}
ONLY_STAR = {"id": "nothing_else", "type": "diff_within",
             "allowed": {"message": {"update": ["starred"], "rows": [1]}}}
PROGRAMS: dict[str, Callable[[], dict]] = {
    "diff_within": lambda: {"schema_version": 1, "checks": [STAR, ONLY_STAR]},
    "row checks only": lambda: {"schema_version": 1, "checks": [STAR]},
    "checklist": lambda: {"schema_version": 1, "mode": "checklist", "checks": [STAR]},
}


def test_the_golden_state_passes_every_program(states: tuple[Path, Path]) -> None:
    for name, program in PROGRAMS.items():
        assert grade(program(), *states).score == 1.0, name


@pytest.mark.parametrize("edit", sorted(SCHEMA_EDITS))
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_golden_plus_any_schema_change_scores_zero_and_is_named(
        states: tuple[Path, Path], tmp_path: Path, edit: str, program: str) -> None:
    initial, golden = states
    sql, named = SCHEMA_EDITS[edit]
    final = tamper(golden, tmp_path, sql)
    result = grade(PROGRAMS[program](), initial, final)
    assert result.score == 0.0 and not result.passed
    assert named.split(":")[0] in result.explanation, result.explanation


@pytest.mark.parametrize("edit", sorted(SCHEMA_EDITS))
def test_the_diff_names_each_schema_change(states: tuple[Path, Path], tmp_path: Path,
                                           edit: str) -> None:
    _, golden = states
    sql, named = SCHEMA_EDITS[edit]
    diff = diff_databases(golden, tamper(golden, tmp_path, sql))
    assert not diff.is_empty
    assert named in diff.summary(), diff.summary()
    assert diff.to_json()["tables"] or diff.to_json()["schema"]


def test_a_read_task_fails_on_a_new_view(states: tuple[Path, Path], tmp_path: Path) -> None:
    initial, _ = states
    program = {"schema_version": 1, "checks": [
        {"id": "answer", "type": "answer", "kind": "number", "expected": 3},
        {"id": "nothing_changed", "type": "diff_within", "allowed": {}}]}
    assert grade(program, initial, initial, "3").score == 1.0
    final = tamper(initial, tmp_path, "CREATE VIEW v AS SELECT 3;")
    result = grade(program, initial, final, "3")
    assert result.score == 0.0 and "view 'v' added" in result.explanation


def test_unchanged_sees_the_tables_own_indexes_and_triggers_only(
        states: tuple[Path, Path], tmp_path: Path) -> None:
    initial, _ = states
    program = {"schema_version": 1, "checks": [
        {"id": "folders", "type": "unchanged", "tables": ["folder"]}]}
    on_folder = tamper(initial, tmp_path, "CREATE INDEX folder_name ON folder(name);")
    result = grade(program, initial, on_folder)
    assert result.score == 0.0 and "index 'folder_name' on folder added" in result.explanation
    # An index on another table is still a schema change: the grade fails on its own rule.
    (tmp_path / "final.db").unlink()
    on_message = tamper(initial, tmp_path, "CREATE INDEX m2 ON message(starred);")
    result = grade(program, initial, on_message)
    assert result.checks[0].passed and result.score == 0.0
    assert result.checks[-1].id == "schema_unchanged"


def test_the_diff_limited_to_some_tables_still_lists_every_schema_change(
        states: tuple[Path, Path], tmp_path: Path) -> None:
    initial, _ = states
    final = tamper(initial, tmp_path, "CREATE TABLE scratch(x); CREATE TRIGGER t AFTER INSERT ON "
                                      "folder BEGIN SELECT 1; END;")
    diff = diff_databases(initial, final, tables=["message"])
    assert [c.describe() for c in diff.schema] == ["table 'scratch' added",
                                                   "trigger 't' on folder added"]


def test_patches_replay_schema_objects(states: tuple[Path, Path], tmp_path: Path) -> None:
    initial, _ = states
    edit = ("DROP INDEX message_subject; CREATE INDEX message_subject ON message(subject, id);"
            "CREATE VIEW inbox AS SELECT * FROM message; CREATE TRIGGER t AFTER INSERT ON folder "
            "BEGIN SELECT 1; END; PRAGMA user_version = 3; UPDATE message SET starred = 1;")
    final = tamper(initial, tmp_path, edit)
    patched = tmp_path / "patched.db"
    shutil.copyfile(initial, patched)
    conn = sqlite3.connect(patched)
    conn.executescript(render_sqldiff(diff_databases(initial, final)))
    conn.close()
    assert diff_databases(patched, final).is_empty


def test_an_identical_schema_is_no_change(states: tuple[Path, Path], tmp_path: Path) -> None:
    initial, _ = states
    copy = tmp_path / "copy.db"
    shutil.copyfile(initial, copy)
    assert diff_databases(initial, copy).is_empty
    assert diff_databases(initial, copy).schema == ()
