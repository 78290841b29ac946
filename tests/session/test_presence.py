"""Presence: a member sees which teammates are at work on what (actions started, not landed)."""

from __future__ import annotations

from helpers.executors import InProcessExecutor
from helpers.participants import WAIT

from collabsim.core.actions import format_action
from collabsim.core.records import Activity
from collabsim.participants.team import team_from_dict
from collabsim.session.clock import ClockSpec
from collabsim.session.config import SessionConfig
from collabsim.session.orchestrator import Orchestrator
from collabsim.tasks.model import Task

CLOCK = ClockSpec(sigma=0.0, ai={"EDITOR_UPDATE": 10.0, "FINISH": 2.0},
                  human={"EDITOR_UPDATE": 45.0, "SEND_TEAMMATE_MESSAGE": 20.0})


def test_teammates_actions_are_shown_while_under_way_and_not_after(task: Task) -> None:
    # agent: edit 0-10, then waits, finishes after D's message; D: edit 0-45, message 45-65
    cfg = SessionConfig(task=task, team=team_from_dict("D"), clock=CLOCK)
    orch = Orchestrator(cfg, executor_factory=InProcessExecutor)
    orch.start()
    seen: list[tuple[str, float, tuple[Activity, ...]]] = []
    while (turn := orch.next_turn()) is not None:
        obs = turn.observation
        seen.append((turn.member, obs.time, obs.working))
        if turn.member == "agent":
            first = obs.turn == 0
            action = (format_action("EDITOR_UPDATE", text="A") if first
                      else WAIT if obs.working or obs.time < 60 else "FINISH()")
        else:
            action = {0: format_action("EDITOR_UPDATE", text="B"),
                      1: format_action("SEND_TEAMMATE_MESSAGE", message="done")}.get(
                          obs.turn, WAIT)
        orch.submit(action)
    orch.close()
    assert seen == [
        ("agent", 0.0, ()),
        ("D", 0.0, (Activity("agent", "EDITOR_UPDATE", 0.0),)),  # decided just before
        ("agent", 10.0, (Activity("D", "EDITOR_UPDATE", 0.0),)),  # never one's own
        ("agent", 45.0, ()),  # D's edit landed; D decides next at the same instant
        ("D", 45.0, ()),  # a WAIT is not work
        ("agent", 65.0, ()),
        ("D", 65.0, (Activity("agent", "FINISH", 65.0),)),
    ]
