"""The only place an `openai` SDK client is built, and the one request it makes: a chat completion
with a timeout, retried with exponential backoff after timeouts and transport errors.

The SDK's own retries are turned off (`max_retries=0`) so that every retry is counted, logged and
bounded here, by `LLMConfig.retries`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import openai

from factory.llm.config import LLMConfig
from factory.llm.errors import LLMRequestError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reply:
    """What the endpoint answered: the message text and the tokens it counted."""

    content: str
    prompt_tokens: int
    completion_tokens: int

    def to_json(self) -> dict[str, Any]:
        return {"content": self.content, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reply:
        return cls(str(data["content"]), int(data["prompt_tokens"]), int(data["completion_tokens"]))


def open_client(config: LLMConfig) -> openai.OpenAI:
    """An SDK client for the configured endpoint (the factory builds no other)."""
    return openai.OpenAI(base_url=config.base_url, api_key=config.api_key.get_secret_value(),
                         timeout=config.timeout_s, max_retries=0)


class Endpoint:
    """Chat completions at one endpoint; the client is made on first use."""

    def __init__(self, config: LLMConfig, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self._sleep = sleep  # tests pass a recorder to check the backoff without waiting
        self._client: openai.OpenAI | None = None

    def complete(self, request: dict[str, Any], purpose: str) -> Reply:
        """One reply to `request` (the body of POST /chat/completions), or LLMRequestError."""
        if self._client is None:
            self._client = open_client(self.config)
        tries = self.config.retries + 1
        problem = ""
        for attempt in range(1, tries + 1):
            try:
                response = self._client.chat.completions.create(**request)
            except openai.APITimeoutError:
                problem = f"no reply within {self.config.timeout_s:g}s (FACTORY_LLM_TIMEOUT)"
            except openai.APIConnectionError as exc:
                problem = f"cannot connect ({exc.__cause__ or exc})"
            except (openai.RateLimitError, openai.InternalServerError) as exc:
                problem = f"HTTP {exc.status_code}: {_detail(exc)}"
            except openai.APIStatusError as exc:  # 400, 401, 404 ...: asking again gives the same answer
                raise LLMRequestError(f"{self.config.endpoint}: {purpose}: HTTP {exc.status_code} from model "
                                      f"{self.config.model}: {_detail(exc)}") from exc
            else:
                return _reply(response, self.config, purpose)
            if attempt < tries:
                wait = self.config.backoff_s * 2 ** (attempt - 1)
                log.warning("%s: %s: try %d of %d: %s; again in %.1fs", self.config.endpoint, purpose, attempt, tries,
                            problem, wait)
                self._sleep(wait)
        raise LLMRequestError(f"{self.config.endpoint}: {purpose}: no reply from model {self.config.model} after "
                              f"{tries} tries: {problem}")


def _reply(response: Any, config: LLMConfig, purpose: str) -> Reply:
    choices = getattr(response, "choices", None) or []
    content = choices[0].message.content if choices else None
    if content is None:
        raise LLMRequestError(f"{config.endpoint}: {purpose}: model {config.model} answered with no message text")
    usage = getattr(response, "usage", None)
    return Reply(content=content, prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                 completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0))


def _detail(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(exc.message)


__all__ = ["Endpoint", "Reply", "open_client"]
