"""LLMClient: mock replies, accounting, retries, timeouts, cache, budget, limits, call log."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from helpers.llm_fakes import Recorder

from collabsim.llm import Budget, BudgetExceeded, LLMCallError, LLMClient, LLMSettings
from collabsim.llm.backend import get_litellm
from collabsim.llm.calllog import read_call_log
from collabsim.participants import offline_provider  # noqa: F401 - registers collabsim/* models
from collabsim.participants.state_block import encode_state

MSGS = [{"role": "system", "content": "You are a test."}, {"role": "user", "content": "Go."}]


def mock(reply: Any, model: str = "gpt-4o-mini", **kw: Any) -> LLMSettings:
    return LLMSettings(model=model, extra={"mock_response": reply}, **kw)


@pytest.fixture()
def counted(monkeypatch):
    """Count provider calls by wrapping litellm.acompletion; optionally fail first N tries."""
    litellm = get_litellm()
    real = litellm.acompletion
    state = {"calls": 0, "fail": []}

    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        state["calls"] += 1
        if state["fail"]:
            raise state["fail"].pop(0)
        return await real(*args, **kwargs)

    monkeypatch.setattr(litellm, "acompletion", wrapper)
    return state


def test_reply_tokens_cost_and_per_tag_usage(tmp_path: Path) -> None:
    client = LLMClient()
    reply = client.complete_sync(MSGS, mock("Sure. FINISH()"), tag="agent")
    assert reply.text == "Sure. FINISH()"
    assert reply.prompt_tokens > 0 and reply.completion_tokens > 0
    assert reply.cost_known and reply.cost_usd > 0
    assert not reply.cached
    client.complete_sync(MSGS, mock("WAIT_TEAMMATE_CONTINUE()"), tag="D")
    usage = client.usage
    assert set(usage.by_tag) == {"agent", "D"}
    assert usage.tag("agent").calls == 1 and usage.tag("agent").provider_calls == 1
    assert usage.total.calls == 2
    assert usage.total.cost_usd == pytest.approx(usage.tag("agent").cost_usd * 2)
    assert json.loads(json.dumps(usage.to_dict()))["total"]["calls"] == 2


def test_unknown_model_costs_zero_and_is_flagged() -> None:
    client = LLMClient()
    reply = client.complete_sync(MSGS, mock("FINISH()", model="openai/no-such-model-xyz"))
    assert reply.cost_usd == 0.0 and reply.cost_known is False
    assert client.usage.total.unknown_cost_calls == 1


def test_empty_reply_is_returned_as_empty_text() -> None:
    reply = LLMClient().complete_sync(MSGS, mock(""))
    assert reply.text == ""


def test_rate_limit_is_retried_with_seeded_backoff(counted) -> None:
    litellm = get_litellm()

    def rate_limited() -> Exception:
        return litellm.RateLimitError("slow down", llm_provider="openai", model="gpt-4o-mini")

    delays = []
    for _ in range(2):
        counted["calls"] = 0
        counted["fail"] = [rate_limited(), rate_limited()]
        sleep = Recorder()
        client = LLMClient(seed=7, sleep=sleep, retry_base_s=1.0, retry_cap_s=30.0)
        reply = client.complete_sync(MSGS, mock("FINISH()", max_retries=3), tag="agent")
        assert reply.text == "FINISH()"
        assert counted["calls"] == 3
        assert client.usage.tag("agent").retries == 2
        assert 0.5 <= sleep.delays[0] < 1.0 and 1.0 <= sleep.delays[1] < 2.0
        delays.append(sleep.delays)
    assert delays[0] == delays[1], "backoff jitter must be reproducible from the seed"


def test_retries_exhausted_and_fatal_errors_are_not_retried(counted) -> None:
    litellm = get_litellm()
    sleep = Recorder()
    client = LLMClient(sleep=sleep)
    limit = litellm.RateLimitError("429", llm_provider="openai", model="gpt-4o-mini")
    with pytest.raises(LLMCallError, match="after 3 tries") as info:
        client.complete_sync(MSGS, mock(limit, max_retries=2), tag="agent")
    assert info.value.retryable
    assert len(sleep.delays) == 2
    assert client.usage.tag("agent").failed_calls == 1

    counted["calls"] = 0
    auth = litellm.AuthenticationError("bad key", llm_provider="openai", model="gpt-4o-mini")
    with pytest.raises(LLMCallError, match="after 1 tries"):
        client.complete_sync(MSGS, mock(auth, max_retries=4))
    assert counted["calls"] == 1


def test_litellm_timeout_error_is_retried() -> None:
    litellm = get_litellm()
    sleep = Recorder()
    timeout = litellm.Timeout("timed out", model="gpt-4o-mini", llm_provider="openai")
    with pytest.raises(LLMCallError, match="Timeout"):
        LLMClient(sleep=sleep).complete_sync(MSGS, mock(timeout, max_retries=1))
    assert len(sleep.delays) == 1


def test_per_request_timeout_cuts_a_slow_provider(tmp_path: Path) -> None:
    from helpers.observations import sample_observation  # noqa: F401 - see helper below

    obs = sample_observation()
    msgs = [{"role": "user", "content": encode_state(obs, {"kind": "fixed", "reply": "FINISH()"})}]
    settings = LLMSettings(
        model="collabsim/scripted-latency", timeout_s=0.2, max_retries=1,
        extra={"latency_ms": 5000},
    )
    sleep = Recorder()
    client = LLMClient(sleep=sleep, call_log_path=tmp_path / "calls.jsonl")
    started = time.perf_counter()
    with pytest.raises(LLMCallError, match="Timeout"):
        client.complete_sync(msgs, settings, tag="agent")
    assert time.perf_counter() - started < 2.0
    assert len(sleep.delays) == 1
    record = read_call_log(tmp_path / "calls.jsonl")[0]
    assert record["reply"] is None and "Timeout" in record["error"]


def test_cache_replays_without_provider_calls(tmp_path: Path, counted) -> None:
    settings = mock("EXECUTE_CODE(code=\"print(1)\")")
    first = LLMClient(cache_dir=tmp_path / "cache")
    a = first.complete_sync(MSGS, settings, tag="agent")
    assert counted["calls"] == 1
    second = LLMClient(cache_dir=tmp_path / "cache")
    b = second.complete_sync(MSGS, settings, tag="agent")
    assert counted["calls"] == 1, "a cache hit must not reach the provider"
    assert b.cached and not a.cached
    assert (b.text, b.prompt_tokens, b.completion_tokens, b.cost_usd) == (
        a.text, a.prompt_tokens, a.completion_tokens, a.cost_usd,
    )
    usage = second.usage.total
    assert (usage.provider_calls, usage.cached_calls, usage.billed_usd) == (0, 1, 0.0)
    assert usage.cost_usd == pytest.approx(a.cost_usd)


def test_settings_refuse_credentials() -> None:
    with pytest.raises(ValueError, match="environment"):
        LLMSettings(model="gpt-4o-mini", extra={"api_key": "sk-abc"})


def test_budget_stops_before_the_call_and_counts_cached_replies(tmp_path: Path, counted) -> None:
    root = LLMClient(cache_dir=tmp_path / "cache")
    settings = mock("FINISH()", max_tokens=50)
    first = root.for_session(budget=Budget(max_tokens=110), scope="s")
    first.complete_sync(MSGS, settings, tag="agent")  # worst case ~64 tokens, mock usage 30
    first.complete_sync(MSGS, settings, tag="agent")  # the 2nd identical request: a new sample
    assert counted["calls"] == 2
    rerun = root.for_session(budget=Budget(max_tokens=110), scope="s")
    rerun.complete_sync(MSGS, settings, tag="agent")  # cached, still counted
    rerun.complete_sync(MSGS, settings, tag="agent")
    with pytest.raises(BudgetExceeded) as info:
        rerun.complete_sync(MSGS, settings, tag="agent")
    assert info.value.status == "budget_exceeded"
    assert counted["calls"] == 2, "the rerun is served from the cache"
    assert rerun.usage.total.cached_calls == 2
    assert root.usage.total.calls == 4, "session usage also counts towards the root client"


def test_dollar_budget_uses_litellm_prices() -> None:
    session = LLMClient().for_session(budget=Budget(max_usd=1e-9))
    with pytest.raises(BudgetExceeded, match="max_usd"):
        session.complete_sync(MSGS, mock("FINISH()"))


def test_max_concurrency_and_rate_limit_bound_calls(tmp_path: Path) -> None:
    from helpers.observations import sample_observation

    msgs = [
        {"role": "user", "content": encode_state(sample_observation(turn=i), {"kind": "fixed"})}
        for i in range(4)
    ]
    settings = LLMSettings(model="collabsim/scripted-latency-100")

    async def run(client: LLMClient) -> float:
        started = time.perf_counter()
        await asyncio.gather(*(client.complete([m], settings) for m in msgs))
        return time.perf_counter() - started

    assert asyncio.run(run(LLMClient(max_concurrency=4))) < 0.35
    assert asyncio.run(run(LLMClient(max_concurrency=1))) >= 0.4
    assert asyncio.run(run(LLMClient(max_concurrency=4, requests_per_minute=1200))) >= 0.15 + 0.1


def test_complete_sync_refuses_a_running_loop() -> None:
    async def inner() -> None:
        LLMClient().complete_sync(MSGS, mock("x"))

    with pytest.raises(RuntimeError, match="await complete"):
        asyncio.run(inner())


def test_call_log_records_every_call(tmp_path: Path, monkeypatch) -> None:
    secret = "sk-test-" + "k" * 30
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    root = LLMClient(cache_dir=tmp_path / "cache")
    logs = [tmp_path / "run.llm_calls.jsonl", tmp_path / "rerun.llm_calls.jsonl"]
    for log_path in logs:
        client = root.for_session(call_log_path=log_path, scope="session-1")
        client.complete_sync(MSGS, mock("FINISH()"), tag="agent")
        client.complete_sync(MSGS, mock("FINISH()"), tag="agent")
        client.close()
    records = read_call_log(logs[0])
    assert [r["cached"] for r in records] == [False, False], "two identical requests, two samples"
    assert [r["cached"] for r in read_call_log(logs[1])] == [True, True]
    assert records[0]["messages"] == MSGS and records[0]["reply"] == "FINISH()"
    assert records[0]["tag"] == "agent" and records[0]["prompt_tokens"] > 0
    assert records[0]["finish_reason"] == "stop" and records[0]["tool_calls"] == []
    assert records[0]["cache_key"] != records[1]["cache_key"]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(encoding="utf-8"), path
