"""Issue 37: what an LLM participant takes from a model's reply, and what it never takes.

Actions only from the reply's action part, a JSON action or one native tool call; a cut
reply is never executed; loops end the session; a failed call or a prompt that does not fit
the context window is a provider error; prompts carry the calibrated behaviour, the turn
and time budget, the history in time order and each code cell once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from collabsim.core.actions import format_action
from collabsim.core.errors import LOOP, PROVIDER_ERROR, SessionAbort
from collabsim.core.records import CodeCell, HistoryEntry
from collabsim.core.replies import UnusableReply
from collabsim.llm import LLMReply, LLMSettings, ToolCall
from collabsim.llm.usage import estimate_prompt_tokens
from collabsim.participants.llm_policy import LLMParticipant, PromptRenderer, parse_reply
from collabsim.participants.team import TeamSpec, team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.orchestrator import Orchestrator
from collabsim.session.structures import builtin_structure
from tests.participants.test_llm_policy import make_obs, make_task

run = asyncio.run
CODE = format_action("EXECUTE_CODE", code="print(df.head())")


# ------------------------------------------------------------------ parsing rules
@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('THOUGHT: look\nACTION: EXECUTE_CODE(code="print(df.head())")\nHope that helps.', CODE),
        ('**ACTION:** ```\nEXECUTE_CODE(code="print(df.head())")\n```', CODE),
        ('EXECUTE_CODE(code="print(df.head())")', CODE),
        ('```python\nEXECUTE_CODE(code="print(df.head())")\n```', CODE),
        ('{"action": "EXECUTE_CODE", "args": {"code": "print(df.head())"}}', CODE),
        ('{"name": "EXECUTE_CODE", "arguments": {"code": "print(df.head())"}}', CODE),
        ('{"name": "EXECUTE_CODE", "arguments": "{\\"code\\": \\"print(df.head())\\"}"}', CODE),
        ('I will look first.\n```json\n{"action": "EXECUTE_CODE", '
         '"args": {"code": "print(df.head())"}}\n```', CODE),
        ('THOUGHT: ok\nACTION: {"action": "FINISH", "args": {}}', "FINISH()"),
        ("ACTION: FINISH", "FINISH()"),
        ("FINISH", "FINISH()"),
        ("THOUGHT: call EXECUTE_CODE(code=\"x\") later? no.\nACTION: FINISH()", "FINISH()"),
    ],
)
def test_accepted_reply_shapes(reply: str, expected: str) -> None:
    parsed = parse_reply(reply)
    assert parsed.action is not None, parsed.error
    assert format_action(parsed.action.name, **parsed.action.args) == expected


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        # the issue's case: an unknown action after the marker, FINISH() in the THOUGHT
        ('THOUGHT: done, I will call FINISH() now.\nACTION: SUBMIT(answer="Dagger rises")',
         "Unknown action 'SUBMIT'"),
        ('ACTION: EXECUTE_CODE(code="x = 1")\nACTION: FINISH()', "2 ACTION: lines"),
        ('ACTION: EDITOR_UPDATE(text="Dagger rises") FINISH()', "Two actions"),
        # no marker: an action in prose or after a THOUGHT is never read
        ("THOUGHT: we are done, so FINISH() is next.", "Text before the action"),
        ('I think we should run EXECUTE_CODE(code="x = 1")', "Text before the action"),
        ('FINISH()\nThen I will wait.', "Text after the action"),
        ("We are done here.", "No action found"),
        ("", "empty"),
        ('[{"action": "FINISH"}, {"action": "FINISH"}]', "2 actions"),
        ('{"action": "SUBMIT", "args": {"text": "x"}}', "Unknown action 'SUBMIT'"),
        ('{"action": "EDITOR_UPDATE", "args": {"hypothesis": "x"}}', "no argument"),
    ],
)
def test_rejected_reply_shapes(reply: str, error: str) -> None:
    parsed = parse_reply(reply)
    assert parsed.action is None
    assert error in (parsed.error or "")


def test_a_cut_reply_is_never_executed_even_when_it_parses() -> None:
    parsed = parse_reply('ACTION: EXECUTE_CODE(code="df = 1")', finish_reason="length")
    assert parsed.action is None and "cut off" in (parsed.error or "")
    assert parse_reply('ACTION: EXECUTE_CODE(code="df = 1")', finish_reason="stop").action


def test_one_tool_call_is_the_action_two_are_an_error() -> None:
    one = parse_reply("", tool_calls=(ToolCall("EXECUTE_CODE", '{"code": "print(df.head())"}'),))
    assert one.action is not None
    assert format_action(one.action.name, **one.action.args) == CODE
    two = parse_reply("", tool_calls=(ToolCall("EDITOR_UPDATE", '{"text": "x"}'),
                                      ToolCall("FINISH", "{}")))
    assert two.action is None and "2 tool calls" in (two.error or "")
    bad = parse_reply("", tool_calls=(ToolCall("SUBMIT", "{}"),))
    assert bad.action is None and "Unknown action 'SUBMIT'" in (bad.error or "")


# ------------------------------------------------------------------ a fake client
@dataclass
class FakeClient:
    """Answers ``complete`` with queued replies (text or LLMReply fields); records calls."""

    replies: list[Any]
    calls: list[dict[str, Any]] = field(default_factory=list)

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        settings: LLMSettings,
        *,
        tag: str = "",
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> LLMReply:
        self.calls.append({"messages": [dict(m) for m in messages], "tools": tools, "tag": tag})
        item = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        fields = {"text": item} if isinstance(item, str) else dict(item)
        fields.setdefault("text", "")
        return LLMReply(model=settings.model, prompt_tokens=estimate_prompt_tokens(
            [dict(m) for m in messages]), completion_tokens=5, cost_usd=0.0, cost_known=False,
            cached=False, latency_s=0.0, **fields)


def fake_participant(replies: list[Any], **kw: Any) -> tuple[LLMParticipant, FakeClient]:
    client = FakeClient(replies)
    settings = kw.pop("settings", LLMSettings(model="gpt-4o-mini"))
    p = LLMParticipant(name="agent", role="agent", settings=settings, client=client, **kw)  # type: ignore[arg-type]
    return p, client


def test_the_issue_reply_gets_one_repair_turn_quoting_the_error_then_is_unusable() -> None:
    bad = 'THOUGHT: I will call FINISH() now.\nACTION: SUBMIT(answer="Dagger rises")'
    p, client = fake_participant([bad])
    reply = run(p.act(make_obs()))
    assert isinstance(reply, UnusableReply)
    assert "Unknown action 'SUBMIT'" in reply.error and reply.text == bad
    assert len(client.calls) == 2
    assert "Unknown action 'SUBMIT'" in client.calls[1]["messages"][-1]["content"]


def test_json_replies_are_accepted_without_a_repair_call() -> None:
    p, client = fake_participant(['{"action": "EXECUTE_CODE", "args": {"code": "print(df.head())"}}'])
    assert run(p.act(make_obs())) == CODE
    assert len(client.calls) == 1


def test_tool_schemas_of_the_available_actions_are_offered_and_a_tool_call_is_the_action() -> None:
    call = ToolCall("EDITOR_UPDATE", json.dumps({"text": "Dagger first rises c. 2300 BCE."}))
    p, client = fake_participant([{"text": "", "tool_calls": (call,), "finish_reason": "tool_calls"}])
    obs = make_obs()
    assert run(p.act(obs)) == format_action("EDITOR_UPDATE", text="Dagger first rises c. 2300 BCE.")
    offered = [t["function"]["name"] for t in client.calls[0]["tools"]]
    assert offered == list(obs.available_actions)


def test_two_tool_calls_are_a_doubled_action() -> None:
    calls = (ToolCall("EDITOR_UPDATE", '{"text": "x"}'), ToolCall("FINISH", "{}"))
    p, client = fake_participant([{"tool_calls": calls}])
    reply = run(p.act(make_obs()))
    assert isinstance(reply, UnusableReply) and "2 tool calls" in reply.error
    assert len(client.calls) == 2


def test_a_cut_reply_gets_a_repair_turn_asking_for_a_shorter_reply() -> None:
    cut = {"text": 'ACTION: EXECUTE_CODE(code="df = pd.read_csv(\\"data.csv\\")")',
           "finish_reason": "length"}
    p, client = fake_participant([cut, 'ACTION: EXECUTE_CODE(code="print(1)")'])
    assert run(p.act(make_obs())) == format_action("EXECUTE_CODE", code="print(1)")
    repair = client.calls[1]["messages"][-1]["content"]
    assert "cut off" in repair and "shorter" in repair


# ------------------------------------------------------------------ loops
def test_the_same_action_is_warned_after_k_repeats_and_ends_the_session_once_more() -> None:
    p, client = fake_participant([f"ACTION: {CODE}"], loop_repeats=3)
    for turn in range(3):
        assert run(p.act(make_obs(turn=turn))) == CODE
    fourth_prompt = client.calls[-1]["messages"][1]["content"]
    assert "same action" not in fourth_prompt
    with pytest.raises(SessionAbort) as info:
        run(p.act(make_obs(turn=3)))
    assert info.value.status == LOOP
    assert "same action 3 times in a row" in client.calls[-1]["messages"][1]["content"]


def test_waits_never_count_as_a_loop() -> None:
    p, _ = fake_participant(['ACTION: WAIT_TEAMMATE_CONTINUE(max_seconds="30")'], loop_repeats=2)
    for turn in range(6):
        assert run(p.act(make_obs(turn=turn))).startswith("WAIT_TEAMMATE_CONTINUE")


def test_a_different_action_resets_the_count() -> None:
    other = format_action("EDITOR_UPDATE", text="x")
    p, _ = fake_participant([f"ACTION: {CODE}", f"ACTION: {CODE}", f"ACTION: {other}",
                             f"ACTION: {CODE}", f"ACTION: {CODE}"], loop_repeats=2)
    for turn in range(5):
        run(p.act(make_obs(turn=turn)))


# ------------------------------------------------------------------ context budget
def _long_obs() -> Any:
    history = tuple(HistoryEntry(i, 10.0 + i, "agent", "SEND_TEAMMATE_MESSAGE", "ok",
                                 f"message number {i} " + "word " * 40) for i in range(40))
    cells = tuple(CodeCell(100 + i, 5.0 + i, "agent", f"print({i})", "out " * 200, True)
                  for i in range(12))
    return make_obs(history=history, code_cells=cells, turn=39)


def test_the_prompt_is_trimmed_to_the_context_window_oldest_history_first() -> None:
    obs = _long_obs()
    full = estimate_prompt_tokens(PromptRenderer().messages(obs))
    settings = LLMSettings(model="gpt-4o-mini", max_tokens=500, context_tokens=full - 600)
    p, client = fake_participant([f"ACTION: {CODE}"], settings=settings)
    assert run(p.act(obs)) == CODE
    sent = client.calls[0]["messages"]
    assert estimate_prompt_tokens(sent) + 500 <= full - 600
    user = sent[1]["content"]
    assert "earlier not shown" in user and "message number 39" in user
    assert "message number 0 " not in user
    assert "cell 100 by" in user, "code cells are cut only after history and chat"
    assert p.last_turn_usage == {"calls": 1, "prompt_tokens": estimate_prompt_tokens(sent),
                                 "completion_tokens": 5}


def test_a_prompt_that_cannot_fit_is_a_provider_error_naming_model_and_window() -> None:
    settings = LLMSettings(model="gpt-4o-mini", max_tokens=500, context_tokens=900)
    p, client = fake_participant([f"ACTION: {CODE}"], settings=settings)
    with pytest.raises(SessionAbort) as info:
        run(p.act(_long_obs()))
    assert info.value.status == PROVIDER_ERROR
    assert "gpt-4o-mini" in info.value.reason and "900" in info.value.reason
    assert client.calls == []


# ------------------------------------------------------------------ prompts
def test_the_collaborator_system_prompt_carries_its_calibrated_behaviour() -> None:
    team = team_from_dict("DR")
    obs = make_obs(me="D", role="collaborator", profile=team.profile("D"), teammates=("agent", "R"))
    system = PromptRenderer().system(obs)
    assert "How you behave" in system
    for expected in ("adopt it as it is about 62 %", "modify it", "about 13 % of the time",
                     "say so in the chat about 60 %", "repeat it about 30 %",
                     "at least 50 % sure", "work alone first", "err about 30 %"):
        assert expected in system, expected


def test_the_turn_prompt_shows_the_budget_history_in_time_order_and_each_cell_once() -> None:
    cell = CodeCell(7, 40.0, "agent", "print(df['Dagger'].idxmax())", "-2300", True)
    history = (HistoryEntry(7, 40.0, "agent", "EXECUTE_CODE", "ok",
                            "print(df['Dagger'].idxmax()) -> -2300"),
               HistoryEntry(8, 35.0, "D", "SEND_TEAMMATE_MESSAGE", "ok", "Check the window."))
    obs = make_obs(time=100.0, turn=2, max_turns=40, max_time=7200.0, code_cells=(cell,),
                   history=history)
    user = PromptRenderer().turn(obs, "", None)
    assert "This is your turn 3 of at most 40." in user
    assert "t=100s of 7200s (7100s left)" in user
    assert user.count("print(df['Dagger'].idxmax())") == 1
    assert user.index("Check the window.") < user.index("cell 7 (code and output")


def test_the_engine_gives_the_budget_to_every_observation() -> None:

    cfg = SessionConfig(task=make_task(), team=TeamSpec(), structure=builtin_structure("single"),
                        seed=0, max_turns=7, max_time=900.0)
    orch = Orchestrator(cfg)
    orch.start()
    turn = orch.next_turn()
    assert turn is not None
    assert (turn.observation.max_turns, turn.observation.max_time) == (7, 900.0)
    orch.close()


def test_agreeing_again_while_the_team_agrees_is_waiting_not_a_loop() -> None:
    """A model re-sending MEMORY_AGREE while its teammates' agreements take their time
    changes nothing, like a wait: it never ends a session as a loop."""
    from collabsim.core.actions import Action
    from collabsim.participants.loops import LoopGuard

    guard = LoopGuard(repeats=2)
    for _ in range(6):
        assert not guard.is_loop(Action("MEMORY_AGREE", {}))
        guard.record(Action("MEMORY_AGREE", {}))
    assert guard.warning() is None
