"""Collaborators' modify reactions edit the editor; the agent keeps, merges or reverts them by
its structure's rule (deference in default, owners' decisions under gates)."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.executors import InProcessExecutor
from helpers.observations import sample_observation
from helpers.participants import CAREFUL_AGENT

from collabsim.core.action_parser import parse_action
from collabsim.core.observation import ChatMessage
from collabsim.core.records import Activity, GateRequest, HistoryEntry
from collabsim.participants.analysis import MistakeModel
from collabsim.participants.cells import AnalysisResult
from collabsim.participants.query import QuerySemantics
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.team import load_profile, team_from_dict
from collabsim.participants.wording import restate
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks
from collabsim.tasks.model import Task

PROFILES = Path(__file__).parents[2] / "collabsim" / "participants" / "profiles"


def _reacting(label: str) -> dict[str, Any]:
    """Error-free collaborator params whose every reaction is ``label``."""
    behaviour = copy.deepcopy(yaml.safe_load((PROFILES / "behaviour.yaml").read_text())["behaviour"])
    for key in ("adopt", "modify", "reject"):
        behaviour["reactions"][key]["value"] = 1.0 if key == label else 0.0
    return {"error_in_area": 0.0, "error_outside": 0.0, "behaviour": behaviour}


@pytest.fixture(scope="module")
def task(generated_200: Path) -> Task:
    return load_tasks(generated_200).tasks[0]  # a peak query: peak_vs_plateau changes the year


def _planted(task: Task) -> int:
    assert task.reference_workflow_path is not None
    return json.loads(task.reference_workflow_path.read_text())["completion"]["years"][0]


def _run(task: Task, structure: str, deference: float, trace: Path,
         patience: float = 600.0, members: str = "DR") -> str:
    team = team_from_dict(members)
    participants: dict[str, Any] = {"agent": ScriptedAgent(
        seed=0, params={**CAREFUL_AGENT, "deference": deference, "patience_seconds": patience},
        mistakes=MistakeModel(peak_vs_plateau=1.0))}
    for profile in team.collaborators:  # D edits every draft, R takes drafts unchecked
        label = "modify" if profile.key == "D" else "adopt"
        participants[profile.key] = ScriptedCollaborator(profile, seed=0,
                                                         params=_reacting(label))
    config = SessionConfig(task=task, team=team, structure=builtin_structure(structure),
                           seed=0)
    result = run_session_sync(config, participants, trace, executor_factory=InProcessExecutor)
    assert result.status == "finished", result.error
    return result.submitted_hypothesis


def _edits(trace: Path, actor: str) -> list[str]:
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return [e["args"]["text"] for e in events if e["actor"] == actor
            and e["action_type"] == "EDITOR_UPDATE" and e["status"] in ("ok", "approved")]


def _patient_d_run(task: Task, tmp_path: Path) -> tuple[float, list[dict[str, Any]]]:
    """A default D team with a patient agent: when its draft announcement landed, and the
    session's chat messages."""
    patient = tmp_path / "patient.jsonl"
    _run(task, "default", 0.0, patient, members="D")
    events = [json.loads(line) for line in patient.read_text().splitlines()]
    said = [e for e in events if e["action_type"] == "SEND_TEAMMATE_MESSAGE"]
    return next(e["t_end"] for e in said if e["actor"] == "agent"), said


def test_modify_edits_the_editor_and_default_agent_follows_its_deference(
        task: Task, tmp_path: Path) -> None:
    year = f"{-_planted(task)} BCE"
    kept = _run(task, "default", 1.0, tmp_path / "kept.jsonl")
    d_edits = _edits(tmp_path / "kept.jsonl", "D")
    assert d_edits and year in d_edits[0]  # D wrote its own (right) computation in the editor
    assert year in kept
    reverted = _run(task, "default", 0.0, tmp_path / "reverted.jsonl")
    assert _edits(tmp_path / "reverted.jsonl", "D")  # D edited ...
    assert year not in reverted  # ... and the agent, never deferring, reverted to its draft
    assert _edits(tmp_path / "reverted.jsonl", "agent")[-1] == reverted


def test_the_agent_does_not_finish_while_an_announced_edit_is_on_its_way(
        task: Task, tmp_path: Path) -> None:
    # the agent's patience runs out 1 s after D's reply announcing its edit lands, before the
    # edit itself lands: the agent (never deferring to a chat objection) no longer waits for
    # a check then, but finishing would drop the announced edit - it waits for it to land,
    # then decides on it (a patience that ends before the reply lands ends on time: the
    # agent, woken by its bounded wait, finishes without having seen the reply)
    draft, said = _patient_d_run(task, tmp_path)
    reply = next(e["t_end"] for e in said if "[edit draft=" in e["args"]["message"])
    trace = tmp_path / "impatient.jsonl"
    patience = reply - draft + 1.0
    submitted = _run(task, "default", 0.0, trace, patience=patience, members="D")
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert any("[edit draft=" in str(e["args"].get("message", "")) for e in events)
    edit = [e for e in events if e["actor"] == "D" and e["action_type"] == "EDITOR_UPDATE"]
    finish = [e for e in events if e["action_type"] == "FINISH"]
    assert edit and edit[0]["t_end"] > draft + patience  # the edit lands after patience ...
    assert finish and edit[0]["t_end"] <= finish[-1]["t_start"]  # ... and before FINISH
    assert edit[0]["args"]["text"] != submitted  # ... and the agent reverted it (deference 0)
    assert _edits(trace, "agent")[-1] == submitted


def test_waiting_for_an_announced_edit_is_bounded_by_finish_by_turn(
        task: Task, tmp_path: Path) -> None:
    # D announces edits but never makes them (its EDITOR_UPDATE is disabled): the agent stops
    # waiting at finish_by_turn, so the session still ends (patience, long enough for D's
    # reply to come, does not bound waiting for an announced edit)
    team = team_from_dict("D")

    class _Announcer(ScriptedCollaborator):
        def _edit_or_insist(self, obs: Any, fp: str, draft: str) -> str:
            return "WAIT_TEAMMATE_CONTINUE"

    participants: dict[str, Any] = {
        "agent": ScriptedAgent(seed=0, params={**CAREFUL_AGENT, "patience_seconds": 600.0,
                                                     "finish_by_turn": 40},
                               mistakes=MistakeModel(peak_vs_plateau=1.0)),
        "D": _Announcer(team.collaborators[0], seed=0, params=_reacting("modify"))}
    config = SessionConfig(task=task, team=team, structure=builtin_structure("default"), seed=0)
    trace = tmp_path / "never.jsonl"
    result = run_session_sync(config, participants, trace, executor_factory=InProcessExecutor)
    assert result.status == "finished", result.error
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert any("[edit draft=" in str(e["args"].get("message", "")) for e in events)
    assert not any(e["actor"] == "D" and e["action_type"] == "EDITOR_UPDATE" for e in events)


def test_under_gates_an_owners_edit_binds(task: Task, tmp_path: Path) -> None:
    # D owns FINISH in preassigned_gates: its edit binds even for an agent that never defers
    year = f"{-_planted(task)} BCE"
    submitted = _run(task, "preassigned_gates", 0.0, tmp_path / "gates.jsonl")
    assert _edits(tmp_path / "gates.jsonl", "D")
    assert year in submitted


def test_r_restates_a_shown_result_under_its_own_reading() -> None:
    shown = AnalysisResult("rise", 1, ("Dagger_inter",), None, -3500, events=(-3500, -2800))
    second = QuerySemantics("rise", ("Dagger",), (), 2, None)
    assert restate(shown, second) == "Around 2800 BCE, the number of daggers began to increase " \
        "for the second time."
    same = QuerySemantics("rise", ("Dagger",), (), 1, None)
    assert "3500 BCE" in restate(shown, same) and "first" in restate(shown, same)


def test_r_claims_no_year_it_has_not_seen() -> None:
    """Read the other way, for an occurrence the events do not list, or over another
    period, the shown result gives R no version of its own: it would be a year nobody
    computed (before, R put 3500 BCE under "decreased" and was counted a wrong objection)."""
    shown = AnalysisResult("rise", 1, ("Dagger_inter",), None, -3500, events=(-3500, -2800))
    assert restate(shown, QuerySemantics("fall", ("Dagger",), (), 1, None)) is None
    assert restate(shown, QuerySemantics("rise", ("Dagger",), (), 3, None)) is None
    growth = AnalysisResult("growth_max", 1, ("pollen_grate_inter",), None, -3800)
    bounded = QuerySemantics("growth_max", ("pollen_grate",), (), 1, (-2300, -1600))
    assert restate(growth, bounded) is None
    assert "3800 BCE" in (restate(growth, replace(bounded, window=None)) or "")


def test_a_finish_owner_ends_a_standoff_after_escalate_after_rejections() -> None:
    r = ScriptedCollaborator(load_profile("R"), seed=0, params={
        "behaviour": None, "error_in_area": 0.0, "error_outside": 0.0})
    obs = replace(sample_observation(), me="R", role="collaborator", profile=r.profile,
                  teammates=("agent",), structure="preassigned_gates", gates={"FINISH": "R"},
                  available_actions=("SEND_TEAMMATE_MESSAGE", "EDITOR_UPDATE", "FINISH",
                                     "APPROVE", "REJECT", "WAIT_TEAMMATE_CONTINUE"),
                  # the query asks for a rise; the draft claims a decrease
                  editor_text="Around 3500 BCE, the number of daggers decreased for the "
                              "first time.")
    decisions = []
    for i in range(5):
        request = GateRequest(f"g{i}", i, float(i), "agent", "R", "FINISH")
        action = parse_action(r.decide(replace(obs, pending_for_me=(request,)))).action
        assert action is not None
        decisions.append(action.name)
        if action.name == "SEND_TEAMMATE_MESSAGE":
            obs = replace(obs, chat=(*obs.chat, ChatMessage(i, float(i), "R",
                                                            action.args["message"])))
        if action.name == "REJECT":  # its history shows the rejection (of a FINISH)
            obs = replace(obs, history=(*obs.history, HistoryEntry(
                i, float(i), "R", "REJECT", "ok", f"g{i} {action.args['reason']}",
                request_type="FINISH")))
    # it objects once in chat, rejects the agent's FINISH escalate_after (3) times, then the
    # owner decides: it submits (no shown result to restate, so the editor as it stands)
    assert decisions == ["SEND_TEAMMATE_MESSAGE", "REJECT", "REJECT", "REJECT", "FINISH"]


def test_a_teammates_reply_under_way_when_patience_ends_is_waited_for(
        task: Task, tmp_path: Path) -> None:
    # the agent's patience ends while D is still writing its reply (started, not landed):
    # the workspace shows D at work, so the agent does not FINISH and cut the reply off
    draft, said = _patient_d_run(task, tmp_path)
    reply = next(e for e in said if e["actor"] == "D" and e["t_start"] >= draft)
    assert reply["t_end"] - reply["t_start"] > 2.0  # a reply that takes time to write
    trace = tmp_path / "impatient.jsonl"
    _run(task, "default", 0.0, trace, patience=reply["t_start"] - draft + 1.0, members="D")
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    landed = next(e for e in events if e["actor"] == "D"
                  and e["action_type"] == "SEND_TEAMMATE_MESSAGE" and e["t_start"] >= draft)
    finish = next(e for e in events if e["action_type"] == "FINISH")
    assert landed["status"] == "ok" and landed["t_end"] <= finish["t_start"]
    # nothing D had started before the agent decided to finish is cut off (an action D
    # starts at the very moment the agent finishes is: neither saw the other's)
    assert not any(e["status"] == "interrupted" and e["t_start"] < finish["t_start"]
                   for e in events)


def test_the_agent_finishes_over_a_teammate_at_work_only_when_told_to(
        task: Task, tmp_path: Path) -> None:
    class _Recorder(ScriptedAgent):
        def decide(self, obs: Any) -> str:
            action = super().decide(obs)
            if action.startswith("FINISH"):
                self.finishing = obs
            return action

    agent = _Recorder(seed=0, params={"deference": 1.0})
    team = team_from_dict("D")
    participants: dict[str, Any] = {"agent": agent, "D": ScriptedCollaborator(
        team.collaborators[0], seed=0, params=_reacting("adopt"))}
    config = SessionConfig(task=task, team=team, structure=builtin_structure("default"), seed=0)
    run_session_sync(config, participants, tmp_path / "t.jsonl", executor_factory=InProcessExecutor)
    obs = agent.finishing
    busy = replace(obs, working=(Activity("D", "SEND_TEAMMATE_MESSAGE", obs.time - 5.0),))
    assert parse_action(agent.decide(busy)).action.name == "WAIT_TEAMMATE_CONTINUE"
    late = replace(busy, turn=agent._finish_by_turn)  # the turn budget still bounds it
    assert parse_action(agent.decide(late)).action.name == "FINISH"
    agent.params = replace(agent.params, wait_for_working_teammates=False)
    assert parse_action(agent.decide(busy)).action.name == "FINISH"


def test_a_reject_that_finds_no_issue_puts_the_collaborators_own_version_in_place(
        task: Task, tmp_path: Path) -> None:
    # error-free agent and D: D's own check agrees with the draft, but its reaction is
    # reject - it does not use the agent's text and writes its own version instead (before,
    # such a reject passed as an adopt: a confirmation, the agent's text submitted)
    team = team_from_dict("D")
    participants: dict[str, Any] = {
        "agent": ScriptedAgent(seed=0, params=CAREFUL_AGENT, mistakes=MistakeModel()),
        "D": ScriptedCollaborator(team.collaborators[0], seed=0, params=_reacting("reject"))}
    config = SessionConfig(task=task, team=team, structure=builtin_structure("default"), seed=0)
    trace = tmp_path / "reject.jsonl"
    result = run_session_sync(config, participants, trace, executor_factory=InProcessExecutor)
    assert result.status == "finished", result.error
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    said = [e["args"]["message"] for e in events if e["actor"] == "D"
            and e["action_type"] == "SEND_TEAMMATE_MESSAGE"]
    assert any(m.startswith("I will not use the draft") and "[issue" not in m for m in said)
    agent_draft = _edits(trace, "agent")[0]
    assert _edits(trace, "D") and result.submitted_hypothesis == _edits(trace, "D")[0]
    assert result.submitted_hypothesis != agent_draft
    assert f"{-_planted(task)} BCE" in result.submitted_hypothesis  # same answer, D's words


def test_d_recomputes_when_there_is_a_draft_to_check_not_alongside_the_agent(
        task: Task, tmp_path: Path) -> None:
    # D's recomputation validates the agent's figures: it starts once a draft is in the
    # editor (humans react to the AI's output, as in Kolab), not in parallel with the agent's
    # own analysis; without a lead-in and without taking part in the agent's other outputs
    # (no participation block: test_participation.py covers that), D does nothing before
    # the draft
    params = _reacting("adopt")
    params["behaviour"]["lead_in"]["probability"]["value"] = 0.0
    params["behaviour"].pop("participation")
    team = team_from_dict("D")
    participants: dict[str, Any] = {
        "agent": ScriptedAgent(seed=0, params=CAREFUL_AGENT, mistakes=MistakeModel()),
        "D": ScriptedCollaborator(team.collaborators[0], seed=0, params=params)}
    config = SessionConfig(task=task, team=team, structure=builtin_structure("default"), seed=0)
    trace = tmp_path / "d.jsonl"
    assert run_session_sync(config, participants, trace,
                            executor_factory=InProcessExecutor).status == "finished"
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    draft = next(e for e in events if e["actor"] == "agent" and e["action_type"] == "EDITOR_UPDATE")
    d_cells = [e for e in events if e["actor"] == "D" and e["action_type"] == "EXECUTE_CODE"]
    assert d_cells and d_cells[0]["t_start"] >= draft["t_end"]
    assert not any(e["actor"] == "D" and e["t_start"] < draft["t_end"] for e in events)
