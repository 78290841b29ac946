"""The participant protocol: what a participant sees and how it answers.

Every policy - the scripted agent, scripted D/R collaborators, LLM participants - implements
:class:`Participant`: given an :class:`Observation` it returns the text of one action in the
action language (``NAME(arg="...")``, see :mod:`collabsim.core.actions`). The engine parses
that text leniently; an unparseable or illegal action becomes an error for its author.

The records live in :mod:`collabsim.core` (shared with the engine, the LLM client and the
gym envs); this module re-exports them for the participant policies.
"""

from __future__ import annotations

from collabsim.core.errors import SessionAbort
from collabsim.core.observation import Observation, Participant, Phase, Role
from collabsim.core.records import (
    Activity,
    ChatMessage,
    CodeCell,
    GateRequest,
    HistoryEntry,
    MemoryView,
    Profile,
)
from collabsim.core.task import TaskBrief

__all__ = [
    "Activity",
    "ChatMessage",
    "CodeCell",
    "GateRequest",
    "HistoryEntry",
    "MemoryView",
    "Observation",
    "Participant",
    "Phase",
    "Profile",
    "Role",
    "SessionAbort",
    "TaskBrief",
]
