"""The proposer's model policy: task instructions said again, more naturally and no easier, by a model.

The drafts' texts go to the model in batches; each rewording it gives is held to the gates every
deterministic text passed: it must read back as the draft's own ask (`read_back_problem`, the same
parse of the whole instruction language), pass the language rules (`lint_hits`), and be no other
draft's text. A rewording that fails any of them is dropped and the draft keeps its deterministic
text; one that passes becomes the goal, and the draft's `form` says it came from the model
(`model:<the form before>`), so the task record shows it and a later repair of the text can put
the deterministic phrasing back. Reward-gen and the executed gates then read the text as they
read any other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from factory.llm.ask import LLM
from factory.llm.errors import LLMError
from factory.llm.prompts import render_prompt
from factory.tasks.draft import Draft
from factory.tasks.propose.proposer import Proposer

PURPOSE = "propose.reword"
BATCH = 20
MODEL_FORM = "model:"


class Rewording(BaseModel):
    """One instruction said again."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(description="the key of the instruction, as given")
    goal: str = Field(min_length=1, description="the instruction, said again")


class RewordReply(BaseModel):
    """The model's rewordings of a batch (it may leave instructions out)."""

    model_config = ConfigDict(extra="forbid")

    phrasings: list[Rewording]


@dataclass
class RewordReport:
    """What became of the model's rewordings: how many were asked, kept, and why the others were dropped."""

    asked: int = 0
    offered: int = 0
    kept: int = 0
    dropped: list[str] = field(default_factory=list)  # "<key>: <gate>: <why>"
    errors: list[str] = field(default_factory=list)  # batches the model gave no usable reply for

    def to_json(self) -> dict[str, object]:
        return {"asked": self.asked, "offered": self.offered, "kept": self.kept, "dropped": self.dropped,
                "errors": self.errors}


def reword_drafts(proposer: Proposer, drafts: list[Draft], llm: LLM | None, batch: int = BATCH) -> RewordReport:
    """Reword `drafts` in place where the model's text passes every gate; without a model, nothing."""
    report = RewordReport()
    if llm is None:
        return report
    by_key = {d.key: d for d in drafts}
    for start in range(0, len(drafts), batch):
        chunk = drafts[start:start + batch]
        report.asked += len(chunk)
        question = render_prompt("propose/reword.md.j2", title=proposer.spec.title, scenario=proposer.spec.scenario,
                                 drafts=chunk)
        try:
            reply = llm.ask(PURPOSE, [{"role": "user", "content": question}], RewordReply).value
        except LLMError as exc:  # the deterministic texts stand
            report.errors.append(str(exc))
            continue
        wanted = {d.key for d in chunk}
        for offer in reply.phrasings:
            report.offered += 1
            draft = by_key.get(offer.key) if offer.key in wanted else None
            if draft is None:
                report.dropped.append(f"{offer.key}: key: not one of the instructions asked")
                continue
            goal = " ".join(offer.goal.split())
            problem = gate(proposer, draft, goal, {d.goal for d in drafts if d is not draft})
            if problem:
                report.dropped.append(f"{draft.key}: {problem}")
                continue
            draft.goal, draft.form = goal, MODEL_FORM + draft.form
            report.kept += 1
    return report


def gate(proposer: Proposer, draft: Draft, goal: str, others: set[str]) -> str:
    """Why `goal` may not replace the draft's text ('' when it may): the deterministic texts' gates."""
    if goal == draft.goal:
        return "same: the text the draft already has"
    if goal in others:
        return "duplicate: another draft's text"
    problem = proposer.read_back_problem(goal, draft.ask)
    if problem:
        return problem
    was = draft.goal
    draft.goal = goal
    try:
        hits = proposer.lint_hits(draft)
    finally:
        draft.goal = was
    if hits:
        return f"language: {hits[0].rule}: {hits[0].why}"
    return ""


__all__ = ["BATCH", "MODEL_FORM", "PURPOSE", "RewordReply", "RewordReport", "Rewording", "gate", "reword_drafts"]
