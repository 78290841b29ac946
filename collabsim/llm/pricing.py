"""The price of a model call: the one rule every cost figure, budget and estimate uses.

A model's price comes from, in this order:

1. ``prices`` - the caller's own table (the ``llm.prices`` setting): model -> (USD per
   million prompt tokens, USD per million completion tokens), for models litellm has no
   price for (local servers, new or renamed hosted models) or to override litellm's;
2. the offline ``collabsim/...`` models: free, and known to be;
3. litellm's bundled cost map (``litellm.cost_per_token``).

A model none of them prices costs 0 and is flagged ``known=False``, so totals can say how
many calls were counted as free for want of a price.
"""

from __future__ import annotations

from collections.abc import Mapping

from collabsim.llm.backend import get_litellm

OFFLINE_MODEL_PREFIX = "collabsim/"
TOKENS_PER_PRICE_UNIT = 1_000_000
"""``prices`` are in US dollars per million tokens (how providers publish them)."""

Prices = Mapping[str, tuple[float, float]]
"""Model -> (USD per million prompt tokens, USD per million completion tokens)."""


def price(
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    prices: Prices | None = None,
) -> tuple[float, bool]:
    """Price a call.

    Args:
        model: litellm model name.
        prompt_tokens: Prompt tokens.
        completion_tokens: Completion tokens.
        prices: Model -> (USD per 1M prompt tokens, USD per 1M completion tokens), checked
            before litellm's cost data.

    Returns:
        ``(usd, known)``; ``(0.0, False)`` for a model nobody has a price for, and
        ``(0.0, True)`` for the offline ``collabsim/...`` models.
    """
    if prices and model in prices:
        per_prompt, per_completion = prices[model]
        usd = (prompt_tokens * float(per_prompt)
               + completion_tokens * float(per_completion)) / TOKENS_PER_PRICE_UNIT
        return usd, True
    if model.startswith(OFFLINE_MODEL_PREFIX):
        return 0.0, True
    litellm = get_litellm()
    try:
        prompt_usd, completion_usd = litellm.cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:  # noqa: BLE001 - litellm raises several types for unmapped models
        return 0.0, False
    return float(prompt_usd) + float(completion_usd), True


def has_price(model: str, prices: Prices | None = None) -> bool:
    """Whether :func:`price` knows what ``model`` costs (``prices``, offline, or litellm)."""
    return price(model, 1, 1, prices)[1]


def unpriced_models(models: list[str] | tuple[str, ...], prices: Prices | None = None
                    ) -> list[str]:
    """The distinct models among ``models`` that :func:`price` has no price for, in order."""
    return [m for m in dict.fromkeys(models) if not has_price(m, prices)]
