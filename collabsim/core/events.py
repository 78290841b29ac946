"""Trace events: the one record a session writes per thing that happened.

One JSON object per line (see docs/design.md "Trace"). Events are frozen; the session appends
them to the trace file as they happen.

Conventions shared by the engine, the trace->graph converter and the metrics:

* ``actor_type`` is ``"ai"`` for the agent, ``"human"`` for simulated collaborators and
  ``"env"`` for the environment (session start/end, phase changes). ``"env"`` events are
  never team members.
* Environment ``action_type`` values: ``SESSION_START``, ``PHASE_START`` (``args.phase`` =
  ``"build"`` or ``"work"``), ``SESSION_END`` (``args.status``).
* Participant ``action_type`` is the action name (``EXECUTE_CODE``, ...) or ``INVALID`` for
  an unparseable/illegal action (status ``error``). ``WAIT_TEAMMATE_CONTINUE`` is not logged.
* Gates: a gated action by a non-owner is logged with status ``pending`` and
  ``args.request_id``; the owner's ``APPROVE``/``REJECT`` event refs the request; then an
  outcome event by the original author with the original ``action_type``, status
  ``approved`` or ``rejected`` and ``refs = (request_seq, decision_seq)``.
* ``interrupted``: an action still in flight when the session ended (its effect, or for a
  gate decision its outcome, had not landed) - decided and logged, never taken effect, so no
  reader may count it as landed work. Set when the session ends (the trace file is then
  rewritten once); ``t_start``/``t_end`` keep the planned interval.
* ``refs`` otherwise link an event to what it responds to: an ``EDITOR_UPDATE`` refs the
  update it revises; a message refs the latest non-message event by another member that its
  author had seen when deciding.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from collabsim.core import jsonio

ActorKind = Literal["ai", "human", "env"]
EventStatus = Literal["ok", "error", "pending", "approved", "rejected", "interrupted"]
MESSAGE_ACTIONS: frozenset[str] = frozenset({"SEND_TEAMMATE_MESSAGE"})
ENV_ACTIONS: frozenset[str] = frozenset({"SESSION_START", "PHASE_START", "SESSION_END"})


@dataclass(frozen=True)
class TraceEvent:
    """One line of a trace.

    Attributes:
        seq: 0-based position in the trace.
        t_start: Virtual-clock start (seconds).
        t_end: Virtual-clock end (seconds), ``>= t_start``.
        actor: Participant name (``"agent"``, ``"D"``, ``"R"``) or ``"env"``.
        actor_type: ``"ai"``, ``"human"`` or ``"env"``.
        action_type: Action name, ``INVALID`` or an environment event name.
        args: Action arguments (JSON-serialisable).
        status: ``ok``, ``error``, ``pending``, ``approved``, ``rejected`` or
            ``interrupted``.
        observation: Short text of what the action produced (truncated output, error).
        refs: ``seq`` of the events this one responds to.
        llm: The model calls of the turn that decided this event (``calls``,
            ``prompt_tokens``, ``completion_tokens``), for language-model participants
            only; None (and left out of the JSON line) otherwise.
    """

    seq: int
    t_start: float
    t_end: float
    actor: str
    actor_type: ActorKind
    action_type: str
    args: Mapping[str, Any] = field(default_factory=dict, hash=False)
    status: EventStatus = "ok"
    observation: str = ""
    refs: tuple[int, ...] = ()
    llm: Mapping[str, int] | None = field(default=None, hash=False)

    @property
    def is_message(self) -> bool:
        """True for message actions (team chat)."""
        return self.action_type in MESSAGE_ACTIONS

    def to_json(self) -> str:
        """Serialise to one JSON line (keys in a fixed order, no trailing newline)."""
        data: dict[str, Any] = {
            "seq": self.seq,
            "t_start": round(self.t_start, 6),
            "t_end": round(self.t_end, 6),
            "actor": self.actor,
            "actor_type": self.actor_type,
            "action_type": self.action_type,
            "args": dict(self.args),
            "status": self.status,
            "observation": self.observation,
            "refs": list(self.refs),
        }
        if self.llm is not None:  # absent for scripted participants: their lines unchanged
            data["llm"] = dict(self.llm)
        return jsonio.dumps(data, sort_keys=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TraceEvent:
        """Build an event from a decoded JSON object; raises KeyError naming a missing field."""
        return cls(
            seq=int(data["seq"]),
            t_start=float(data["t_start"]),
            t_end=float(data["t_end"]),
            actor=str(data["actor"]),
            actor_type=data["actor_type"],
            action_type=str(data["action_type"]),
            args=dict(data.get("args") or {}),
            status=data.get("status", "ok"),
            observation=str(data.get("observation", "")),
            refs=tuple(int(r) for r in data.get("refs") or ()),
            llm=dict(data["llm"]) if data.get("llm") is not None else None,
        )


def build_phase_seqs(events: Iterable[TraceEvent]) -> frozenset[int]:
    """The ``seq`` of every event of the group-memory build phase.

    The build phase runs from a ``PHASE_START(phase="build")`` event (included) up to the
    next ``PHASE_START(phase="work")`` (excluded: it opens the work phase). A trace without
    a build ``PHASE_START`` is all work phase, so the set is empty.

    Args:
        events: A session's trace events, in ``seq`` order.

    Returns:
        The build-phase events' ``seq`` values.
    """
    seqs: set[int] = set()
    building = False
    for event in events:
        if event.action_type == "PHASE_START":
            building = event.args.get("phase") == "build"
        if building:
            seqs.add(event.seq)
    return frozenset(seqs)
