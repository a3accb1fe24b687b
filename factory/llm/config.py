"""Where the model is and how to talk to it: the environment, or a TOML file it names.

A model is configured only when `FACTORY_LLM_MODEL` is set (in the environment or the file): an
`OPENAI_API_KEY` lying around never turns the factory's offline default off on its own.

    FACTORY_LLM_MODEL         the model name the endpoint serves (required to use a model)
    FACTORY_LLM_BASE_URL      the endpoint, e.g. http://127.0.0.1:8000/v1 (fallback OPENAI_BASE_URL;
                              default OpenAI's)
    FACTORY_LLM_API_KEY       the key (fallback OPENAI_API_KEY; local servers need none)
    FACTORY_LLM_TIMEOUT       seconds per request (default 120)
    FACTORY_LLM_RETRIES       retries of a request that timed out or failed in transit (default 2)
    FACTORY_LLM_BACKOFF       seconds before the first retry, doubled each time (default 1)
    FACTORY_LLM_ATTEMPTS      replies per question before giving up on invalid ones (default 3)
    FACTORY_LLM_TEMPERATURE   sampling temperature (default 0)
    FACTORY_LLM_SEED          sampling seed sent with every request (default: none sent)
    FACTORY_LLM_MAX_TOKENS    completion token limit (default: the endpoint's)
    FACTORY_LLM_PRICE_INPUT   USD per million prompt tokens, for the cost figures (default 0)
    FACTORY_LLM_PRICE_OUTPUT  USD per million completion tokens (default 0)
    FACTORY_LLM_CACHE         the reply cache directory, or `off` (default .cache/llm in the checkout)
    FACTORY_LLM_CONFIG        a TOML file whose [llm] table holds the same settings in lower case
                              without the prefix (model, base_url, price_input ...); the environment wins
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from factory.llm.errors import LLMConfigError, ModelNotConfigured

PREFIX = "FACTORY_LLM_"
DEFAULT_CACHE = Path(__file__).resolve().parents[2] / ".cache" / "llm"
# The one-line hint every refusal gives: what to set to use a model.
HOW_TO = ("set FACTORY_LLM_MODEL (and FACTORY_LLM_BASE_URL and FACTORY_LLM_API_KEY for an endpoint other than "
          "OpenAI's, e.g. vLLM, Ollama or llama.cpp at http://127.0.0.1:PORT/v1); see README, 'Use a model'")


class Prices(BaseModel):
    """What a million tokens cost, in USD (0: unknown, the cost figures then read 0)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_per_million: float = Field(0.0, ge=0)
    output_per_million: float = Field(0.0, ge=0)


class LLMConfig(BaseModel):
    """One endpoint and model, with the bounds every request is held to."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(min_length=1)
    base_url: str | None = Field(None, description="None: the SDK's default (OpenAI)")
    api_key: SecretStr = Field(SecretStr("unused"), description="never logged, never part of a cache key")
    timeout_s: float = Field(120.0, gt=0)
    retries: int = Field(2, ge=0, le=10, description="retries of one request after a timeout or a transport error")
    backoff_s: float = Field(1.0, ge=0, description="wait before the first retry; doubled for each next one")
    attempts: int = Field(3, ge=1, le=10, description="replies per question before invalid replies are an error")
    temperature: float = Field(0.0, ge=0, le=2)
    seed: int | None = None
    max_tokens: int | None = Field(None, ge=1)
    prices: Prices = Field(default_factory=Prices)
    cache_dir: Path | None = Field(DEFAULT_CACHE, description="None: no cache")

    @property
    def endpoint(self) -> str:
        return self.base_url or "https://api.openai.com/v1"


# setting name → (LLMConfig field, parser); the env var is PREFIX + name.upper()
_SETTINGS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "model": ("model", str),
    "base_url": ("base_url", str),
    "api_key": ("api_key", str),
    "timeout": ("timeout_s", float),
    "retries": ("retries", int),
    "backoff": ("backoff_s", float),
    "attempts": ("attempts", int),
    "temperature": ("temperature", float),
    "seed": ("seed", int),
    "max_tokens": ("max_tokens", int),
}


def load_config(env: Mapping[str, str] | None = None) -> LLMConfig | None:
    """The configured model, or None when none is (the offline default)."""
    env = os.environ if env is None else env
    settings = _file_settings(env.get(PREFIX + "CONFIG"))
    for name in (*_SETTINGS, "price_input", "price_output", "cache"):
        value = env.get(PREFIX + name.upper())
        if value not in (None, ""):
            settings[name] = value
    settings.setdefault("base_url", env.get("OPENAI_BASE_URL") or None)
    settings.setdefault("api_key", env.get("OPENAI_API_KEY") or None)
    if not settings.get("model"):
        return None
    if not settings.get("api_key"):
        if not settings.get("base_url"):
            raise LLMConfigError(f"{PREFIX}MODEL is set but no key for OpenAI's endpoint: set {PREFIX}API_KEY "
                                 f"(or OPENAI_API_KEY), or {PREFIX}BASE_URL for a local server")
        settings["api_key"] = "unused"  # local servers (vLLM, Ollama, llama.cpp) accept any key
    fields: dict[str, Any] = {}
    for name, (field, parse) in _SETTINGS.items():
        if settings.get(name) is not None:
            fields[field] = _parse(name, settings[name], parse)
    fields["prices"] = Prices(input_per_million=_parse("price_input", settings.get("price_input", 0), float),
                              output_per_million=_parse("price_output", settings.get("price_output", 0), float))
    cache = str(settings.get("cache", "")).strip()
    fields["cache_dir"] = None if cache.lower() == "off" else Path(cache) if cache else DEFAULT_CACHE
    try:
        return LLMConfig.model_validate(fields)
    except ValidationError as exc:  # a bound broken: a negative timeout, attempts 0 ...
        first = exc.errors()[0]
        raise LLMConfigError(f"model configuration: {'.'.join(map(str, first['loc']))}: {first['msg']}") from exc


def require_config(what: str, env: Mapping[str, str] | None = None) -> LLMConfig:
    """The configured model, or ModelNotConfigured saying that `what` needs one and how to give it."""
    config = load_config(env)
    if config is None:
        raise ModelNotConfigured(f"{what} needs a model and none is configured: {HOW_TO}")
    return config


def _parse(name: str, value: Any, parse: Callable[[str], Any]) -> Any:
    """An environment string or a TOML value, as the setting's type."""
    try:
        return parse(str(value))
    except ValueError as exc:
        raise LLMConfigError(f"{PREFIX}{name.upper()}={value!r}: not a valid {parse.__name__}") from exc


def _file_settings(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise LLMConfigError(f"{PREFIX}CONFIG={path}: cannot read it ({exc.strerror or exc})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise LLMConfigError(f"{PREFIX}CONFIG={path}: not TOML ({exc})") from exc
    table = data.get("llm", data)
    known = {*_SETTINGS, "price_input", "price_output", "cache"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise LLMConfigError(f"{path}: unknown setting {unknown[0]!r} (known: {', '.join(sorted(known))})")
    return dict(table)


__all__ = ["HOW_TO", "LLMConfig", "Prices", "load_config", "require_config"]
