"""What a participant sees (:class:`Observation`) and how it answers (:class:`Participant`).

Every policy - the scripted agent, scripted D/R collaborators, LLM participants, a learner
in a gym env - gets an :class:`Observation` and returns the text of one action in the action
language (:mod:`collabsim.core.actions`). Observations carry a
:class:`~collabsim.core.task.TaskBrief` only: never a gold hypothesis or reference workflow.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from collabsim.core.coordination import CoordinationSpec
from collabsim.core.records import (
    Activity,
    ChatMessage,
    CodeCell,
    GateRequest,
    HistoryEntry,
    MemoryView,
    Profile,
)
from collabsim.core.replies import UnusableReply
from collabsim.core.task import TaskBrief

Role = Literal["agent", "collaborator"]
Phase = Literal["build", "work"]


@dataclass(frozen=True)
class Observation:
    """Everything one participant may see when it is its turn to act.

    Attributes:
        me: This participant's name (``"agent"``, ``"D"``, ``"R"``).
        role: ``"agent"`` or ``"collaborator"``.
        profile: This collaborator's profile (None for the agent).
        teammates: Names of the other team members.
        time: Current virtual time in seconds.
        structure: Collaboration structure name.
        phase: ``"build"`` (group-memory build phase) or ``"work"``.
        task: The participant-visible task brief.
        chat: Team chat so far.
        code_cells: Shared code history with outputs.
        editor_text: Current text of the result editor.
        memory: Group memory, where the structure has one.
        gates: Gates in force: action name -> owner (empty when none).
        pending_for_me: Requests this participant must approve or reject.
        my_pending: This participant's own requests awaiting a decision.
        history: Visible action history: team-level for the agent, own for a collaborator.
        feedback: Notes for this participant since its last turn (errors, approvals,
            rejections with their reasons).
        available_actions: Action names legal for this participant now.
        turn: How many turns this participant has taken before this one.
        working: Teammates' actions under way now (started, not landed), earliest first:
            who is at work on what, as a shared workspace shows it, not the content.
        max_turns: The most decisions this participant may take in the session (None:
            not given, e.g. a hand-built observation).
        max_time: The session's virtual time limit in seconds (None: not given).
        editor_seen: When this participant first saw the editor's current text in the
            work phase (virtual seconds; None: the editor is empty, or not given): a person
            reads a draft from when it appeared to them, which a busy teammate sees only
            once its own action has ended.
        coordination: The team's coordination costs and remedies in force (the rules of
            the environment, as the structure is; :mod:`collabsim.core.coordination`).
    """

    me: str
    role: Role
    profile: Profile | None
    teammates: tuple[str, ...]
    time: float
    structure: str
    phase: Phase
    task: TaskBrief
    chat: tuple[ChatMessage, ...] = ()
    code_cells: tuple[CodeCell, ...] = ()
    editor_text: str = ""
    memory: MemoryView | None = None
    gates: Mapping[str, str] = field(default_factory=dict, hash=False)
    pending_for_me: tuple[GateRequest, ...] = ()
    my_pending: tuple[GateRequest, ...] = ()
    history: tuple[HistoryEntry, ...] = ()
    feedback: tuple[str, ...] = ()
    available_actions: tuple[str, ...] = ()
    turn: int = 0
    working: tuple[Activity, ...] = ()
    max_turns: int | None = None
    max_time: float | None = None
    editor_seen: float | None = None
    coordination: CoordinationSpec = field(default_factory=CoordinationSpec, hash=False)


@runtime_checkable
class Participant(Protocol):
    """A policy that decides one participant's next action.

    Attributes:
        name: Participant name (``"agent"``, ``"D"``, ``"R"``).
        role: ``"agent"`` or ``"collaborator"``.
    """

    name: str
    role: Role

    async def act(self, observation: Observation) -> str | UnusableReply:
        """Return the text of the next action, or an :class:`UnusableReply` (logged as
        ``INVALID``, no action applied) when the participant has no usable action.

        May raise :class:`SessionAbort` to end the session (e.g. budget exceeded).
        """
        ...
