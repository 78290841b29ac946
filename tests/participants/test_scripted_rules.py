"""Each rule of the scripted policies' decision tables, on a hand-built observation: the rule
that fires and the action it takes (no session is run)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from helpers.observations import sample_observation
from helpers.participants import CAREFUL_AGENT

from collabsim.core.action_parser import parse_action
from collabsim.core.coordination import CoordinationSpec
from collabsim.core.observation import Observation
from collabsim.core.records import ChatMessage, CodeCell, GateRequest, HistoryEntry, Profile
from collabsim.core.tags import (
    announced_drafts,
    checked_drafts,
    draft_fingerprint,
    hands_over,
)
from collabsim.participants.cells import COMPUTE_MARK, INSPECT_MARK
from collabsim.participants.claims import Issue, format_check_message
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.team import load_profile

ACTIONS = ("EXECUTE_CODE", "EDITOR_UPDATE", "FINISH", "WAIT_TEAMMATE_CONTINUE",
           "SEND_TEAMMATE_MESSAGE", "APPROVE", "REJECT")
DRAFT = "The count of Dagger first rises in the 3rd century BCE."


def _action(text: str) -> tuple[str, dict[str, Any]]:
    parsed = parse_action(text)
    assert parsed.action is not None, parsed.error
    return parsed.action.name, dict(parsed.action.args)


# ------------------------------------------------------------------------------ agent
def _agent_obs(**kw: Any) -> Observation:
    base = replace(sample_observation(turn=5), teammates=("D",), structure="default",
                   time=100.0, available_actions=ACTIONS)
    return replace(base, **kw)


def _fired(policy: ScriptedAgent | ScriptedCollaborator, obs: Observation
           ) -> tuple[str, str, dict[str, Any]]:
    rule = policy.rule_for(obs)
    name, args = _action(policy.decide(obs))
    return rule.name, name, args


def _cell(seq: int, author: str, code: str, ok: bool = False) -> CodeCell:
    return CodeCell(seq, 10.0 * seq, author, code, "", ok)


def _worked(agent: ScriptedAgent) -> tuple[Observation, str]:
    """An observation after the agent inspected the data and ran its (failing) computation,
    and the draft it then writes."""
    obs = _agent_obs()
    inspect = _action(agent.decide(obs))[1]["code"]
    obs = _agent_obs(code_cells=(_cell(1, "agent", inspect),))
    compute = _action(agent.decide(obs))[1]["code"]
    obs = _agent_obs(code_cells=(_cell(1, "agent", inspect), _cell(2, "agent", compute)))
    draft = _action(agent.decide(obs))[1]["text"]
    return obs, draft


def _announced(agent: ScriptedAgent) -> tuple[Observation, str]:
    obs, draft = _worked(agent)
    obs = replace(obs, editor_text=draft)
    message = _action(agent.decide(obs))[1]["message"]
    return replace(obs, chat=(ChatMessage(1, obs.time, "agent", message),)), draft


def test_agent_waits_for_the_decision_on_its_request() -> None:
    request = GateRequest("r1", 1, 90.0, "agent", "D", "FINISH")
    fired = _fired(ScriptedAgent(params=CAREFUL_AGENT), _agent_obs(my_pending=(request,)))
    assert fired[:2] == ("wait for my request's decision", "WAIT_TEAMMATE_CONTINUE")


def test_agent_leaves_the_opening_to_its_teammates_for_its_lead_patience() -> None:
    agent = ScriptedAgent(params={**CAREFUL_AGENT, "lead_patience_seconds": 300.0})
    rule, name, args = _fired(agent, _agent_obs())
    assert (rule, name) == ("leave the opening to teammates", "WAIT_TEAMMATE_CONTINUE")
    assert float(args["max_seconds"]) == pytest.approx(200.0, abs=0.01)  # 300 s - 100 s
    late = _agent_obs(time=400.0)
    assert _fired(agent, late)[0] == "inspect the data"


def test_agent_inspects_then_computes_then_writes_its_draft() -> None:
    agent = ScriptedAgent(params=CAREFUL_AGENT)
    rule, name, args = _fired(agent, _agent_obs())
    assert (rule, name) == ("inspect the data", "EXECUTE_CODE")
    assert args["code"].startswith(INSPECT_MARK)
    inspected = _agent_obs(code_cells=(_cell(1, "agent", args["code"]),))
    rule, name, args = _fired(agent, inspected)
    assert (rule, name) == ("run my computation", "EXECUTE_CODE")
    assert args["code"].startswith(COMPUTE_MARK)
    computed = replace(inspected, code_cells=(*inspected.code_cells,
                                              _cell(2, "agent", args["code"])))
    rule, name, args = _fired(agent, computed)
    assert (rule, name) == ("put my draft in the editor", "EDITOR_UPDATE") and args["text"]


def test_agent_asks_its_teammates_to_check_the_draft_in_the_editor() -> None:
    agent = ScriptedAgent(params=CAREFUL_AGENT)
    obs, draft = _worked(agent)
    rule, name, args = _fired(agent, replace(obs, editor_text=draft))
    assert (rule, name) == ("ask teammates to check the draft", "SEND_TEAMMATE_MESSAGE")
    assert announced_drafts(args["message"]) == (draft_fingerprint(draft),)


def test_agent_waits_for_checks_then_finishes() -> None:
    agent = ScriptedAgent(params=CAREFUL_AGENT)
    obs, draft = _announced(agent)
    rule, name, args = _fired(agent, obs)
    assert (rule, name) == ("wait for teammates' checks", "WAIT_TEAMMATE_CONTINUE")
    assert float(args["max_seconds"]) == pytest.approx(120.0, abs=0.01)  # patience_seconds
    check = ChatMessage(2, 110.0, "D", format_check_message("D", (), draft))
    checked = replace(obs, chat=(*obs.chat, check), time=120.0)
    assert _fired(agent, checked)[:2] == ("finish", "FINISH")


def test_agent_says_it_keeps_its_answer_when_it_ignores_an_objection() -> None:
    agent = ScriptedAgent(params={**CAREFUL_AGENT, "deference": 0.0})
    obs, draft = _announced(agent)
    issue = Issue("wrong_ordinal", "It asks for the second rise.", (("ordinal", "2"),))
    objection = ChatMessage(2, 110.0, "D", format_check_message("D", (issue,), draft))
    rule, name, args = _fired(agent, replace(obs, chat=(*obs.chat, objection)))
    assert (rule, name) == ("say I keep my answer", "SEND_TEAMMATE_MESSAGE")
    assert "keep" in args["message"]


def test_agent_does_not_finish_while_a_teammates_action_lands() -> None:
    agent = ScriptedAgent(params=CAREFUL_AGENT)
    obs, draft = _announced(agent)
    check = ChatMessage(2, 110.0, "D", format_check_message("D", (), draft))
    landing = HistoryEntry(9, 120.0, "D", "SEND_TEAMMATE_MESSAGE", "ok", "")
    busy = replace(obs, chat=(*obs.chat, check), time=120.0, history=(landing,))
    rule, name, args = _fired(agent, busy)
    assert (rule, name) == ("wait for a working teammate", "WAIT_TEAMMATE_CONTINUE")
    assert float(args["max_seconds"]) == pytest.approx(1.0, abs=0.01)


def test_agent_hands_finish_over_after_its_owner_rejected_the_same_text() -> None:
    agent = ScriptedAgent(params=CAREFUL_AGENT)
    obs, draft = _announced(agent)
    check = ChatMessage(2, 110.0, "D", format_check_message("D", (), draft))
    rejected = HistoryEntry(9, 115.0, "agent", "FINISH", "rejected", "FINISH()")
    refused = replace(obs, chat=(*obs.chat, check), time=130.0, history=(rejected,),
                      gates={"FINISH": "D"})
    rule, name, args = _fired(agent, refused)
    assert (rule, name) == ("hand FINISH over to its owner", "SEND_TEAMMATE_MESSAGE")
    assert hands_over(args["message"])


# ----------------------------------------------------------------------- collaborator
WORDING = Profile("W", "wording", "check wording", {"check_wording": True})
NUMBERS = Profile("N", "numbers", "check numbers", {"recompute_claims": True})


def _collab_obs(me: str, **kw: Any) -> Observation:
    base = replace(sample_observation(turn=3, role="collaborator"), me=me,
                   teammates=("agent", "Z"), structure="default", time=100.0,
                   available_actions=ACTIONS)
    return replace(base, **kw)


def _collab_fired(policy: ScriptedCollaborator, obs: Observation
                  ) -> tuple[str, str, dict[str, Any]]:
    rule = policy.rule_for(obs)
    name, args = _action(policy.decide(obs))
    return rule.name, name, args


def test_collaborator_decides_the_code_it_gates() -> None:
    request = GateRequest("r1", 1, 90.0, "agent", "N", "EXECUTE_CODE", {"code": "print(1)"})
    fired = _collab_fired(ScriptedCollaborator(NUMBERS), _collab_obs("N", pending_for_me=(
        request,)))
    assert fired[:2] == ("decide the code I gate", "APPROVE")


def test_collaborator_opens_the_session_alone_when_it_draws_a_lead_in() -> None:
    profile = load_profile("D")
    obs = _collab_obs("D", teammates=("agent", "R"))
    seed = next(s for s in range(200) if ScriptedCollaborator(profile, seed=s).human
                .lead_in_actions(s, "D", obs.task.task_id) >= 2)
    rule, name, args = _collab_fired(ScriptedCollaborator(profile, seed=seed), obs)
    assert (rule, name) == ("open the session alone", "SEND_TEAMMATE_MESSAGE")
    assert "look at the data myself first" in args["message"]
    not_first = _collab_obs("R", teammates=("agent", "D"), profile=load_profile("R"))
    assert _collab_fired(ScriptedCollaborator(load_profile("R"), seed=seed),
                         not_first)[0] != "open the session alone"


def test_collaborator_recomputes_once_there_is_a_draft() -> None:
    numbers = ScriptedCollaborator(NUMBERS)
    assert _collab_fired(numbers, _collab_obs("N"))[0] == "nothing to check"
    rule, name, args = _collab_fired(numbers, _collab_obs("N", editor_text=DRAFT))
    assert (rule, name) == ("recompute the answer", "EXECUTE_CODE")
    assert args["code"].startswith(COMPUTE_MARK)


def test_collaborator_owning_finish_ends_a_standoff() -> None:
    # its history shows that it rejected the agent's FINISH escalate_after (3) times
    rejections = tuple(HistoryEntry(k, 10.0 * k, "W", "REJECT", "ok", f"g{k} wrong",
                                    request_type="FINISH") for k in (1, 2, 3))
    obs = _collab_obs("W", editor_text=DRAFT, gates={"FINISH": "W"})
    assert _collab_fired(ScriptedCollaborator(WORDING), obs)[0] != "end a FINISH standoff"
    rejected = replace(obs, history=rejections)
    rule, name, _ = _collab_fired(ScriptedCollaborator(WORDING), rejected)
    assert (rule, name) == ("end a FINISH standoff", "FINISH")
    # rejections of other requests are not FINISH standoffs
    edits = tuple(replace(e, request_type="EDITOR_UPDATE") for e in rejections)
    assert (_collab_fired(ScriptedCollaborator(WORDING), replace(obs, history=edits))[0]
            != "end a FINISH standoff")


def test_collaborator_decides_a_request_it_gates() -> None:
    request = GateRequest("r1", 1, 90.0, "agent", "W", "FINISH")
    obs = _collab_obs("W", editor_text=DRAFT, pending_for_me=(request,), gates={"FINISH": "W"})
    rule, name, _ = _collab_fired(ScriptedCollaborator(WORDING), obs)
    # it approves, or (issues it is sure of) says them once in chat, then rejects
    assert rule == "decide the request I gate"
    assert name in ("APPROVE", "REJECT", "SEND_TEAMMATE_MESSAGE")


def test_collaborator_checks_a_draft_then_follows_its_check_up() -> None:
    wording = ScriptedCollaborator(WORDING)
    obs = _collab_obs("W", editor_text=DRAFT, coordination=CoordinationSpec(loafing=0.0))
    rule, name, args = _collab_fired(wording, obs)
    assert (rule, name) == ("react to the draft", "SEND_TEAMMATE_MESSAGE")
    assert checked_drafts(args["message"]) == (draft_fingerprint(DRAFT),)
    posted = replace(obs, chat=(ChatMessage(1, 100.0, "W", args["message"]),), time=110.0)
    assert _collab_fired(wording, posted)[:2] == ("follow up my check", "WAIT_TEAMMATE_CONTINUE")


def test_a_collaborator_sharing_an_unowned_check_sometimes_leaves_it_to_others() -> None:
    """Social loafing: with another collaborator and no gate of its own, a collaborator
    skips the check of some drafts (one draw per draft, at ``coordination.loafing``); alone
    with the agent, owning a gate, or with loafing off it never does."""
    drafts = [f"Around {1000 + 100 * i} BCE, axes peaked." for i in range(40)]
    wording = ScriptedCollaborator(WORDING)
    shared = [wording.rule_for(_collab_obs("W", editor_text=d)).name for d in drafts]
    skipped = shared.count("leave the check to others")
    assert 0 < skipped < len(drafts)  # about 0.29 of them
    assert 4 <= skipped <= 20, skipped
    for kw in ({"teammates": ("agent",)}, {"gates": {"FINISH": "W"}},
               {"coordination": CoordinationSpec(loafing=0.0)}):
        names = {wording.rule_for(_collab_obs("W", editor_text=d, **kw)).name for d in drafts}
        assert "leave the check to others" not in names, kw


def test_collaborator_takes_its_think_time_before_reacting() -> None:
    obs = _collab_obs("R", teammates=("agent", "D"), editor_text=DRAFT, time=0.0)
    seed = next(s for s in range(200) if ScriptedCollaborator(load_profile("R"), seed=s)
                .timing.think(obs.task.task_id, 0) > 0)
    reader = ScriptedCollaborator(load_profile("R"), seed=seed)
    rule, name, args = _collab_fired(reader, obs)
    assert (rule, name) == ("read the draft", "WAIT_TEAMMATE_CONTINUE")
    assert float(args["max_seconds"]) > 0
