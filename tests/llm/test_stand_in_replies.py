"""The stand-in model server answers every reply shape the way litellm sees a real one.

Each shape goes through :meth:`collabsim.llm.client.LLMClient.complete` (what collabsim
reads) or, for the parts of a response the client may not read, through ``litellm.acompletion``
itself (``finish_reason``, ``tool_calls``, the headers of a 429). Whole sessions of both seats
finish against the prompt-reading script.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import model_server as ms

from collabsim.llm import LLMClient, LLMSettings
from collabsim.llm.backend import get_litellm
from collabsim.llm.client import LLMCallError
from collabsim.participants.llm_policy import build_llm_participants
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session
from collabsim.session.structures import builtin_structure
from collabsim.session.trace import read_trace
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.generator import generate_suite
from collabsim.tasks.model import Task

MODELS = ("openai/stand-in", "hosted_vllm/stand-in", "deepseek/deepseek-chat")
PROMPT = [{"role": "system", "content": "You are agent, the AI agent."},
          {"role": "user", "content": "What next?"}]


def settings(server: ms.StandInServer, model: str = "openai/stand-in", **kw: Any) -> LLMSettings:
    return LLMSettings(model=model, max_retries=kw.pop("max_retries", 0),
                       extra={"api_base": server.url, **kw.pop("extra", {})}, **kw)


def complete(server: ms.StandInServer, model: str = "openai/stand-in", **kw: Any) -> str:
    return asyncio.run(LLMClient().complete(PROMPT, settings(server, model, **kw))).text


def raw(server: ms.StandInServer, model: str = "openai/stand-in", **kw: Any) -> Any:
    """litellm's own response object (what the client receives)."""
    return asyncio.run(get_litellm().acompletion(
        model=model, messages=PROMPT, api_base=server.url, max_retries=0, **kw))


EXEC = ms.action("EXECUTE_CODE", code='print("hi")')
TEXT_SHAPES = {
    "well_formed": (ms.well_formed(EXEC), ["THOUGHT: ", f"ACTION: {EXEC}"]),
    "fenced": (ms.fenced(EXEC), ["```\nTHOUGHT:", f"ACTION: {EXEC}\n```"]),
    "chatty": (ms.chatty(EXEC), ["Sure!", f"**ACTION:** {EXEC}", "Let me know"]),
    "json_in_text": (ms.json_in_text("EDITOR_UPDATE", {"text": "h"}),
                     ['{"action": "EDITOR_UPDATE", "args": {"text": "h"}}']),
    "unknown_action": (ms.unknown_action(), ["I will call FINISH()", 'ACTION: SUBMIT(answer="']),
    "two_actions": (ms.two_actions(EXEC, "FINISH()"), [f"ACTION: {EXEC}\nACTION: FINISH()"]),
    "refusal": (ms.refusal(), ["I'm sorry, but I can't help"]),
    "very_long": (ms.very_long(EXEC, chars=50_000), [f"ACTION: {EXEC}"]),
    "cut": (ms.cut_at_max_tokens(), [f'EXECUTE_CODE(code="{ms.CUT_CODE}']),
}


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("shape", sorted(TEXT_SHAPES))
def test_each_text_shape_reaches_the_client_verbatim(model_server, model: str, shape: str) -> None:
    reply, parts = TEXT_SHAPES[shape]
    server = model_server(ms.always(reply))
    text = complete(server, model)
    assert text == reply.content
    assert all(part in text for part in parts)
    assert len(server.requests) == 1 and server.requests[0].body["model"] == model.split("/", 1)[1]


def test_a_very_long_reply_is_long(model_server) -> None:
    server = model_server(ms.always(ms.very_long(EXEC, chars=60_000)))
    assert len(complete(server)) > 60_000


@pytest.mark.parametrize("model", MODELS)
def test_an_empty_reply_is_empty_text(model_server, model: str) -> None:
    server = model_server(ms.always(ms.empty()))
    assert complete(server, model) == ""


@pytest.mark.parametrize("model", MODELS)
def test_a_native_tool_call_arrives_as_message_tool_calls(model_server, model: str) -> None:
    server = model_server(ms.always(ms.tool_call("EDITOR_UPDATE", {"text": "a hypothesis"})))
    response = raw(server, model)
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls
    assert call.function.name == "EDITOR_UPDATE"
    assert json.loads(call.function.arguments) == {"text": "a hypothesis"}
    assert complete(server, model) == ""  # no text: the action is in the tool call only


@pytest.mark.parametrize("model", MODELS)
def test_a_cut_reply_has_finish_reason_length(model_server, model: str) -> None:
    server = model_server(ms.sequence(
        ms.cut_at_max_tokens(), ms.tool_call("EXECUTE_CODE", arguments='{"code": "df = pd.re',
                                             finish_reason="length")))
    text_cut = raw(server, model).choices[0]
    assert text_cut.finish_reason == "length" and text_cut.message.content.endswith(ms.CUT_CODE + '")')
    call_cut = raw(server, model).choices[0]
    assert call_cut.finish_reason == "length"
    assert call_cut.message.tool_calls[0].function.arguments == '{"code": "df = pd.re'


@pytest.mark.parametrize("model", MODELS)
def test_429_carries_retry_after_and_500_is_a_server_error(model_server, model: str) -> None:
    litellm = get_litellm()
    server = model_server(ms.sequence(ms.rate_limited(7), ms.server_error()))
    with pytest.raises(litellm.RateLimitError) as limited:
        raw(server, model)
    headers = {**(getattr(limited.value, "litellm_response_headers", None) or {}),
               **(getattr(getattr(limited.value, "response", None), "headers", None) or {})}
    assert {k.lower(): v for k, v in headers.items()}["retry-after"] == "7"
    with pytest.raises(litellm.InternalServerError):
        raw(server, model)
    with pytest.raises(LLMCallError, match="InternalServerError"):
        complete(server, model)  # the script's last reply again


def test_a_dead_server_refuses_connections_until_restarted_on_its_port(model_server) -> None:
    server = model_server(ms.sequence(ms.well_formed("FINISH()"), ms.dead(),
                                      then=ms.well_formed("WAIT_TEAMMATE_CONTINUE()")))
    port = server.port
    assert complete(server) == "THOUGHT: Next step.\nACTION: FINISH()"
    with pytest.raises(LLMCallError, match="APIConnectionError|InternalServerError"):
        complete(server)  # connection closed unanswered
    with pytest.raises(LLMCallError, match="Connection error|APIConnectionError"):
        complete(server)  # nobody listens any more
    assert len(server.requests) == 2
    server.restart()
    assert server.port == port and complete(server).endswith("WAIT_TEAMMATE_CONTINUE()")
    assert [r.life for r in server.requests] == [0, 0, 1]


def test_a_hung_up_request_fails_and_the_server_goes_on_listening(model_server) -> None:
    server = model_server(ms.sequence(ms.hang_up(), ms.hang_up(), then=ms.numbered()))
    for _ in range(2):
        with pytest.raises(LLMCallError, match="APIConnectionError|InternalServerError"):
            complete(server)  # connection closed unanswered
    assert complete(server) == "reply 3"
    assert server.alive and [r.life for r in server.requests] == [0, 0, 0]


def test_numbered_replies_tell_requests_apart(model_server) -> None:
    server = model_server(ms.sequence(ms.server_error(), then=ms.numbered("answer")))
    with pytest.raises(LLMCallError, match="InternalServerError"):
        complete(server)
    assert [complete(server) for _ in range(2)] == ["answer 2", "answer 3"]


@pytest.mark.parametrize("model", MODELS)
def test_reported_usage_is_sent_as_given_even_negative(model_server, model: str) -> None:
    server = model_server(ms.sequence(ms.Reply("FINISH()", prompt_tokens=-100_000,
                                               completion_tokens=-3), ms.Reply("FINISH()")))
    given = raw(server, model).usage
    assert (given.prompt_tokens, given.completion_tokens) == (-100_000, -3)
    estimated = raw(server, model).usage  # None: estimated from the text, as before
    assert (estimated.prompt_tokens, estimated.completion_tokens) == (
        max(1, len("You are agent, the AI agent.What next?") // 4), max(1, len("FINISH()") // 4))


def test_every_request_is_recorded_without_credentials(model_server) -> None:
    server = model_server(ms.always(ms.well_formed("FINISH()")))
    tools = [{"type": "function", "function": {"name": "FINISH", "parameters": {
        "type": "object", "properties": {}}}}]
    raw(server, seed=7, tools=tools, temperature=0.3)
    (request,) = server.requests
    assert request.path == ms.CHAT_PATH and request.messages == PROMPT
    assert request.params["seed"] == 7 and request.params["tools"] == tools
    assert request.seat == "agent" and request.member == "agent" and not request.is_repair
    assert "authorization" not in request.headers and "user-agent" in request.headers
    assert all("sk-test" not in v for v in request.headers.values())


def test_the_server_is_bounded_in_requests(model_server) -> None:
    server = model_server(ms.always(ms.well_formed("FINISH()")), max_requests=2)
    complete(server)
    complete(server)
    with pytest.raises(LLMCallError, match="InternalServerError"):
        complete(server)
    assert server.overflowed


@pytest.fixture(scope="module")
def task(tmp_path_factory: pytest.TempPathFactory) -> Task:
    root = generate_suite(tmp_path_factory.mktemp("suite"), n_tasks=1, seed=0)
    return load_tasks(root).tasks[0]


@pytest.mark.parametrize(("team", "structure"), [("single", "single"), ("DR", "default"),
                                                 ("DR", "scaffolded")])
def test_the_prompt_reading_script_finishes_a_whole_session(
    model_server, task: Task, tmp_path: Path, team: str, structure: str
) -> None:
    server = model_server(ms.session_script())
    spec = team_from_dict(team)
    llm = settings(server)
    participants = build_llm_participants(spec, {"agent": llm, "collaborator": llm},
                                          LLMClient().for_session(), seed=0)
    cfg = SessionConfig(task=task, team=spec, structure=builtin_structure(structure), seed=0,
                        max_turns=30)
    result = asyncio.run(run_session(cfg, participants, tmp_path / "trace.jsonl"))
    assert result.status == "finished"
    assert result.submitted_hypothesis == ms.STAND_IN_HYPOTHESIS
    kinds = [e.action_type for e in read_trace(tmp_path / "trace.jsonl") if e.actor == "agent"]
    assert {"EXECUTE_CODE", "EDITOR_UPDATE", "FINISH"} <= set(kinds)
    seats = {r.seat for r in server.requests}
    assert seats == ({"agent"} if team == "single" else {"agent", "collaborator"})
    assert {r.member for r in server.requests} == set(spec.members)


def test_401_is_an_authentication_error(model_server) -> None:
    server = model_server(ms.always(ms.unauthorized()))
    with pytest.raises(get_litellm().AuthenticationError):
        raw(server)


# every shape in a session, for both seats: usable replies act without a repair, unusable
# ones get one repair call and become an INVALID event (the session goes on)
SESSION_SHAPES = {
    "well_formed": (ms.well_formed, True),
    "fenced": (ms.fenced, True),
    "chatty": (ms.chatty, True),
    "very_long": (ms.very_long, True),
    "refusal": (lambda act: ms.refusal(), False),
    "empty": (lambda act: ms.empty(), False),
}


@pytest.mark.parametrize(("team", "name"), [("single", "agent"), ("DR", "D")])
@pytest.mark.parametrize("shape", sorted(SESSION_SHAPES))
def test_each_shape_in_a_session_for_both_seats(
    model_server, task: Task, tmp_path: Path, team: str, name: str, shape: str
) -> None:
    make, usable = SESSION_SHAPES[shape]
    text = f"{name} wrote this"
    mine = make(ms.action("EDITOR_UPDATE", text=text))
    others = ms.session_script()
    server = model_server(lambda request, index: (
        mine if ms.member(request) == name else others(request, index)))
    spec = team_from_dict(team)
    llm = settings(server)
    participants = build_llm_participants(spec, {"agent": llm, "collaborator": llm},
                                          LLMClient().for_session(), seed=0)
    cfg = SessionConfig(task=task, team=spec,
                        structure=builtin_structure("single" if team == "single" else "default"),
                        seed=0, max_turns=1)
    asyncio.run(run_session(cfg, participants, tmp_path / "trace.jsonl"))
    events = [e for e in read_trace(tmp_path / "trace.jsonl") if e.actor == name]
    asked = [r for r in server.requests if r.member == name]
    if usable:
        assert [e.action_type for e in events] == ["EDITOR_UPDATE"]
        assert events[0].args["text"] == text and len(asked) == 1
    else:
        assert [e.action_type for e in events] == ["INVALID"]
        assert [r.is_repair for r in asked] == [False, True]
