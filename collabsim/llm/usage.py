"""Token and cost accounting per call tag (one tag per participant, judge, predictor ...).

Two dollar figures are kept apart:

* ``cost_usd`` - the price of every reply used, cached or not (what the run *would* cost
  without a cache; budgets use it, so a replay behaves like the original run);
* ``billed_usd`` - the price of replies fetched from a provider in this process (what this
  run actually cost; 0 for a run served entirely from the cache).

A model litellm has no price for costs 0 and is counted in ``unknown_cost_calls``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any


@dataclass(frozen=True)
class TagUsage:
    """Accumulated usage of one tag.

    Attributes:
        calls: Replies returned (cached or not).
        provider_calls: Replies fetched from a provider (cache misses that succeeded).
        cached_calls: Replies served from the disk cache.
        failed_calls: Calls that failed after all retries.
        retries: Retry attempts made.
        prompt_tokens: Prompt tokens of all replies.
        completion_tokens: Completion tokens of all replies.
        cost_usd: Price of all replies (0 for unknown models).
        billed_usd: Price of provider-fetched replies only.
        unknown_cost_calls: Replies whose model has no known price.
        models: Models used.
    """

    calls: int = 0
    provider_calls: int = 0
    cached_calls: int = 0
    failed_calls: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    billed_usd: float = 0.0
    unknown_cost_calls: int = 0
    models: tuple[str, ...] = ()

    @property
    def total_tokens(self) -> int:
        """Prompt + completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: TagUsage) -> TagUsage:
        """Return the sum of two usages."""
        models = tuple(sorted(set(self.models) | set(other.models)))
        return TagUsage(
            calls=self.calls + other.calls,
            provider_calls=self.provider_calls + other.provider_calls,
            cached_calls=self.cached_calls + other.cached_calls,
            failed_calls=self.failed_calls + other.failed_calls,
            retries=self.retries + other.retries,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            billed_usd=self.billed_usd + other.billed_usd,
            unknown_cost_calls=self.unknown_cost_calls + other.unknown_cost_calls,
            models=models,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict (with ``total_tokens``)."""
        data = asdict(self)
        data["models"] = list(self.models)
        data["total_tokens"] = self.total_tokens
        data["cost_usd"] = round(self.cost_usd, 10)
        data["billed_usd"] = round(self.billed_usd, 10)
        return data


class UsageLedger:
    """Mutable per-tag usage totals of one client (or one session)."""

    def __init__(self) -> None:
        """Start with no usage."""
        self._by_tag: dict[str, TagUsage] = {}

    def record(self, tag: str, delta: TagUsage) -> None:
        """Add ``delta`` to ``tag``'s totals."""
        self._by_tag[tag] = self._by_tag.get(tag, TagUsage()).add(delta)

    def record_reply(
        self,
        tag: str,
        *,
        model: str,
        prompt_tokens: int,
        completion_tokens: int,
        cost_usd: float,
        cost_known: bool,
        cached: bool,
        retries: int = 0,
    ) -> None:
        """Account one returned reply."""
        self.record(
            tag,
            TagUsage(
                calls=1,
                provider_calls=0 if cached else 1,
                cached_calls=1 if cached else 0,
                retries=retries,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                cost_usd=cost_usd,
                billed_usd=0.0 if cached else cost_usd,
                unknown_cost_calls=0 if cost_known else 1,
                models=(model,),
            ),
        )

    def record_failure(self, tag: str, *, model: str, retries: int) -> None:
        """Account one call that failed after all retries."""
        self.record(tag, TagUsage(failed_calls=1, retries=retries, models=(model,)))

    @property
    def by_tag(self) -> Mapping[str, TagUsage]:
        """Usage per tag (a copy)."""
        return dict(self._by_tag)

    @property
    def total(self) -> TagUsage:
        """Usage summed over tags."""
        total = TagUsage()
        for usage in self._by_tag.values():
            total = total.add(usage)
        return total

    def tag(self, tag: str) -> TagUsage:
        """Usage of one tag (zeros when unused)."""
        return self._by_tag.get(tag, replace(TagUsage()))

    def to_dict(self) -> dict[str, Any]:
        """``{"total": {...}, "by_tag": {tag: {...}}}`` (JSON-able, tags sorted)."""
        return {
            "total": self.total.to_dict(),
            "by_tag": {tag: self._by_tag[tag].to_dict() for tag in sorted(self._by_tag)},
        }


def estimate_tokens(text: str) -> int:
    """Rough token count of ``text`` (about four characters per token; at least 1)."""
    return max(1, (len(text) + 3) // 4)


def estimate_prompt_tokens(messages: list[dict[str, str]]) -> int:
    """Rough prompt-token count of chat messages (content plus a few tokens per message)."""
    return sum(estimate_tokens(str(m.get("content", ""))) + 4 for m in messages)


def reported_tokens(value: object) -> int | None:
    """A provider's token count when it is usable, else None (the caller estimates it).

    A negative, fractional, boolean or non-numeric count is treated as missing: budgets add
    these counts up, so a provider reporting ``-100000`` tokens must not buy a session more
    room under ``llm.budget.max_tokens``.

    Args:
        value: ``usage.prompt_tokens`` or ``usage.completion_tokens`` as the provider sent it.

    Returns:
        The count (an integral float such as ``12.0`` is accepted as 12), or None.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    return None
