"""The offline collabsim/* provider: state blocks, scripted answers, latency, bad requests."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import pytest
from helpers.observations import sample_observation

from collabsim.core.knowledge import Fact
from collabsim.core.records import (
    Activity,
    ChatMessage,
    CodeCell,
    GateRequest,
    HistoryEntry,
    MemoryView,
    Profile,
)
from collabsim.llm import LLMCallError, LLMClient, LLMSettings
from collabsim.participants import offline_provider  # noqa: F401 - registers collabsim/*
from collabsim.participants.scripted import build_scripted
from collabsim.participants.state_block import StateBlockError, decode_state, encode_state


def rich_observation():
    base = sample_observation(turn=4, role="collaborator")
    return base.__class__(
        **{
            **{f: getattr(base, f) for f in base.__dataclass_fields__},
            "me": "D",
            "profile": Profile("D", "data analysis", "Check numbers.", {"recompute_claims": True}),
            "teammates": ("agent",),
            "structure": "scaffolded",
            "phase": "build",
            "chat": (ChatMessage(0, 1.5, "agent", 'say "hi"\nthere'),),
            "code_cells": (CodeCell(1, 2.0, "agent", "print('x')", "x\n", True),),
            "memory": MemoryView({"plan": ("a", "b"), "gates": ()}, False, ("agent",)),
            "gates": {"FINISH": "D"},
            "pending_for_me": (GateRequest("g1", 3, 4.0, "agent", "D", "FINISH", {"a": "1"}),),
            "history": (HistoryEntry(1, 2.0, "D", "EXECUTE_CODE", "ok", "ran"),),
            "feedback": ("error: x",),
            "working": (Activity("agent", "EXECUTE_CODE", 3.5),),
        }
    )


def test_state_block_round_trips_an_observation_exactly() -> None:
    obs = rich_observation()
    block = encode_state(obs, {"kind": "scripted", "seed": 3, "params": {"x": [1, 2]}})
    decoded, policy = decode_state([{"role": "user", "content": "prose\n" + block + "\nmore"}])
    assert decoded == obs
    assert policy == {"kind": "scripted", "seed": 3, "params": {"x": [1, 2]}}
    with pytest.raises(StateBlockError):
        decode_state([{"role": "user", "content": "no block here"}])


def test_state_block_carries_the_members_facts_and_knowledge_split() -> None:
    """Under a knowledge split the offline provider must see the facts its member holds
    (its scripted policy reads them), the split's name, and nothing else."""
    obs = rich_observation()
    fact = Fact("convention", "column", "Only Dagger_recal_inter is valid.",
                (("column", "Dagger_recal_inter"),))
    held = replace(obs, task=replace(obs.task, facts=(fact,), knowledge="by_profile",
                                     domain_knowledge=""))
    block = encode_state(held, {"kind": "scripted", "seed": 0, "params": {}})
    decoded, _ = decode_state([{"role": "user", "content": block}])
    assert decoded == held
    assert decoded.task.facts == (fact,) and decoded.task.facts[0].fix == {
        "column": "Dagger_recal_inter"}
    # a fact-free brief under the published split is written as before facts existed
    plain = encode_state(obs, {"kind": "scripted", "seed": 0, "params": {}})
    assert '"facts"' not in plain and '"knowledge"' not in plain
    bad = block.replace('"kind":"convention"', '"kind":"rumour"')
    with pytest.raises(StateBlockError, match="rumour"):
        decode_state([{"role": "user", "content": bad}])


def test_scripted_answer_equals_the_scripted_policy() -> None:
    obs = sample_observation()
    params = {"mistakes": {"wrong_ordinal": 1.0}}
    expected = asyncio.run(build_scripted("agent", "agent", None, seed=5, params=params).act(obs))
    msgs = [{"role": "user", "content": encode_state(obs, {"kind": "scripted", "seed": 5,
                                                           "params": params})}]
    reply = LLMClient().complete_sync(msgs, LLMSettings(model="collabsim/scripted"))
    assert reply.text == expected
    assert reply.cost_usd == 0.0 and reply.cost_known
    assert reply.prompt_tokens > 10 and reply.completion_tokens >= 1


def test_latency_models_sleep_per_call() -> None:
    msgs = [{"role": "user", "content": encode_state(sample_observation(), {"kind": "fixed",
                                                                             "reply": "FINISH()"})}]
    client = LLMClient()
    for settings in (
        LLMSettings(model="collabsim/scripted-latency", extra={"latency_ms": 150}),
        LLMSettings(model="collabsim/scripted-latency-150"),
    ):
        started = time.perf_counter()
        assert client.complete_sync(msgs, settings).text == "FINISH()"
        assert time.perf_counter() - started >= 0.15


def test_bad_offline_requests_fail_fast_without_retries() -> None:
    sleeps: list[float] = []

    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    client = LLMClient(sleep=record)
    with pytest.raises(LLMCallError, match="unknown offline model"):
        client.complete_sync([{"role": "user", "content": "x"}], LLMSettings(model="collabsim/x"))
    with pytest.raises(LLMCallError, match="collabsim-state"):
        client.complete_sync([{"role": "user", "content": "x"}],
                             LLMSettings(model="collabsim/scripted"))
    assert sleeps == []
