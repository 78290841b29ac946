"""Independent, replayable seeds: session-scoped cache keys, occurrences, the seed parameter."""

from __future__ import annotations

import asyncio
from pathlib import Path

from helpers import model_server as ms

from collabsim.llm import LLMClient, LLMSettings
from collabsim.llm.cache import cache_key
from collabsim.llm.calllog import read_call_log
from collabsim.llm.client import sends_seed
from collabsim.participants import offline_provider  # noqa: F401 - registers collabsim/* models
from collabsim.participants.state_block import encode_state

MSGS = [{"role": "system", "content": "You are a test."}, {"role": "user", "content": "Go."}]


def stub(server: ms.StandInServer, **extra) -> LLMSettings:
    return LLMSettings(model="hosted_vllm/stub", max_retries=0,
                       extra={"api_base": server.url, **extra})


async def first_calls(root: LLMClient, settings: LLMSettings, seeds: list[int]) -> dict[int, str]:
    """Each seed's session makes the same first call, all at once."""
    views = {seed: root.for_session(scope=f"plan-{seed}", seed=seed) for seed in seeds}
    replies = await asyncio.gather(*(views[s].complete(MSGS, settings) for s in seeds))
    return {seed: reply.text for seed, reply in zip(seeds, replies, strict=True)}


def test_seeds_starting_together_get_their_own_replies_and_replay_them(model_server, tmp_path):
    """Two seeds with identical first prompts shared one key: at concurrency 1 seed 1 reused
    seed 0's reply, at concurrency 8 they raced on it and a cached rerun changed traces."""
    server = model_server(ms.numbered())
    settings = stub(server)
    seeds = list(range(8))
    first = asyncio.run(first_calls(LLMClient(cache_dir=tmp_path / "c"), settings, seeds))
    assert len(server.requests) == 8
    assert len(set(first.values())) == 8, "every seed draws its own first reply"
    rerun = asyncio.run(first_calls(LLMClient(cache_dir=tmp_path / "c"), settings, seeds[::-1]))
    assert rerun == first and len(server.requests) == 8, "the rerun is all cache hits"


def test_the_nth_identical_request_of_a_session_is_its_own_sample(model_server, tmp_path: Path):
    server = model_server(ms.numbered())
    settings = stub(server)
    root = LLMClient(cache_dir=tmp_path / "c")
    session = root.for_session(scope="plan-a")
    texts = [session.complete_sync(MSGS, settings).text for _ in range(3)]
    assert texts == ["reply 1", "reply 2", "reply 3"]
    replay = root.for_session(scope="plan-a")
    again = [replay.complete_sync(MSGS, settings) for _ in range(3)]
    assert [r.text for r in again] == texts and all(r.cached for r in again)
    assert len(server.requests) == 3


def test_in_flight_identical_calls_of_a_session_resolve_in_call_order(model_server, tmp_path):
    server = model_server(ms.numbered())
    settings = stub(server)

    async def both(root: LLMClient) -> list[str]:
        view = root.for_session(scope="plan-a")
        replies = await asyncio.gather(view.complete(MSGS, settings), view.complete(MSGS, settings))
        return [r.text for r in replies]

    first = asyncio.run(both(LLMClient(cache_dir=tmp_path / "c")))
    assert sorted(first) == ["reply 1", "reply 2"]
    assert asyncio.run(both(LLMClient(cache_dir=tmp_path / "c"))) == first
    assert len(server.requests) == 2, "the rerun is all cache hits"


def test_the_key_holds_scope_and_occurrence_and_the_root_keys_as_before():
    params = {"temperature": 0.0}
    base = cache_key("m", MSGS, params)
    assert base != cache_key("m", MSGS, params, scope="plan-a")
    assert cache_key("m", MSGS, params, scope="plan-a") != cache_key(
        "m", MSGS, params, scope="plan-a", occurrence=1
    )
    assert base == cache_key("m", MSGS, params, scope="", occurrence=0)


def test_the_seed_is_sent_to_providers_that_take_one(model_server, tmp_path: Path):
    server = model_server(ms.numbered())
    log = tmp_path / "s.llm_calls.jsonl"
    LLMClient().for_session(seed=3, call_log_path=log).complete_sync(MSGS, stub(server))
    assert server.requests[-1].params["seed"] == 3
    assert read_call_log(log)[0]["params"]["seed"] == 3
    LLMClient().complete_sync(MSGS, stub(server))
    assert "seed" not in server.requests[-1].body, "no session, no seed"
    LLMClient().for_session(seed=3).complete_sync(MSGS, stub(server, seed=99))
    assert server.requests[-1].params["seed"] == 99, "a seed set in extra wins"
    assert sends_seed(LLMSettings(model="gpt-4o-mini"))
    assert not sends_seed(LLMSettings(model="anthropic/claude-3-5-haiku-latest"))


def test_the_offline_provider_never_gets_the_seed(tmp_path: Path, monkeypatch):
    from helpers.observations import sample_observation

    from collabsim.llm import custom_provider

    seen: list[dict] = []
    provider = custom_provider.provider_of("collabsim/scripted")
    assert provider is not None
    real = provider.answer

    async def spy(model, messages, params):
        seen.append(dict(params))
        return await real(model, messages, params)

    monkeypatch.setitem(custom_provider._providers, "collabsim",
                        custom_provider.CustomProvider("collabsim", spy, provider.models))
    msgs = [{"role": "user",
             "content": encode_state(sample_observation(), {"kind": "fixed", "reply": "FINISH()"})}]
    log = tmp_path / "s.llm_calls.jsonl"
    view = LLMClient().for_session(scope="plan-a", seed=5, call_log_path=log)
    assert view.complete_sync(msgs, LLMSettings(model="collabsim/scripted")).text == "FINISH()"
    assert seen and all("seed" not in params for params in seen)
    assert "seed" not in read_call_log(log)[0]["params"]
