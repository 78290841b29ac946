"""Workspace and profile records: what the shared workspace holds and participants see.

All frozen: the engine builds new records as effects land; observations hold them as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


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
    """One past action as shown in an action history.

    ``request_type`` is, for an ``APPROVE`` or ``REJECT``, the action type of the request
    decided (``FINISH``, ``EDITOR_UPDATE`` ...; None for other actions).
    """

    seq: int
    time: float
    actor: str
    action_type: str
    status: str
    summary: str
    request_type: str | None = None


@dataclass(frozen=True)
class Activity:
    """A teammate's action under way: decided and started, its effect not there yet.

    The shared workspace shows who is at work on what (as a chat shows "D is typing..."),
    not the content: a message being written, a cell running, an editor edit being made.
    """

    actor: str
    action_type: str
    since: float


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
class MemoryEntry:
    """One group-memory entry."""

    seq: int
    time: float
    author: str
    section: str
    text: str
