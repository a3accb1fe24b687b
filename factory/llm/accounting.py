"""Tokens and cost: every reply an agent used, counted per purpose and summed.

A reply read from the cache counts its tokens too: the report says what the artifact cost to make,
the same on a rerun as on the first run (`requests` and `cached` say what this run sent).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from factory.llm.config import LLMConfig, Prices

USAGE_VERSION = 1


class PurposeUsage(BaseModel):
    """The replies one purpose used (e.g. `seed.entities`) and their tokens."""

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


class UsageReport(BaseModel):
    """A world's model usage (written to `reports/llm_usage.json`)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = USAGE_VERSION
    model: str
    prices: Prices = Field(description="USD per million tokens the costs were computed with")
    calls: int = Field(description="replies used, retries included")
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    by_purpose: dict[str, PurposeUsage]


@dataclass
class Ledger:
    """What one run asked: each reply's purpose and tokens, and whether the cache answered."""

    config: LLMConfig
    by_purpose: dict[str, PurposeUsage] = field(default_factory=dict)
    requests: int = 0
    cached: int = 0

    def add(self, purpose: str, prompt_tokens: int, completion_tokens: int, from_cache: bool) -> None:
        usage = self.by_purpose.setdefault(purpose, PurposeUsage())
        usage.calls += 1
        usage.prompt_tokens += prompt_tokens
        usage.completion_tokens += completion_tokens
        usage.cost_usd = cost(self.config.prices, usage.prompt_tokens, usage.completion_tokens)
        if from_cache:
            self.cached += 1
        else:
            self.requests += 1

    def report(self) -> UsageReport:
        prompt = sum(u.prompt_tokens for u in self.by_purpose.values())
        completion = sum(u.completion_tokens for u in self.by_purpose.values())
        return UsageReport(model=self.config.model, prices=self.config.prices,
                           calls=sum(u.calls for u in self.by_purpose.values()), prompt_tokens=prompt,
                           completion_tokens=completion, cost_usd=cost(self.config.prices, prompt, completion),
                           by_purpose={k: self.by_purpose[k] for k in sorted(self.by_purpose)})

    def summary(self) -> str:
        """One line for the command line: calls, tokens, cost, and how many came from the cache."""
        r = self.report()
        priced = (f"${r.cost_usd:.4f}" if r.prices.input_per_million or r.prices.output_per_million
                  else "cost unknown (set FACTORY_LLM_PRICE_INPUT and FACTORY_LLM_PRICE_OUTPUT, USD per 1M tokens)")
        return (f"llm: {r.calls} calls to {r.model} ({self.requests} requests, {self.cached} from the cache): "
                f"{r.prompt_tokens:,} prompt + {r.completion_tokens:,} completion tokens, {priced}")


def merged(before: UsageReport, more: UsageReport) -> UsageReport:
    """Two runs' usage summed, purpose by purpose (costs recomputed at `more`'s prices, the latest known)."""
    purposes: dict[str, PurposeUsage] = {k: v.model_copy() for k, v in before.by_purpose.items()}
    for name, usage in more.by_purpose.items():
        total = purposes.setdefault(name, PurposeUsage())
        total.calls += usage.calls
        total.prompt_tokens += usage.prompt_tokens
        total.completion_tokens += usage.completion_tokens
    for usage in purposes.values():
        usage.cost_usd = cost(more.prices, usage.prompt_tokens, usage.completion_tokens)
    prompt = sum(u.prompt_tokens for u in purposes.values())
    completion = sum(u.completion_tokens for u in purposes.values())
    models = list(dict.fromkeys([*before.model.split(", "), more.model]))
    return UsageReport(model=", ".join(models), prices=more.prices, calls=sum(u.calls for u in purposes.values()),
                       prompt_tokens=prompt, completion_tokens=completion, cost_usd=cost(more.prices, prompt, completion),
                       by_purpose={k: purposes[k] for k in sorted(purposes)})


def cost(prices: Prices, prompt_tokens: int, completion_tokens: int) -> float:
    """USD for these tokens, rounded to a millionth of a dollar so sums are stable."""
    return round((prompt_tokens * prices.input_per_million + completion_tokens * prices.output_per_million) / 1e6, 6)


__all__ = ["Ledger", "PurposeUsage", "UsageReport", "cost", "merged"]
