"""LLM participants: prompts, lenient parsing, the repair turn, scratchpad, failures.

Model replies come from litellm's ``mock_response`` (and raised exceptions); no network.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from collabsim.core.action_parser import parse_action
from collabsim.core.actions import format_action
from collabsim.core.errors import SessionAbort
from collabsim.core.observation import Observation
from collabsim.core.records import ChatMessage, GateRequest, MemoryView
from collabsim.llm import Budget, BudgetExceeded, LLMClient, LLMSettings
from collabsim.llm.backend import get_litellm
from collabsim.llm.calllog import read_call_log
from collabsim.participants.llm_policy import (
    LLMParticipant,
    PromptRenderer,
    build_llm_participants,
    parse_reply,
)
from collabsim.participants.team import team_from_dict
from collabsim.tasks.model import ColumnInfo, DatasetInfo, Task

GOLD = "GOLD-HYPOTHESIS-MUST-NOT-LEAK"
run = asyncio.run


def make_task() -> Task:
    return Task(
        task_id="gen_000/0/0", dataset="gen_000", metadata_id=0, query_id=0,
        query="When did the count of Dagger first rise?", question_type="context",
        domain="archaeology", domain_knowledge="Negative years are BCE.", workflow_tags="",
        datasets=(DatasetInfo("finds", "Artefact counts per period.",
                              (ColumnInfo("year", "Year"), ColumnInfo("Dagger", "Daggers")),
                              Path("finds.csv")),),
        source="generated", gold_hypothesis=GOLD,
        reference_workflow_path=Path("/nowhere/REFERENCE-WORKFLOW.json"),
    )


def make_obs(**kw: Any) -> Observation:
    base: dict[str, Any] = dict(
        me="agent", role="agent", profile=None, teammates=("D",), time=30.0,
        structure="default", phase="work", task=make_task().brief(),
        chat=(ChatMessage(0, 10.0, "D", "Check the second rise, not the first."),),
        available_actions=("SEND_TEAMMATE_MESSAGE", "EXECUTE_CODE", "EDITOR_UPDATE",
                           "WAIT_TEAMMATE_CONTINUE", "FINISH"),
    )
    base.update(kw)
    return Observation(**base)


def participant(reply: Any, tmp_path: Path, **kw: Any) -> LLMParticipant:
    client = LLMClient(sleep=_no_sleep).for_session(call_log_path=tmp_path / "calls.jsonl")
    settings = LLMSettings(model="gpt-4o-mini", extra={"mock_response": reply}, max_retries=1)
    return LLMParticipant(name="agent", role="agent", settings=settings, client=client, **kw)


async def _no_sleep(_: float) -> None:
    return None


@pytest.fixture()
def replies(monkeypatch):
    """Answer successive litellm calls with the given replies (through mock_response)."""
    litellm = get_litellm()
    real = litellm.acompletion
    queue: list[Any] = []

    async def fake(*args: Any, **kwargs: Any) -> Any:
        item = queue.pop(0)
        if isinstance(item, Exception):
            raise item
        kwargs["mock_response"] = item
        return await real(*args, **kwargs)

    monkeypatch.setattr(litellm, "acompletion", fake)
    return queue


def test_prose_around_the_action_is_ignored(tmp_path: Path) -> None:
    reply = ('Sure! Let me look at the data first.\nTHOUGHT: inspect\n'
             'ACTION: EXECUTE_CODE(code="print(df.head())")\nHope that helps.')
    p = participant(reply, tmp_path)
    text = run(p.act(make_obs()))
    assert text == format_action("EXECUTE_CODE", code="print(df.head())")
    assert p.turns[-1].calls == 1
    assert p.client.usage.tag("agent").calls == 1


def test_no_action_gets_one_repair_turn_then_the_raw_reply(tmp_path: Path) -> None:
    p = participant("I think we are done here.", tmp_path)
    text = run(p.act(make_obs()))
    assert text == "I think we are done here."
    assert parse_action(text).action is None, "the engine must log it as INVALID"
    assert p.turns[-1].calls == 2 and "No action found" in (p.turns[-1].error or "")
    calls = read_call_log(tmp_path / "calls.jsonl")
    assert len(calls) == 2
    repair_prompt = calls[1]["messages"][-1]["content"]
    assert "No action found" in repair_prompt and "I think we are done here." in repair_prompt
    assert calls[1]["messages"][-2] == {"role": "assistant", "content": "I think we are done here."}


def test_repair_turn_can_succeed(tmp_path: Path, replies: list[Any]) -> None:
    replies.extend(["Hmm, not sure.", 'ACTION: EDITOR_UPDATE(text="Dagger first rises c. 2300 BCE.")'])
    p = participant("unused", tmp_path)
    text = run(p.act(make_obs()))
    assert text == format_action("EDITOR_UPDATE", text="Dagger first rises c. 2300 BCE.")
    assert p.turns[-1].calls == 2 and p.turns[-1].error is None


def test_empty_reply_is_repaired_then_becomes_invalid(tmp_path: Path) -> None:
    p = participant("", tmp_path)
    text = run(p.act(make_obs()))
    assert text == ""
    assert "empty" in (p.turns[-1].error or "")
    assert len(read_call_log(tmp_path / "calls.jsonl")) == 2


def test_json_ish_arguments(tmp_path: Path, replies: list[Any]) -> None:
    replies.append("SEND_TEAMMATE_MESSAGE({'message': 'Checking the second rise.',})")
    p = participant("unused", tmp_path)
    assert run(p.act(make_obs())) == format_action(
        "SEND_TEAMMATE_MESSAGE", message="Checking the second rise."
    )
    malformed = 'EDITOR_UPDATE({"text": "Dagger rises", "confidence": 0.9'
    replies.extend([malformed, malformed])
    assert run(p.act(make_obs())) == malformed
    assert p.turns[-1].calls == 2 and "EDITOR_UPDATE" in (p.turns[-1].error or "")


def test_timeout_after_retries_aborts_the_session_with_provider_error(tmp_path: Path) -> None:
    litellm = get_litellm()
    timeout = litellm.Timeout("request timed out", model="gpt-4o-mini", llm_provider="openai")
    p = participant(timeout, tmp_path)
    with pytest.raises(SessionAbort) as info:
        run(p.act(make_obs()))
    assert info.value.status == "provider_error" and "Timeout" in info.value.reason
    assert p.client.usage.tag("agent").failed_calls == 1


def test_rate_limit_is_retried_transparently(tmp_path: Path, replies: list[Any]) -> None:
    litellm = get_litellm()
    replies.extend([
        litellm.RateLimitError("429", llm_provider="openai", model="gpt-4o-mini"),
        "FINISH()",
    ])
    p = participant("unused", tmp_path)
    assert run(p.act(make_obs())) == "FINISH()"
    usage = p.client.usage.tag("agent")
    assert (usage.calls, usage.retries) == (1, 1)


def test_budget_exceeded_propagates(tmp_path: Path) -> None:
    client = LLMClient().for_session(budget=Budget(max_tokens=10))
    p = LLMParticipant(name="agent", role="agent", client=client,
                       settings=LLMSettings(model="gpt-4o-mini", extra={"mock_response": "x"}))
    with pytest.raises(BudgetExceeded):
        run(p.act(make_obs()))


def test_scratchpad_is_private_and_carried_to_the_next_prompt(
    tmp_path: Path, replies: list[Any]
) -> None:
    replies.extend([
        "THOUGHT: start\nSCRATCHPAD: D wants the SECOND rise; column Dagger.\n"
        'ACTION: EXECUTE_CODE(code="print(1)")',
        "ACTION: WAIT_TEAMMATE_CONTINUE()",
    ])
    p = participant("unused", tmp_path)
    run(p.act(make_obs()))
    assert p.scratchpad == "D wants the SECOND rise; column Dagger."
    run(p.act(make_obs(turn=1)))
    second_prompt = read_call_log(tmp_path / "calls.jsonl")[1]["messages"][1]["content"]
    assert "D wants the SECOND rise; column Dagger." in second_prompt
    assert p.scratchpad == "D wants the SECOND rise; column Dagger.", "kept when not replaced"


def test_prompt_renders_every_part_and_no_gold() -> None:
    team = team_from_dict("DR")
    obs = make_obs(
        me="D", role="collaborator", profile=team.profile("D"), teammates=("agent", "R"),
        structure="scaffolded", phase="work", editor_text="Dagger first rises c. 2300 BCE.",
        memory=MemoryView({"plan": ("D checks numbers",), "gates": ("FINISH: D",)}, True),
        gates={"FINISH": "D"},
        pending_for_me=(GateRequest("g1", 5, 20.0, "agent", "D", "FINISH", {}),),
        feedback=("Your REJECT needs a reason.",),
        available_actions=("SEND_TEAMMATE_MESSAGE", "APPROVE", "REJECT", "WAIT_TEAMMATE_CONTINUE"),
    )
    system, user = (m["content"] for m in PromptRenderer().messages(obs, "note to self"))
    assert "data analyst" in system, "profile guidance goes to the collaborator"
    for expected in ("When did the count of Dagger first rise?", "Artefact counts per period.",
                     "Dagger: Daggers", "Check the second rise", "D checks numbers",
                     "request_id=g1", "FINISH: D", "note to self", "Your REJECT needs a reason.",
                     'REJECT(request_id="...", reason="...")', "Dagger first rises c. 2300 BCE.",
                     "Your action history"):
        assert expected in user, expected
    assert "EXECUTE_CODE(" not in user.split("## Actions you can take now")[1].split("##")[0]
    assert GOLD not in system + user and "REFERENCE-WORKFLOW" not in system + user
    assert "collabsim-state" not in user


def test_state_block_only_for_offline_models(tmp_path: Path) -> None:
    offline = LLMParticipant(name="agent", role="agent", client=LLMClient(),
                             settings=LLMSettings(model="collabsim/scripted"))
    hosted = participant("x", tmp_path)
    assert offline._state(make_obs(), repair=False) is not None
    assert hosted._state(make_obs(), repair=False) is None


def test_parse_reply_prefers_the_action_marker() -> None:
    parsed = parse_reply('THOUGHT: maybe FINISH() later\nACTION: EXECUTE_CODE(code="x = 1")')
    assert parsed.action is not None and parsed.action.name == "EXECUTE_CODE"
    assert parse_reply("FINISH").action is not None


def test_factory_builds_one_participant_per_member() -> None:
    team = team_from_dict("DR")
    agent_s = LLMSettings(model="gpt-4o-mini")
    collab_s = LLMSettings(model="anthropic/claude-3-5-haiku-latest")
    r_s = LLMSettings(model="deepseek/deepseek-chat")
    ps = build_llm_participants(
        team, {"agent": agent_s, "collaborator": collab_s, "R": r_s}, LLMClient(), seed=3,
        scripted_params={"agent": {"mistakes": {"wrong_ordinal": 1.0}}},
    )
    assert list(ps) == ["agent", "D", "R"]
    assert [p.role for p in ps.values()] == ["agent", "collaborator", "collaborator"]
    assert (ps["agent"].settings, ps["D"].settings, ps["R"].settings) == (agent_s, collab_s, r_s)
    assert ps["D"].profile is not None and ps["D"].profile.key == "D"
    assert ps["agent"].offline_policy == {
        "kind": "scripted", "seed": 3, "params": {"mistakes": {"wrong_ordinal": 1.0}}
    }
