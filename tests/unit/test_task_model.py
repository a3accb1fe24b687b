"""Stage two's typed artifacts: the task record's model and shipped JSON Schema, and the JSON form
of an `Attempt` that the checkpointed graph keeps between nodes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from factory.runtime.step import Step
from factory.tasks.attempt import Attempt, dump_attempts, load_attempts
from factory.tasks.draft import Draft
from factory.tasks.gates import GateResult
from factory.tasks.language.answer import Answer
from factory.tasks.language.asks import Ask, AskStep, Cond, Question, RefText
from factory.tasks.model import SCHEMA_PATH, TaskRecord, render_schema
from factory.tasks.setupgen import Setup
from factory.tasks.triage import Failure


def test_the_shipped_schema_is_the_models() -> None:
    assert SCHEMA_PATH.read_text() == render_schema(), "run `make schema` to regenerate docs/task-record.schema.json"


def _draft() -> Draft:
    """A draft with every part a checkpoint must carry: row references (one named by two fields),
    plain values of each JSON kind, a question with conditions and a picked parameter."""
    question = Question("max", "account", "balance", None, (Cond("kind", "checking"), Cond("opened", "a", "b")), True)
    ask = Ask("read_write", steps=(
        AskStep("transfer", {"from": RefText("Main ··8488"), "to": RefText("June 5, 2026", "pay_on", (("payee", "Lee"),)),
                             "amount": 25000, "note": "rent", "rate": 1.5, "urgent": True, "memo": None},
                ("account", question)),
        AskStep("lock_card", {"card": RefText("my card", "only")}),
    ), question=question)
    return Draft("mock-read-write-transfer-001", "read_write", "transfer", "alice", 2, ask, "Find my …",
                 steps=[Step("transfer", {"from": 1, "to": 2, "amount": 25000, "memo": None})],
                 setup=[Step("lock_card", {"card": 3, "reason": "travel"})],
                 answer=Answer("money", 12.5, ("$12.50",), (1, 2)), form="intent:pay",
                 capabilities=["date_range"], required=[{"entity": "account", "id": 1}], variant=2)


def _attempt() -> Attempt:
    reward: dict[str, Any] = {"checks": [{"type": "sql", "query": "SELECT 1", "weight": 1}], "version": 1}
    return Attempt(_draft(), Setup([Step("lock_card", {"card": 3})], "UPDATE card SET locked=1;"),
                   Path("/tmp/initial.db"), Path("/tmp/golden.db"), reward,
                   [GateResult("initial", True, "0.0 on the initial state", 0.0),
                    GateResult("counterfactual:wrong_row", True, "not applicable", None)],
                   Failure("reward", "gate:golden", "scored 0.5"), ["rephrased (x): y"],
                   {"ok": True, "message": "", "answer": "$12.50", "actions": [{"kind": "click"}]},
                   {"checks": [], "version": 1})


def test_an_attempt_reads_back_equal_from_its_json() -> None:
    attempts = [_attempt(), Attempt(_draft())]
    text = dump_attempts(attempts)
    again = load_attempts(text)
    assert again == attempts
    refs = again[0].draft.ask.steps[0].args
    assert isinstance(refs["from"], RefText) and isinstance(refs["to"], RefText) and refs["to"].also == (("payee", "Lee"),)
    assert [type(v) for v in (refs["amount"], refs["rate"], refs["urgent"])] == [int, float, bool]
    assert dump_attempts(again) == text  # and writes the same bytes again (a resumed run changes nothing)


def test_an_attempt_with_an_unknown_key_is_refused() -> None:
    data = json.loads(dump_attempts([_attempt()]))
    data[0]["note"] = "stray"
    with pytest.raises(ValidationError, match="note"):
        load_attempts(json.dumps(data))


def _record() -> dict[str, Any]:
    step = {"workflow": "transfer", "params": {"amount": 25000, "memo": None}}
    return {
        "id": "mock-write-transfer-001", "goal": "Transfer …", "task_type": "write", "difficulty": "easy",
        "estimated_actions": 6, "category": "transfer", "reference_answer": None,
        "reference_state_change": {"summary": "account: 2 updated (balance)", "sql": "UPDATE …;"},
        "verification_query": "SELECT 1",
        "metadata": {"starting_url": "/", "acting_user_id": 2, "acting_user": "alice",
                     "required_entities": [{"entity": "account", "id": 1, "label": None}],
                     "grounding_evidence": [{"entity": "account", "id": 1, "row": {"balance": 1.5, "id": 1}}],
                     "capabilities": [], "phrasing": "generic"},
        "db_file": "data/seed.db",
        "setup": {"steps": [step], "patch": "", "patch_sha256": "e3b0", "how": "none"},
        "golden_steps": [step], "reward": {"checks": [{"weight": 1}]},
        "gates": [{"name": "initial", "passed": True, "score": 0.0, "detail": "ok"},
                  {"name": "counterfactual:x", "passed": True, "score": None, "detail": "n/a"}],
        "trajectory": None, "repairs": [], "split": "train",
    }


def test_a_record_line_is_its_sorted_json_with_nulls_kept() -> None:
    record = TaskRecord.model_validate(_record())
    assert record.to_line() == json.dumps(_record(), sort_keys=True) + "\n"
    assert TaskRecord.model_validate_json(record.to_line()) == record


@pytest.mark.parametrize("change", [{"extra": 1}, {"split": "dev"}, {"estimated_actions": True},
                                    {"metadata": {"starting_url": "/"}}])
def test_a_record_that_breaks_the_schema_is_refused(change: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        TaskRecord.model_validate({**_record(), **change})
