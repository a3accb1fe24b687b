"""Exports of the mock world with its task corpus (`mock_tasks_world`, only read): `factory export`.

- every format gives the same bytes twice, and refuses to replace a folder it did not write;
- Echoverse: a loader reads `test_tasks.jsonl` as the harness's would (every field present and typed,
  only the test split, initial databases that exist), and the harness's launch convention runs the
  export: `uv run python -m backend.app …` resolves the app's pyproject and lock, `npm install` and
  `npm run dev` (VITE_PORT, VITE_API_PORT) serve the page and send `/api` through the dev proxy;
- Harbor: per task, the initial state grades 0 and the golden solution 1 by running `tests/test.sh`;
  a changed grader grades 0; task.toml is TOML with Harbor's sections;
- Hugging Face: `datasets.load_dataset("parquet" / "json", data_files=...)` loads rows equal to the corpus.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from factory.cli import main
from factory.export import ExportError, export_echoverse, export_harbor, export_hf
from factory.export.hf import record_of
from factory.export.locks import stale
from factory.runtime.server import free_port

TYPES = {"read", "write", "read_write"}


def _records(world: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (world / "tasks" / "tasks.jsonl").read_text().splitlines() if line.strip()]


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def echoverse_root(mock_tasks_world: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("echoverse")
    export_echoverse(mock_tasks_world, root)
    return root


@pytest.mark.parametrize("fmt", ["echoverse", "harbor", "hf"])
def test_an_export_is_byte_identical_twice_and_refuses_a_foreign_folder(mock_tasks_world: Path, tmp_path: Path,
                                                                        fmt: str) -> None:
    assert main(["export", fmt, str(mock_tasks_world), "--out", str(tmp_path / "a")]) == 0
    assert main(["export", fmt, str(mock_tasks_world), "--out", str(tmp_path / "a")]) == 0  # replaces its own
    assert main(["export", fmt, str(mock_tasks_world), "--out", str(tmp_path / "b")]) == 0
    first, second = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    assert first == second and len(first) >= 3  # hf: the card, the manifest and one file per split present
    assert not any(name.endswith(".partial") for name in os.listdir(tmp_path / "a"))
    (tmp_path / "c" / "mock").mkdir(parents=True)
    (tmp_path / "c" / "mock" / "notes.txt").write_text("mine")
    exporter = {"echoverse": export_echoverse, "harbor": export_harbor, "hf": export_hf}[fmt]
    with pytest.raises(ExportError, match="is not an export"):
        exporter(mock_tasks_world, tmp_path / "c")
    assert (tmp_path / "c" / "mock" / "notes.txt").read_text() == "mine"


def test_the_shipped_locks_match_the_app_pins() -> None:
    assert stale() == []


# ---- Echoverse ------------------------------------------------------------------------------------------------
def _load_like_echoverse(root: Path, env: str) -> list[dict[str, Any]]:
    """What the harness's loader needs of each line of test_tasks.jsonl, checked field by field."""
    entry = json.loads((root / "registry.json").read_text())["environments"][env]
    tasks = []
    for line in (root / entry["tasks"]["test"]).read_text().splitlines():
        t = json.loads(line)
        for key, kind in (("id", str), ("goal", str), ("task_type", str), ("difficulty", str), ("estimated_actions", int),
                          ("category", str), ("reference_state_change", str), ("verification_query", str),
                          ("metadata", dict), ("db_file", str)):
            assert isinstance(t[key], kind), (t["id"], key)
        assert t["task_type"] in TYPES
        if t["task_type"] != "write":
            assert isinstance(t["reference_answer"], str) and t["reference_answer"], t["id"]
        else:
            assert t["reference_answer"] is None
        if t["task_type"] == "read":
            assert t["verification_query"].strip(), t["id"]
        meta = t["metadata"]
        assert isinstance(meta["starting_url"], str) and isinstance(meta["acting_user_id"], int)
        assert meta["required_entities"] and all(set(e) == {"table", "id"} and isinstance(e["table"], str)
                                                 and isinstance(e["id"], int) for e in meta["required_entities"])
        assert (root / entry["path"] / t["db_file"]).is_file()
        tasks.append(t)
    return tasks


def test_the_echoverse_loader_reads_the_test_split(mock_tasks_world: Path, echoverse_root: Path) -> None:
    records = {r["id"]: r for r in _records(mock_tasks_world)}
    tests = _load_like_echoverse(echoverse_root, "mock")
    assert {t["id"] for t in tests} == {i for i, r in records.items() if r["split"] == "test"}
    env = echoverse_root / "mock"
    train = [json.loads(line) for line in (env / "tasks" / "train_tasks.jsonl").read_text().splitlines()]
    assert {t["id"] for t in train} == {i for i, r in records.items() if r["split"] == "train"}
    for task in tests + train:
        record = records[task["id"]]
        assert task["reference_state_change"] == record["reference_state_change"]["sql"]
        db = env / task["db_file"]
        if record["setup"]["patch"].strip():
            assert task["db_file"] == f"tasks/dbs/{task['id']}.db"
            assert db.read_bytes() != (env / "mock.db").read_bytes()
        else:
            assert task["db_file"] == "mock.db"
        tables = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {e["table"] for e in task["metadata"]["required_entities"]} <= tables
        if task["task_type"] == "read":  # the derived query runs on the task's initial database and gives a value
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                assert conn.execute(task["verification_query"].split(";")[0]).fetchall()
    manifest = json.loads((env / "export.json").read_text())
    assert manifest["format"] == "echoverse" and manifest["tasks"]["total"] == len(records)
    assert manifest["fallbacks"] == [], manifest["fallbacks"]
    assert (env / "mock.db").read_bytes() == (mock_tasks_world / "data" / "seed.db").read_bytes()


def _uv() -> str:
    found = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
    if not Path(found).is_file():  # the test extra installs it; install it here if it is absent
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "uv"], check=True, timeout=600)
    return found


@pytest.fixture()
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:  # each in a session of its own: stop the whole group (npm's node, uv's python)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _wait(url: str, seconds: float, process: subprocess.Popen[bytes], log: Path) -> httpx.Response:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, f"exited {process.returncode}:\n{log.read_text()[-3000:]}"
        try:
            response = httpx.get(url, timeout=5)
            if response.status_code == 200:
                return response
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"{url} did not answer in {seconds} s:\n{log.read_text()[-3000:]}")


def test_the_echoverse_launch_convention_serves_the_export(echoverse_root: Path, tmp_path: Path,
                                                           processes: list[subprocess.Popen[bytes]]) -> None:
    root = tmp_path / "harness"
    shutil.copytree(echoverse_root, root)  # the launcher's own copy: uv and npm write into it
    entry = json.loads((root / "registry.json").read_text())["environments"]["mock"]
    env_dir = root / entry["path"]
    lock = (env_dir / "uv.lock").read_bytes()
    db = tmp_path / "episode.db"
    shutil.copyfile(env_dir / entry["db"], db)
    api, web = free_port(), free_port()
    values = {"host": "127.0.0.1", "api_port": str(api), "port": str(web), "db": str(db), "user": entry["user"]}
    environ = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    environ["PATH"] = f"{Path(_uv()).parent}{os.pathsep}{environ['PATH']}"

    started = time.perf_counter()
    backend_log = tmp_path / "backend.log"
    argv = [a.format(**values) for a in entry["backend"]["argv"]]
    assert argv[:5] == ["uv", "run", "python", "-m", "backend.app"]
    with open(backend_log, "wb") as log:
        processes.append(subprocess.Popen(argv, cwd=root / entry["backend"]["cwd"], env=environ, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True))
    health = _wait(f"http://127.0.0.1:{api}/api/health", 600, processes[-1], backend_log)
    assert health.json()["world"] == "mock"
    print(f"\nuv run: backend up in {time.perf_counter() - started:.1f} s")
    assert (env_dir / "uv.lock").read_bytes() == lock, "uv re-locked: the shipped uv.lock does not match pyproject.toml"

    frontend = root / entry["frontend"]["cwd"]
    started = time.perf_counter()
    install = subprocess.run(["npm", "install", "--no-audit", "--no-fund"], cwd=frontend, env=environ,
                             capture_output=True, text=True, timeout=600, check=False)
    assert install.returncode == 0, install.stderr
    print(f"npm install: {time.perf_counter() - started:.1f} s")
    frontend_log = tmp_path / "frontend.log"
    dev_env = {**environ, **{k: v.format(**values) for k, v in entry["frontend"]["env"].items()}}
    with open(frontend_log, "wb") as log:
        processes.append(subprocess.Popen(entry["frontend"]["argv"], cwd=frontend, env=dev_env, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True))
    page = _wait(f"http://127.0.0.1:{web}/", 120, processes[-1], frontend_log)
    assert '<div id="root">' in page.text and "/src/main.jsx" in page.text
    assert httpx.get(f"http://127.0.0.1:{web}/src/main.jsx", timeout=30).status_code == 200  # JSX compiled by Vite
    me = httpx.get(f"http://127.0.0.1:{web}/api/auth/me", timeout=10)  # through the dev proxy, as the default user
    assert me.status_code == 200 and me.json()["user"]["username"] == entry["user"]
    assert httpx.get(f"http://127.0.0.1:{web}/api/health", timeout=10).json()["ok"] is True


# ---- Harbor ----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def harbor_root(mock_tasks_world: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_harbor(mock_tasks_world, tmp_path_factory.mktemp("harbor")).root


def _harbor_env(home: Path, port: int, tmp: Path) -> dict[str, str]:
    return {**os.environ, "WORLD_HOME": str(home), "WORLD_PORT": str(port), "WORLD_APP_URL": f"http://127.0.0.1:{port}",
            "ANSWER_FILE": str(tmp / "answer.txt"), "REWARD_DIR": str(tmp / "logs"), "WORLD_PYTHON": sys.executable}


def _reward(task: Path, environ: dict[str, str]) -> str:
    done = subprocess.run(["bash", str(task / "tests" / "test.sh")], env=environ, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return (Path(environ["REWARD_DIR"]) / "reward.txt").read_text().strip()


@pytest.mark.parametrize("task_type", ["write", "read", "read_write"])
def test_a_harbor_task_grades_its_initial_state_0_and_its_solution_1(mock_tasks_world: Path, harbor_root: Path,
                                                                     tmp_path: Path, task_type: str) -> None:
    candidates = [r for r in _records(mock_tasks_world) if r["task_type"] == task_type]
    if not candidates:
        pytest.skip(f"the mock corpus has no {task_type} task")
    record = next((r for r in candidates if r["setup"]["patch"].strip()), candidates[0])
    task = harbor_root / "tasks" / record["id"]
    config = tomllib.loads((task / "task.toml").read_text())
    assert config["task"]["name"] == f"world-factory/{record['id']}" and {"verifier", "agent", "environment"} <= set(config)
    assert record["goal"] in (task / "instruction.md").read_text()
    assert "reward" not in json.loads((task / "environment" / "task.json").read_text())  # the agent never sees it
    home = tmp_path / "world"  # what the task's Dockerfile makes: the base image's world plus the task's task.json
    shutil.copytree(harbor_root / "image" / "world", home)
    shutil.copyfile(task / "environment" / "task.json", home / "task.json")
    environ = _harbor_env(home, free_port(), tmp_path)
    world = [sys.executable, str(home / "world.py")]
    subprocess.run([*world, "prepare"], env=environ, check=True, timeout=60)
    subprocess.run([*world, "start"], env=environ, check=True, timeout=120)
    try:
        assert _reward(task, environ) == "0"
        solved = subprocess.run(["bash", str(task / "solution" / "solve.sh")], env=environ, capture_output=True,
                                text=True, timeout=120, check=False)
        assert solved.returncode == 0, solved.stderr
        assert _reward(task, environ) == "1", (Path(environ["REWARD_DIR"]) / "grade.json").read_text()
        grader = home / "verifiers" / "grade.py"
        grader.write_text(grader.read_text() + "\n# changed by the agent\n")
        assert _reward(task, environ) == "0"
        assert "was changed" in json.loads((Path(environ["REWARD_DIR"]) / "grade.json").read_text())["explanation"]
    finally:
        subprocess.run([*world, "stop"], env=environ, check=False, timeout=60)


# ---- Hugging Face datasets ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_the_hf_export_loads_with_datasets_and_equals_the_corpus(mock_tasks_world: Path, tmp_path: Path, fmt: str) -> None:
    datasets = pytest.importorskip("datasets")
    root = export_hf(mock_tasks_world, tmp_path / "hf", fmt=fmt).root  # type: ignore[arg-type]
    front = yaml.safe_load((root / "README.md").read_text().split("---\n")[1])
    files = {c["split"]: str(root / c["path"]) for c in front["configs"][0]["data_files"]}
    loaded = datasets.load_dataset("parquet" if fmt == "parquet" else "json", data_files=files,
                                   cache_dir=str(tmp_path / "cache"))
    records = {r["id"]: r for r in _records(mock_tasks_world)}
    rows = [(split, row) for split in loaded for row in loaded[split]]
    assert sorted(row["id"] for _s, row in rows) == sorted(records)
    for split, row in rows:
        assert row["split"] == split and record_of(row) == records[row["id"]]
    if fmt == "parquet":
        declared = datasets.Features._from_yaml_list(front["dataset_info"]["features"])
        assert all(loaded[s].features == declared for s in loaded)
    assert {s["name"]: s["num_examples"] for s in front["dataset_info"]["splits"]} == {s: len(loaded[s]) for s in loaded}
