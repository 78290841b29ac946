"""The coordination costs that are properties of the environment: the agent's attention
bound and lost editor updates (collabsim.core.coordination); they apply to any agent."""

from __future__ import annotations

from pathlib import Path

from helpers.participants import ScriptParticipant

from collabsim.core.actions import Action, ActionName, format_action
from collabsim.core.coordination import CoordinationSpec
from collabsim.participants.team import team_from_dict
from collabsim.session.clock import ClockSpec
from collabsim.session.config import SessionConfig
from collabsim.session.effects import EFFECTS
from collabsim.session.engine import run_session_sync
from collabsim.session.observations import attended_chat
from collabsim.session.state import SessionState
from collabsim.session.structures import builtin_structure
from collabsim.tasks.model import Task


def _state(task: Task, **coordination: object) -> SessionState:
    spec = CoordinationSpec(**coordination)  # type: ignore[arg-type]
    return SessionState(SessionConfig(task=task, team=team_from_dict("DR"),
                                      coordination=spec), None)


def test_the_agent_takes_in_the_latest_teammate_messages_of_each_interval(task: Task) -> None:
    s = _state(task, attention_messages=1)
    s.ws.post_message(0, 1.0, "D", "use the second rise")
    s.ws.post_message(1, 2.0, "R", "the period is bounded")
    seen = attended_chat(s, "agent")
    assert [m.text for m in seen] == ["the period is bounded"]  # D's was buried
    s.ws.post_message(2, 3.0, "agent", "ok")
    s.ws.post_message(3, 4.0, "D", "again: the second rise")
    assert [m.text for m in attended_chat(s, "agent")] == [
        "the period is bounded", "ok", "again: the second rise"]
    # a collaborator sees the whole chat; so does an agent without the bound
    assert len(attended_chat(s, "D")) == 4
    free = _state(task, attention_messages=0)
    free.ws.post_message(0, 1.0, "D", "a")
    free.ws.post_message(1, 2.0, "R", "b")
    assert [m.text for m in attended_chat(free, "agent")] == ["a", "b"]


def test_an_agent_of_any_kind_sees_the_bounded_chat_in_a_session(task: Task) -> None:
    """Two teammates post while the agent computes (its cell outlasts both messages): its
    next observation shows one of them."""
    say = format_action("SEND_TEAMMATE_MESSAGE", message="from {}")
    agent = ScriptParticipant("agent", "agent", [format_action(
        "EXECUTE_CODE", code="x = 1")], then="FINISH()")
    d = ScriptParticipant("D", "collaborator", [say.replace("{}", "D")])
    r = ScriptParticipant("R", "collaborator", [say.replace("{}", "R")])
    for k, shown in ((1, 1), (0, 2)):
        agent.observations.clear()
        d.observations.clear()
        r.observations.clear()
        config = SessionConfig(task=task, team=team_from_dict("DR"),
                               structure=builtin_structure("default"),
                               coordination=CoordinationSpec(attention_messages=k),
                               clock=ClockSpec(ai={"EXECUTE_CODE": 100.0},
                                               human={"SEND_TEAMMATE_MESSAGE": 10.0},
                                               sigma=0.0))
        run_session_sync(config, {"agent": agent, "D": d, "R": r})
        last = agent.observations[-1]
        assert sum(m.sender != "agent" for m in last.chat) == shown, (k, last.chat)


def _update(s: SessionState, name: str, text: str, start: float, end: float) -> None:
    handler = EFFECTS[ActionName.EDITOR_UPDATE].handler
    handler(s, name, Action("EDITOR_UPDATE", {"text": text}), start, end, "ok", (), None)


def test_concurrent_editor_updates_overwrite_each_other_unless_the_editor_refuses(
        task: Task) -> None:
    """D starts an edit, the agent's update lands first: with lost updates D's overwrites
    it unseen; without (or with one owner of the editor) D's is refused and D is told."""
    lossy = _state(task)
    _update(lossy, "D", "D's version", 0.0, 10.0)
    _update(lossy, "agent", "agent's version", 1.0, 5.0)
    lossy.land_until(20.0)
    assert lossy.ws.editor_text == "D's version"
    for refusing in (_state(task, lost_updates=False), _owned(task)):
        _update(refusing, "D", "D's version", 0.0, 10.0)
        _update(refusing, "agent", "agent's version", 1.0, 5.0)
        refusing.land_until(20.0)
        assert refusing.ws.editor_text == "agent's version"
        assert refusing.events[0].status == "error"
        assert any("not applied" in text for _, text in refusing.feedback["D"])
    # an update written against the current version always lands
    fresh = _state(task, lost_updates=False)
    _update(fresh, "agent", "v1", 0.0, 1.0)
    fresh.land_until(2.0)
    _update(fresh, "D", "v2", 2.0, 3.0)
    fresh.land_until(4.0)
    assert fresh.ws.editor_text == "v2"


def _owned(task: Task) -> SessionState:
    s = _state(task, lost_updates=True, single_owner=True)
    s.gates = {"EDITOR_UPDATE": "R"}
    return s


def test_a_session_trace_marks_a_refused_update(task: Task, tmp_path: Path) -> None:
    s = SessionState(SessionConfig(task=task, team=team_from_dict("DR"),
                                   coordination=CoordinationSpec(lost_updates=False)),
                     tmp_path / "trace.jsonl")
    _update(s, "D", "D's version", 0.0, 10.0)
    _update(s, "agent", "agent's version", 1.0, 5.0)
    s.land_until(20.0)
    lines = (tmp_path / "trace.jsonl").read_text().splitlines()
    assert '"status":"error"' in lines[0].replace(" ", "")
