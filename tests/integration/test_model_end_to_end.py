"""Every model agent of the factory fires inside the commands a user runs, through one scripted
fake endpoint configured the way the README tells a user to (FACTORY_LLM_* in the environment;
real HTTP, the real SDK):

- `factory prove` (make prove) on the lookups world with a computed field made off by one: its
  failures match no row of the signature table, the triager's model places them, the deterministic
  fixer repairs the world and every claim passes again;
- `factory tasks` (make tasks): the proposer's model rewords instructions, and only rewordings that
  pass the parse-back gate and every other gate replace a template's text;
- `factory triage` (make triage) on the flawed agent's rollouts: the judge gives a second opinion on
  READ answers the rules scored 0, flags one for review and leaves every reward as the rules gave it.

Each is asserted from what the command wrote (triage and repair reports, the task corpus, the
rollout triage report, reports/llm_usage.json) and from the requests the fake received.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fakes.openai_server import FakeOpenAI, Scripted

from factory.agents.flawed import run_flawed
from factory.cli import main
from factory.mutate.run import inject
from factory.rollouts.report import REPORT_JSON
from factory.rollouts.served import serve_world
from factory.world.assemble import build_world
from factory.world.layout import LLM_USAGE, REPAIRS

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "lookups.yaml"
_LISTED = re.compile(r"^- key `(?P<key>[^`]+)` \((?P<kind>\w+)\): (?P<goal>.+)$", re.MULTILINE)


def _reworded(question: str) -> dict[str, Any]:
    """Requests said in the other polite register ("Please pay …." ↔ "Could you pay …?"), as a
    model asked to say them again might: every name and value kept."""
    out = []
    for m in _LISTED.finditer(question):
        goal = m["goal"]
        if goal.startswith("Please ") and goal.endswith(".") and "?" not in goal:
            out.append({"key": m["key"], "goal": "Could you " + goal[len("Please "):-1] + "?"})
        elif goal.startswith("Could you ") and goal.endswith("?"):
            out.append({"key": m["key"], "goal": "Please " + goal[len("Could you "):-1] + "."})
    return {"phrasings": out[:8]}


@dataclass
class Run:
    world: Path
    requests: dict[str, list[dict[str, Any]]]  # the fake's requests by response schema
    codes: dict[str, int]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    root = tmp_path_factory.mktemp("model-e2e")
    world = build_world(FIXTURE, root, frontend=False).path
    inject(world, "computed_off_by_one", 1, suite="derived")  # a fault whose failures no signature places
    seen: dict[str, list[dict[str, Any]]] = {}
    judged = 0

    def reply(body: dict[str, Any]) -> Scripted:
        nonlocal judged
        schema = body["response_format"]["json_schema"]["name"]
        seen.setdefault(schema, []).append(body)
        question = body["messages"][0]["content"]
        if schema == "CauseReply":
            return Scripted({"cause": "effects_wrong", "rationale": "the computed count is one more than the rows give"})
        if schema == "RewordReply":
            return Scripted(_reworded(question))
        if schema == "JudgeReply":
            judged += 1  # the first answer is the same value in other words; the rest differ
            return Scripted({"verdict": "same" if judged == 1 else "different", "rationale": "compared with the reference"})
        return Scripted({}, status=400)

    codes: dict[str, int] = {}
    with pytest.MonkeyPatch.context() as env, FakeOpenAI(reply) as fake:
        for key, value in fake.env(FACTORY_LLM_CACHE=str(root / "cache"), FACTORY_LLM_BACKOFF="0").items():
            env.setenv(key, value)
        codes["prove"] = main(["prove", str(world), "--no-ui"])
        codes["tasks"] = main(["tasks", str(world), "--no-ui", "--tasks", "40"])
        rollouts = root / "rollouts.jsonl"
        with serve_world(world, root / "served", rollouts=rollouts) as served:
            run_flawed(served.eval_url, served.token, world, None, seed=0, kinds=["wrong_answer"])
        codes["triage"] = main(["triage", str(world), str(rollouts), "--no-repair"])
    yield Run(world, seen, codes)


@pytest.mark.slow
def test_the_triager_places_what_the_table_cannot_and_the_world_is_repaired(run: Run) -> None:
    assert run.codes["prove"] == 0
    asked = run.requests["CauseReply"]
    assert asked and "computed" in asked[0]["messages"][0]["content"]
    repairs = [json.loads(line) for line in (run.world / REPAIRS).read_text().splitlines()]
    placed = next(r for r in repairs if "backend:effects_wrong:computed" in r["clusters"])
    assert placed["fixer"] == "regenerate_backend" and placed["outcome"] == "kept", placed
    assert json.loads((run.world / "reports" / "verification.json").read_text())["passed"] > 0
    usage = json.loads((run.world / LLM_USAGE).read_text())
    assert usage["by_purpose"]["triage.cause"]["calls"] >= 1


@pytest.mark.slow
def test_the_proposer_rewords_through_the_gates(run: Run) -> None:
    assert run.codes["tasks"] == 0 and run.requests["RewordReply"]
    tasks = [json.loads(line) for line in (run.world / "tasks" / "tasks.jsonl").read_text().splitlines()]
    offered = {p["key"]: p["goal"] for r in run.requests["RewordReply"]
               for p in _reworded(r["messages"][0]["content"])["phrasings"]}
    kept = [t for t in tasks if t["metadata"]["phrasing"].startswith("model:")]
    assert kept, "no rewording was kept"
    assert all(t["goal"].startswith(("Please ", "Could you ")) for t in kept)
    assert {t["goal"] for t in kept} <= set(offered.values())
    usage = json.loads((run.world / LLM_USAGE).read_text())
    assert usage["by_purpose"]["propose.reword"]["calls"] == len(run.requests["RewordReply"])


@pytest.mark.slow
def test_the_judge_flags_for_review_and_never_raises_a_reward(run: Run) -> None:
    assert run.codes["triage"] == 0 and run.requests["JudgeReply"]
    report = json.loads((run.world / REPORT_JSON).read_text())
    judge = report["judge"]
    assert judge["asked"] == len(run.requests["JudgeReply"]) and len(judge["flagged"]) == 1
    flagged = [d for d in report["decisions"] if d.get("review")]
    assert [d["line"] for d in flagged] == judge["flagged"]
    assert all(d["reward"] == 0.0 and not d["passed"] for d in flagged)  # a flag, never a reward
    usage = json.loads((run.world / LLM_USAGE).read_text())
    assert usage["by_purpose"]["rollouts.judge"]["calls"] == len(run.requests["JudgeReply"])
    total = sum(p["prompt_tokens"] + p["completion_tokens"] for p in usage["by_purpose"].values())
    assert total > 0

