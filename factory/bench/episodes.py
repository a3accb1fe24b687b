"""Benchmarks of the episode server on one world: reset beside the plain-copy floor, memory per
idle episode, and a bounded loopback load test (many concurrent episodes, each solving its task
over HTTP as its user, every final diff checked to hold exactly its own changes).

Figures are measured, never asserted: `make bench` records them in bench/results.json.
"""

from __future__ import annotations

import json
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from episodes.client import LIMITS
from factory.runtime.server import free_port

REPO = Path(__file__).resolve().parents[2]
RESETS = 200
LOAD_EPISODES = 200


def _figure(name: str, unit: str, samples: list[float], machine: str) -> dict[str, Any]:
    return {"name": name, "unit": unit, "median": round(statistics.median(samples), 3), "min": round(min(samples), 3),
            "max": round(max(samples), 3), "n": len(samples), "machine": machine}


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def _tasks(world: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (world / "tasks" / "tasks.jsonl").read_text().splitlines() if line.strip()]


def reset_figures(world: Path, machine: str, repeats: int = RESETS) -> list[dict[str, Any]]:
    """Reset of one episode inside the episode server's own store, beside a plain file copy of the
    same database (the physical floor), in the same run: in a child process, because loading a
    world's app binds the process to that world."""
    found = subprocess.run([sys.executable, "-m", "factory.bench.episodes", str(world), machine, str(repeats)],
                           cwd=REPO, check=True, capture_output=True, text=True)
    figures: list[dict[str, Any]] = json.loads(found.stdout)
    return figures


def _reset_in_process(world: Path, machine: str, repeats: int) -> list[dict[str, Any]]:
    from episodes.app import load_app
    from episodes.store import EpisodeStore
    from episodes.world import ServedWorld

    served = ServedWorld.load(world)
    with tempfile.TemporaryDirectory(prefix="episode-bench-") as tmp:
        loaded = load_app(served, Path(tmp) / "park.db")
        store = EpisodeStore(served, Path(tmp) / "episodes", loaded.make_engine)
        episode = store.create(None, next(iter(served.users)))
        resets, copies = [], []
        for i in range(repeats):
            start = time.perf_counter()
            store.reset(episode.id)
            resets.append(1000 * (time.perf_counter() - start))
            start = time.perf_counter()
            shutil.copyfile(served.seed_db, Path(tmp) / f"floor-{i % 2}.db")
            copies.append(1000 * (time.perf_counter() - start))
        store.cleanup()
    name = served.name
    return [_figure(f"episode_reset_ms.{name}", "ms", resets, machine),
            _figure(f"episode_reset_p95_ms.{name}", "ms", [_p95(resets)], machine),
            _figure(f"plain_copy_ms.{name}", "ms", copies, machine)]


class _Server:
    """`python -m episodes serve` as a child process on free ports."""

    def __init__(self, world: Path, max_episodes: int) -> None:
        self.token = secrets.token_urlsafe(24)
        port, eval_port = free_port(), free_port()
        self.agent = f"http://127.0.0.1:{port}"
        self.evaluator = httpx.Client(base_url=f"http://127.0.0.1:{eval_port}", timeout=120, limits=LIMITS,
                                      headers={"authorization": f"Bearer {self.token}"})
        self.process = subprocess.Popen([sys.executable, "-m", "episodes", "serve", str(world), "--port", str(port),
                                         "--eval-port", str(eval_port), f"--token={self.token}",
                                         "--max-episodes", str(max_episodes)], cwd=REPO,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if self.evaluator.get("/health").status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the episode server did not start within 60 s")

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.evaluator.close()


def load_figures(world: Path, machine: str, episodes: int = LOAD_EPISODES) -> list[dict[str, Any]]:
    """Memory per idle episode, then `episodes` concurrent episodes each solving a task over HTTP;
    leaks counted by comparing each final diff with the same task's diff when solved alone."""
    tasks = [t for t in _tasks(world) if t["golden_steps"] or t.get("reference_answer") is not None]
    by_id = {t["id"]: t for t in tasks}
    server = _Server(world, max_episodes=episodes + 8)
    try:
        expected = {t["id"]: _solo_diff(server, t) for t in tasks}
        before = server.rss_kib()
        created = [server.evaluator.post("/episodes", json={"task_id": tasks[i % len(tasks)]["id"]}).json()
                   for i in range(episodes)]
        per_episode_mib = (server.rss_kib() - before) / 1024 / episodes
        requests: list[float] = []
        lock = threading.Lock()

        def solve(episode: dict[str, Any]) -> None:
            times = _solve(server.agent, episode, by_id[episode["task_id"]])
            with lock:
                requests.extend(times)

        def judge(episode: dict[str, Any]) -> tuple[float, bool]:
            task = by_id[episode["task_id"]]
            diff = server.evaluator.get(f"/episodes/{episode['episode_id']}/diff").json()["summary"]
            graded = server.evaluator.post(f"/episodes/{episode['episode_id']}/grade",
                                           json={"answer": task.get("reference_answer")}).json()
            return float(graded["reward"]), diff == expected[task["id"]]

        # all episodes act at once; then (not competing with them) every final state is judged
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=episodes) as pool:
            list(pool.map(solve, created))
        wall = time.perf_counter() - start
        with ThreadPoolExecutor(max_workers=8) as pool:
            outcomes = list(pool.map(judge, created))
        resets = []
        for episode in created[:50]:
            begin = time.perf_counter()
            server.evaluator.post(f"/episodes/{episode['episode_id']}/reset")
            resets.append(1000 * (time.perf_counter() - begin))
    finally:
        server.stop()
    name = json.loads((world / "spec.json").read_text())["world"]
    leaks = sum(not same for _, same in outcomes)
    return [_figure(f"episode_memory_mib.{name}", "MiB", [per_episode_mib], machine),
            _figure(f"episode_load_leaks.{name}", "episodes", [float(leaks)], machine),
            _figure(f"episode_load_rewarded.{name}", "ratio", [sum(r == 1.0 for r, _ in outcomes) / len(outcomes)], machine),
            _figure(f"episode_load_seconds.{name}", "s", [wall], machine),
            _figure(f"episode_request_ms.{name}", "ms", requests, machine),
            _figure(f"episode_request_p95_ms.{name}", "ms", [_p95(requests)], machine),
            _figure(f"episode_http_reset_ms.{name}", "ms", resets, machine),
            _figure(f"episode_http_reset_p95_ms.{name}", "ms", [_p95(resets)], machine)]


def _solo_diff(server: _Server, task: dict[str, Any]) -> str:
    episode = server.evaluator.post("/episodes", json={"task_id": task["id"]}).json()
    _solve(server.agent, episode, task)
    summary = str(server.evaluator.get(f"/episodes/{episode['episode_id']}/diff").json()["summary"])
    server.evaluator.delete(f"/episodes/{episode['episode_id']}")
    return summary


def _solve(agent_url: str, episode: dict[str, Any], task: dict[str, Any]) -> list[float]:
    """The task's golden calls as its user (a read task reads its starting list); request times in ms."""
    times: list[float] = []
    with httpx.Client(base_url=agent_url, timeout=120, limits=LIMITS) as agent:
        agent.get(episode["launch_url"])
        calls = [("POST", f"/api/workflows/{s['workflow']}", s["params"]) for s in task["golden_steps"]]
        for method, path, body in calls or [("GET", "/api/auth/session", None)]:
            start = time.perf_counter()
            agent.request(method, path, json=body)
            times.append(1000 * (time.perf_counter() - start))
    return times



def oracle_figures(world: Path, machine: str, noise_seed: int = 7) -> list[dict[str, Any]]:
    """The oracle (golden UI trajectories in Chromium through the episode server) on every task,
    clean and in noisy mode: the pass rates (target 1.0) and the perturbations it met."""
    from factory.agents.oracle import run_oracle

    name = json.loads((world / "spec.json").read_text())["world"]
    server = _Server(world, max_episodes=64)
    figures: list[dict[str, Any]] = []
    try:
        for mode, seed in (("clean", None), ("noisy", noise_seed)):
            start = time.perf_counter()
            rollouts = run_oracle(world, str(server.evaluator.base_url).rstrip("/"), server.token, noise_seed=seed)
            seconds = time.perf_counter() - start
            passed = sum(r.reward == 1.0 for r in rollouts) / max(1, len(rollouts))
            dismissed = sum(a.kind == "dismiss" for r in rollouts for a in r.actions)
            figures += [_figure(f"oracle_pass_rate_{mode}.{name}", "ratio", [passed], machine),
                        _figure(f"oracle_seconds_{mode}.{name}", "s", [seconds], machine)]
            if seed is not None:
                figures.append(_figure(f"oracle_noise_dismissed.{name}", "perturbations", [float(dismissed)], machine))
    finally:
        server.stop()
    return figures

if __name__ == "__main__":  # the child process of `reset_figures`
    sys.stdout.write(json.dumps(_reset_in_process(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]))))
