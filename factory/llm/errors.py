"""Errors of the LLM seam: each says what failed, at which endpoint or for which purpose, and what to do."""

from __future__ import annotations

from factory.errors import FactoryError


class LLMError(FactoryError):
    """Base of everything the LLM seam raises on purpose (exit code 2 like every FactoryError)."""


class ModelNotConfigured(LLMError):
    """Something needs a model and none is configured (the offline default)."""


class LLMConfigError(LLMError):
    """The model configuration is unreadable or holds a bad value (a price that is not a number ...)."""


class LLMRequestError(LLMError):
    """The endpoint gave no usable reply: timeouts, refused connections or HTTP errors, after the retries."""


class LLMReplyError(LLMError):
    """Every reply in the bound failed validation (malformed JSON, or JSON the schema rejects)."""

    def __init__(self, message: str, attempts: int, last_error: str) -> None:
        self.attempts, self.last_error = attempts, last_error
        super().__init__(message)


class PromptError(LLMError):
    """A prompt template is missing or names a variable its caller did not give."""


__all__ = ["LLMConfigError", "LLMError", "LLMReplyError", "LLMRequestError", "ModelNotConfigured", "PromptError"]
