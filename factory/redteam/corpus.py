"""A world's task corpus rebuilt on copies: each task's initial and golden state as files.

The world itself is only read. Its seed database is copied into the work folder first; a task's
initial state is its setup patch replayed on that copy (`runtime.patch.apply_patch`, the function the
gates and `make bench` use), and its golden state is its `reference_state_change.sql` replayed on
the initial state: that SQL is the sqldiff of initial → golden that stage two recorded
(`record.task_record`), so no app server is needed. Tasks with the same setup patch share one
initial file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from episodes.dbfiles import copy_db
from factory.predict.rows import connect_ro
from factory.redteam.probes import RedTeamError
from factory.runtime.patch import apply_patch
from factory.world.layout import SEED_DB, World
from verifiers.dbdiff import diff_databases


@dataclass(frozen=True)
class Case:
    """One task of the corpus with its states rebuilt: the record, and where its files are."""

    index: int
    record: dict[str, Any]
    initial: Path
    golden: Path
    setup_key: str

    @property
    def id(self) -> str:
        return str(self.record["id"])

    @property
    def task_type(self) -> str:
        return str(self.record["task_type"])

    @property
    def user_id(self) -> int:
        return int(self.record["metadata"]["acting_user_id"])

    @property
    def reference_answer(self) -> str | None:
        value = self.record.get("reference_answer")
        return None if value is None else str(value)

    @property
    def change(self) -> str:
        """The golden change as sqldiff SQL ('' for a question)."""
        return change_of(self.record)

    def answer_checks(self) -> list[dict[str, Any]]:
        """The reward program's answer checks, in program order."""
        return [c for c in self.record["reward"]["checks"] if c.get("type") == "answer"]


def change_of(record: dict[str, Any]) -> str:
    """A task record's golden change: the sqldiff SQL of initial → golden ('' for a question)."""
    return str((record.get("reference_state_change") or {}).get("sql") or "")


def load_records(world: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The accepted tasks of `world`, in file order (the first `limit` when given)."""
    path = World(world).tasks_file
    if not path.is_file():
        raise RedTeamError(f"{path} does not exist: stage two has not written this world's tasks yet")
    records: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except ValueError as exc:
            raise RedTeamError(f"{path}:{number}: not a JSON task record ({exc})") from exc
    if not records:
        raise RedTeamError(f"{path} holds no task")
    return records[:limit] if limit is not None else records


def prepare(world: Path, records: list[dict[str, Any]], work: Path) -> list[Case]:
    """Every task's initial and golden state rebuilt under `work`; the world is only read."""
    seeds: dict[str, Path] = {}
    initials: dict[tuple[str, str], Path] = {}
    cases: list[Case] = []
    for index, record in enumerate(records):
        db_file = str(record.get("db_file") or SEED_DB)
        if db_file not in seeds:
            source = world / db_file
            if not source.is_file():
                raise RedTeamError(f"task {record.get('id')}: its database {source} does not exist")
            seeds[db_file] = copy_db(source, work / "seed" / f"{len(seeds)}.db")
        patch = str(record.get("setup", {}).get("patch") or "")
        key = hashlib.sha256(patch.encode()).hexdigest()
        try:
            if (db_file, key) not in initials:
                initials[(db_file, key)] = apply_patch(seeds[db_file], patch,
                                                       work / "initial" / f"{len(initials)}.db")
            initial = initials[(db_file, key)]
            golden = apply_patch(initial, change_of(record),
                                 work / "golden" / f"{index}.db")
        except sqlite3.Error as exc:
            raise RedTeamError(f"task {record.get('id')}: its setup or golden change does not replay "
                               f"({exc})") from exc
        cases.append(Case(index, record, initial, golden, f"{db_file}:{key}"))
    return cases


def schema_signature(db: Path) -> tuple[object, ...]:
    """The schema objects of a database (rootpage left out: a copy may renumber pages) and the
    rows of its sqlite_stat* tables, in a stable order."""
    conn = connect_ro(db)
    try:
        objects = tuple(tuple(r) for r in conn.execute(
            "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name"))
        stats = tuple((name, tuple(sorted(tuple(map(str, r)) for r in conn.execute(f'SELECT * FROM "{name}"'))))
                      for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                                  "AND name LIKE 'sqlite_stat%' ORDER BY name"))
    finally:
        conn.close()
    return objects + stats


def same_state(golden: Path, final: Path) -> bool:
    """Whether `final` is the golden state: the same rows (so the same row diff against the
    initial state) and the same schema. Such a probe is a legitimate solution."""
    return diff_databases(golden, final).is_empty and schema_signature(golden) == schema_signature(final)
