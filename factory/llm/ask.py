"""`LLM.ask`: a question whose answer must validate against a pydantic model.

The request carries the model's JSON Schema as a structured-output `response_format`; the reply is
validated locally all the same (endpoints differ in how strictly they hold to it). A reply that is
not JSON, or JSON the schema rejects, is answered with the validation error, in the same
conversation, up to `LLMConfig.attempts` replies; then LLMReplyError. Every reply goes through the
cache and the ledger, so a rerun of the same questions sends nothing and counts the same tokens.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from factory.llm.accounting import Ledger
from factory.llm.cache import ReplyCache, request_key
from factory.llm.client import Endpoint
from factory.llm.config import LLMConfig, load_config
from factory.llm.errors import LLMReplyError
from factory.llm.prompts import render_prompt

log = logging.getLogger(__name__)
Message = dict[str, str]
T = TypeVar("T", bound=BaseModel)
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*)\n\s*```\s*$", re.DOTALL)
_SHOWN_ERRORS = 8  # a long list of errors buries the first; the model fixes those and sees the rest next time


@dataclass(frozen=True)
class Answer(Generic[T]):
    """A validated answer, and the conversation that ends with it (to continue with a follow-up)."""

    value: T
    messages: list[Message]


class LLM:
    """The factory's one door to a model: cached, counted, validated."""

    def __init__(self, config: LLMConfig, endpoint: Endpoint | None = None) -> None:
        self.config = config
        self.endpoint = endpoint or Endpoint(config)
        self.cache = ReplyCache(config.cache_dir) if config.cache_dir is not None else None
        self.ledger = Ledger(config)

    def ask(self, purpose: str, messages: list[Message], schema: type[T]) -> Answer[T]:
        """The first reply that validates against `schema`; LLMReplyError after `attempts` that do not."""
        conversation = list(messages)
        bound = self.config.attempts
        error = ""
        for attempt in range(1, bound + 1):
            content = self.complete(purpose, conversation, schema)
            conversation.append({"role": "assistant", "content": content})
            try:
                value = schema.model_validate_json(_unfenced(content))
            except ValidationError as exc:
                error = describe(exc)
                log.info("%s: reply %d of %d invalid: %s", purpose, attempt, bound, error)
                conversation.append({"role": "user", "content": render_prompt(
                    "reply_invalid.md.j2", error=error, schema_name=schema.__name__, attempt=attempt, attempts=bound)})
                continue
            return Answer(value, conversation)
        raise LLMReplyError(f"{purpose}: model {self.config.model} gave no valid {schema.__name__} in {bound} replies "
                            f"(FACTORY_LLM_ATTEMPTS); the last one: {error}", bound, error)

    def complete(self, purpose: str, messages: list[Message], schema: type[BaseModel]) -> str:
        """The reply's text, from the cache when this exact request was made before."""
        request = self.request(messages, schema)
        key = request_key(request)
        reply = self.cache.get(key) if self.cache is not None else None
        cached = reply is not None
        if reply is None:
            reply = self.endpoint.complete(request, purpose)
            if self.cache is not None:
                self.cache.put(key, request, reply)
        self.ledger.add(purpose, reply.prompt_tokens, reply.completion_tokens, from_cache=cached)
        return reply.content

    def request(self, messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
        """The body of POST /chat/completions for this conversation (also what the cache key hashes)."""
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": [dict(m) for m in messages],
            "temperature": self.config.temperature,
            # strict=False: pydantic schemas have optional keys, which strict mode forbids; we validate anyway
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema(),
                                                "strict": False}},
        }
        if self.config.seed is not None:
            body["seed"] = self.config.seed
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        return body


def open_llm(env: dict[str, str] | None = None) -> LLM | None:
    """The configured model, or None: an agent with a model policy falls back to its deterministic one."""
    config = load_config(env)
    return LLM(config) if config is not None else None


def describe(exc: ValidationError) -> str:
    """A validation error in one line: `where: what` for each problem, the first few only."""
    problems = []
    for error in exc.errors()[:_SHOWN_ERRORS]:
        where = ".".join(str(part) for part in error["loc"]) or "(the whole reply)"
        problems.append(f"{where}: {error['msg']}")
    more = len(exc.errors()) - _SHOWN_ERRORS
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")


def _unfenced(content: str) -> str:
    """The JSON inside a ```json fence, which some local models add despite the response format."""
    match = _FENCE.match(content)
    return match.group(1) if match else content


__all__ = ["LLM", "Answer", "Message", "describe", "open_llm"]
