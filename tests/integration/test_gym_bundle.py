"""Gymnasium registration from an unpacked bundle, with no server running (`register_bundle`).

The mock task world's bundle is unpacked into a temporary folder; `register_bundle(folder)` registers
`worlds/mock-v0` from its bundle.json; the env made from it starts the folder's own episode server,
an agent solves a WRITE task over HTTP through the launch URL and `step` grades it 1; closing the
last env stops that server. `WORLD_BUNDLE` registers the same way at import.
"""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import gymnasium
import pytest

from episodes import local
from episodes.client import AgentSession
from episodes.errors import WorldNotServable
from episodes.gym_env import register_bundle, register_from_environment
from factory.bundle import build_bundle


@pytest.fixture(scope="module")
def unpacked(mock_tasks_world: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    bundle = build_bundle(mock_tasks_world, tmp_path_factory.mktemp("dist"))
    target = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(bundle.path) as tar:
        tar.extractall(target, filter="data")
    return target / f"mock-{bundle.version}"


def test_a_bundle_folder_registers_and_serves_itself(unpacked: Path) -> None:
    assert register_bundle(unpacked) == "worlds/mock-v0"
    records = [json.loads(line) for line in (unpacked / "tasks" / "tasks.jsonl").read_text().splitlines()]
    task = next(r for r in records if r["task_type"] == "write" and r["golden_steps"])
    env = gymnasium.make("worlds/mock-v0", task_id=task["id"])
    try:
        obs, info = env.reset()
        assert obs["task_id"] == task["id"] and obs["launch_url"].startswith("http://127.0.0.1:")
        server = local._servers[unpacked.resolve()][0]
        with AgentSession(obs["launch_url"]) as agent:
            assert agent.whoami() == task["metadata"]["acting_user"]
            for step in task["golden_steps"]:
                agent.workflow(step["workflow"], step["params"])
        _obs, reward, terminated, truncated, info = env.step({"type": "done"})
        assert (reward, terminated, truncated, info["passed"]) == (1.0, True, False, True)
    finally:
        env.close()
    assert unpacked.resolve() not in local._servers and server._process is None  # the last env stopped it
    assert not (unpacked / "run").exists(), "the bundle folder is only read"


def test_world_bundle_registers_at_import_and_a_bad_folder_is_named(unpacked: Path, tmp_path: Path) -> None:
    assert register_from_environment({"WORLD_BUNDLE": str(unpacked)}) == "worlds/mock-v0"
    assert gymnasium.spec("worlds/mock-v0").kwargs == {"world_dir": str(unpacked.resolve())}
    with pytest.warns(UserWarning, match=r"neither bundle\.json nor spec\.json"):
        assert register_from_environment({"WORLD_BUNDLE": str(tmp_path)}) is None
    with pytest.raises(WorldNotServable, match=r"neither bundle\.json nor spec\.json"):
        register_bundle(tmp_path)
