"""The agent acts on what a teammate's objection says - in chat or as a gate REJECT's reason -
and after a rejected FINISH it revises or hands the submission to the owner, never re-asks
with the same text."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from helpers.participants import CAREFUL_AGENT

from collabsim.core.action_parser import parse_action
from collabsim.core.observation import Observation
from collabsim.core.records import ChatMessage, HistoryEntry, Profile
from collabsim.participants.analysis import MistakeModel
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.model import Task
from tests.participants.test_scripted import _obs, _play_agent


def _action(text: str) -> tuple[str, dict[str, str]]:
    parsed = parse_action(text)
    assert parsed.action is not None, parsed.error
    return parsed.action.name, dict(parsed.action.args)


@pytest.fixture(scope="module")
def peak(generated_200: Path) -> Task:
    loaded = load_tasks(generated_200).tasks[:18]
    return next(t for t in loaded
                if json.loads(t.reference_workflow_path.read_text())["category"] == "peak")


def _rejected_finish(obs: Observation, reason: str, at: float = 99.0) -> Observation:
    """``obs`` after D (FINISH owner) rejected the agent's FINISH with ``reason``."""
    history = (*obs.history,
               HistoryEntry(90, at, "D", "REJECT", "ok", f"g1 {reason}"),
               HistoryEntry(91, at, "agent", "FINISH", "rejected", f"g1 {reason} (rejected)"))
    return replace(obs, history=history, gates={"FINISH": "D"}, time=at + 1)


def test_a_gate_rejects_fix_is_redone_like_a_chat_objection(peak: Task) -> None:
    agent = ScriptedAgent(seed=0, params=CAREFUL_AGENT,
                          mistakes=MistakeModel(wrong_column_variant=1.0))
    obs = _play_agent(agent, peak, _obs(peak))
    right = agent.context(peak.brief()).plan
    assert agent.current_plan(obs)[0] != right  # the agent's own (raw column) plan
    name, args = _action(agent.decide(obs))
    assert name == "EDITOR_UPDATE"
    reason = ("You used the raw column. [issue kind=wrong_column_variant "
              f"fix=column:{'+'.join(right.columns)}]")
    rejected = _rejected_finish(replace(obs, editor_text=args["text"]), reason)
    plan, applied, _ = agent.current_plan(rejected)
    assert plan == right and applied == ["wrong_column_variant"]  # the owner's fix binds
    name, args = _action(agent.decide(rejected))
    assert name == "EXECUTE_CODE" and right.columns[0] in args["code"]  # redoes the analysis


def test_a_rejected_finish_is_not_asked_again_unchanged(peak: Task) -> None:
    agent = ScriptedAgent(seed=0, params={**CAREFUL_AGENT, "announce": False})
    obs = _play_agent(agent, peak, _obs(peak))
    name, args = _action(agent.decide(obs))
    assert name == "EDITOR_UPDATE"
    ready = replace(obs, editor_text=args["text"], history=(
        HistoryEntry(80, 95.0, "agent", "EDITOR_UPDATE", "ok", args["text"]),))
    assert _action(agent.decide(ready))[0] == "FINISH"
    rejected = _rejected_finish(ready, "I do not agree with this answer.")
    name, args = _action(agent.decide(rejected))
    assert name == "SEND_TEAMMATE_MESSAGE" and "[handover FINISH" in args["message"]
    said = replace(rejected, chat=(ChatMessage(92, 100.0, "agent", args["message"]),))
    assert _action(agent.decide(said))[0] == "WAIT_TEAMMATE_CONTINUE"  # no FINISH loop
    # once the editor changed after the rejection, the agent may ask again
    revised = replace(said, history=(*said.history, HistoryEntry(
        93, 101.0, "R", "EDITOR_UPDATE", "ok", "edited")), editor_text=ready.editor_text)
    assert _action(agent.decide(revised))[0] == "FINISH"


def test_the_finish_owner_submits_once_the_agent_hands_over(peak: Task) -> None:
    d = ScriptedCollaborator(Profile("D", "data analysis", "check numbers",
                                     {"recompute_claims": False}), seed=0)
    handover = ChatMessage(92, 100.0, "agent", "D, please submit. [handover FINISH draft=1]")
    obs = _obs(peak, "D", gates={"FINISH": "D"}, editor_text="Around 1000 BCE, X peaked.")
    assert _action(d.decide(replace(obs, chat=(handover,))))[0] != "FINISH"  # never rejected
    # its history shows that it rejected the agent's FINISH once
    obs = replace(obs, history=(HistoryEntry(90, 90.0, "D", "REJECT", "ok", "g1 wrong",
                                             request_type="FINISH"),))
    assert _action(d.decide(obs))[0] != "FINISH"  # below escalate_after, no hand-over
    assert _action(d.decide(replace(obs, chat=(handover,))))[0] == "FINISH"
