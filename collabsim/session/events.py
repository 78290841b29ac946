"""Trace events (moved to :mod:`collabsim.core.events`; re-exported here for old imports)."""

from collabsim.core.events import (
    ENV_ACTIONS,
    MESSAGE_ACTIONS,
    ActorKind,
    EventStatus,
    TraceEvent,
)

__all__ = ["ENV_ACTIONS", "MESSAGE_ACTIONS", "ActorKind", "EventStatus", "TraceEvent"]
