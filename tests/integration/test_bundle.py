"""Benchmark bundles of the mock world with its task corpus (`mock_tasks_world`, only read).

- the same world (here, and copied elsewhere) bundles to the same bytes, with a fixed tar and gzip;
- `bundle.json` says what the world is and lists every file, and the bundle holds only what a user runs;
- `factory bundle verify` passes a good bundle (every task's initial state 0, golden state 1, through
  the bundle's own episode server) and rejects a tampered byte, a deleted and an extra file, naming each;
- the bundle runs without the factory: unpacked into a temporary folder with a fresh venv holding only
  its `requirements.txt`, it serves an episode that its golden steps solve to reward 1 over HTTP, and
  its `grade_rollouts.py` grades the rollouts file the server wrote (and catches a false reward).
"""

from __future__ import annotations

import calendar
import json
import os
import shutil
import subprocess
import tarfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factory.bundle import BuiltBundle, build_bundle, verify_bundle
from factory.bundle.archive import read_tarball, write_tarball
from factory.bundle.manifest import BUNDLE_JSON, sha256
from factory.bundle.verify import FileProblem, fresh_venv
from factory.cli import main
from factory.runtime.server import free_port

TOKEN = "bundle-test-token-0123456789"


@pytest.fixture(scope="module")
def built(mock_tasks_world: Path, tmp_path_factory: pytest.TempPathFactory) -> BuiltBundle:
    started = time.perf_counter()
    bundle = build_bundle(mock_tasks_world, tmp_path_factory.mktemp("dist"))
    print(f"\n{bundle.path.name}: {bundle.size} bytes, {bundle.files} files, built in {time.perf_counter() - started:.2f}s")
    return bundle


def _records(world: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (world / "tasks" / "tasks.jsonl").read_text().splitlines() if line.strip()]


def test_a_bundle_built_twice_and_from_a_copy_is_byte_identical(mock_tasks_world: Path, built: BuiltBundle,
                                                                tmp_path: Path) -> None:
    again = build_bundle(mock_tasks_world, tmp_path / "again")
    copy = tmp_path / "elsewhere" / "mock"
    shutil.copytree(mock_tasks_world, copy)  # other paths, other mtimes, the same contents
    moved = build_bundle(copy, tmp_path / "moved")
    assert again.path.name == moved.path.name == built.path.name == f"mock-{built.version}.tar.gz"
    assert again.path.read_bytes() == built.path.read_bytes() == moved.path.read_bytes()

    raw = built.path.read_bytes()
    assert raw[:3] == b"\x1f\x8b\x08" and raw[3] & 0x08 == 0, "the gzip header names no file"
    assert raw[4:8] == b"\0\0\0\0", "the gzip header's mtime is 0"
    with tarfile.open(built.path) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names == sorted(names) and all(n.startswith(f"mock-{built.version}/") for n in names)
    midnight = calendar.timegm(time.strptime(built.info["today"], "%Y-%m-%d"))  # the world's frozen date, UTC
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname, m.mode, m.type) for m in members} == \
        {(midnight, 0, 0, "", "", 0o644, tarfile.REGTYPE)}


def test_the_manifest_says_what_the_bundle_is_and_lists_every_file(mock_tasks_world: Path,
                                                                   built: BuiltBundle) -> None:
    _top, files = read_tarball(built.path)
    info = json.loads(files[BUNDLE_JSON])
    records = _records(mock_tasks_world)
    assert info["name"] == "mock" and info["version"] == built.version and info["version"].startswith("0.1.0+")
    assert info["spec_sha256"] == sha256(files["spec.json"]) == sha256((mock_tasks_world / "spec.json").read_bytes())
    assert set(info["files"]) == set(files) - {BUNDLE_JSON}
    assert all(info["files"][p]["sha256"] == sha256(files[p]) for p in info["files"])
    tasks = info["counts"]["tasks"]
    assert tasks["total"] == len(records) == 12
    assert sum(tasks["by_type"].values()) == sum(tasks["by_split"].values()) == 12
    assert sorted(info["splits"]["train"] + info["splits"]["test"]) == sorted(r["id"] for r in records)
    assert info["claims"]["total"] >= 0 and info["gates"]["families"]["golden"]["passed"] == 12
    assert info["license"] is None and "names no license" in info["license_note"] and "LICENSE" not in files
    assert info["red_team"] is None
    assert "setup patch" in info["initial_states"]["how"]
    assert info["initial_states"]["tasks_with_patch"] + info["initial_states"]["tasks_on_seed"] == 12

    # what a user runs, and nothing else
    for needed in ("README.md", "requirements.txt", "grade_rollouts.py", "spec.json", "data/seed.db",
                   "tasks/tasks.jsonl", "app/backend/app.py", "app/frontend/dist/index.html",
                   "episodes/__main__.py", "verifiers/grade.py"):
        assert needed in files, needed
    assert not [p for p in files if "__pycache__" in p or p.endswith(".pyc") or "node_modules" in p
                or p.startswith(("app/frontend/src", "run/", "reports/", ".git", "tasks/trajectories"))]
    requirements = files["requirements.txt"].decode().splitlines()
    pins = [line for line in requirements if line and not line.startswith("#")]
    assert all("==" in p for p in pins) and {p.split("==")[0] for p in pins} >= {
        "fastapi", "uvicorn", "sqlmodel", "sqlalchemy", "pydantic", "httpx", "gymnasium", "mcp"}
    readme = files["README.md"].decode()
    assert "python -m episodes serve ." in readme and "grade_rollouts.py" in readme and "pip install" in readme


def test_verify_passes_a_good_bundle(built: BuiltBundle, capsys: pytest.CaptureFixture[str]) -> None:
    report = verify_bundle(built.path)
    assert report.ok, "\n".join(report.summary())
    assert report.problems == [] and report.files_checked == built.files + 1
    assert report.gates_run and len(report.tasks) == report.tasks_total == 12
    assert all(t.initial == 0.0 and t.golden == 1.0 for t in report.tasks)

    assert main(["bundle", "verify", str(built.path), "--sample", "3", "--seed", "7"]) == 0
    said = capsys.readouterr().err
    assert f"files: {built.files + 1} checked, 0 problems" in said
    assert "tasks: 3 checked (a sample of 3 (seed 7) of 12)" in said and "verified" in said


def _rewritten(built: BuiltBundle, target: Path, change: str) -> Path:
    top, files = read_tarball(built.path)
    if change == "tamper":
        data = bytearray(files["tasks/tasks.jsonl"])
        data[len(data) // 2] ^= 0x01  # one byte
        files["tasks/tasks.jsonl"] = bytes(data)
    elif change == "delete":
        del files["verifiers/grade.py"]
    else:
        files["episodes/extra.py"] = b"print('not listed')\n"
    write_tarball(target, top, files, 0)
    return target


@pytest.mark.parametrize(("change", "named"), [("tamper", FileProblem("tasks/tasks.jsonl", "tampered")),
                                               ("delete", FileProblem("verifiers/grade.py", "missing")),
                                               ("extra", FileProblem("episodes/extra.py", "extra"))])
def test_a_tampered_bundle_is_rejected_naming_the_file(built: BuiltBundle, tmp_path: Path, change: str,
                                                       named: FileProblem, capsys: pytest.CaptureFixture[str]) -> None:
    bad = _rewritten(built, tmp_path / built.path.name, change)
    report = verify_bundle(bad)
    assert report.problems == [named] and not report.ok and not report.gates_run
    assert main(["bundle", "verify", str(bad)]) == 1
    said = capsys.readouterr().err
    assert named.path in said and f"({named.problem})" in said and "REJECTED" in said and "gates not run" in said


# ---- without the factory -------------------------------------------------------------------------------
def _clean_env() -> dict[str, str]:
    """The environment without anything pointing at this checkout or its venv."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "WORLD_EVAL_TOKEN")}


@pytest.fixture(scope="module")
def standalone(built: BuiltBundle, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """The bundle unpacked into a temporary folder, and a fresh venv there holding only its requirements."""
    home = tmp_path_factory.mktemp("standalone")
    with tarfile.open(built.path) as tar:
        tar.extractall(home, filter="data")
    root = home / f"mock-{built.version}"
    started = time.perf_counter()
    python = fresh_venv(root, home / "venv")  # what `factory bundle verify --fresh-venv` serves from
    print(f"\nfresh venv: made and its requirements installed in {time.perf_counter() - started:.1f}s")
    yield root, python


AGENT = textwrap.dedent("""
    import json, sys
    import episodes, verifiers
    from episodes.client import AgentSession, EvaluatorClient
    try:
        import factory
        sys.exit("the factory is importable")
    except ModuleNotFoundError:
        pass
    eval_url, token, write_id, read_id = sys.argv[1:5]
    tasks = {t["id"]: t for t in map(json.loads, open("tasks/tasks.jsonl"))}
    out = {"episodes": episodes.__file__, "verifiers": verifiers.__file__}
    with EvaluatorClient(eval_url, token) as evaluator:
        task = tasks[write_id]
        episode = evaluator.create(task_id=write_id)
        out["initial"] = evaluator.grade(episode["episode_id"])["reward"]
        with AgentSession(episode["launch_url"]) as agent:
            for step in task["golden_steps"]:
                assert agent.workflow(step["workflow"], step["params"])["ok"] is True
        out["write"] = evaluator.finish(episode["episode_id"], agent="golden").reward
        episode = evaluator.create(task_id=read_id)
        out["read"] = evaluator.finish(episode["episode_id"], agent="golden",
                                       answer=tasks[read_id]["reference_answer"]).reward
    print(json.dumps(out))
""")


def _wait(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the bundle's server exited with {process.returncode}:\n{log.read_text()}"
        try:
            if httpx.get(url + "/health", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    pytest.fail(f"the bundle's server did not answer /health in 120 s:\n{log.read_text()}")


@pytest.mark.slow
def test_the_bundle_serves_and_grades_without_the_factory_in_a_fresh_venv(
        standalone: tuple[Path, Path], mock_tasks_world: Path) -> None:
    root, python = standalone
    records = _records(mock_tasks_world)
    write = next(r for r in records if r["task_type"] == "write" and r["golden_steps"])
    read = next(r for r in records if r["task_type"] == "read" and r.get("reference_answer"))
    port, eval_port = free_port(), free_port()
    log = root.parent / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen([str(python), "-m", "episodes", "serve", ".", "--port", str(port), "--eval-port",
                                   str(eval_port), "--token", TOKEN, "--rollouts", "runs/rollouts.jsonl"],
                                  cwd=root, env=_clean_env(), stdout=out, stderr=subprocess.STDOUT)
    eval_url = f"http://127.0.0.1:{eval_port}"
    try:
        _wait(server, eval_url, log)
        played = subprocess.run([str(python), "-c", AGENT, eval_url, TOKEN, write["id"], read["id"]], cwd=root,
                                env=_clean_env(), capture_output=True, text=True, timeout=300)
        assert played.returncode == 0, played.stdout + played.stderr
    finally:
        server.terminate()
        server.wait(timeout=30)
    result = json.loads(played.stdout.splitlines()[-1])
    assert Path(result["episodes"]).is_relative_to(root) and Path(result["verifiers"]).is_relative_to(root)
    assert (result["initial"], result["write"], result["read"]) == (0.0, 1.0, 1.0)

    rollouts = root / "runs" / "rollouts.jsonl"
    assert len(rollouts.read_text().splitlines()) == 2
    graded = subprocess.run([str(python), "grade_rollouts.py", str(rollouts), "--out", "graded.jsonl"], cwd=root,
                            env=_clean_env(), capture_output=True, text=True, timeout=300)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    assert "2 rollouts graded: mean reward 1.000, 2 passed; 0 differ from their recorded reward; 0 lines not graded" \
        in graded.stdout
    assert [json.loads(line)["reward"] for line in (root / "graded.jsonl").read_text().splitlines()] == [1.0, 1.0]

    # a record claiming 1 for a write it did not make is graded 0 and flagged
    forged = json.loads(rollouts.read_text().splitlines()[0])
    forged.update(final_diff=None, episode_id="ep-forged")
    liar = root / "runs" / "forged.jsonl"
    liar.write_text(json.dumps(forged) + "\n")
    caught = subprocess.run([str(python), "grade_rollouts.py", str(liar)], cwd=root, env=_clean_env(),
                            capture_output=True, text=True, timeout=300)
    assert caught.returncode == 1 and "recorded 1, graded 0 [DIFFERS]" in caught.stdout, caught.stdout + caught.stderr
