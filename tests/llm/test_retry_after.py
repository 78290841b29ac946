"""Retry-After wherever litellm puts it; authentication errors never retried."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest
from helpers import model_server as ms
from helpers.llm_fakes import Recorder, count_provider_calls

from collabsim.llm import LLMCallError, LLMClient, LLMSettings
from collabsim.llm.backend import get_litellm
from collabsim.llm.retry import is_retryable, retry_after_seconds

MSGS = [{"role": "user", "content": "Go."}]


def rate_limit(provider: str, headers: dict[str, str], *, where: str) -> BaseException:
    """A RateLimitError carrying ``headers`` where litellm leaves them for ``provider``.

    For deepseek/ and hosted_vllm/ the mapped exception's ``response`` has no headers and
    litellm's exception mapping (``exception_type``) sets ``litellm_response_headers``.
    """
    litellm = get_litellm()
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    if where == "response":
        response = httpx.Response(429, headers=headers, request=request)
        return litellm.RateLimitError("429", llm_provider=provider, model="m", response=response)
    exc = litellm.RateLimitError(
        "429", llm_provider=provider, model="m",
        response=httpx.Response(429, request=request),
    )
    exc.litellm_response_headers = dict(headers)
    return exc


@pytest.mark.parametrize("provider", ["deepseek", "hosted_vllm"])
def test_retry_after_from_litellm_response_headers(provider: str) -> None:
    exc = rate_limit(provider, {"retry-after": "7"}, where="litellm")
    assert retry_after_seconds(exc) == 7.0
    exc = rate_limit(provider, {"Retry-After-Ms": "2500"}, where="litellm")
    assert retry_after_seconds(exc) == 2.5


def test_retry_after_from_the_response_an_http_date_and_nonsense() -> None:
    assert retry_after_seconds(rate_limit("openai", {"Retry-After": "3"}, where="response")) == 3
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=20), usegmt=True)
    hinted = retry_after_seconds(rate_limit("hosted_vllm", {"retry-after": when}, where="litellm"))
    assert hinted is not None and 15 <= hinted <= 20
    assert retry_after_seconds(rate_limit("deepseek", {"retry-after": "soon"}, where="litellm")) is None
    assert retry_after_seconds(RuntimeError("no headers")) is None


@pytest.mark.parametrize("model", ["hosted_vllm/stub", "deepseek/deepseek-chat"])
def test_a_loopback_429_with_retry_after_7_waits_7_seconds(model_server, model):
    server = model_server(ms.sequence(ms.rate_limited(7), ms.rate_limited(7), then=ms.numbered()))
    sleep = Recorder()
    client = LLMClient(sleep=sleep, retry_base_s=0.5, retry_cap_s=30.0)
    settings = LLMSettings(model=model, max_retries=3, extra={"api_base": server.url})
    reply = client.complete_sync(MSGS, settings, tag="agent")
    assert reply.text == "reply 3" and len(server.requests) == 3
    assert sleep.delays == [7.0, 7.0], "the provider's Retry-After is the wait, not the backoff"
    assert client.usage.tag("agent").retries == 2



def test_a_401_from_the_server_is_not_retried(model_server) -> None:
    server = model_server(ms.sequence(ms.unauthorized(), then=ms.numbered()))
    sleep = Recorder()
    settings = LLMSettings(model="hosted_vllm/stub", max_retries=4,
                           extra={"api_base": server.url})
    with pytest.raises(LLMCallError, match="after 1 tries") as info:
        LLMClient(sleep=sleep).complete_sync(MSGS, settings)
    assert not info.value.retryable and sleep.delays == [] and len(server.requests) == 1


def test_a_missing_key_is_not_retried(monkeypatch) -> None:
    """Without OPENAI_API_KEY litellm raises an InternalServerError (a 5xx, so it was retried
    5 times per session); without ANTHROPIC_API_KEY an AuthenticationError. Neither is
    retried, and the error names the variable."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    count = count_provider_calls(monkeypatch)
    for model, variable in (("gpt-4o-mini", "OPENAI_API_KEY"),
                            ("anthropic/claude-3-5-haiku-latest", "ANTHROPIC_API_KEY")):
        count["calls"] = 0
        sleep = Recorder()
        settings = LLMSettings(model=model, max_retries=4)
        with pytest.raises(LLMCallError, match=f"after 1 tries: {variable} not set") as info:
            LLMClient(sleep=sleep).complete_sync(MSGS, settings)
        assert not info.value.retryable and info.value.missing_keys == (variable,)
        assert count["calls"] == 1 and sleep.delays == [], model


def test_a_server_error_with_the_key_set_is_still_retried(model_server) -> None:
    server = model_server(ms.sequence(ms.server_error(), then=ms.numbered()))
    sleep = Recorder()
    settings = LLMSettings(model="openai/gpt-4o-mini", max_retries=2,
                           extra={"api_base": server.url})
    assert LLMClient(sleep=sleep).complete_sync(MSGS, settings).text == "reply 2"
    assert len(sleep.delays) == 1 and len(server.requests) == 2


def test_permission_errors_are_fatal() -> None:
    litellm = get_litellm()
    request = httpx.Request("POST", "http://127.0.0.1:9/v1")
    denied = litellm.PermissionDeniedError(
        "forbidden", llm_provider="openai", model="m",
        response=httpx.Response(403, request=request),
    )
    assert not is_retryable(denied)
    auth = litellm.AuthenticationError("bad key", llm_provider="deepseek", model="m")
    assert not is_retryable(auth)
