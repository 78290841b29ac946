"""Prices: the llm.prices table first, then litellm's cost data; offline models free."""

from __future__ import annotations

from pathlib import Path

import pytest

from collabsim.llm import Budget, BudgetExceeded, LLMClient, LLMSettings
from collabsim.llm.calllog import read_call_log
from collabsim.llm.pricing import has_price, price, unpriced_models

UNPRICED = "openai/lab-model-7b"  # no entry in litellm's cost map
MSGS = [{"role": "user", "content": "Go."}]


def test_a_model_without_a_litellm_price_is_priced_from_the_table() -> None:
    assert price(UNPRICED, 1000, 100) == (0.0, False)
    usd, known = price(UNPRICED, 1_000_000, 500_000, {UNPRICED: (2.0, 8.0)})
    assert known and usd == pytest.approx(2.0 + 4.0)


def test_the_table_comes_before_litellm_and_offline_models_are_free() -> None:
    litellm_usd, known = price("gpt-4o-mini", 1_000_000, 0)
    assert known and litellm_usd > 0
    assert price("gpt-4o-mini", 1_000_000, 0, {"gpt-4o-mini": (1.0, 1.0)}) == (1.0, True)
    assert price("collabsim/scripted", 10**6, 10**6) == (0.0, True)
    assert has_price("collabsim/scripted") and not has_price(UNPRICED)
    assert unpriced_models([UNPRICED, "gpt-4o-mini", UNPRICED]) == [UNPRICED]
    assert unpriced_models([UNPRICED], {UNPRICED: (0.1, 0.2)}) == []


def test_client_prices_replies_and_session_views_keep_the_table(tmp_path: Path) -> None:
    settings = LLMSettings(model=UNPRICED, extra={"mock_response": "FINISH()"})
    root = LLMClient(prices={UNPRICED: (1000.0, 2000.0)})
    view = root.for_session(call_log_path=tmp_path / "llm_calls.jsonl")
    reply = view.complete_sync(MSGS, settings, tag="agent")
    expected, _ = price(UNPRICED, reply.prompt_tokens, reply.completion_tokens,
                        {UNPRICED: (1000.0, 2000.0)})
    assert reply.cost_known and reply.cost_usd == pytest.approx(expected) and expected > 0
    (record,) = read_call_log(tmp_path / "llm_calls.jsonl")
    assert record["cost_known"] is True and record["cost_usd"] == pytest.approx(expected)
    assert root.usage.total.cost_usd == pytest.approx(expected)


def test_a_dollar_budget_is_enforced_for_a_model_priced_by_the_table() -> None:
    settings = LLMSettings(model=UNPRICED, max_tokens=1000,
                           extra={"mock_response": "FINISH()"})
    # $1000 per million completion tokens: the worst case of one call (1000 tokens) is $1.
    client = LLMClient(prices={UNPRICED: (0.0, 1000.0)}).for_session(
        budget=Budget(max_usd=0.5))
    with pytest.raises(BudgetExceeded, match="max_usd"):
        client.complete_sync(MSGS, settings, tag="agent")
    # without a price the same budget never stops the call (why the config refuses it)
    LLMClient(budget=Budget(max_usd=0.5)).complete_sync(MSGS, settings, tag="agent")


def test_a_cached_unpriced_reply_is_priced_once_a_price_is_given(tmp_path: Path) -> None:
    settings = LLMSettings(model=UNPRICED, extra={"mock_response": "FINISH()"})
    first = LLMClient(cache_dir=tmp_path).complete_sync(MSGS, settings)
    assert not first.cost_known
    again = LLMClient(cache_dir=tmp_path, prices={UNPRICED: (1.0, 1.0)}).complete_sync(
        MSGS, settings)
    assert again.cached and again.cost_known and again.cost_usd > 0
