"""The LLM seam against a scripted OpenAI-compatible server on loopback (real HTTP, the real SDK):
validation retries that show the model its error, timeouts, the reply cache, the cost ledger."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fakes.openai_server import FakeOpenAI, Scripted
from pydantic import BaseModel, ConfigDict

from factory.errors import FactoryError
from factory.llm.accounting import Ledger, UsageReport
from factory.llm.ask import LLM, open_llm
from factory.llm.client import Endpoint
from factory.llm.config import LLMConfig, load_config
from factory.llm.errors import LLMConfigError, LLMReplyError, LLMRequestError
from factory.llm.keep import add_usage
from factory.world.layout import LLM_USAGE
from factory.world.manifest import Manifest, read_manifest, write_manifest

REPO = Path(__file__).resolve().parents[2]


class Pet(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    legs: int


def _config(fake: FakeOpenAI, cache: Path, **extra: str) -> LLMConfig:
    config = load_config(fake.env(**{"FACTORY_LLM_CACHE": str(cache), "FACTORY_LLM_BACKOFF": "0", **extra}))
    assert config is not None
    return config


def _ask(config: LLMConfig, purpose: str = "test.pet") -> Pet:
    return LLM(config).ask(purpose, [{"role": "user", "content": "A pet, please."}], Pet).value


def test_a_valid_reply_is_parsed_and_the_request_carries_the_schema(tmp_path: Path) -> None:
    with FakeOpenAI([Scripted({"name": "Rex", "legs": 4})]) as fake:
        assert _ask(_config(fake, tmp_path)) == Pet(name="Rex", legs=4)
    [request] = fake.requests
    assert request["model"] == "fake-model" and request["temperature"] == 0
    assert request["response_format"]["json_schema"]["name"] == "Pet"
    assert request["response_format"]["json_schema"]["schema"]["required"] == ["name", "legs"]


def test_malformed_json_is_answered_with_the_error_and_asked_again(tmp_path: Path) -> None:
    with FakeOpenAI([Scripted("Sure! Here is a pet: {name: Rex"), Scripted({"name": "Rex", "legs": 4})]) as fake:
        assert _ask(_config(fake, tmp_path)) == Pet(name="Rex", legs=4)
    assert fake.count == 2
    second = fake.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": "Sure! Here is a pet: {name: Rex"}
    assert second[-1]["role"] == "user" and "Invalid JSON" in second[-1]["content"]


def test_schema_invalid_replies_are_retried_then_fail_clearly(tmp_path: Path) -> None:
    wrong = [Scripted({"name": "Rex", "legs": "four"}), Scripted({"name": "Rex"}), Scripted({"name": "Rex", "legs": 4, "x": 1})]
    with FakeOpenAI(wrong) as fake, pytest.raises(LLMReplyError) as caught:
        _ask(_config(fake, tmp_path, FACTORY_LLM_ATTEMPTS="3"), "test.pet")
    assert fake.count == 3  # the bound, no more
    assert "legs: Input should be a valid integer" in fake.requests[1]["messages"][-1]["content"]
    assert "legs: Field required" in fake.requests[2]["messages"][-1]["content"]
    message = str(caught.value)
    assert message.startswith("test.pet: model fake-model gave no valid Pet in 3 replies")
    assert "x: Extra inputs are not permitted" in message and "\n" not in message
    assert isinstance(caught.value, FactoryError) and caught.value.exit_code == 2


def test_a_timeout_is_retried_with_backoff_then_fails_clearly(tmp_path: Path) -> None:
    waits: list[float] = []
    slow = Scripted({"name": "Rex", "legs": 4}, delay=1.5)
    with FakeOpenAI([slow, slow, slow]) as fake:
        config = _config(fake, tmp_path, FACTORY_LLM_TIMEOUT="0.3", FACTORY_LLM_RETRIES="2", FACTORY_LLM_BACKOFF="0.5")
        with pytest.raises(LLMRequestError) as caught:
            LLM(config, Endpoint(config, sleep=waits.append)).ask("test.pet", [{"role": "user", "content": "?"}], Pet)
        assert fake.count == 3
    assert waits == [0.5, 1.0]  # doubled each time
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1: test\.pet: no reply from model fake-model after 3 tries: "
                        r"no reply within 0\.3s \(FACTORY_LLM_TIMEOUT\)", str(caught.value)), caught.value


def test_a_timeout_then_a_reply_succeeds(tmp_path: Path) -> None:
    with FakeOpenAI([Scripted("{}", delay=1.5), Scripted({"name": "Rex", "legs": 4})]) as fake:
        assert _ask(_config(fake, tmp_path, FACTORY_LLM_TIMEOUT="0.3")).legs == 4
        assert fake.count == 2


def test_a_client_error_is_not_retried(tmp_path: Path) -> None:
    with FakeOpenAI([Scripted("model 'fake-model' not found", status=404)]) as fake, pytest.raises(LLMRequestError) as caught:
        _ask(_config(fake, tmp_path))
    assert fake.count == 1
    assert "HTTP 404 from model fake-model: model 'fake-model' not found" in str(caught.value)


def test_the_cache_answers_a_rerun_with_the_same_bytes_and_no_request(tmp_path: Path) -> None:
    script = [Scripted('{"name": "Rex",   "legs": 4}'), Scripted({"name": "Other", "legs": 3})]
    with FakeOpenAI(script) as fake:
        config = _config(fake, tmp_path / "cache")
        first, second = LLM(config), LLM(config)
        one = first.complete("test.pet", [{"role": "user", "content": "A pet."}], Pet)
        two = second.complete("test.pet", [{"role": "user", "content": "A pet."}], Pet)
        assert fake.count == 1
        assert one == two == '{"name": "Rex",   "legs": 4}'
        assert (first.ledger.requests, first.ledger.cached, second.ledger.requests, second.ledger.cached) == (1, 0, 0, 1)
        assert first.ledger.report() == second.ledger.report()  # a cached reply counts the tokens it cost
        second.complete("test.pet", [{"role": "user", "content": "Another pet."}], Pet)  # another request: asked
        assert fake.count == 2
        off = LLM(_config(fake, tmp_path / "cache", FACTORY_LLM_CACHE="off"))
        with pytest.raises(LLMRequestError):  # no cache: asked again, and the script is spent
            off.complete("test.pet", [{"role": "user", "content": "A pet."}], Pet)


def test_cost_accounting_adds_up(tmp_path: Path) -> None:
    script = [Scripted({"name": "Rex", "legs": "x"}, usage=(100, 20)), Scripted({"name": "Rex", "legs": 4}, usage=(130, 18)),
              Scripted({"name": "Tom", "legs": 4}, usage=(70, 9))]
    with FakeOpenAI(script) as fake:
        llm = LLM(_config(fake, tmp_path, FACTORY_LLM_PRICE_INPUT="2.5", FACTORY_LLM_PRICE_OUTPUT="10"))
        llm.ask("seed.app", [{"role": "user", "content": "a"}], Pet)
        llm.ask("seed.entities", [{"role": "user", "content": "b"}], Pet)
    report = llm.ledger.report()
    assert (report.calls, report.prompt_tokens, report.completion_tokens) == (3, 300, 47)
    assert report.cost_usd == pytest.approx((300 * 2.5 + 47 * 10) / 1e6)
    assert {k: (v.calls, v.prompt_tokens, v.completion_tokens) for k, v in report.by_purpose.items()} == {
        "seed.app": (2, 230, 38), "seed.entities": (1, 70, 9)}
    assert sum(v.cost_usd for v in report.by_purpose.values()) == pytest.approx(report.cost_usd)
    assert "3 calls to fake-model (3 requests, 0 from the cache): 300 prompt + 47 completion tokens, $0.0012" \
        in llm.ledger.summary()


def test_no_model_means_offline_whatever_else_is_set(tmp_path: Path) -> None:
    assert load_config({}) is None
    assert open_llm({"OPENAI_API_KEY": "sk-x"}) is None  # an agent then runs its deterministic policy
    assert isinstance(open_llm({"FACTORY_LLM_MODEL": "m", "FACTORY_LLM_BASE_URL": "http://127.0.0.1:1/v1"}), LLM)
    assert load_config({"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}) is None
    config = load_config({"FACTORY_LLM_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"})
    assert config is not None and config.base_url == "http://127.0.0.1:1/v1" and config.api_key.get_secret_value() == "unused"
    assert "sk-" not in repr(load_config({"FACTORY_LLM_MODEL": "m", "OPENAI_API_KEY": "sk-secret"}))
    with pytest.raises(LLMConfigError, match="no key for OpenAI's endpoint"):
        load_config({"FACTORY_LLM_MODEL": "m"})
    with pytest.raises(LLMConfigError, match="FACTORY_LLM_TIMEOUT='soon': not a valid float"):
        load_config({"FACTORY_LLM_MODEL": "m", "FACTORY_LLM_BASE_URL": "http://x/v1", "FACTORY_LLM_TIMEOUT": "soon"})
    toml = tmp_path / "llm.toml"
    toml.write_text('[llm]\nmodel = "qwen"\nbase_url = "http://127.0.0.1:11434/v1"\nprice_input = 0.5\nattempts = 5\n')
    from_file = load_config({"FACTORY_LLM_CONFIG": str(toml), "FACTORY_LLM_ATTEMPTS": "2"})
    assert from_file is not None and (from_file.model, from_file.attempts, from_file.prices.input_per_million) == ("qwen", 2, 0.5)
    toml.write_text('[llm]\nmodle = "qwen"\n')
    with pytest.raises(LLMConfigError, match="unknown setting 'modle'"):
        load_config({"FACTORY_LLM_CONFIG": str(toml)})


def test_only_the_seam_builds_an_openai_client() -> None:
    users = sorted(str(p.relative_to(REPO)) for top in ("factory", "verifiers", "episodes") for p in (REPO / top).rglob("*.py")
                   if re.search(r"^\s*(import openai|from openai)", p.read_text(), re.MULTILINE))
    assert users == ["factory/llm/client.py"]


def test_a_worlds_usage_adds_up_across_the_agents_that_used_a_model(tmp_path: Path) -> None:
    config = load_config({"FACTORY_LLM_MODEL": "m", "FACTORY_LLM_BASE_URL": "http://127.0.0.1:1/v1",
                          "FACTORY_LLM_PRICE_INPUT": "1", "FACTORY_LLM_PRICE_OUTPUT": "4"})
    assert config is not None
    author, repairer, idle = Ledger(config), Ledger(config), Ledger(config)
    author.add("seed.app", 1000, 200, from_cache=False)
    repairer.add("repair.patch", 3000, 400, from_cache=False)
    repairer.add("seed.app", 10, 1, from_cache=True)
    assert add_usage(tmp_path, idle) is None and not (tmp_path / LLM_USAGE).exists()  # nothing used, nothing written
    add_usage(tmp_path, author)
    total = add_usage(tmp_path, repairer)
    assert total is not None and UsageReport.model_validate_json((tmp_path / LLM_USAGE).read_text()) == total
    assert (total.calls, total.prompt_tokens, total.completion_tokens) == (3, 4010, 601)
    assert {k: (v.calls, v.prompt_tokens) for k, v in total.by_purpose.items()} == {"repair.patch": (1, 3000),
                                                                                  "seed.app": (2, 1010)}
    assert total.cost_usd == pytest.approx((4010 * 1 + 601 * 4) / 1e6)


def test_the_manifest_records_a_models_use_and_nothing_without_one(tmp_path: Path) -> None:
    """A world whose reports hold model usage gets it in its manifest (model, calls, tokens, cost);
    without usage the manifest has no `llm` key at all, byte for byte as before models existed."""
    manifest = Manifest(world="w", title="t", factory_version="0", seed_sha256="", spec_sha256="", seed_db_sha256="",
                        stages=[], counts={}, users=1, entities=1, workflows=1, pages=1, routes=1, storyline={})
    write_manifest(tmp_path / "manifest.json", manifest)
    assert '"llm"' not in (tmp_path / "manifest.json").read_text()
    (tmp_path / LLM_USAGE).parent.mkdir(parents=True)
    (tmp_path / LLM_USAGE).write_text(json.dumps({"model": "scripted", "calls": 5, "prompt_tokens": 10084,
                                                   "completion_tokens": 2008, "cost_usd": 0.0125, "purposes": {}}))
    write_manifest(tmp_path / "manifest.json", manifest)
    llm = read_manifest(tmp_path / "manifest.json").llm
    assert llm is not None and (llm.model, llm.calls, llm.prompt_tokens, llm.completion_tokens, llm.cost_usd) == (
        "scripted", 5, 10084, 2008, 0.0125)
