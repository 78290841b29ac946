"""Shared records of collabsim: what the engine, participants, LLM client, metrics and envs exchange.

``collabsim.core`` imports nothing else from collabsim, so every other package can depend on
it without cycles:

==========================  =================================================================
module                      holds
==========================  =================================================================
``core.task``               :class:`TaskBrief`, :class:`DatasetInfo`, :class:`ColumnInfo`
``core.records``            workspace records (chat, code cells, gate requests, history,
                            memory) and collaborator :class:`Profile`
``core.observation``        :class:`Observation` and the :class:`Participant` protocol
``core.team``               :class:`TeamSpec`
``core.events``             :class:`TraceEvent` (one trace line)
``core.actions``            :class:`ActionName`, :data:`ACTION_SPECS`, :func:`format_action`
``core.action_parser``      :func:`parse_action` (``core.action_args``: argument lists)
``core.errors``             :class:`SessionAbort`
``core.replies``            :class:`UnusableReply` (a reply the engine logs as ``INVALID``)
==========================  =================================================================
"""

from collabsim.core.action_parser import ParseResult, parse_action
from collabsim.core.actions import (
    ACTION_SPECS,
    Action,
    ActionName,
    ActionSpec,
    describe_actions,
    format_action,
)
from collabsim.core.errors import SessionAbort
from collabsim.core.events import ENV_ACTIONS, MESSAGE_ACTIONS, TraceEvent
from collabsim.core.observation import Observation, Participant, Phase, Role
from collabsim.core.records import (
    Activity,
    ChatMessage,
    CodeCell,
    GateRequest,
    HistoryEntry,
    MemoryEntry,
    MemoryView,
    Profile,
)
from collabsim.core.replies import UnusableReply
from collabsim.core.task import ColumnInfo, DatasetInfo, TaskBrief
from collabsim.core.team import AGENT_NAME, TeamConfigError, TeamSpec

__all__ = [
    "Activity",
    "ACTION_SPECS",
    "AGENT_NAME",
    "ENV_ACTIONS",
    "MESSAGE_ACTIONS",
    "Action",
    "ActionName",
    "ActionSpec",
    "ChatMessage",
    "CodeCell",
    "ColumnInfo",
    "DatasetInfo",
    "GateRequest",
    "HistoryEntry",
    "MemoryEntry",
    "MemoryView",
    "Observation",
    "ParseResult",
    "Participant",
    "Phase",
    "Profile",
    "Role",
    "SessionAbort",
    "TaskBrief",
    "TeamConfigError",
    "TeamSpec",
    "TraceEvent",
    "UnusableReply",
    "describe_actions",
    "format_action",
    "parse_action",
]
