"""Teammates who take part: the collaborators' answers to the agent's outputs, the agent's
sharing and waiting, on hand-built observations (no session is run)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from helpers.observations import sample_observation
from helpers.participants import CAREFUL_AGENT

from collabsim.core.action_parser import parse_action
from collabsim.core.observation import Observation
from collabsim.core.records import ChatMessage, CodeCell, HistoryEntry, MemoryView
from collabsim.core.tags import found_cells, memory_ref, parse_replies, requested_steps
from collabsim.participants import participation
from collabsim.participants.behaviour.params import Param
from collabsim.participants.cells import COMPUTE_MARK, INSPECT_MARK
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.team import load_profile

ACTIONS = ("EXECUTE_CODE", "EDITOR_UPDATE", "FINISH", "WAIT_TEAMMATE_CONTINUE",
           "SEND_TEAMMATE_MESSAGE", "APPROVE", "REJECT")
INSPECT = f"{INSPECT_MARK}\nprint(df.head())"


def _action(text: str) -> tuple[str, dict[str, Any]]:
    parsed = parse_action(text)
    assert parsed.action is not None, parsed.error
    return parsed.action.name, dict(parsed.action.args)


def _person(respond: float, act: float = 0.0, delegate: float = 0.0,
            seed: int = 0, again: float = 0.0, final: float = 0.0) -> ScriptedCollaborator:
    """The packaged D with its participation rates set (every other parameter calibrated)."""
    person = ScriptedCollaborator(load_profile("D"), seed=seed)
    behaviour = person.human.behaviour
    assert behaviour is not None and behaviour.participation is not None
    rate = Param(respond, "prior:test")
    part = replace(behaviour.participation, respond_code=rate, respond_message=rate,
                   respond_memory=rate, delegate=Param(delegate, "prior:test"),
                   act_between=Param(act, "prior:test"), act_again=Param(again, "prior:test"),
                   respond_final=Param(final, "prior:test"))
    person.human = replace(person.human, behaviour=replace(behaviour, participation=part))
    return person


def _collab_obs(**kw: Any) -> Observation:
    base = replace(sample_observation(turn=3, role="collaborator"), me="D",
                   teammates=("agent",), structure="default", time=60.0,
                   available_actions=ACTIONS)
    return replace(base, **kw)


def _inspected(time: float) -> Observation:
    return _collab_obs(code_cells=(CodeCell(5, 50.0, "agent", INSPECT, "a b c", True),),
                       time=time)


def test_collaborator_reads_then_answers_the_agents_code_cell() -> None:
    obs = _inspected(50.0)
    output = participation.latest_output(obs)
    assert output is not None and output.ref == "5" and output.kind == "code"
    seed = next(s for s in range(50)
                if participation.ready_at(_person(1.0, seed=s), obs, output) > 50.0)
    person = _person(respond=1.0, seed=seed)
    assert person.rule_for(obs).name == "answer the agent's output"
    name, args = _action(person.decide(obs))
    assert name == "WAIT_TEAMMATE_CONTINUE" and float(args["max_seconds"]) > 0  # think time
    name, args = _action(person.decide(_inspected(1e6)))
    assert name == "SEND_TEAMMATE_MESSAGE"
    assert parse_replies(args["message"]) == (("5", "adopt"),)
    assert requested_steps(args["message"]) == ()


def test_collaborator_answering_can_delegate_the_next_step() -> None:
    name, args = _action(_person(respond=1.0, delegate=1.0).decide(_inspected(1e6)))
    assert name == "SEND_TEAMMATE_MESSAGE"
    assert requested_steps(args["message"]) == ("compute",)


def test_collaborator_not_answering_does_a_step_of_its_own_or_nothing() -> None:
    name, args = _action(_person(respond=0.0, act=1.0).decide(_inspected(1e6)))
    assert name == "EXECUTE_CODE" and args["code"].startswith(COMPUTE_MARK)  # D recomputes
    assert _person(respond=0.0, act=0.0).rule_for(_inspected(1e6)).name != (
        "answer the agent's output")


def test_collaborator_answers_an_output_once() -> None:
    # my own action landed after the agent's cell: it is answered
    mine = HistoryEntry(6, 200.0, "D", "SEND_TEAMMATE_MESSAGE", "ok", "")
    obs = replace(_inspected(1e6), history=(mine,))
    assert _person(respond=1.0).rule_for(obs).name != "answer the agent's output"


def test_collaborator_does_one_more_step_of_its_own_after_answering() -> None:
    mine = HistoryEntry(6, 200.0, "D", "SEND_TEAMMATE_MESSAGE", "ok", "")
    obs = replace(_inspected(1e6), history=(mine,))
    assert _person(respond=1.0, again=1.0).rule_for(obs).name == "answer the agent's output"
    assert _action(_person(respond=1.0, again=1.0).decide(obs))[0] == "SEND_TEAMMATE_MESSAGE"
    twice = replace(obs, history=(mine, replace(mine, seq=7, time=300.0)))
    assert _person(respond=1.0, again=1.0).rule_for(twice).name != "answer the agent's output"


def test_collaborator_taking_the_final_draft_says_so_or_acts_once() -> None:
    draft = "Around 2300 BCE, the number of daggers began to increase for the first time."
    obs = _collab_obs(editor_text=draft, time=1e6, editor_seen=500.0)
    turn = _person(respond=0.0)._turn(obs)
    assert participation.confirms_final(_person(respond=0.0, final=1.0), turn)
    assert not participation.confirms_final(_person(respond=0.0, final=0.0), turn)
    # silent: a step of its own once after it saw the draft, then nothing
    name, _ = _action(participation.silent_step(_person(respond=0.0, act=1.0), turn))
    assert name == "EXECUTE_CODE"
    after = _person(respond=0.0, act=1.0)._turn(replace(obs, history=(
        HistoryEntry(9, 600.0, "D", "EXECUTE_CODE", "ok", ""),)))
    assert _action(participation.silent_step(_person(respond=0.0, act=1.0), after))[0] == (
        "WAIT_TEAMMATE_CONTINUE")


def test_collaborator_comments_on_the_agents_memory_entry_from_its_own_reading() -> None:
    plan = "Plan (agent): compute something else entirely, then finish."
    obs = replace(_inspected(1e6), memory=MemoryView(sections={"plan": (plan,)},
                                                     read_only=True))
    person = _person(respond=1.0)
    name, args = _action(person.decide(obs))
    assert name == "SEND_TEAMMATE_MESSAGE"
    # its first comment of the work phase answers the cell and the memory entry; the plan
    # does not say what D reads the query as asking: its own verdict disagrees, and its
    # reaction is the calibrated draw given a disagreeing check
    label = person.reaction(obs, memory_ref(plan), disagrees=True)
    assert parse_replies(args["message"])[1:] == ((memory_ref(plan), label),)
    if label != "adopt":
        assert "I read the question as asking for" in args["message"]
    answered = replace(obs, chat=(ChatMessage(1, 10.0, "D", args["message"]),),
                       code_cells=(CodeCell(7, 2e6, "agent", INSPECT, "x", True),), time=1e7)
    name, args = _action(person.decide(answered))
    assert [ref for ref, _ in parse_replies(args["message"])] == ["7"]


# ------------------------------------------------------------------------------ agent
def _agent_obs(**kw: Any) -> Observation:
    base = replace(sample_observation(turn=5), teammates=("D",), structure="default",
                   time=100.0, available_actions=ACTIONS)
    return replace(base, **kw)


def test_agent_waits_for_a_reaction_to_its_output_within_its_patience() -> None:
    agent = ScriptedAgent(params=CAREFUL_AGENT)
    cell = (CodeCell(1, 100.0, "agent", INSPECT, "a b c", True),)
    mine = HistoryEntry(1, 100.0, "agent", "EXECUTE_CODE", "ok", "")
    obs = _agent_obs(code_cells=cell, history=(mine,))
    assert agent.rule_for(obs).name == "wait for reactions to my output"
    name, args = _action(agent.decide(obs))
    assert name == "WAIT_TEAMMATE_CONTINUE"
    assert abs(float(args["max_seconds"]) - agent.params.reaction_patience_seconds) < 0.01
    # a reaction that landed just now: look again a moment later, then go on
    reacted = replace(obs, history=(mine, HistoryEntry(2, 150.0, "D", "SEND_TEAMMATE_MESSAGE",
                                                       "ok", "")), time=150.0)
    assert abs(float(_action(agent.decide(reacted))[1]["max_seconds"]) - 1.0) < 0.01
    assert agent.rule_for(replace(reacted, time=151.0)).name != "wait for reactions to my output"
    # patience ran out
    late = replace(obs, time=100.0 + agent.params.reaction_patience_seconds)
    assert agent.rule_for(late).name != "wait for reactions to my output"


def test_agent_shares_what_its_computation_found() -> None:
    agent = ScriptedAgent(params=CAREFUL_AGENT)
    obs = _agent_obs()
    inspect = _action(agent.decide(obs))[1]["code"]
    cells = (CodeCell(1, 10.0, "agent", inspect, "", True),)
    compute = _action(agent.decide(_agent_obs(code_cells=cells)))[1]["code"]
    cells += (CodeCell(2, 20.0, "agent", compute, "RESULT relation=peak", True),)
    asked = ChatMessage(3, 15.0, "D", "Please run it. [please step=compute]")
    obs = _agent_obs(code_cells=cells, chat=(asked,))
    assert agent.rule_for(obs).name == "share what my computation found"
    name, args = _action(agent.decide(obs))
    assert name == "SEND_TEAMMATE_MESSAGE" and found_cells(args["message"]) == (2,)
    assert "RESULT relation=peak" in args["message"] and "[done step=compute for=3]" in args[
        "message"]
    shared = replace(obs, chat=(asked, ChatMessage(4, 30.0, "agent", args["message"])))
    assert agent.rule_for(shared).name != "share what my computation found"
