"""Bad input to `grade`: clear VerifierErrors for bad arguments, score 0 with the reason for a
final state that cannot be graded, and hot journals settled without touching the originals."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from verifiers import (
    DatabaseNotFoundError,
    NotADatabaseError,
    VerifierError,
    grade,
)
from verifiers.errors import GradeInputError
from verifiers.states import hot_journal

PROGRAM = {"schema_version": 1, "checks": [
    {"id": "paid", "type": "row_matches", "table": "bill", "key": {"id": 1},
     "expect": {"status": "paid"}},
]}
WHOLE = {"schema_version": 1, "checks": [
    *PROGRAM["checks"],
    {"id": "only", "type": "diff_within", "allowed": {"bill": {"update": ["status"]}}}]}


def make(path: Path, status: str = "due") -> Path:
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE bill(id INTEGER PRIMARY KEY, status TEXT);"
                       "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);")
    conn.execute("INSERT INTO bill VALUES (1, ?)", (status,))
    conn.commit()
    conn.close()
    return path


@pytest.fixture()
def dbs(tmp_path: Path) -> tuple[Path, Path]:
    return make(tmp_path / "initial.db"), make(tmp_path / "final.db", "paid")


def test_paths_may_be_bytes(dbs: tuple[Path, Path]) -> None:
    initial, final = dbs
    assert grade(PROGRAM, bytes(initial), bytes(final)).score == 1.0


@pytest.mark.parametrize("bad", [None, 3, ["a.db"], 2.5, "", "nul\x00.db"])
def test_a_path_that_is_not_a_path_is_named(dbs: tuple[Path, Path], bad: object) -> None:
    initial, _ = dbs
    with pytest.raises(GradeInputError, match="final_db") as info:
        grade(PROGRAM, initial, bad)  # type: ignore[arg-type]
    assert isinstance(info.value, VerifierError)


@pytest.mark.parametrize("bad", [{"a": 1}, b"bytes", [{"x": 1}], object()])
def test_an_answer_of_the_wrong_type_is_named(dbs: tuple[Path, Path], bad: object) -> None:
    with pytest.raises(GradeInputError, match="answer"):
        grade(PROGRAM, *dbs, bad)  # type: ignore[arg-type]


def test_a_missing_final_file_is_an_error_not_a_grade(dbs: tuple[Path, Path], tmp_path: Path) -> None:
    with pytest.raises(DatabaseNotFoundError):
        grade(PROGRAM, dbs[0], tmp_path / "nope.db")


@pytest.mark.parametrize("content", [b"", b"hello, this is not a database\n" * 10,
                                     b"SQLite format 3\x00" + b"\xff" * 4000])
@pytest.mark.parametrize("program", [PROGRAM, WHOLE])
def test_an_unusable_final_state_scores_zero_with_the_reason(
        dbs: tuple[Path, Path], tmp_path: Path, content: bytes, program: dict) -> None:
    final = tmp_path / "broken.db"
    final.write_bytes(content)
    result = grade(program, dbs[0], final)
    assert result.score == 0.0 and not result.passed
    assert result.checks[0].id == "final_state"
    assert "final database" in result.explanation


def test_a_final_state_without_the_tasks_table_scores_zero(dbs: tuple[Path, Path],
                                                          tmp_path: Path) -> None:
    final = tmp_path / "dropped.db"
    shutil.copyfile(dbs[1], final)
    conn = sqlite3.connect(final)
    conn.execute("DROP TABLE bill")
    conn.close()
    result = grade(PROGRAM, dbs[0], final)
    assert result.score == 0.0 and "lacks table(s) 'bill'" in result.explanation
    # A table the program does not read may go missing only under diff_within's eye.
    conn = sqlite3.connect(final)
    conn.executescript("CREATE TABLE bill(id INTEGER PRIMARY KEY, status TEXT);"
                       "INSERT INTO bill VALUES (1, 'paid'); DROP TABLE note;")
    conn.close()
    assert grade(PROGRAM, dbs[0], final).score == 0.0  # the schema rule: a table was dropped
    assert grade(WHOLE, dbs[0], final).score == 0.0


def test_an_unreadable_initial_database_raises(dbs: tuple[Path, Path], tmp_path: Path) -> None:
    broken = tmp_path / "initial-broken.db"
    broken.write_bytes(b"not a database at all" * 20)
    with pytest.raises(NotADatabaseError, match=r"initial-broken\.db"):
        grade(PROGRAM, broken, dbs[1])


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_hot_journal_is_rolled_back_on_a_copy(tmp_path: Path) -> None:
    initial = make(tmp_path / "initial.db")
    final = make(tmp_path / "final.db", "paid")
    # A writer that dies mid-transaction leaves a hot journal: its uncommitted change must not
    # count, and the committed state (status 'paid') is what is graded.
    writer = sqlite3.connect(final, isolation_level=None)
    writer.execute("PRAGMA cache_size = 1")
    writer.execute("BEGIN")
    writer.execute("UPDATE bill SET status = 'due'")
    writer.executemany("INSERT INTO note VALUES (?, ?)", [(i, "x" * 200) for i in range(3000)])
    crashed = tmp_path / "crashed.db"
    shutil.copyfile(final, crashed)
    shutil.copyfile(f"{final}-journal", f"{crashed}-journal")
    writer.execute("ROLLBACK")
    writer.close()
    assert hot_journal(crashed)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):  # what a plain reader meets
        sqlite3.connect(f"file:{crashed}?mode=ro", uri=True).execute("SELECT * FROM bill").fetchall()
    before = (_sha(crashed), _sha(Path(f"{crashed}-journal")))
    result = grade(PROGRAM, initial, crashed)
    assert result.score == 1.0, result.explanation
    assert (_sha(crashed), _sha(Path(f"{crashed}-journal"))) == before
