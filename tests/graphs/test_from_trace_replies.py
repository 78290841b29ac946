"""A collaborator's comment naming an AI output (``[re=<ref> <label>]``) is a response to it."""

from __future__ import annotations

from typing import Any

from collabsim.calibration.answered import ai_response_share
from collabsim.core.events import TraceEvent
from collabsim.core.tags import format_reply, memory_ref
from collabsim.graphs.from_trace import graph_from_trace
from collabsim.graphs.model import Response

_TYPE = {"agent": "ai", "D": "human", "env": "env"}
PLAN = "Plan (agent): compute the peak of axes, then finish."


def _ev(seq: int, t0: float, t1: float, actor: str, action: str, **args: Any) -> TraceEvent:
    return TraceEvent(seq, t0, t1, actor, _TYPE[actor], action, args, "ok", "", ())


def _trace() -> list[TraceEvent]:
    return [
        _ev(0, 0, 0, "env", "SESSION_START"),
        _ev(1, 0, 2, "agent", "MEMORY_ADD", section="plan", text=PLAN),
        _ev(2, 2, 9, "D", "SEND_TEAMMATE_MESSAGE",
            message=f"I read it otherwise. {format_reply(memory_ref(PLAN), 'modify')}"),
        _ev(3, 9, 12, "agent", "EXECUTE_CODE", code="print(1)"),
        _ev(4, 12, 30, "D", "SEND_TEAMMATE_MESSAGE",
            message=f"Matches mine. {format_reply(3, 'adopt')} {format_reply(3, 'reject')}"),
        _ev(5, 30, 31, "agent", "SEND_TEAMMATE_MESSAGE", message="Found it."),
        _ev(6, 31, 40, "D", "SEND_TEAMMATE_MESSAGE",
            message=f"Not convinced. {format_reply(5, 'reject')} {format_reply(4, 'adopt')}"),
    ]


def test_comments_naming_an_ai_output_are_responses_to_it() -> None:
    graph = graph_from_trace(_trace(), session_id="s")
    # once per (human, output); a reference to a human node is none
    assert list(graph.responses) == [
        Response("e2", None, "e1", "modify"),
        Response("e4", None, "e3", "adopt"),
        Response("e6", None, "e5", "reject"),
    ]
    assert ai_response_share(graph) == 1.0
