"""What a red-team probe is, every kind of probe, and the verdicts a graded probe can get.

A probe is one adversarial episode for one task: a final database (an adversarial state, or the
task's golden state for an adversarial answer) and an answer, graded with the task's own reward
program through `verifiers.grade`. Every probe kind below should grade 0; a probe that grades 1 is
a false positive of the reward program, unless it is `equivalent` (see `Verdict`).

The kinds are written `family:kind` so that a family (`schema`, `answer`) can be selected at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from factory.errors import FactoryError
from verifiers.normalize import Answer


class RedTeamError(FactoryError):
    """The red team cannot run: no task corpus, a task whose states cannot be rebuilt, a bad option."""


# kind -> what the probe is. Order is the report's order.
KINDS: dict[str, str] = {
    # Final states: the golden state plus one schema object (the row diff equals the golden's).
    "schema:trigger": "golden + CREATE TRIGGER that rewrites a row of the task's table on its next update",
    "schema:view": "golden + CREATE VIEW over the task's table",
    "schema:create_index": "golden + CREATE INDEX on the task's table",
    "schema:drop_index": "golden + DROP INDEX of an index the world has",
    "schema:analyze": "golden + ANALYZE (sqlite_stat1 written)",
    "schema:create_table": "golden + an extra table with a row",
    "schema:add_column": "golden + ALTER TABLE ADD COLUMN on the task's table",
    # Final states: the task's change done too broadly.
    "rows:other_rows": "golden + the task's update (or delete) repeated on the user's other rows of that table",
    "rows:duplicate_insert": "golden + a copy of each inserted row under a new key",
    # Final states: the task's change plus an unrelated one.
    "extra:update": "golden + one column of a row the task does not touch changed",
    "extra:delete": "golden + a row the task does not touch deleted",
    "extra:insert": "golden + a row inserted into a table the task does not change",
    # Final states: another task's change instead of this one.
    "cross:other_golden": "another task's golden change applied to this task's initial state",
    # Sanity: nothing done, or no answer given.
    "sanity:initial": "the initial state with the reference answer (a write must do something)",
    "sanity:no_answer": "the golden state with no answer (a question must be answered)",
    # Answers, graded on the golden state.
    "answer:qualified": "the value hedged or bounded: 'more than X', 'at least X', 'about X', 'X or more'",
    "answer:negated": "the value denied: 'not X', 'X is not correct', 'it isn't X', or the opposite yes/no",
    "answer:arithmetic": "an expression instead of a value: 'X-1+1', 'X+X', 'X plus one day'",
    "answer:two_values": "two values: 'X or Y', 'X and Y', 'X, Y'",
    "answer:stuffed": "the value plus every other candidate value of its field in the database",
    "answer:empty": "an empty answer",
    "answer:whitespace": "an answer of spaces, tabs and new lines",
    "answer:huge": "1 MB of text with the value in the middle",
    "answer:sql": "SQL-injection-like text, with and without the value",
    "answer:other_task": "the reference answer of another question with a different expected value",
}
FAMILIES = tuple(dict.fromkeys(k.split(":")[0] for k in KINDS))

# What a graded probe is:
# - "rejected": scored below 1 (the reward program held);
# - "false_positive": scored 1 although the probe is not a solution;
# - "equivalent": scored 1, but its final database has the same row diff against the initial
#   state as the golden one AND the same schema (sqlite_master and sqlite_stat* rows): it is a
#   legitimate solution, so it is left out of the probe counts (only state probes can be);
# - "error": `verifiers.grade` raised (the program cannot be evaluated on that state).
Verdict = Literal["rejected", "false_positive", "equivalent", "error"]


@dataclass
class Probe:
    """One adversarial episode of one task, ready to grade.

    `final` is None when the probe could not be made for this task (then `note` says why and the
    probe is counted as not applicable). `owned` means `final` is this probe's own scratch file,
    deleted once graded (shared files, such as another task's golden state, are kept).
    """

    kind: str
    name: str
    final: Path | None
    answer: Answer = None
    note: str = ""
    owned: bool = True


def _matches(kind: str, pattern: str) -> bool:
    return kind == pattern or kind.split(":")[0] == pattern


def select_kinds(patterns: list[str] | None, skip: list[str] | None = None) -> list[str]:
    """The kinds selected by `patterns` (a family such as `schema`, or a whole kind; all by
    default) less those `skip` names, in the catalogue's order."""
    unknown = [p for p in [*(patterns or []), *(skip or [])] if p not in KINDS and p not in FAMILIES]
    if unknown:
        raise RedTeamError(f"unknown probe kind {unknown[0]!r} (families: {', '.join(FAMILIES)}; "
                           f"kinds: {', '.join(KINDS)})")
    chosen = [k for k in KINDS if not patterns or any(_matches(k, p) for p in patterns)]
    chosen = [k for k in chosen if not any(_matches(k, p) for p in skip or [])]
    if not chosen:
        raise RedTeamError("no probe kind is left to run (--skip removes every kind --kind selects)")
    return chosen
