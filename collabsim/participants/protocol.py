"""The participant protocol: what a participant sees and how it answers.

Every policy - the scripted agent, scripted D/R collaborators, LLM participants - implements
:class:`Participant`: given an :class:`Observation` it returns the text of one action in the
action language (``NAME(arg="...")``, see ``collabsim.session.actions``). The engine parses
that text leniently; an unparseable or illegal action becomes an error for its author.

Participants never receive a task's gold hypothesis or reference workflow graph: the
observation carries a :class:`~collabsim.tasks.model.TaskBrief` only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from collabsim.tasks.model import TaskBrief

Role = Literal["agent", "collaborator"]
Phase = Literal["build", "work"]


@dataclass(frozen=True)
class Profile:
    """A collaborator profile: private guidance text plus behaviour parameters (config data).

    Attributes:
        key: Short key (``"D"``, ``"R"``); also the collaborator's participant name.
        title: Human-readable title (``"data analysis"``, ``"researcher"``).
        guidance: Private guidance shown only to this collaborator.
        params: Behaviour parameters for scripted policies (checks to run, propensities).
    """

    key: str
    title: str
    guidance: str
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class ChatMessage:
    """One team-chat message."""

    seq: int
    time: float
    sender: str
    text: str


@dataclass(frozen=True)
class CodeCell:
    """One executed code cell in the shared workspace, with its (truncated) output."""

    seq: int
    time: float
    author: str
    code: str
    output: str
    ok: bool


@dataclass(frozen=True)
class GateRequest:
    """A gated action waiting for its owner's decision."""

    request_id: str
    seq: int
    time: float
    author: str
    owner: str
    action_type: str
    args: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class HistoryEntry:
    """One past action as shown in an action history."""

    seq: int
    time: float
    actor: str
    action_type: str
    status: str
    summary: str


@dataclass(frozen=True)
class MemoryView:
    """The group memory as a participant sees it.

    Attributes:
        sections: Section name -> entries (``"expertise"``, ``"trust"``, ``"plan"``,
            ``"evidence_criteria"``, and in ``scaffolded`` ``"gates"``).
        read_only: True once the build phase has ended.
        agreed: Members who have sent ``MEMORY_AGREE()``.
    """

    sections: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)
    read_only: bool = False
    agreed: tuple[str, ...] = ()


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


class SessionAbort(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Raised by a participant to end its session with a given status (e.g. budget)."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@runtime_checkable
class Participant(Protocol):
    """A policy that decides one participant's next action.

    Attributes:
        name: Participant name (``"agent"``, ``"D"``, ``"R"``).
        role: ``"agent"`` or ``"collaborator"``.
    """

    name: str
    role: Role

    async def act(self, observation: Observation) -> str:
        """Return the text of the next action (may include surrounding prose).

        May raise :class:`SessionAbort` to end the session (e.g. budget exceeded).
        """
        ...
