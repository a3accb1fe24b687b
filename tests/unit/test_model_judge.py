"""The judge through the scripted fake endpoint (real HTTP, the real SDK): a second opinion on READ
answers the rules score 0 can flag a rollout for review and never raises its reward; it reads
nothing else; with no model the triage report is the one it always was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakes.openai_server import FakeOpenAI, Scripted

from factory.llm.ask import LLM, open_llm
from factory.llm.config import load_config
from factory.rollouts.classify import MODEL, NONE, Decision
from factory.rollouts.judge import second_opinions
from factory.rollouts.report import TriageReport

TASKS: dict[str, dict[str, Any]] = {
    "mock-read-count-001": {"task_type": "read", "goal": "How many green notebooks do I have?", "reference_answer": "2"},
    "mock-read-lookup-001": {"task_type": "read", "goal": 'Look up the color of my notebook "Gifts notes".',
                             "reference_answer": "green"},
    "mock-write-move-note-001": {"task_type": "write", "goal": "Move my note.", "reference_answer": None},
}


def _decisions() -> tuple[list[Decision], dict[int, str | None]]:
    def decision(line: int, task: str, reward: float, cause: str) -> Decision:
        passed = reward >= 1
        return Decision(line, task, f"ep-{line}", "agent", reward, passed, NONE if passed else MODEL, cause,
                        "why", {"answer": "x"})
    found = [decision(1, "mock-read-count-001", 0.0, "wrong_answer"),  # "two": the judge says the same
             decision(2, "mock-read-lookup-001", 0.0, "wrong_answer"),  # "red": different
             decision(3, "mock-read-lookup-001", 1.0, "passed"),  # passed: not asked
             decision(4, "mock-write-move-note-001", 0.0, "skipped_step"),  # not a READ task: not asked
             decision(5, "mock-read-count-001", 0.0, "gave_up")]  # no answer: not asked
    return found, {1: "two", 2: "red", 3: "green", 4: None, 5: None}


def _llm(fake: FakeOpenAI, tmp_path: Path, **extra: str) -> LLM:
    config = load_config(fake.env(FACTORY_LLM_CACHE=str(tmp_path / "cache"), FACTORY_LLM_BACKOFF="0", **extra))
    assert config is not None
    return LLM(config)


def _state(decisions: list[Decision]) -> list[tuple[Any, ...]]:
    return [(d.reward, d.passed, d.defect, d.cause, d.why) for d in decisions]


def test_the_judge_flags_for_review_and_never_raises_a_reward(tmp_path: Path) -> None:
    decisions, answers = _decisions()
    before = _state(decisions)
    replies = [Scripted({"verdict": "same", "rationale": "two is 2 in words"}),
               Scripted({"verdict": "different", "rationale": "red is not green"})]
    with FakeOpenAI(replies) as fake:
        summary = second_opinions(decisions, answers, TASKS, _llm(fake, tmp_path))
    assert fake.count == 2  # only the READ answers scored 0
    asked = fake.requests[0]["messages"][0]["content"]
    assert "How many green notebooks do I have?" in asked and "The reference answer: 2" in asked and "answer: two" in asked
    assert _state(decisions) == before  # rewards, passes, classes and causes as the rules and the classifier left them
    assert decisions[0].review is not None and decisions[0].review["verdict"] == "same"
    assert [d.line for d in decisions if d.review is not None] == [1]
    assert summary is not None and summary["flagged"] == [1] and summary["asked"] == 2
    report = TriageReport(world="mock", rollouts_file="r.jsonl", decisions=decisions, judge=summary)
    data = report.to_json()
    assert [d["reward"] for d in data["decisions"]] == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert data["decisions"][0]["review"]["rationale"] == "two is 2 in words" and "review" not in data["decisions"][1]
    assert data["failed"] == 4 and data["judge"]["flagged"] == [1]
    assert "## Flagged for review by the judge" in report.markdown()


def test_a_judge_that_tries_to_give_a_reward_is_not_heard(tmp_path: Path) -> None:
    decisions, answers = _decisions()
    before = _state(decisions)
    pushy = [Scripted({"verdict": "same", "rationale": "close enough", "reward": 1.0}),
             Scripted({"verdict": "same", "rationale": "close enough", "reward": 1.0})]
    with FakeOpenAI(pushy) as fake:
        summary = second_opinions(decisions[:1], answers, TASKS, _llm(fake, tmp_path, FACTORY_LLM_ATTEMPTS="2"))
    assert fake.count == 2 and "reward: Extra inputs are not permitted" in fake.requests[1]["messages"][-1]["content"]
    assert summary is not None and summary["flagged"] == [] and summary["opinions"][0]["verdict"] is None
    assert decisions[0].review is None and _state(decisions) == before


def test_with_no_model_the_report_is_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FACTORY_LLM_MODEL", raising=False)
    monkeypatch.delenv("FACTORY_LLM_CONFIG", raising=False)
    decisions, answers = _decisions()
    plain = TriageReport(world="mock", rollouts_file="r.jsonl", decisions=decisions).to_json()
    summary = second_opinions(decisions, answers, TASKS, open_llm())
    report = TriageReport(world="mock", rollouts_file="r.jsonl", decisions=decisions, judge=summary)
    assert summary is None and json.dumps(report.to_json(), sort_keys=True) == json.dumps(plain, sort_keys=True)
    assert "judge" not in report.to_json() and all("review" not in d for d in report.to_json()["decisions"])
    assert "judge" not in report.markdown()
