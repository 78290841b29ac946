"""Activity counts W_human, W_total, M_team over trace events."""

from __future__ import annotations

from collabsim.core.events import TraceEvent
from collabsim.metrics.activity import activity_counts


def ev(seq: int, actor: str, kind: str, action: str, status: str = "ok", **args: str) -> TraceEvent:
    return TraceEvent(seq, float(seq), float(seq) + 1, actor, kind, action, args, status)  # type: ignore[arg-type]


def test_counts_work_and_messages_by_actor_type() -> None:
    events = [
        ev(0, "env", "env", "SESSION_START"),
        ev(1, "agent", "ai", "EXECUTE_CODE", code="print(1)"),
        ev(2, "D", "human", "SEND_TEAMMATE_MESSAGE", message="check Dagger"),
        ev(3, "D", "human", "EXECUTE_CODE", status="error", code="1/0"),
        ev(4, "R", "human", "INVALID", status="error"),
        ev(5, "agent", "ai", "SEND_TEAMMATE_MESSAGE", message="ok"),
        ev(6, "agent", "ai", "EDITOR_UPDATE", text="h"),
        ev(7, "env", "env", "SESSION_END"),
    ]
    counts = activity_counts(events)
    assert (counts.w_human, counts.w_total, counts.m_team) == (1, 3, 2)
    assert counts.per_actor["D"] == (1, 1)


def test_gate_outcome_is_not_double_counted() -> None:
    events = [
        ev(0, "agent", "ai", "EDITOR_UPDATE", status="pending", text="h", request_id="g1"),
        ev(1, "R", "human", "APPROVE", request_id="g1"),
        TraceEvent(2, 2.0, 2.0, "agent", "ai", "EDITOR_UPDATE", {"text": "h"}, "approved",
                   refs=(0, 1)),
        ev(3, "agent", "ai", "EXECUTE_CODE", status="pending", code="x", request_id="g2"),
        ev(4, "D", "human", "REJECT", request_id="g2", reason="wrong column"),
        TraceEvent(5, 5.0, 5.0, "agent", "ai", "EXECUTE_CODE", {"code": "x"}, "rejected",
                   refs=(3, 4)),
    ]
    counts = activity_counts(events)
    assert counts.w_total == 4  # two requests + two decisions
    assert counts.w_human == 2


def test_interrupted_actions_are_not_counted() -> None:
    events = [
        ev(0, "agent", "ai", "EXECUTE_CODE", code="print(1)"),
        ev(1, "D", "human", "EDITOR_UPDATE", status="interrupted", text="h"),
        ev(2, "R", "human", "SEND_TEAMMATE_MESSAGE", status="interrupted", message="no"),
        ev(3, "agent", "ai", "FINISH"),
    ]
    counts = activity_counts(events)
    assert (counts.w_human, counts.w_total, counts.m_team) == (0, 2, 0)
    assert set(counts.per_actor) == {"agent"}


def test_accepts_decoded_json_dicts() -> None:
    data = [{"seq": 0, "t_start": 0, "t_end": 1, "actor": "D", "actor_type": "human",
             "action_type": "SEND_TEAMMATE_MESSAGE", "args": {"message": "hi"}}]
    assert activity_counts(data).m_team == 1
