"""The episode server's clients against a real server: `python -m episodes serve` in its own process
on free ports, over a small task corpus grown on a copy of the mock world.

An agent solves a WRITE task over HTTP (`AgentSession`, the task's golden workflow calls) and the
Gymnasium env grades it 1; a READ task answered right grades 1 and wrong 0; a reset puts the state
back (0 again); an unknown task, a wrong token, a closed episode and a dead server raise clear errors.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import httpx
import pytest

from episodes.client import (
    AgentSession,
    AppError,
    EpisodeClosedError,
    EvaluatorClient,
    EvaluatorError,
    Unauthorized,
    UnknownEpisodeError,
    UnknownTaskError,
    Unreachable,
)
from episodes.errors import EpisodeClosed, UnknownTask
from episodes.gym_env import register_from_environment, register_world
from factory.runtime.server import free_port

REPO = Path(__file__).resolve().parents[2]
TOKEN = "test-clients-token-0123456789"


@dataclass(frozen=True)
class Served:
    world: Path
    name: str
    eval_url: str
    agent_url: str
    token: str


@pytest.fixture(scope="module")
def corpus(mock_tasks_world: Path) -> Path:
    return mock_tasks_world


@pytest.fixture(scope="module")
def records(corpus: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (corpus / "tasks" / "tasks.jsonl").read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def served(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    port, eval_port = free_port(), free_port()
    log = tmp_path_factory.mktemp("clients-server") / "server.log"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("WORLD_EVAL_TOKEN", None)
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "episodes", "serve", str(corpus), "--port", str(port),
                                 "--eval-port", str(eval_port), "--token", TOKEN],
                                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    eval_url = f"http://127.0.0.1:{eval_port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the episode server exited with {proc.returncode}:\n{log.read_text()}")
            try:
                health = httpx.get(f"{eval_url}/health", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=2)
                if health.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the episode server did not answer /health in 120 s:\n{log.read_text()}")
            time.sleep(0.2)
        yield Served(world=corpus, name=str(health.json()["world"]), eval_url=eval_url,
                     agent_url=f"http://127.0.0.1:{port}", token=TOKEN)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, log.read_text()


@pytest.fixture()
def evaluator(served: Served) -> Iterator[EvaluatorClient]:
    with EvaluatorClient(served.eval_url, served.token) as client:
        yield client


def _first(records: list[dict[str, Any]], task_type: str) -> dict[str, Any]:
    found = [r for r in records if r["task_type"] == task_type and (r["golden_steps"] if task_type == "write"
                                                                     else r.get("reference_answer"))]
    assert found, f"the corpus has no {task_type} task to play ({len(records)} tasks)"
    return found[0]


def _wrong(reference: str) -> str:
    try:
        return str(int(float(reference)) + 7)
    except ValueError:
        return "zzqx nothing of the kind"


def test_a_write_task_solved_over_http_gets_reward_1_and_a_reset_puts_it_back_to_0(
        served: Served, records: list[dict[str, Any]], evaluator: EvaluatorClient) -> None:
    task = _first(records, "write")
    user = task["metadata"]["acting_user"]
    env_id = register_world(served.name, served.eval_url, served.token)
    assert env_id == f"worlds/{served.name}-v0"
    env = gymnasium.make(env_id, task_id=task["id"])
    try:
        with warnings.catch_warnings():  # the env passes gymnasium's own checker without a warning
            warnings.simplefilter("error", UserWarning)
            obs, info = env.reset()
            assert obs == {"launch_url": obs["launch_url"], "instruction": task["goal"], "user": user,
                           "task_id": task["id"], "task_type": "write"}
            assert obs["launch_url"].startswith(served.agent_url + "/__launch/")
            assert obs in env.observation_space
            episode_id = info["episode_id"]

            # nothing done yet: the reward program says 0
            _, reward, terminated, truncated, step_info = env.step({"type": "done"})
        assert (reward, terminated, truncated, step_info["passed"]) == (0.0, True, False, False)
        with pytest.raises(gymnasium.error.ResetNeeded):
            env.step({"type": "done"})

        obs, info = env.reset()
        assert (info["episode_id"], info["generation"]) == (episode_id, 1)
        with AgentSession(obs["launch_url"]) as agent:
            assert agent.whoami() == user
            assert agent.start_path == task["metadata"]["starting_url"]
            for step in task["golden_steps"]:
                assert agent.workflow(step["workflow"], step["params"])["ok"] is True
        assert evaluator.diff(episode_id)["diff"]["tables"], "the golden calls changed nothing"
        assert evaluator.events(episode_id)["counts"]["requests"] >= 1 + len(task["golden_steps"])

        _, reward, terminated, truncated, step_info = env.step({"type": "done"})
        assert (reward, terminated, truncated) == (1.0, True, False), step_info["explanation"]
        assert step_info["passed"] is True and step_info["checks"]

        # a reset is the task's initial state again: nothing done, reward 0; the old launch URL is spent
        obs_again, info = env.reset()
        assert (info["episode_id"], info["generation"]) == (episode_id, 2)
        assert obs_again["launch_url"] != obs["launch_url"]
        assert evaluator.diff(episode_id)["summary"] == "no changes"
        _, reward, _, _, step_info = env.step({"type": "done"})
        assert reward == 0.0, step_info["explanation"]
        with pytest.raises(AppError) as used:
            AgentSession(obs["launch_url"])
        assert used.value.status == 404 and "already used" in used.value.detail
    finally:
        env.close()
    # closing the env closed the episode on the server
    with pytest.raises(EpisodeClosedError) as closed:
        evaluator.state(episode_id)
    assert isinstance(closed.value, EpisodeClosed) and closed.value.status == 410


def test_a_read_task_gets_1_for_its_reference_answer_and_0_for_a_wrong_one(
        served: Served, records: list[dict[str, Any]]) -> None:
    task = _first(records, "read")
    register_world(served.name, served.eval_url, served.token)
    # the module prefix imports episodes.gym_env before the lookup
    env = gymnasium.make(f"episodes.gym_env:worlds/{served.name}-v0", task_id=task["id"])
    try:
        obs, _ = env.reset()
        assert (obs["task_type"], obs["instruction"]) == ("read", task["goal"])
        with AgentSession(obs["launch_url"]) as agent:  # an agent may look around first; reading changes nothing
            assert agent.whoami() == task["metadata"]["acting_user"]
        with pytest.raises(gymnasium.error.InvalidAction):
            env.step({"type": "jump"})
        _, reward, terminated, _, info = env.step({"type": "answer", "answer": task["reference_answer"]})
        assert (reward, terminated) == (1.0, True), info["explanation"]

        env.reset()
        _, reward, _, _, info = env.step({"type": "answer", "answer": _wrong(str(task["reference_answer"]))})
        assert (reward, info["passed"]) == (0.0, False), info["explanation"]

        env.reset()
        _, reward, _, _, info = env.step({"type": "done"})  # no answer at all
        assert reward == 0.0, info["explanation"]
    finally:
        env.close()


def test_an_unknown_task_and_other_refusals_raise_clear_errors(served: Served, evaluator: EvaluatorClient) -> None:
    with pytest.raises(UnknownTaskError) as unknown:
        evaluator.create(task_id="no-such-task")
    error = unknown.value
    assert isinstance(error, UnknownTask) and isinstance(error, EvaluatorError)
    assert error.status == 404 and "no-such-task" in error.detail
    assert str(error).startswith(f"POST {served.eval_url}/episodes: 404 ") and "GET /tasks" in str(error)

    env = gymnasium.make(register_world(served.name, served.eval_url, served.token), task_id="no-such-task")
    try:
        with pytest.raises(UnknownTask, match="no-such-task"):
            env.reset()
    finally:
        env.close()

    with pytest.raises(UnknownEpisodeError) as episode:
        evaluator.grade("ep-0000000000000000", "1")
    assert episode.value.status == 404 and "ep-0000000000000000" in episode.value.detail

    with EvaluatorClient(served.eval_url, "not-the-token-at-all") as intruder, pytest.raises(Unauthorized) as refused:
        intruder.tasks()
    assert refused.value.status == 401 and "Bearer" in refused.value.detail

    with EvaluatorClient(f"http://127.0.0.1:{free_port()}", served.token, timeout=2) as nobody, \
            pytest.raises(Unreachable) as dead:
        nobody.health()
    assert dead.value.status == 0 and "is the episode server running" in str(dead.value)

    tasks = evaluator.tasks()
    assert tasks and {"task_id", "instruction", "task_type", "user", "starting_url"} == set(tasks[0])


def test_importing_the_env_registers_the_world_from_the_environment_and_touches_no_network_without_it(
        served: Served) -> None:
    assert register_from_environment({}) is None
    assert register_from_environment({"WORLD_EVAL_URL": served.eval_url}) is None  # no token: nothing asked
    script = textwrap.dedent(f"""
        import importlib, os, socket
        real = socket.socket.connect
        def refuse(*args):
            raise AssertionError(f"network used at import: {{args}}")
        socket.socket.connect = refuse
        os.environ.pop("WORLD_EVAL_URL", None); os.environ.pop("WORLD_EVAL_TOKEN", None)
        import gymnasium
        import episodes.gym_env as gym_env
        assert gym_env.REGISTERED is None
        socket.socket.connect = real
        os.environ["WORLD_EVAL_URL"] = {served.eval_url!r}
        os.environ["WORLD_EVAL_TOKEN"] = {served.token!r}
        gym_env = importlib.reload(gym_env)
        env = gymnasium.make(gym_env.REGISTERED, task_id=None)
        obs, info = env.reset(seed=3)
        env.close()
        print(gym_env.REGISTERED, obs["task_id"])
    """)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    registered, task_id = done.stdout.split()
    assert registered == f"worlds/{served.name}-v0" and task_id.startswith(served.name)
