"""Native tool calling and finish_reason: sent where supported, read, cached and logged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import model_server as ms

from collabsim.llm import LLMClient, LLMSettings, ToolCall
from collabsim.llm.calllog import read_call_log
from collabsim.llm.client import context_window, supports_tools
from collabsim.participants import offline_provider  # noqa: F401 - registers collabsim/* models
from collabsim.participants.state_block import encode_state

MSGS = [{"role": "system", "content": "You are a test."}, {"role": "user", "content": "Go."}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "EXECUTE_CODE",
            "description": "Run Python code.",
            "parameters": {
                "type": "object",
                "properties": {"code": {"type": "string"}},
                "required": ["code"],
            },
        },
    }
]


def stub(server: ms.StandInServer, model: str = "hosted_vllm/stub", **kw) -> LLMSettings:
    return LLMSettings(model=model, max_retries=0, extra={"api_base": server.url}, **kw)


def test_tool_calls_and_finish_reason_are_read_cached_and_logged(model_server, tmp_path: Path):
    server = model_server(ms.sequence(ms.tool_call("EXECUTE_CODE", {"code": "print(1)"}),
                                      then=ms.numbered()))
    settings = stub(server, tool_calling="on")
    log = tmp_path / "s.llm_calls.jsonl"
    root = LLMClient(cache_dir=tmp_path / "cache")
    reply = root.for_session(call_log_path=log, scope="s").complete_sync(
        MSGS, settings, tag="agent", tools=TOOLS
    )
    assert reply.tool_calls == (ToolCall("EXECUTE_CODE", '{"code": "print(1)"}'),)
    assert reply.finish_reason == "tool_calls" and reply.text == ""
    sent = server.requests[0].params
    assert sent["tools"] == TOOLS and sent["tool_choice"] == "auto"
    record = read_call_log(log)[0]
    assert record["finish_reason"] == "tool_calls"
    assert record["tool_calls"] == [{"name": "EXECUTE_CODE", "arguments": '{"code": "print(1)"}'}]
    again = root.for_session(scope="s").complete_sync(MSGS, settings, tag="agent", tools=TOOLS)
    assert again.cached and len(server.requests) == 1
    assert (again.tool_calls, again.finish_reason) == (reply.tool_calls, reply.finish_reason)


def test_a_reply_cut_at_max_tokens_says_length(model_server, tmp_path: Path):
    server = model_server(ms.sequence(ms.cut_at_max_tokens(), then=ms.numbered()))
    root = LLMClient(cache_dir=tmp_path / "cache")
    reply = root.complete_sync(MSGS, stub(server))
    assert reply.finish_reason == "length"
    assert LLMClient(cache_dir=tmp_path / "cache").complete_sync(
        MSGS, stub(server)
    ).finish_reason == "length", "the cache keeps the finish reason"
    assert len(server.requests) == 1


def test_tools_are_not_sent_to_a_model_without_tool_calling(model_server):
    server = model_server(ms.numbered())
    for mode in ("off", "auto"):  # litellm knows no function calling for hosted_vllm/stub
        settings = stub(server, tool_calling=mode)
        LLMClient().complete_sync(MSGS, settings, tools=TOOLS)
        assert "tools" not in server.requests[-1].body
        assert "tool_choice" not in server.requests[-1].body


def test_auto_sends_tools_where_litellm_says_the_model_calls_functions(model_server):
    server = model_server(ms.numbered())
    settings = stub(server, model="openai/gpt-4o-mini")
    assert supports_tools(settings)
    LLMClient().complete_sync(MSGS, settings, tools=TOOLS)
    assert server.requests[-1].params["tools"] == TOOLS


def test_supports_tools_modes():
    assert supports_tools(LLMSettings(model="gpt-4o-mini"))
    assert not supports_tools(LLMSettings(model="gpt-4o-mini", tool_calling="off"))
    assert not supports_tools(LLMSettings(model="collabsim/scripted"))
    assert supports_tools(LLMSettings(model="collabsim/scripted", tool_calling="on"))
    assert not supports_tools(LLMSettings(model="openai/no-such-model-xyz"))
    with pytest.raises(ValueError, match="tool_calling must be one of auto, on, off"):
        LLMSettings(model="gpt-4o-mini", tool_calling="yes")


def test_tools_enter_the_cache_key(model_server, tmp_path: Path):
    server = model_server(ms.numbered())
    other = [{**TOOLS[0], "function": {**TOOLS[0]["function"], "name": "FINISH"}}]
    root = LLMClient(cache_dir=tmp_path / "cache")
    settings = stub(server, tool_calling="on")
    for tools in (TOOLS, other, None):
        root.complete_sync(MSGS, settings, tools=tools)
    assert len(server.requests) == 3
    for tools in (TOOLS, other, None):
        assert root.complete_sync(MSGS, settings, tools=tools).cached


def test_the_offline_model_says_stop_and_ignores_tools():
    from helpers.observations import sample_observation

    msgs = [{"role": "user",
             "content": encode_state(sample_observation(), {"kind": "fixed", "reply": "FINISH()"})}]
    reply = LLMClient().complete_sync(msgs, LLMSettings(model="collabsim/scripted"), tools=TOOLS)
    assert (reply.text, reply.finish_reason, reply.tool_calls) == ("FINISH()", "stop", ())


def test_context_window_from_the_setting_or_litellm():
    assert context_window(LLMSettings(model="gpt-4o-mini", context_tokens=8192)) == 8192
    assert context_window(LLMSettings(model="gpt-4o-mini")) == 128_000
    assert context_window(LLMSettings(model="hosted_vllm/unknown-stub")) is None
    for bad in (0, -5, 1.5, True):
        with pytest.raises(ValueError, match="context_tokens must be a positive integer"):
            LLMSettings(model="gpt-4o-mini", context_tokens=bad)


def test_tool_call_arguments_sent_as_an_object_become_json_text():
    from collabsim.llm.toolcalls import read_tool_calls

    calls = read_tool_calls([{"function": {"name": "FINISH", "arguments": {"b": 1, "a": 2}}},
                             {"function": {"name": ""}}])
    assert calls == (ToolCall("FINISH", json.dumps({"a": 2, "b": 1})),)


def test_the_budget_counts_the_tool_schemas_sent(model_server):
    from collabsim.llm import Budget, BudgetExceeded

    server = model_server(ms.numbered())
    big = [{**TOOLS[0], "function": {**TOOLS[0]["function"], "description": "x" * 4000}}]
    budget = Budget(max_tokens=600)
    settings = stub(server, tool_calling="on", max_tokens=50)
    LLMClient().for_session(budget=budget).complete_sync(MSGS, settings, tools=TOOLS)
    with pytest.raises(BudgetExceeded, match="max_tokens=600"):
        LLMClient().for_session(budget=budget).complete_sync(MSGS, settings, tools=big)
    off = stub(server, tool_calling="off", max_tokens=50)
    LLMClient().for_session(budget=budget).complete_sync(MSGS, off, tools=big)  # not sent
