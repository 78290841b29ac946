"""The shared workspace: team chat, code history, result editor, group memory, gate requests.

The workspace holds only what has *landed*: the orchestrator adds an action's effect at the
action's ``t_end`` (see ``collabsim.session.effects``), so everything here is visible to every
member at the current virtual time. Views are immutable protocol records.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from collabsim.core.events import TraceEvent
from collabsim.core.records import (
    ChatMessage,
    CodeCell,
    GateRequest,
    HistoryEntry,
    MemoryEntry,
    MemoryView,
)

RequestState = Literal["pending", "approved", "rejected"]
SUMMARY_CHARS = 200


def truncate(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters, marking the cut with the number of chars dropped."""
    if limit <= 0 or len(text) <= limit:
        return text
    dropped = len(text) - limit
    return text[:limit] + f"\n...[truncated {dropped} chars]"


_CUT_RE = re.compile(r"\n\.\.\.\[truncated (\d+) chars\]")  # the mark truncate leaves


@dataclass
class RequestRecord:
    """A gate request and its state (mutable inside the workspace only)."""

    request: GateRequest
    state: RequestState = "pending"
    decision_seq: int | None = None


@dataclass
class Workspace:
    """Mutable shared state of one session (landed effects only).

    Attributes:
        memory_sections: Sections of the group memory (empty: no memory).
    """

    memory_sections: tuple[str, ...] = ()
    chat: list[ChatMessage] = field(default_factory=list)
    cells: list[CodeCell] = field(default_factory=list)
    editor_text: str = ""
    editor_seq: int | None = None
    memory: list[MemoryEntry] = field(default_factory=list)
    memory_read_only: bool = False
    agreed: list[str] = field(default_factory=list)
    requests: dict[str, RequestRecord] = field(default_factory=dict)

    @property
    def has_memory(self) -> bool:
        """Whether this session has a group memory."""
        return bool(self.memory_sections)

    def post_message(self, seq: int, time: float, sender: str, text: str) -> None:
        """Append a chat message."""
        self.chat.append(ChatMessage(seq=seq, time=time, sender=sender, text=text))

    def add_cell(
        self, seq: int, time: float, author: str, code: str, output: str, ok: bool
    ) -> None:
        """Append an executed code cell (its output as the sandbox cut it to
        ``sandbox.output_chars``)."""
        self.cells.append(
            CodeCell(
                seq=seq,
                time=time,
                author=author,
                code=code,
                output=output,
                ok=ok,
            )
        )

    def set_editor(self, seq: int, text: str) -> None:
        """Replace the result editor's text; ``seq`` is the event that wrote it."""
        self.editor_text = text
        self.editor_seq = seq

    def add_memory(self, entry: MemoryEntry) -> None:
        """Append a memory entry (the engine checks phase and section before)."""
        self.memory.append(entry)

    def agree(self, name: str) -> None:
        """Record a member's ``MEMORY_AGREE`` (sticky)."""
        if name not in self.agreed:
            self.agreed.append(name)

    def memory_view(self) -> MemoryView | None:
        """The group memory as members see it (None without memory)."""
        if not self.has_memory:
            return None
        sections: dict[str, tuple[str, ...]] = {}
        for name in self.memory_sections:
            sections[name] = tuple(e.text for e in self.memory if e.section == name)
        return MemoryView(
            sections=sections, read_only=self.memory_read_only, agreed=tuple(self.agreed)
        )

    def memory_entries(self, section: str) -> list[str]:
        """Texts of one section in order."""
        return [e.text for e in self.memory if e.section == section]

    def add_request(self, request: GateRequest) -> None:
        """Register a landed gate request."""
        self.requests[request.request_id] = RequestRecord(request=request)

    def pending_for(self, owner: str) -> tuple[GateRequest, ...]:
        """Undecided requests that ``owner`` must decide."""
        return tuple(
            r.request
            for r in self.requests.values()
            if r.state == "pending" and r.request.owner == owner
        )

    def pending_by(self, author: str) -> tuple[GateRequest, ...]:
        """Undecided requests authored by ``author``."""
        return tuple(
            r.request
            for r in self.requests.values()
            if r.state == "pending" and r.request.author == author
        )

    def snapshot(self) -> dict[str, Any]:
        """Plain-data summary (for debugging and results; not written per event)."""
        return {
            "chat": len(self.chat),
            "cells": len(self.cells),
            "editor_text": self.editor_text,
            "memory": {s: self.memory_entries(s) for s in self.memory_sections},
            "requests": {k: r.state for k, r in self.requests.items()},
        }


def normalise_request_id(raw: str) -> str:
    """Lenient request ids: ``"g3"``, ``"G3"``, ``"#g3"``, ``"3"`` all mean ``"g3"``."""
    text = raw.strip().strip("#\"'`").strip().lower()
    if text.isdigit():
        return f"g{int(text)}"
    return text


def event_summary(e: TraceEvent, limit: int = SUMMARY_CHARS) -> str:
    """One-line summary of a participant event for action histories."""
    a = e.args
    if e.action_type == "EXECUTE_CODE":
        text = truncate(str(a.get("code", "")), limit)
        if e.observation:
            text += f" -> {truncate(e.observation, limit)}"
    elif e.action_type == "MEMORY_ADD":
        text = f"[{a.get('section', '')}] {truncate(str(a.get('text', '')), limit)}"
    elif e.action_type in ("APPROVE", "REJECT"):
        text = f"{a.get('request_id', '')} {a.get('reason', a.get('comment', ''))}".strip()
    elif e.action_type == "INVALID":
        text = truncate(e.observation, limit)
    else:
        values = [str(v) for k, v in a.items() if k != "request_id"]
        text = truncate(" ".join(values), limit)
    if e.status == "pending":
        text += f" (request {a.get('request_id', '')}, awaiting approval)"
    elif e.status in ("approved", "rejected"):
        text += f" ({e.status})"
    elif e.status == "interrupted":
        text += " (interrupted: the session ended before it took effect)"
    return text


def summary_shows(summary: str, text: str) -> bool:
    """Whether an editor update's :func:`event_summary` (of the decision, not of its gate's
    outcome) shows the text ``text``: the whole text, or its cut start with the number of
    characters cut, then what a gated update adds while it awaits approval."""
    cut = _CUT_RE.search(summary)
    if cut is not None:
        shown = summary[:cut.start()]
        return text.startswith(shown) and len(text) == len(shown) + int(cut.group(1))
    if not summary.startswith(text):
        return False
    rest = summary[len(text):]
    return rest == "" or (rest.startswith(" (request ") and rest.endswith(", awaiting approval)"))


def _decided_type(e: TraceEvent, requests: Mapping[str, RequestRecord] | None) -> str | None:
    """The action type of the request an ``APPROVE`` / ``REJECT`` event decided."""
    if e.action_type not in ("APPROVE", "REJECT") or not requests:
        return None
    record = requests.get(str(e.args.get("request_id", "")))
    return None if record is None else record.request.action_type


def visible_history(
    events: Sequence[TraceEvent],
    me: str,
    is_agent: bool,
    now: float,
    entries: dict[int, HistoryEntry] | None = None,
    requests: Mapping[str, RequestRecord] | None = None,
) -> tuple[HistoryEntry, ...]:
    """The action history one member may see at ``now`` (events that have ended by then).

    The agent sees the team-level history: every member's actions except other members'
    ``INVALID`` attempts. A collaborator sees only its own actions. Environment events are
    never part of a history.

    Args:
        events: The trace so far (append-only: an event changes only when the session ends,
            to ``interrupted``, which also drops its entry).
        me: The member whose history it is.
        is_agent: Whether ``me`` is the agent.
        now: Virtual time of the observation.
        entries: Entries made by earlier calls on the same events, by ``seq`` (filled in
            here), so that each event is summarised once per session, not once per turn.
        requests: The session's gate requests by id: an ``APPROVE`` / ``REJECT`` entry
            names the action type of the request it decided (``request_type``).
    """
    out = []
    for e in events:
        if e.actor_type == "env" or e.t_end > now:
            continue
        if is_agent:
            if e.action_type == "INVALID" and e.actor != me:
                continue
        elif e.actor != me:
            continue
        entry = entries.get(e.seq) if entries is not None else None
        if entry is None:
            entry = HistoryEntry(
                seq=e.seq,
                time=e.t_end,
                actor=e.actor,
                action_type=e.action_type,
                status=e.status,
                summary=event_summary(e),
                request_type=_decided_type(e, requests),
            )
            if entries is not None:
                entries[e.seq] = entry
        out.append(entry)
    return tuple(out)
