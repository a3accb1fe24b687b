"""The flawed agent: a task's golden steps played over HTTP with one seeded mistake of a named kind,
so every failure it makes has a known cause (`seeded_cause` in its rollout records).

    wrong_row     a step names another row of the same entity, one the user may use (from the
                  workflow's option list, GET /api/workflows/<w>/options/<param>)
    wrong_value   a step sends a changed value (an amount, a text, a date, a number, an enum)
    skipped_step  one step is left out (a single-step task: nothing is done)
    wrong_answer  a READ is answered with a plausible wrong value
    gave_up       nothing is done and nothing answered (`gave_up` is set)

It acts as an agent does: through the episode's launch URL (`AgentSession`), as the task's user,
with every call it makes recorded as an action; each episode ends with `POST /episodes/{id}/finish`
(agent "flawed"), so the server grades it and keeps the evidence. A mistake the app refuses is
tried on the next candidate; when every candidate is refused the step is played right and the
record names no seeded cause (its reward says whether it passed). Same seed, same mistakes.

`run_golden_steps` is the same harness with no mistake (agent "golden"): the golden steps over
HTTP, the baseline a triage of flawed rollouts is measured against.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from episodes.client import AgentSession, EvaluatorClient
from episodes.rollouts import Action, Rollout
from factory.spec.model import ParamSpec, Spec
from factory.tasks.hard_negatives import other_value
from factory.world.layout import World

KINDS: tuple[str, ...] = ("wrong_row", "wrong_value", "skipped_step", "wrong_answer", "gave_up")
AGENT = "flawed"
GOLDEN_AGENT = "golden"
TRIES = 6  # candidates tried per mistake before the step is played right


def read_tasks(world: Path) -> dict[str, dict[str, Any]]:
    """The world's task records by id, in file order."""
    path = World(world).tasks_file
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {str(r["id"]): r for r in records}


class Harness:
    """The evaluator side of one agent run: episodes created, and finished through
    `POST /episodes/{id}/finish` (graded, evidence kept, a rollout record returned)."""

    def __init__(self, evaluator_url: str, token: str, timeout: float = 60.0) -> None:
        self.evaluator = EvaluatorClient(evaluator_url, token, timeout=timeout)

    def finish(self, episode_id: str, agent: str, actions: list[Action], answer: str | None = None,
               gave_up: bool = False, seeded_cause: str | None = None) -> Rollout:
        return self.evaluator.finish(episode_id, agent, actions, answer, gave_up=gave_up, seeded_cause=seeded_cause)

    def close(self) -> None:
        self.evaluator.disconnect()

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Episode:
    """One agent's episode: its session, its clock and the actions it took."""

    id: str
    session: AgentSession
    started: float = field(default_factory=time.monotonic)
    actions: list[Action] = field(default_factory=list)

    def record(self, kind: str, target: str | None = None, value: Any = None) -> None:
        self.actions.append(Action(t=round(time.monotonic() - self.started, 4), kind=kind, target=target,
                                   value=value))

    def get(self, path: str) -> tuple[int, Any]:
        self.record("http", f"GET {path}")
        response = self.session.request("GET", path)
        return response.status_code, _body(response)

    def workflow(self, name: str, params: dict[str, Any]) -> int:
        """One workflow call as the episode's user; its status (the server's events keep the rest)."""
        self.record("http", f"POST /api/workflows/{name}", dict(params))
        return self.session.request("POST", f"/api/workflows/{name}", json=dict(params)).status_code


def _body(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


# ---------------------------------------------------------------- which mistakes a task admits --

def _params(spec: Spec, workflow: str) -> dict[str, ParamSpec]:
    found = next((w for w in spec.workflows if w.name == workflow), None)
    return {} if found is None else {p.name: p for p in found.params}


def _row_slots(spec: Spec, task: dict[str, Any]) -> list[tuple[int, str]]:
    """(step index, parameter) of every reference parameter the golden steps name a row in."""
    return [(i, name) for i, step in enumerate(task["golden_steps"])
            for name, p in _params(spec, step["workflow"]).items()
            if p.ref and isinstance(step["params"].get(name), int)]


def _value_slots(spec: Spec, task: dict[str, Any]) -> list[tuple[int, str]]:
    """(step index, parameter) of every value (not a row) the golden steps send that can be changed."""
    return [(i, name) for i, step in enumerate(task["golden_steps"])
            for name, p in _params(spec, step["workflow"]).items()
            if not p.ref and step["params"].get(name) is not None and _wrong_values(p, step["params"][name])]


def applicable(spec: Spec, task: dict[str, Any]) -> list[str]:
    """The kinds of mistake the task admits, in `KINDS` order."""
    kinds: list[str] = []
    if _row_slots(spec, task):
        kinds.append("wrong_row")
    if _value_slots(spec, task):
        kinds.append("wrong_value")
    if task["golden_steps"]:
        kinds.append("skipped_step")
    if task.get("reference_answer") is not None:
        kinds.append("wrong_answer")
    kinds.append("gave_up")
    return kinds


def _wrong_values(p: ParamSpec, value: Any) -> list[Any]:
    """Changed values of a parameter, most plausible first (the app may refuse some)."""
    out: list[Any] = []
    first = other_value(p.type, value, p.values)
    if first is not None:
        out.append(first)
    if p.type in ("int", "money") and isinstance(value, int) and not isinstance(value, bool):
        out += [value - 1, value + 2 * (1 if p.type == "int" else 100)]
    if p.type == "date" and isinstance(value, str):
        try:
            day = dt.date.fromisoformat(value)
            out += [(day + dt.timedelta(days=d)).isoformat() for d in (3, -1, 7)]
        except ValueError:
            pass
    if p.type in ("string", "text") and isinstance(value, str) and value:
        out.append(value + " (draft)")
    unique: list[Any] = []
    for v in out:
        if v != value and v not in unique:
            unique.append(v)
    return unique


_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
_MONEY = re.compile(r"^\$(-?[\d,]+(\.\d{1,2})?)$")


def wrong_answer(reference: str) -> str:
    """A plausible wrong answer of the reference's shape: a number one off, an amount a few
    dollars off, yes for no, or the reference denied ("not X", which the grader reads as a denial)."""
    text = reference.strip()
    if _NUMBER.match(text):
        return str(int(text) + 1) if "." not in text else f"{float(text) + 1:g}"
    money = _MONEY.match(text)
    if money:
        cents = round(float(money.group(1).replace(",", "")) * 100) + 137
        return f"${cents // 100:,}.{cents % 100:02d}"
    if text.lower() in ("yes", "no"):
        return "no" if text.lower() == "yes" else "yes"
    return f"not {text}"


# ---------------------------------------------------------------- one episode -------------------

def play(harness: Harness, spec: Spec, task: dict[str, Any], kind: str | None, rng: random.Random,
         agent: str = AGENT) -> Rollout:
    """One episode of `task` with the mistake `kind` (None: the golden steps, played right)."""
    created = harness.evaluator.create(task_id=str(task["id"]))
    episode_id = str(created["episode_id"])
    if kind == "gave_up":
        return harness.finish(episode_id, agent, [], None, gave_up=True, seeded_cause="gave_up")
    with AgentSession(str(created["launch_url"])) as session:
        ep = Episode(episode_id, session)
        ep.get("/api/auth/me")  # looks at who it is, as an agent on the starting page would
        steps: list[dict[str, Any]] = [dict(s) for s in task["golden_steps"]]
        made: str | None = None
        if kind == "skipped_step" and steps:
            del steps[rng.randrange(len(steps))]
            made = "skipped_step"
        slot: tuple[int, str] | None = None
        candidates: list[tuple[int, str]] = []
        if kind == "wrong_row":
            candidates = _row_slots(spec, task)
        elif kind == "wrong_value":
            candidates = _value_slots(spec, task)
        rng.shuffle(candidates)
        done: set[int] = set()
        for index, step in enumerate(steps):
            pending = [c for c in candidates if c[0] == index]
            for slot in pending:
                if made is None and _mistaken(ep, spec, task, step, slot[1], kind, rng):
                    made = str(kind)
                    done.add(index)
                    break
            if index not in done:
                ep.workflow(step["workflow"], step["params"])
        answer = task.get("reference_answer")
        if kind == "wrong_answer" and answer is not None:
            answer = wrong_answer(str(answer))
            made = "wrong_answer"
        if answer is not None:
            ep.record("answer", None, answer)
        return harness.finish(episode_id, agent, ep.actions, answer, seeded_cause=made)


def _mistaken(ep: Episode, spec: Spec, task: dict[str, Any], step: dict[str, Any], name: str, kind: str | None,
              rng: random.Random) -> bool:
    """Play `step` with parameter `name` made wrong; True when the app took a wrong call."""
    p = _params(spec, step["workflow"])[name]
    golden = step["params"][name]
    if kind == "wrong_row":
        status, body = ep.get(f"/api/workflows/{step['workflow']}/options/{name}")
        items = body.get("items", []) if status == 200 and isinstance(body, dict) else []
        named = {s["params"].get(q) for s in task["golden_steps"]
                 for q, qp in _params(spec, s["workflow"]).items() if qp.ref == p.ref}
        others = [int(i["id"]) for i in items if isinstance(i.get("id"), int) and i["id"] not in named]
        rng.shuffle(others)
        tries: list[Any] = others
    else:
        tries = _wrong_values(p, golden)
    # tried in order until the app takes one (any() stops at the first)
    return any(ep.workflow(step["workflow"], {**step["params"], name: value}) == 200 for value in tries[:TRIES])


# ---------------------------------------------------------------- runs ----------------------------

def _chosen(world: Path, tasks: Iterable[str] | None) -> tuple[Spec, list[dict[str, Any]]]:
    records = read_tasks(world)
    ids = list(records) if tasks is None else list(tasks)
    unknown = [t for t in ids if t not in records]
    if unknown:
        raise KeyError(f"no task {unknown[0]!r} in {World(world).tasks_file}")
    return World(world).spec, [records[t] for t in ids]


def run_flawed(evaluator_url: str, token: str, world: Path, tasks: Iterable[str] | None = None, seed: int = 0,
               kinds: Sequence[str] | None = None) -> list[Rollout]:
    """The flawed agent on `tasks` (None: every task of the world) through the episode server at
    `evaluator_url`: one episode per task with a mistake drawn from the kinds it admits, or with
    `kinds`, one episode per listed kind the task admits. Each record names its `seeded_cause`."""
    unknown = sorted(set(kinds or ()) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown mistake kind {unknown[0]!r}; the kinds are: {', '.join(KINDS)}")
    spec, chosen = _chosen(world, tasks)
    out: list[Rollout] = []
    with Harness(evaluator_url, token) as harness:
        for task in chosen:
            admitted = applicable(spec, task)
            picks = [random.Random(f"{seed}:{task['id']}").choice(admitted)] if kinds is None else \
                [k for k in kinds if k in admitted]
            for kind in picks:
                out.append(play(harness, spec, task, kind, random.Random(f"{seed}:{task['id']}:{kind}")))
    return out


def run_golden_steps(evaluator_url: str, token: str, world: Path, tasks: Iterable[str] | None = None) -> list[Rollout]:
    """Every task's golden steps (and reference answer) over HTTP, one episode each, agent "golden"."""
    spec, chosen = _chosen(world, tasks)
    with Harness(evaluator_url, token) as harness:
        return [play(harness, spec, task, None, random.Random(0), agent=GOLDEN_AGENT) for task in chosen]


__all__ = ["AGENT", "GOLDEN_AGENT", "KINDS", "Harness", "applicable", "play", "read_tasks", "run_flawed",
           "run_golden_steps", "wrong_answer"]
