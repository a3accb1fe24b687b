"""One decision per rollout: whose fault a failure is, and the evidence for it.

    world  the app misbehaved: a 5xx or an exception during the episode (its events); a golden
           trajectory that no longer does what the task records (re-run now, over HTTP); a
           declared control that does nothing (a workflow call answered 200 and changed nothing);
           a golden step refused although the spec allows it
    task   the task is wrong: its reward disagrees with the evidence (the golden changes and the
           reference answer score below 1, or a rollout that missed what was asked scores 1), its
           instruction fits two rows (the row the rollout used has the label of the row the task
           is about), or it is infeasible for its acting user (the golden run is refused, and the
           spec refuses it too)
    model  the world and the task answered correctly: the cause is recovered by comparing the
           rollout's final diff and answer with the golden run's (wrong_row, wrong_value,
           skipped_step, wrong_answer, gave_up; extra_change and unexplained otherwise)

The checks run in that order: a world fault explains everything after it, a task fault explains
a model's apparent mistakes. Passed rollouts (reward 1) are classed too, but only flagged when
their diff contradicts the reward (a task defect).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from episodes.rollouts import Rollout
from factory.errors import PredictionError
from factory.predict.effects import predict
from factory.predict.rows import UserView
from factory.rollouts import diffs
from factory.rollouts.golden import GoldenRun
from factory.runtime.step import Step
from factory.spec.model import Spec

WORLD, TASK, MODEL, NONE = "world", "task", "model", "none"
CLASSES = (WORLD, TASK, MODEL)
MODEL_CAUSES = ("wrong_row", "wrong_value", "skipped_step", "wrong_answer", "gave_up", "extra_change", "unexplained")
WORLD_CAUSES = ("server_error", "golden_diverged", "control_noop", "golden_refused")
TASK_CAUSES = ("reward_disagrees", "reward_lenient", "ambiguous", "infeasible")


@dataclass
class Verdict:
    """A class, its cause, one sentence saying why, and the evidence behind it."""

    defect: str
    cause: str
    why: str
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass
class Decision:
    """The verdict on one rollout (a line of the rollouts file)."""

    line: int
    task_id: str
    episode_id: str
    agent: str
    reward: float | None
    passed: bool
    defect: str
    cause: str
    why: str
    evidence: dict[str, Any]
    seeded_cause: str | None = None
    # a second opinion that asks a person to look (`judge.py`); it never changes the reward or the class
    review: dict[str, Any] | None = None

    @property
    def failed(self) -> bool:
        return not self.passed

    def to_json(self) -> dict[str, Any]:
        out = {"line": self.line, "task_id": self.task_id, "episode_id": self.episode_id, "agent": self.agent,
               "reward": self.reward, "passed": self.passed, "class": self.defect, "cause": self.cause,
               "why": self.why, "seeded_cause": self.seeded_cause, "evidence": self.evidence}
        if self.review is not None:  # only a judge adds it: without a model the record is as it always was
            out["review"] = self.review
        return out


@dataclass
class TaskContext:
    """What triage knows of one task: its record, the reference change it was accepted with, its
    initial state (for labels), and its golden trajectory re-run on the world as it is now."""

    task: dict[str, Any]
    reference: dict[str, Any]  # the diff of the task's reference_state_change on its initial state
    initial: Path
    golden: GoldenRun
    verdict: Verdict | None = None  # what the golden run alone says (set by `Classifier.judge_golden`)

    @property
    def id(self) -> str:
        return str(self.task["id"])


def references(spec: Spec) -> dict[str, dict[str, str]]:
    """Per table, its reference columns and the entity each names."""
    return {e.table: {f.column: str(f.ref) for f in e.fields if f.type == "reference" and f.ref} for e in spec.entities}


def _normal(text: str | None) -> str:
    return " ".join(str(text or "").split()).casefold()


class Classifier:
    """Classes rollouts of one world's tasks against the golden evidence gathered for them."""

    def __init__(self, spec: Spec, events: Callable[[Rollout], list[dict[str, Any]]] | None = None) -> None:
        self.spec = spec
        self.refs = references(spec)
        self.entity_of = {e.table: e.name for e in spec.entities}
        self.events = events  # reads a rollout's events file, for the quotes a report gives

    # ---------------------------------------------------------------- the golden run alone ---
    def judge_golden(self, ctx: TaskContext) -> Verdict | None:
        """What the golden run says of the world and the task, before any rollout is read."""
        g = ctx.golden
        steps = [s.to_json() for s in g.steps]
        base = {"golden_steps": steps, "golden_diff": diffs.summary(g.final_diff),
                "reference_diff": diffs.summary(ctx.reference), "golden_reward": g.reward}
        crashed = [s for s in g.steps if s.status >= 500]
        if crashed or g.errors or g.record.events.server_errors or g.record.events.exceptions:
            where = crashed[0].workflow if crashed else "a request"
            return Verdict(WORLD, "server_error", f"the golden run met a server error ({where})",
                           {**base, "server_errors": g.errors})
        refused = next((s for s in g.steps if s.status >= 400), None)
        if refused is not None:
            spec_says = self._spec_refuses(ctx)
            if spec_says:
                return Verdict(TASK, "infeasible", f"the golden step {refused.workflow} is refused "
                               f"({refused.status}: {refused.detail}) and the spec refuses it too: {spec_says}",
                               {**base, "spec": spec_says})
            return Verdict(WORLD, "golden_refused", f"the app refuses the golden step {refused.workflow} "
                           f"({refused.status}: {refused.detail}), which the spec allows for this user", base)
        if not diffs.same_changes(g.final_diff, ctx.reference):
            idle = next((s for s in g.steps if s.status == 200 and not s.changed), None)
            found = [f.to_json() for f in diffs.compare(ctx.reference, g.final_diff, self.refs)]
            if idle is not None:
                return Verdict(WORLD, "control_noop", f"the workflow {idle.workflow} answered 200 and changed "
                               "nothing, where the task's reference change says it does", {**base, "findings": found})
            return Verdict(WORLD, "golden_diverged", "the golden trajectory no longer makes the task's reference "
                           f"change: {diffs.summary(g.final_diff)} instead of {diffs.summary(ctx.reference)}",
                           {**base, "findings": found})
        if g.reward < 1.0:
            return Verdict(TASK, "reward_disagrees", "the golden run makes exactly the reference change (and gives "
                           f"the reference answer) but the reward gives {g.reward:g}",
                           {**base, "grade": g.to_json()["grade"]})
        return None

    def _spec_refuses(self, ctx: TaskContext) -> str:
        """Why the spec refuses the golden steps for the acting user ('' when it accepts them)."""
        user_id = int(ctx.task["metadata"]["acting_user_id"])
        steps = [Step(s["workflow"], dict(s["params"])) for s in ctx.task["golden_steps"]]
        try:
            prediction = predict(self.spec, ctx.initial, user_id, steps)
        except PredictionError as exc:
            return str(exc)
        return "; ".join(prediction.failed)

    # ---------------------------------------------------------------- one rollout -----------
    def classify(self, rollout: Rollout, ctx: TaskContext, line: int) -> Decision:
        passed = rollout.reward is not None and rollout.reward >= 1.0
        verdict = self._passed(rollout, ctx) if passed else self._failed(rollout, ctx)
        return Decision(line, rollout.task_id, rollout.episode_id, rollout.agent, rollout.reward, passed,
                        verdict.defect, verdict.cause, verdict.why, verdict.evidence, rollout.seeded_cause)

    def _base(self, rollout: Rollout, ctx: TaskContext) -> dict[str, Any]:
        return {"rollout_diff": diffs.summary(rollout.final_diff), "golden_diff": diffs.summary(ctx.golden.final_diff),
                "golden_reward": ctx.golden.reward, "answer": rollout.answer,
                "reference_answer": ctx.task.get("reference_answer"),
                "failed_checks": [c.get("id") for c in (rollout.grade or {}).get("checks", []) if not c.get("passed")]}

    def _passed(self, rollout: Rollout, ctx: TaskContext) -> Verdict:
        """A passed rollout is flagged only when its diff misses what was asked."""
        if ctx.verdict is None and not diffs.same_changes(rollout.final_diff, ctx.golden.final_diff):
            missed = [f for f in diffs.compare(ctx.golden.final_diff, rollout.final_diff, self.refs)
                      if f.kind in ("missing", "row", "value")]
            if missed:
                return Verdict(TASK, "reward_lenient", "the reward gives 1 to a final state that misses what was "
                               f"asked: {missed[0].describe()}",
                               {**self._base(rollout, ctx), "findings": [f.to_json() for f in missed]})
        return Verdict(NONE, "passed", "passed", {})

    def _failed(self, rollout: Rollout, ctx: TaskContext) -> Verdict:
        base = self._base(rollout, ctx)
        counts = rollout.events
        if counts.server_errors or counts.exceptions:
            quoted = self._quote(rollout)
            return Verdict(WORLD, "server_error", f"the episode met {counts.server_errors} server error(s) and "
                           f"{counts.exceptions} exception(s)",
                           {**base, "events": counts.model_dump(by_alias=True), "server_errors": quoted})
        if ctx.verdict is not None:
            return Verdict(ctx.verdict.defect, ctx.verdict.cause, ctx.verdict.why, {**base, **ctx.verdict.evidence})
        golden = ctx.golden.final_diff
        reference_answer = ctx.task.get("reference_answer")
        if diffs.same_changes(rollout.final_diff, golden):
            if reference_answer is not None and _normal(rollout.answer) != _normal(reference_answer):
                if rollout.answer is None and (rollout.gave_up or not rollout.actions):
                    return Verdict(MODEL, "gave_up", "gave up: no answer and nothing done", base)
                return Verdict(MODEL, "wrong_answer", f"answered {rollout.answer!r} where the reference answer is "
                               f"{reference_answer!r} (the state is the golden one)", base)
            if diffs.is_empty(golden) and reference_answer is None:
                return Verdict(MODEL, "unexplained", "the task asks for nothing the rollout did not do", base)
            return Verdict(TASK, "reward_disagrees", "the rollout made exactly the golden run's changes"
                           + (" and gave the reference answer" if reference_answer is not None else "")
                           + f", yet the reward gives {rollout.reward:g}", base)
        if diffs.is_empty(rollout.final_diff):
            if rollout.gave_up or not rollout.actions:
                return Verdict(MODEL, "gave_up", "gave up: nothing done" + ("" if rollout.gave_up else " (no action)"),
                               base)
            return Verdict(MODEL, "skipped_step", "acted but made none of the golden changes "
                           f"({diffs.summary(golden)})", base)
        findings = diffs.compare(golden, rollout.final_diff, self.refs)
        evidence = {**base, "findings": [f.to_json() for f in findings]}
        kinds = {f.kind for f in findings}
        made, steps = _workflow_calls(rollout), [(s["workflow"], s["params"]) for s in ctx.task.get("golden_steps") or []]
        if made and len(made) < len(steps) and all(call in steps for call in made):
            # some golden steps made exactly and the others not at all: when two steps touch one row
            # (move a note, then move it on), the diff alone reads like a wrong row
            return Verdict(MODEL, "skipped_step", f"made {len(made)} of the {len(steps)} golden steps exactly and "
                           "skipped the others", evidence)
        if "row" in kinds:
            row = next(f for f in findings if f.kind == "row")
            twin = self._same_label(ctx, row)
            if twin:
                return Verdict(TASK, "ambiguous", f"the instruction fits two rows: {twin}", {**evidence, "rows": twin})
            return Verdict(MODEL, "wrong_row", row.describe(), evidence)
        if "value" in kinds:
            return Verdict(MODEL, "wrong_value", next(f for f in findings if f.kind == "value").describe(), evidence)
        if kinds == {"missing"}:
            return Verdict(MODEL, "skipped_step", "made only part of the golden changes: "
                           + "; ".join(f.describe() for f in findings), evidence)
        if "extra" in kinds and "missing" not in kinds:
            return Verdict(MODEL, "extra_change", next(f for f in findings if f.kind == "extra").describe(), evidence)
        return Verdict(MODEL, "unexplained", "; ".join(f.describe() for f in findings[:3]) or "no finding", evidence)

    def _same_label(self, ctx: TaskContext, row: diffs.Finding) -> str:
        """'' unless the row the rollout used has the label of the row the task is about (and the
        acting user may use it): then both rows, named, are the evidence of an ambiguous instruction."""
        entity = row.ref if row.column else self.entity_of.get(row.table)
        if entity is None or not isinstance(row.golden, int) or not isinstance(row.rollout, int):
            return ""
        required = {(r["entity"], r["id"]): r.get("label") for r in ctx.task["metadata"].get("required_entities", [])}
        if (entity, row.golden) not in required:
            return ""
        user_id = int(ctx.task["metadata"]["acting_user_id"])
        world = UserView.open(self.spec, ctx.initial)
        try:
            mine = world.row(entity, row.golden)
            theirs = world.row(entity, row.rollout)
            if mine is None or theirs is None:
                return ""
            visible = {r["id"] for r in world.visible(entity, user_id)} | ({r["id"] for r in world.rows(entity)}
                                                                          if world.is_public(entity) else set())
            label = world.label(entity, mine)
            if theirs["id"] in visible and world.label(entity, theirs).casefold() == label.casefold():
                return f"{entity} #{row.golden} and #{row.rollout} are both labelled {label!r}"
        finally:
            world.close()
        return ""

    def _quote(self, rollout: Rollout) -> list[dict[str, Any]]:
        if self.events is None:
            return []
        bad = [e for e in self.events(rollout)
               if e.get("kind") == "exception" or (e.get("kind") == "request" and e.get("status", 0) >= 500)]
        return [{k: e.get(k) for k in ("kind", "method", "path", "status", "error") if e.get(k) is not None}
                for e in bad[:3]]


def _workflow_calls(rollout: Rollout) -> list[tuple[str, Any]]:
    """The workflow calls a rollout made over HTTP, as (workflow, params)."""
    prefix = "POST /api/workflows/"
    return [(a.target[len(prefix):], a.value) for a in rollout.actions
            if a.kind == "http" and a.target and a.target.startswith(prefix)]


__all__ = ["CLASSES", "MODEL", "MODEL_CAUSES", "NONE", "TASK", "TASK_CAUSES", "WORLD", "WORLD_CAUSES", "Classifier",
           "Decision", "TaskContext", "Verdict", "references"]
