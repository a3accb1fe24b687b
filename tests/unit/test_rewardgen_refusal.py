"""reward-gen refuses to run where its sandbox cannot be made, says why and how to fix it, and
probes bubblewrap once per process; `mode="unsafe"` (--unsafe-sandbox) needs no bwrap at all.

Real parts: a fake `bwrap` (a shell script that fails), a real child process for the unsafe mode,
the mini spec fixture and an SQLite file.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from factory.errors import TaskError
from factory.tasks.reward import jobs as jobrunner
from factory.tasks.reward.gen import run_rewardgen
from factory.tasks.reward.sandbox import Limits, SandboxUnavailableError, namespace_options

SPEC = Path(__file__).resolve().parents[1] / "fixtures" / "mini_spec.json"
POLICY = '''
def policy(instruction, spec, db):
    return {"schema_version": 1, "checks": [{"id": "same", "type": "diff_within", "allowed": {},
            "description": instruction["goal"] + " as " + instruction["user"]}]}
'''


@pytest.fixture()
def job(tmp_path: Path) -> dict[str, str]:
    db = tmp_path / "initial.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
    return {"id": "mini-write-x-001", "goal": "Do it.", "user": "alice", "initial_db": str(db)}


@pytest.fixture()
def policy_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("policy")
    (folder / "tiny.py").write_text(POLICY)
    return folder


def _fake_bwrap(folder: Path, body: str) -> Path:
    fake = folder / "bwrap"
    fake.write_text(f"#!/bin/sh\n{body}\n")
    fake.chmod(0o755)
    return fake


def test_a_missing_bwrap_is_refused_with_how_to_fix_it(job: dict[str, str], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "nowhere" / "bwrap"
    monkeypatch.setenv("FACTORY_BWRAP", str(missing))
    with pytest.raises(SandboxUnavailableError) as caught:
        run_rewardgen(SPEC, [job], tmp_path / "rg")
    message = str(caught.value)
    assert f"{missing} does not exist" in message
    assert "apt-get install bubblewrap" in message and "--unsafe-sandbox" in message
    assert "user.max_user_namespaces" in message
    assert isinstance(caught.value, TaskError) and not (tmp_path / "rg").exists()


def test_no_bwrap_on_path_is_refused(job: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FACTORY_BWRAP", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no bwrap anywhere
    with pytest.raises(SandboxUnavailableError, match="no `bwrap` on PATH"):
        run_rewardgen(SPEC, [job], tmp_path / "rg")


def test_a_bwrap_that_cannot_make_namespaces_is_refused_and_probed_once(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    fake = _fake_bwrap(tmp_path, f'echo run >> {calls}\necho "bwrap: setting up uid map: Permission denied" >&2\n'
                                 "exit 1")
    with pytest.raises(SandboxUnavailableError) as caught:
        namespace_options(fake)
    assert "failed (exit 1)" in str(caught.value) and "uid map: Permission denied" in str(caught.value)
    probes = calls.read_text().count("run")
    assert probes >= 1
    with pytest.raises(SandboxUnavailableError):
        namespace_options(fake)  # the answer is cached for this process: no second probe
    assert calls.read_text().count("run") == probes


def test_a_bwrap_that_is_not_executable_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("not a program")
    with pytest.raises(SandboxUnavailableError, match="is not executable"):
        namespace_options(fake)


def test_the_unsafe_mode_needs_no_bwrap(job: dict[str, str], policy_dir: Path, tmp_path: Path) -> None:
    result = run_rewardgen(SPEC, [job], tmp_path / "rg", "tiny:policy", policy_dir, mode="unsafe",
                           bwrap=str(tmp_path / "no-such-bwrap"))
    assert result[job["id"]]["ok"] is True, result
    assert result[job["id"]]["reward"]["checks"][0]["description"] == "Do it. as alice"


def test_bad_arguments_say_what_and_where(job: dict[str, str], tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="sandbox mode 'docker' is not one of bwrap, unsafe"):
        run_rewardgen(SPEC, [job], tmp_path / "rg", mode="docker")
    with pytest.raises(TaskError, match="limit cpu_seconds must be a positive number, not 0"):
        Limits(cpu_seconds=0)
    with pytest.raises(TaskError, match="reward-gen job 1: missing goal"):
        run_rewardgen(SPEC, [job, {"id": "b", "user": "alice", "initial_db": job["initial_db"]}], tmp_path / "rg",
                      mode="unsafe")
    with pytest.raises(TaskError, match=r"initial database .*nope\.db does not exist"):
        run_rewardgen(SPEC, [{**job, "initial_db": str(tmp_path / "nope.db")}], tmp_path / "rg", mode="unsafe")
    with pytest.raises(TaskError, match="workers must be at least 1"):
        run_rewardgen(SPEC, [job], tmp_path / "rg", mode="unsafe", workers=0)


def test_identical_jobs_share_one_sandbox_and_an_opaque_id(job: dict[str, str], policy_dir: Path,
                                                          tmp_path: Path) -> None:
    twin = {**job, "id": "mini-write-x-002"}
    jobs = jobrunner._jobs([job, twin, {**job, "id": "mini-write-y-003", "goal": "Do that."}])
    assert [j.tasks for j in jobs] == [("mini-write-x-001", "mini-write-x-002"), ("mini-write-y-003",)]
    assert all(len(j.key) == 16 and "mini" not in j.key for j in jobs)
    result = run_rewardgen(SPEC, [job, twin], tmp_path / "rg", "tiny:policy", policy_dir, mode="unsafe")
    assert result[job["id"]] == result[twin["id"]] and result[job["id"]]["ok"]
