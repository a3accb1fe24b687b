"""The episode server as agents and evaluators meet it: a real server process on two loopback ports.

What an agent's port must never do (serve privileged paths, mix episodes, accept forged or stale
cookies) is probed from outside, with real HTTP; a server killed mid-episode must leave the world's
files as they were.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factory.runtime.server import free_port

REPO = Path(__file__).resolve().parents[2]
TOKEN = "test-token-0123456789abcdef"


class Served:
    def __init__(self, world: Path, max_episodes: int = 8, ttl: float = 1800.0) -> None:
        self.world = world
        self.port, self.eval_port = free_port(), free_port()
        self.agent = f"http://127.0.0.1:{self.port}"
        self.evaluator = httpx.Client(base_url=f"http://127.0.0.1:{self.eval_port}",
                                      headers={"authorization": f"Bearer {TOKEN}"}, timeout=30)
        self.log = world.parent / f"episodes-{self.port}.log"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "episodes", "serve", str(world), "--port", str(self.port),
             "--eval-port", str(self.eval_port), "--token", TOKEN, "--max-episodes", str(max_episodes),
             "--ttl", str(ttl)], cwd=REPO, stdout=self.log.open("wb"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()
            try:
                if self.evaluator.get("/health").status_code == 200 and httpx.get(self.agent + "/api/health").status_code:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        raise AssertionError(f"episode server did not start: {self.log.read_text()}")

    def create(self, task_id: str | None = None, user: str | None = None) -> dict[str, Any]:
        response = self.evaluator.post("/episodes", json={"task_id": task_id, "user": user})
        assert response.status_code == 201, response.text
        return dict(response.json())

    def join(self, episode: dict[str, Any]) -> httpx.Client:
        """An agent's client: the launch URL opened once, its cookies kept."""
        client = httpx.Client(base_url=self.agent, timeout=30)
        response = client.get(episode["launch_url"])
        assert response.status_code == 303, response.text
        return client

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)
        self.evaluator.close()


@pytest.fixture(scope="module")
def world(mock_tasks_world: Path) -> Path:
    return mock_tasks_world


@pytest.fixture(scope="module")
def served(world: Path) -> Iterator[Served]:
    server = Served(world)
    yield server
    server.stop()


def _tasks(world: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (world / "tasks" / "tasks.jsonl").read_text().splitlines()]


def _write_task(world: Path) -> dict[str, Any]:
    return next(t for t in _tasks(world) if t["task_type"] == "write" and t["golden_steps"])


def _solve(agent: httpx.Client, task: dict[str, Any]) -> None:
    for step in task["golden_steps"]:
        response = agent.post(f"/api/workflows/{step['workflow']}", json=step["params"])
        assert response.status_code == 200, response.text


def test_a_write_task_grades_0_before_and_1_after_its_golden_steps_and_0_after_reset(served: Served) -> None:
    task = _write_task(served.world)
    episode = served.create(task["id"])
    assert episode["instruction"] == task["goal"] and episode["user"] == task["metadata"]["acting_user"]
    assert not {"reward", "reference_answer", "golden_steps", "setup"} & episode.keys()  # nothing that gives it away
    grade = lambda: served.evaluator.post(f"/episodes/{episode['episode_id']}/grade", json={}).json()  # noqa: E731
    assert grade()["reward"] == 0.0
    agent = served.join(episode)
    _solve(agent, task)
    assert grade()["reward"] == 1.0
    diff = served.evaluator.get(f"/episodes/{episode['episode_id']}/diff").json()
    assert diff["diff"], "the golden steps changed nothing the diff could see"
    reset = served.evaluator.post(f"/episodes/{episode['episode_id']}/reset").json()
    assert reset["generation"] == 1 and reset["launch_url"] != episode["launch_url"]
    assert grade()["reward"] == 0.0
    assert served.evaluator.get(f"/episodes/{episode['episode_id']}/diff").json()["summary"] == "no changes"
    events = served.evaluator.get(f"/episodes/{episode['episode_id']}/events").json()
    paths = [e["path"] for e in events["events"] if e["kind"] == "request"]
    assert [f"/api/workflows/{s['workflow']}" for s in task["golden_steps"]] == paths
    assert events["counts"]["5xx"] == 0
    served.evaluator.delete(f"/episodes/{episode['episode_id']}")


def test_episodes_writing_at_once_never_see_each_other(served: Served) -> None:
    task = _write_task(served.world)
    episodes = [served.create(task["id"]) for _ in range(4)]
    agents = [served.join(e) for e in episodes]
    writers = agents[:2]  # two write at once; two only read and must stay unchanged
    threads = [threading.Thread(target=_solve, args=(a, task)) for a in writers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    diffs = [served.evaluator.get(f"/episodes/{e['episode_id']}/diff").json() for e in episodes]
    assert diffs[0]["summary"] == diffs[1]["summary"] != "no changes"  # each holds exactly its own one run
    assert [d["summary"] for d in diffs[2:]] == ["no changes", "no changes"]
    for episode in episodes:
        served.evaluator.delete(f"/episodes/{episode['episode_id']}")


PRIVILEGED = ["/episodes", "/health", "/tasks", "/__control/database", "/__launch", "/__launch/", "/__launch/x",
              "/%5F%5Fcontrol/database", "/api/../__control/database", "//__control/database", "/api/%2e%2e/episodes",
              "/episodes/ep-0/grade", "/api/episodes", "/__episodes", "/docs", "/openapi.json",
              # the world's own files are never served, however the path is spelled
              "/assets/..%2f..%2f..%2fdata/seed.db", "/_app/..%2f..%2f..%2fdata/seed.db",
              "/_app/%2e%2e/%2e%2e/spec.json", "/assets/%2e%2e/%2e%2e/%2e%2e/data/seed.db",
              "/..%2f..%2fdata/seed.db", "/assets/..%252f..%252fspec.json", "/app/backend/deps.py", "/run/episodes"]


def test_the_agent_port_serves_nothing_privileged(served: Served) -> None:
    episode = served.create(None, None)
    agent = served.join(episode)
    secret_words = ("episode_id", "launch_url", "generation", TOKEN, "SQLite format 3", "_SECRET", '"seed_plan"')
    for client in (agent, httpx.Client(base_url=served.agent)):
        for path in PRIVILEGED:
            for method in ("GET", "POST", "DELETE"):
                for headers in ({}, {"x-http-method-override": "DELETE", "authorization": f"Bearer {TOKEN}"}):
                    response = client.request(method, path, headers=headers, json={"path": "/etc/passwd"})
                    assert response.status_code < 500, (method, path, response.text[:200])
                    assert not any(w in response.text for w in secret_words), (method, path, response.text[:200])
    assert episode["episode_id"] not in agent.get("/api/auth/session").text
    cookie = next(c for c in agent.cookies.jar if c.name == "episode")
    assert cookie.has_nonstandard_attr("HttpOnly") and cookie.value != episode["episode_id"]
    # the evaluator's port answers nothing without its token, even paths that do not exist
    for path in ("/health", "/episodes", "/nothing"):
        assert httpx.get(f"http://127.0.0.1:{served.eval_port}{path}").status_code == 401
    served.evaluator.delete(f"/episodes/{episode['episode_id']}")


def test_bad_input_gets_a_clear_4xx_and_writes_nothing(served: Served) -> None:
    unknown = served.evaluator.post("/episodes", json={"task_id": "no-such-task"})
    assert unknown.status_code == 404 and "no-such-task" in unknown.json()["detail"]
    extra = served.evaluator.post("/episodes", json={"task": "x"})
    assert extra.status_code == 422
    episode = served.create(_write_task(served.world)["id"])
    agent = served.join(episode)
    assert agent.get(episode["launch_url"]).status_code == 404  # one-time
    assert httpx.get(served.agent + "/__launch/not a ticket!").status_code == 400
    forged = httpx.Client(base_url=served.agent, cookies={"episode": "forged-secret-value"})
    refused = forged.post("/api/workflows/anything", json={})
    assert refused.status_code == 410 and "ended or is not on this server" in refused.json()["detail"]
    bare = httpx.get(served.agent + "/api/auth/session")
    assert bare.status_code == 401 and "launch URL" in bare.json()["detail"]
    served.evaluator.delete(f"/episodes/{episode['episode_id']}")
    closed = served.evaluator.post(f"/episodes/{episode['episode_id']}/grade", json={"answer": "1"})
    assert closed.status_code == 410 and "closed" in closed.json()["detail"]
    assert agent.get("/api/auth/session").status_code == 410  # the closed episode's cookie is dead
    assert served.evaluator.get("/episodes/ep-nope/diff").status_code == 404


def test_a_full_server_answers_503_with_a_clear_message(world: Path) -> None:
    server = Served(world, max_episodes=2)
    try:
        first, _second = server.create(), server.create()
        full = server.evaluator.post("/episodes", json={})
        assert full.status_code == 503 and "maximum of 2 episodes" in full.json()["detail"]
        server.evaluator.delete(f"/episodes/{first['episode_id']}")
        assert server.evaluator.post("/episodes", json={}).status_code == 201
    finally:
        server.stop()


def test_idle_episodes_expire(world: Path) -> None:
    server = Served(world, ttl=1.0)
    try:
        episode = server.create()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and server.evaluator.get(f"/episodes/{episode['episode_id']}").status_code == 200:
            time.sleep(0.2)
        gone = server.evaluator.get(f"/episodes/{episode['episode_id']}")
        assert gone.status_code == 410 and "expired" in gone.json()["detail"]
    finally:
        server.stop()


def _fingerprint(world: Path) -> dict[str, str]:
    return {str(p.relative_to(world)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(world.rglob("*"))
            if p.is_file() and "run" not in p.relative_to(world).parts and "__pycache__" not in p.parts}


def test_a_server_killed_mid_episode_leaves_every_world_file_untouched(world: Path) -> None:
    before = _fingerprint(world)
    server = Served(world)
    task = _write_task(world)
    episode = server.create(task["id"])
    _solve(server.join(episode), task)
    server.stop(signal.SIGKILL)
    assert _fingerprint(world) == before
    # the next server removes what the killed one left in run/episodes/
    leftovers = [p for p in (world / "run" / "episodes").iterdir() if p.name == str(server.process.pid)]
    assert leftovers, "the killed server should have left its work folder"
    again = Served(world)
    try:
        assert not (world / "run" / "episodes" / str(server.process.pid)).exists()
    finally:
        again.stop()
    assert not (world / "run" / "episodes" / str(again.process.pid)).exists()  # a clean stop removes its own


def _serve_once(world: Path, user: str, step: dict[str, Any]) -> dict[str, Any]:
    """`factory serve` as a person runs it: open the printed launch URL, make one write, stop."""
    port, eval_port = free_port(), free_port()
    child = subprocess.Popen([sys.executable, "-m", "factory", "serve", str(world), "--port", str(port),
                              "--eval-port", str(eval_port), "--user", user], cwd=REPO, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert child.stdout is not None
        lines = []
        for line in child.stdout:
            lines.append(line)
            if line.startswith("open http"):
                break
        launch = next((ln.split()[1] for ln in lines if ln.startswith("open http")), None)
        assert launch, "".join(lines)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as agent:
            assert agent.get(launch).status_code == 303
            me = agent.get("/api/auth/session").json()
            wrote = agent.post(f"/api/workflows/{step['workflow']}", json=step["params"])
        return {"said": "".join(lines), "me": me, "status": wrote.status_code, "body": wrote.json()}
    finally:
        os.killpg(child.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
        child.communicate(timeout=60)


def test_plain_serve_starts_every_run_from_the_seed_state_and_says_so(world: Path) -> None:
    task = next(t for t in _tasks(world) if t["task_type"] == "write" and t["golden_steps"] and not t["setup"]["patch"])
    user, step = task["metadata"]["acting_user"], task["golden_steps"][0]
    first = _serve_once(world, user, step)
    assert "every run starts from the seed state" in first["said"]
    assert first["status"] == 200 and first["me"]["user"]["username"] == user, first
    # the same write on the next run meets the same seed state: the same answer (the same new ids);
    # had the first run's write been kept, the ids would move on or a rule would refuse it
    again = _serve_once(world, user, step)
    assert (again["status"], again["body"]) == (first["status"], first["body"])
