"""JSON form of stage two's working state, so each graph node's result survives an interruption.

Drafts, asks, steps and answers are plain dataclasses; this module turns them into JSON values
and back (a `RefText` argument is tagged, so it never reads back as a plain string).
"""

from __future__ import annotations

from typing import Any

from factory.runtime.step import Step
from factory.tasks.language.phrasing import Ask, AskStep, Cond, Question, RefText
from factory.tasks.language.resolve import Answer
from factory.tasks.propose.proposer import Draft


def _ref(value: RefText | None) -> dict[str, Any] | None:
    if value is None:
        return None
    # `also` only when a row is named by several fields, so older files read and write the same.
    more = {"also": [list(pair) for pair in value.also]} if value.also else {}
    return {"ref": value.text, "by": value.by, **more}


def _unref(value: dict[str, Any] | None) -> RefText | None:
    if value is None:
        return None
    return RefText(value["ref"], value["by"], tuple((f, t) for f, t in value.get("also", ())))


def question_json(q: Question | None) -> dict[str, Any] | None:
    if q is None:
        return None
    return {"op": q.op, "entity": q.entity, "field": q.field, "target": _ref(q.target),
            "conds": [[c.field, c.value, c.upper] for c in q.conds], "tie": q.tie}


def question_of(data: dict[str, Any] | None) -> Question | None:
    if data is None:
        return None
    return Question(data["op"], data["entity"], data["field"], _unref(data["target"]),
                    tuple(Cond(f, v, u) for f, v, u in data["conds"]), data.get("tie", False))


def _arg(value: Any) -> Any:
    return _ref(value) if isinstance(value, RefText) else {"value": value}


def _unarg(data: dict[str, Any]) -> Any:
    return _unref(data) if "ref" in data else data["value"]


def ask_json(ask: Ask) -> dict[str, Any]:
    return {"kind": ask.kind, "question": question_json(ask.question),
            "steps": [{"workflow": s.workflow, "args": {k: _arg(v) for k, v in s.args.items()},
                       "pick": None if s.pick is None else [s.pick[0], question_json(s.pick[1])]}
                      for s in ask.steps]}


def ask_of(data: dict[str, Any]) -> Ask:
    steps = []
    for s in data["steps"]:
        pick = None
        if s["pick"] is not None:
            q = question_of(s["pick"][1])
            assert q is not None
            pick = (s["pick"][0], q)
        steps.append(AskStep(s["workflow"], {k: _unarg(v) for k, v in s["args"].items()}, pick))
    return Ask(data["kind"], tuple(steps), question_of(data["question"]))


def steps_json(steps: list[Step]) -> list[dict[str, Any]]:
    return [{"workflow": s.workflow, "params": s.params} for s in steps]


def steps_of(data: list[dict[str, Any]]) -> list[Step]:
    return [Step(s["workflow"], dict(s["params"])) for s in data]


def draft_json(d: Draft) -> dict[str, Any]:
    answer = None if d.answer is None else {"kind": d.answer.kind, "value": d.answer.value,
                                            "aliases": list(d.answer.aliases), "rows": list(d.answer.rows)}
    return {"key": d.key, "task_type": d.task_type, "category": d.category, "user": d.user,
            "user_id": d.user_id, "ask": ask_json(d.ask), "goal": d.goal, "steps": steps_json(d.steps),
            "setup": steps_json(d.setup), "answer": answer, "form": d.form,
            "capabilities": d.capabilities, "required": d.required, "variant": d.variant}


def draft_of(data: dict[str, Any]) -> Draft:
    a = data["answer"]
    answer = None if a is None else Answer(a["kind"], a["value"], tuple(a["aliases"]), tuple(a["rows"]))
    return Draft(data["key"], data["task_type"], data["category"], data["user"], data["user_id"],
                 ask_of(data["ask"]), data["goal"], steps_of(data["steps"]), steps_of(data["setup"]),
                 answer, data["form"], list(data["capabilities"]), list(data["required"]), data["variant"])
