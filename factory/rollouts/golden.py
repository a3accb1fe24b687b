"""The evidence triage gathers itself: a task's golden steps re-run over HTTP on a fresh episode
of the served world (statuses, what each step changed, the final diff, the grade and the server's
events), and a recorded rollout's HTTP calls replayed on a fresh episode (after a repair, since
the old episode's state is gone).

The golden run is finished through `POST /episodes/{id}/finish` like any agent's (agent
"triage-golden"), so its grade and diff are the server's own; it is never appended to the
rollouts file triage reads (the served copy keeps no rollouts file).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from episodes.client import AgentSession
from episodes.rollouts import Rollout
from factory.agents.flawed import Episode, Harness

GOLDEN_AGENT = "triage-golden"
EVENT_EXAMPLES = 3  # server errors and exceptions quoted per run
# action kinds a replay can stand for: HTTP calls are played again, an answer is given again, and
# moving between pages or dismissing a pop-up changes nothing of the state
_REPLAYABLE = frozenset({"http", "answer", "navigate", "dismiss"})


@dataclass
class StepRun:
    """One golden step as the app answered it, and whether the episode's state changed."""

    workflow: str
    params: dict[str, Any]
    status: int
    detail: str
    changed: bool

    def to_json(self) -> dict[str, Any]:
        return {"workflow": self.workflow, "params": self.params, "status": self.status, "detail": self.detail,
                "changed": self.changed}


@dataclass
class GoldenRun:
    """A task's golden trajectory on the world as it is now."""

    task_id: str
    steps: list[StepRun]
    record: Rollout  # the finished episode: reward, grade, final diff, event counts
    errors: list[dict[str, Any]] = field(default_factory=list)  # 5xx requests and exceptions, quoted

    @property
    def reward(self) -> float:
        return self.record.reward if self.record.reward is not None else 0.0

    @property
    def final_diff(self) -> dict[str, Any]:
        return self.record.final_diff or {}

    def to_json(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "steps": [s.to_json() for s in self.steps], "reward": self.reward,
                "grade": _failed_checks(self.record.grade), "events": self.record.events.model_dump(by_alias=True),
                "errors": self.errors}


def _failed_checks(grade: dict[str, Any] | None) -> dict[str, Any] | None:
    """A grade with only its failed checks (the evidence a report quotes)."""
    if grade is None:
        return None
    failed = [{k: c.get(k) for k in ("id", "type", "message")} for c in grade.get("checks", []) if not c.get("passed")]
    return {"score": grade.get("score"), "explanation": grade.get("explanation"), "failed": failed}


def _detail(response: Any) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    if isinstance(body, dict):
        return str(body.get("detail") or body.get("message") or "")[:200]
    return ""


def _errors(harness: Harness, episode_id: str) -> list[dict[str, Any]]:
    events = harness.evaluator.events(episode_id).get("events", [])
    bad = [e for e in events if e.get("kind") == "exception" or (e.get("kind") == "request" and e.get("status", 0) >= 500)]
    return [{k: e.get(k) for k in ("kind", "method", "path", "status", "error") if e.get(k) is not None}
            for e in bad[:EVENT_EXAMPLES]]


def run_golden(harness: Harness, task: dict[str, Any]) -> GoldenRun:
    """The task's golden steps as its user on a fresh episode, each step's status and effect
    recorded; a refused step ends the run (later steps assume it went through)."""
    created = harness.evaluator.create(task_id=str(task["id"]))
    episode_id = str(created["episode_id"])
    steps: list[StepRun] = []
    with AgentSession(str(created["launch_url"])) as session:
        ep = Episode(episode_id, session)
        before = harness.evaluator.diff(episode_id)["summary"]
        for step in task["golden_steps"]:
            ep.record("http", f"POST /api/workflows/{step['workflow']}", dict(step["params"]))
            response = session.request("POST", f"/api/workflows/{step['workflow']}", json=dict(step["params"]))
            after = harness.evaluator.diff(episode_id)["summary"]
            steps.append(StepRun(step["workflow"], dict(step["params"]), response.status_code,
                                 _detail(response) if response.status_code >= 400 else "", after != before))
            before = after
            if response.status_code >= 400:
                break
        answer = task.get("reference_answer")
        if answer is not None:
            ep.record("answer", None, answer)
        errors = _errors(harness, episode_id)
        record = harness.finish(episode_id, GOLDEN_AGENT, ep.actions, answer)
    return GoldenRun(str(task["id"]), steps, record, errors)


def replayable(rollout: Rollout) -> bool:
    """Whether a rollout's actions can be played again over HTTP: every state-changing action is
    an HTTP call (`kind` "http", target "METHOD /path"), so nothing it did is lost in a replay."""
    return all(a.kind in _REPLAYABLE for a in rollout.actions)


def replay(harness: Harness, rollout: Rollout) -> Rollout:
    """The rollout's HTTP calls, in order, on a fresh episode of its task (its answer given again):
    a new record, by the same agent, with the same seeded cause, and with the same noise as the
    rollout had (a noisy episode's late answers come again, in the same order)."""
    created = harness.evaluator.create(task_id=rollout.task_id, noise_seed=rollout.noise_seed)
    episode_id = str(created["episode_id"])
    if rollout.gave_up and not rollout.actions:
        return harness.finish(episode_id, rollout.agent, [], None, gave_up=True, seeded_cause=rollout.seeded_cause)
    with AgentSession(str(created["launch_url"])) as session:
        ep = Episode(episode_id, session, started=time.monotonic())
        for action in rollout.actions:
            if action.kind != "http" or not action.target or " " not in action.target:
                continue
            method, path = action.target.split(" ", 1)
            ep.record("http", action.target, action.value)
            session.request(method, path, json=action.value if method != "GET" else None)
        if rollout.answer is not None:
            ep.record("answer", None, rollout.answer)
        return harness.finish(episode_id, rollout.agent, ep.actions, rollout.answer, rollout.gave_up,
                              rollout.seeded_cause)


__all__ = ["GOLDEN_AGENT", "GoldenRun", "StepRun", "replay", "replayable", "run_golden"]
