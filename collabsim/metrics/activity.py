"""Activity metrics: how much work and how much talk a team produced.

Definitions (docs/design.md "Metrics"), over the trace events of one session:

* a *team action* is an event with ``actor_type`` ``ai`` or ``human`` (never ``env``) whose
  ``action_type`` is not ``INVALID`` and not ``WAIT_TEAMMATE_CONTINUE`` (waits are not
  logged anyway) and that is not a gate *outcome* event. A gate outcome event (status
  ``approved``/``rejected`` with refs to the request and the decision) repeats the action
  already counted at its ``pending`` request, so it is not counted again. Gate decisions
  (``APPROVE``/``REJECT``), ``FINISH`` and group-memory actions (``MEMORY_ADD``,
  ``MEMORY_AGREE``) are team actions; a valid action whose effect failed (status ``error``,
  e.g. code that raised) still counts as work done; an action cut off by the session's end
  (status ``interrupted``) does not: it never landed;
* ``W_human`` = non-message team actions by simulated humans (``actor_type == "human"``);
* ``W_total`` = non-message team actions by all team members (agent and humans);
* ``M_team`` = message team actions (``SEND_TEAMMATE_MESSAGE``) by all team members.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from collabsim.core.events import MESSAGE_ACTIONS, TraceEvent

TEAM_ACTOR_TYPES: frozenset[str] = frozenset({"ai", "human"})
NOT_ACTIONS: frozenset[str] = frozenset({"INVALID", "WAIT_TEAMMATE_CONTINUE"})


def as_events(events: Iterable[TraceEvent | Mapping[str, Any]]) -> list[TraceEvent]:
    """Accept TraceEvents or decoded JSON dicts; return TraceEvents in ``seq`` order."""
    out = [e if isinstance(e, TraceEvent) else TraceEvent.from_dict(e) for e in events]
    return sorted(out, key=lambda e: e.seq)


def is_gate_outcome(event: TraceEvent) -> bool:
    """True for the outcome event of a gated action (it repeats the pending request)."""
    return event.status in ("approved", "rejected") and event.action_type not in (
        "APPROVE",
        "REJECT",
    )


def is_team_action(event: TraceEvent) -> bool:
    """True for an event counted as one action of a team member (see module docstring)."""
    return (
        event.actor_type in TEAM_ACTOR_TYPES
        and event.action_type not in NOT_ACTIONS
        and event.status != "interrupted"
        and not is_gate_outcome(event)
    )


@dataclass(frozen=True)
class ActivityCounts:
    """Activity of one session.

    Attributes:
        w_human: Non-message actions by simulated humans.
        w_total: Non-message actions by all team members.
        m_team: Message actions by all team members.
        per_actor: Actor -> (non-message actions, message actions).
    """

    w_human: int
    w_total: int
    m_team: int
    per_actor: Mapping[str, tuple[int, int]]


def activity_counts(events: Iterable[TraceEvent | Mapping[str, Any]]) -> ActivityCounts:
    """Count W_human, W_total and M_team over a session's trace events.

    Args:
        events: The session's trace events (TraceEvent or decoded dicts).

    Returns:
        The counts (see module docstring for what counts).
    """
    w_human = w_total = m_team = 0
    per: dict[str, list[int]] = {}
    for e in as_events(events):
        if not is_team_action(e):
            continue
        slot = per.setdefault(e.actor, [0, 0])
        if e.action_type in MESSAGE_ACTIONS:
            m_team += 1
            slot[1] += 1
        else:
            w_total += 1
            slot[0] += 1
            if e.actor_type == "human":
                w_human += 1
    return ActivityCounts(
        w_human, w_total, m_team, {k: (v[0], v[1]) for k, v in sorted(per.items())}
    )
