"""A provider's token counts are used only when they are counts (issue 38, item 9)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from helpers import model_server as ms

from collabsim.llm import Budget, BudgetExceeded, LLMClient, LLMSettings
from collabsim.llm.backend import get_litellm
from collabsim.llm.usage import estimate_prompt_tokens, estimate_tokens, reported_tokens

MSGS = [{"role": "user", "content": "Go."}]


def test_negative_usage_from_a_server_is_estimated(model_server) -> None:
    server = model_server(ms.always(ms.Reply("FINISH()", prompt_tokens=-100_000,
                                             completion_tokens=-3)))
    settings = LLMSettings(model="hosted_vllm/stub", extra={"api_base": server.url})
    reply = LLMClient().complete_sync(MSGS, settings)
    assert reply.text == "FINISH()"
    assert reply.prompt_tokens == estimate_prompt_tokens(MSGS)
    assert reply.completion_tokens == estimate_tokens("FINISH()")


def test_fractional_usage_is_estimated(monkeypatch) -> None:
    """litellm rejects a fractional count in an HTTP reply; other providers may pass one."""
    litellm = get_litellm()
    usage = SimpleNamespace(prompt_tokens=2.5, completion_tokens=True)
    message = SimpleNamespace(content="FINISH()", tool_calls=None)
    response = SimpleNamespace(model="m", usage=usage,
                               choices=[SimpleNamespace(message=message, finish_reason="stop")])

    async def fake(*args: Any, **kwargs: Any) -> Any:
        return response

    monkeypatch.setattr(litellm, "acompletion", fake)
    reply = LLMClient().complete_sync(MSGS, LLMSettings(model="hosted_vllm/stub"))
    assert reply.prompt_tokens == estimate_prompt_tokens(MSGS)
    assert reply.completion_tokens == estimate_tokens("FINISH()")


def test_negative_usage_cannot_buy_a_session_more_tokens(model_server) -> None:
    server = model_server(ms.always(ms.Reply("FINISH()", prompt_tokens=-100_000,
                                             completion_tokens=7)))
    settings = LLMSettings(model="hosted_vllm/stub", max_tokens=50,
                           extra={"api_base": server.url})
    session = LLMClient().for_session(budget=Budget(max_tokens=200))
    with pytest.raises(BudgetExceeded, match="max_tokens=200"):
        for _ in range(20):
            session.complete_sync(MSGS, settings)
    assert len(server.requests) < 20, "the budget stops the session"
    assert 0 < session.usage.total.total_tokens <= 200


@pytest.mark.parametrize(("value", "expected"), [
    (12, 12), (0, 0), (12.0, 12), (-1, None), (2.5, None), (True, None), ("12", None),
    (None, None), (float("nan"), None),
])
def test_reported_tokens(value: object, expected: int | None) -> None:
    assert reported_tokens(value) == expected
