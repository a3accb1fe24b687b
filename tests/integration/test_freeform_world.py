"""The free-form seed on the command line, as a user runs it: refused without a model, drafted
through the scripted fake endpoint with one, and every YAML seed exactly as before either way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import git
import pytest
import yaml
from fakes.openai_server import FakeOpenAI, Scripted

from factory.author.sections import SECTIONS

REPO = Path(__file__).resolve().parents[2]
PARAGRAPH = "seeds/freeform/toolshed.md"
FIXTURE = REPO / "tests" / "fixtures" / "freeform" / "toolshed.yaml"


def _env(**model: str) -> dict[str, str]:
    """This process's environment without any model setting, plus `model`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FACTORY_LLM_", "OPENAI_"))}
    return {**env, **model}


def _factory(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "factory", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env=env)


def _script() -> list[Scripted]:
    seed = yaml.safe_load(FIXTURE.read_text())
    return [Scripted({k: seed[k] for k in s.keys if k in seed}) for s in SECTIONS]


@pytest.mark.parametrize("command", ["check", "world"])
def test_a_free_form_seed_without_a_model_is_refused_in_one_line(command: str, tmp_path: Path) -> None:
    out = tmp_path / "worlds"
    args = [command, PARAGRAPH] + (["--out", str(out)] if command == "world" else [])
    result = _factory(*args, env=_env(OPENAI_API_KEY="sk-not-a-model-setting"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {PARAGRAPH}: a free-form seed needs a model and none is configured: "
                               "set FACTORY_LLM_MODEL (and FACTORY_LLM_BASE_URL and FACTORY_LLM_API_KEY")
    assert not out.exists()  # nothing written


def test_yaml_seeds_behave_exactly_as_before_with_or_without_a_model(tmp_path: Path) -> None:
    # a model configured at a dead address: a YAML seed must never reach it, nor load the seam
    dead = _env(FACTORY_LLM_MODEL="m", FACTORY_LLM_BASE_URL="http://127.0.0.1:9/v1")
    offline = _env()
    checks = [_factory("check", "seeds/mock.yaml", env=env) for env in (offline, dead)]
    assert checks[0].returncode == checks[1].returncode == 0
    assert (checks[0].stdout, checks[0].stderr) == (checks[1].stdout, checks[1].stderr)
    probe = ("import sys; from factory.cli import main; main(['check', 'seeds/mock.yaml']); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'openai' or m.startswith('factory.llm')))")
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, env=dead, timeout=120)
    assert loaded.stdout.strip() == "[]", loaded.stdout + loaded.stderr
    worlds = []
    for name, env in (("offline", offline), ("dead", dead)):
        result = _factory("world", "seeds/mock.yaml", "--out", str(tmp_path / name), "--build-only", "--no-frontend", env=env)
        assert result.returncode == 0, result.stderr
        assert "llm:" not in result.stderr
        worlds.append(tmp_path / name / "mock")
    assert (worlds[0] / "spec.json").read_bytes() == (worlds[1] / "spec.json").read_bytes()
    assert (worlds[0] / "data" / "seed.db").read_bytes() == (worlds[1] / "data" / "seed.db").read_bytes()
    assert git.Repo(worlds[0]).head.commit.hexsha == git.Repo(worlds[1]).head.commit.hexsha
    assert not (worlds[1] / "reports" / "llm_usage.json").exists()


def test_check_drafts_then_world_builds_from_the_cache(tmp_path: Path) -> None:
    out = tmp_path / "worlds"
    with FakeOpenAI(_script()) as fake:
        env = _env(**fake.env(FACTORY_LLM_CACHE=str(tmp_path / "cache"), FACTORY_LLM_PRICE_INPUT="1",
                              FACTORY_LLM_PRICE_OUTPUT="4"))
        check = _factory("check", PARAGRAPH, env=env)
        assert check.returncode == 0, check.stderr
        assert fake.count == len(SECTIONS)
        assert f"ok {PARAGRAPH}" in check.stderr or "ok toolshed.seed.yaml" in check.stderr
        assert not out.exists()  # check writes no seed and no world
        world = _factory("world", PARAGRAPH, "--out", str(out), "--build-only", "--no-frontend", env=env)
        assert world.returncode == 0, world.stderr
        assert fake.count == len(SECTIONS)  # the cache answered every question: no request
    assert f"({len(SECTIONS)} requests, 0 from the cache)" in check.stderr
    assert f"(0 requests, {len(SECTIONS)} from the cache)" in world.stderr
    kept = out / "toolshed.seed.yaml"
    assert kept.read_bytes() == (out / "toolshed" / "seed.yaml").read_bytes()  # the world's seed is the drafted one
    again = _factory("check", str(kept), env=_env())  # and it is an ordinary seed: no model needed any more
    assert again.returncode == 0, again.stderr
    usage = json.loads((out / "toolshed" / "reports" / "llm_usage.json").read_text())
    prompt = sum(len(json.dumps(r["messages"])) // 4 for r in fake.requests)  # the fake's token counts
    completion = sum(len(s.text()) // 4 for s in _script())
    assert (usage["calls"], usage["prompt_tokens"], usage["completion_tokens"]) == (len(SECTIONS), prompt, completion)
    assert usage["cost_usd"] == pytest.approx((prompt * 1 + completion * 4) / 1e6)
    assert sum(p["prompt_tokens"] for p in usage["by_purpose"].values()) == prompt
    repo = git.Repo(out / "toolshed")
    assert repo.head.commit.message.startswith("llm: the seed drafted by fake-model")
    assert not repo.is_dirty(untracked_files=True)


@pytest.mark.slow
def test_a_world_from_a_paragraph_passes_the_claims_bar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from factory.cli import main
    from factory.world.manifest import read_manifest

    with FakeOpenAI(_script()) as fake:
        for key, value in fake.env(FACTORY_LLM_CACHE=str(tmp_path / "cache")).items():
            monkeypatch.setenv(key, value)
        assert main(["world", str(REPO / PARAGRAPH), "--out", str(tmp_path / "worlds"), "--no-tasks"]) == 0
    manifest = read_manifest(tmp_path / "worlds" / "toolshed" / "manifest.json")
    assert manifest.claims.total >= 100 and manifest.claims.browser  # browser claims included
    assert manifest.claims.passed / manifest.claims.total >= 0.95, manifest.claims
    assert (tmp_path / "worlds" / "toolshed" / "reports" / "llm_usage.json").is_file()
