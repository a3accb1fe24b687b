"""A second opinion on the READ answers the rules score 0: a model compares the answer with the
reference answer and, when it thinks they say the same thing, flags the rollout for a person.

It can only flag: the reward, the pass and the class of the decision are the grader's and the
classifier's and stay as they are (an answer the rules reject is still 0 until a person, or a
fixed rule, says otherwise). Every opinion is recorded in the triage report (`judge`), the
flagged rollouts also on their decision (`review`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from factory.llm.ask import LLM
from factory.llm.errors import LLMError
from factory.llm.prompts import render_prompt
from factory.rollouts.classify import Decision

PURPOSE = "rollouts.judge"
SAME = "same"


class JudgeReply(BaseModel):
    """The model's opinion of one answer."""

    model_config = ConfigDict(extra="forbid")

    verdict: Literal["same", "different", "unsure"]
    rationale: str = Field(min_length=1, description="one sentence: why")


def judged(decision: Decision, task: dict[str, Any], answer: str | None) -> bool:
    """Whether a decision is one the judge reads: a READ task's answer that the rules scored 0."""
    return (task.get("task_type") == "read" and decision.failed and decision.reward == 0
            and answer is not None and task.get("reference_answer") is not None)


def second_opinions(decisions: list[Decision], answers: dict[int, str | None], tasks: dict[str, dict[str, Any]],
                    llm: LLM | None) -> dict[str, Any] | None:
    """Ask the judge about every READ answer scored 0 (`answers` by rollout line); flag the ones it
    thinks right. None without a model (nothing is asked, nothing recorded)."""
    if llm is None:
        return None
    opinions: list[dict[str, Any]] = []
    for decision in decisions:
        task = tasks.get(decision.task_id, {})
        answer = answers.get(decision.line)
        if not judged(decision, task, answer):
            continue
        question = render_prompt("rollouts/judge.md.j2", goal=task["goal"], reference=task["reference_answer"],
                                 answer=answer)
        try:
            reply = llm.ask(PURPOSE, [{"role": "user", "content": question}], JudgeReply).value
        except LLMError as exc:  # no opinion: nothing flagged
            opinions.append({"line": decision.line, "task_id": decision.task_id, "verdict": None, "rationale": str(exc)})
            continue
        opinions.append({"line": decision.line, "task_id": decision.task_id, "verdict": reply.verdict,
                         "rationale": reply.rationale})
        if reply.verdict == SAME:
            decision.review = {"by": "judge", "model": llm.config.model, "verdict": reply.verdict,
                               "rationale": reply.rationale,
                               "note": f"the rules score {decision.reward:g}; the reward stands until a person decides"}
    return {"model": llm.config.model, "asked": len(opinions),
            "flagged": [d.line for d in decisions if d.review is not None], "opinions": opinions}


__all__ = ["PURPOSE", "JudgeReply", "judged", "second_opinions"]
