"""The mutable state of one running session, and the bookkeeping every step shares.

:class:`SessionState` is what the orchestrator's parts (rules, gates, effect handlers,
observation builder) read and change: the workspace, the clock and scheduler, the trace so
far, per-member feedback and turn counts, the phase and the gates in force. Its methods are
the primitives they share: log an event, schedule an effect, notify a member, end the
session, end the build phase, apply landed effects.

**Interrupted actions.** When the session ends, every effect still waiting to land is
dropped, and the trace events it belongs to get status ``interrupted`` (in memory and in
the trace file, which is rewritten once, atomically, when that happens): the action was
decided and logged, but it was cut off by the session's end and never took effect. Their
``t_start``/``t_end`` stay the planned interval (``t_end`` can lie after ``SESSION_END``).
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from collabsim.core.events import MESSAGE_ACTIONS, TraceEvent
from collabsim.core.records import Activity, HistoryEntry
from collabsim.session.clock import VirtualClock
from collabsim.session.config import SessionConfig
from collabsim.session.results import INFRA_ERROR
from collabsim.session.scheduler import LandingQueue, Scheduler
from collabsim.session.structures import chosen_gates, preassigned_gates
from collabsim.session.trace import TraceWriter
from collabsim.session.workspace import Workspace, truncate


class SessionState:
    """Mutable state of one session (see :mod:`collabsim.session.orchestrator`).

    Args:
        config: The session definition.
        trace_path: Where to write the JSONL trace (None: no file).
    """

    def __init__(
        self,
        config: SessionConfig,
        trace_path: Path | None,
    ) -> None:
        self.cfg = config
        self.team = config.team
        self.members = self.team.members
        # what each member sees of the task: the facts it holds under the knowledge split
        self.briefs = {m: config.task.brief(self.holder(m), config.knowledge)
                       for m in self.members}
        self.structure = config.structure
        self.ws = Workspace(memory_sections=self.structure.memory_sections)
        self.clock = VirtualClock(config.clock, config.seed, self.members, salt=config.task.task_id)
        self.sched = Scheduler(self.members)
        self.writer = TraceWriter(trace_path) if trace_path is not None else None
        self.events: list[TraceEvent] = []
        # History entries of logged events by seq (observations.observe), made once each.
        self.history_entries: dict[int, HistoryEntry] = {}
        # (t_end, seq, actor) of events a message may respond to, sorted, so that finding a
        # message's refs does not scan the whole trace (see effects.message_refs).
        self.respondable: list[tuple[float, int, str]] = []
        self.landings = LandingQueue()
        self.feedback: dict[str, list[tuple[float, str]]] = {m: [] for m in self.members}
        self.turns: dict[str, int] = {m: 0 for m in self.members}
        # member -> editor text (stripped) -> when the member first saw it in the work phase
        self.editor_seen: dict[str, dict[str, float]] = {m: {} for m in self.members}
        self.waiting: set[str] = set()
        self.phase = "build" if self.structure.has_memory else "work"
        self.build_turns = 0
        self.gates: dict[str, str] = {} if self.structure.has_memory else self.preassigned()
        self.gate_entries: list[tuple[float, int, str]] = []
        self.n_requests = 0
        self.status: str | None = None
        self.end_time = 0.0
        self.error: str | None = None
        # (member, its model calls of the decision being carried out): written on the
        # member's events of that decision (language-model participants only)
        self.turn_usage: tuple[str, Mapping[str, int]] | None = None
        self.submitted = ""
        # the agent's attention (coordination.attention_messages): how much of the chat it
        # had seen at its last decision, and the teammate messages it never took in (seqs)
        self.chat_taken = 0
        self.buried: set[int] = set()

    def holder(self, name: str) -> str:
        """The knowledge holder ``name`` stands for: ``agent`` or its profile key."""
        profile = self.team.profile(name)
        return "agent" if profile is None else profile.key

    def preassigned(self) -> dict[str, str]:
        """Gates the structure fixes for this team."""
        return preassigned_gates(self.structure, self.members, self.team.agent)

    def emit(
        self,
        t_start: float,
        t_end: float,
        actor: str,
        action_type: str,
        args: Mapping[str, Any] | None = None,
        status: str = "ok",
        observation: str = "",
        refs: Sequence[int] = (),
    ) -> TraceEvent:
        """Append one event to the trace (and its file) and return it."""
        actor_type = "env" if actor == "env" else self.team.actor_type(actor)
        event = TraceEvent(
            seq=len(self.events),
            t_start=t_start,
            t_end=t_end,
            actor=actor,
            actor_type=actor_type,  # type: ignore[arg-type]
            action_type=action_type,
            args=dict(args or {}),
            status=status,  # type: ignore[arg-type]
            observation=truncate(observation, self.cfg.trace_observation_chars),
            refs=tuple(refs),
            llm=(
                self.turn_usage[1]
                if self.turn_usage is not None and self.turn_usage[0] == actor
                else None
            ),
        )
        self.events.append(event)
        if actor != "env" and action_type != "INVALID" and action_type not in MESSAGE_ACTIONS:
            bisect.insort(self.respondable, (t_end, event.seq, actor))
        if self.writer is not None:
            self.writer.write(event)
        return event

    def land(
        self,
        t: float,
        apply: Callable[[float], None],
        author: str | None,
        seqs: tuple[int, ...] = (),
    ) -> None:
        """Schedule an effect at ``t`` (of trace events ``seqs``); waiting members (other
        than its author) wake then."""
        self.landings.push(t, apply, seqs)
        for name in self.waiting:
            if name != author and self.sched.next_time[name] > t:
                self.sched.set_next(name, t)

    def wait(self, name: str, t: float, max_seconds: float | None = None) -> None:
        """``name`` waits from ``t``: it sleeps until the next event that concerns it, or
        until ``t + max_seconds`` when that comes first (``WAIT_TEAMMATE_CONTINUE``'s
        ``max_seconds``: a participant that has a time in mind, such as a think time or a
        patience, wakes exactly then).

        It wakes at the next landing (an effect already in flight, or one a teammate starts
        later: :meth:`land` wakes waiting members) or when the phase changes. When nothing
        is in flight and no teammate has a decision (or a bounded wait's end) scheduled,
        nothing could ever wake anyone: then every waiting member wakes
        ``clock.wait_seconds`` after ``t`` (:meth:`wake_if_idle`), so time passes in those
        steps while the whole team waits.
        """
        self.waiting.add(name)
        t_land = self.landings.next_time()
        wake = math.inf if t_land is None else max(t_land, t)
        if max_seconds is not None:
            wake = min(wake, t + max_seconds)
        self.sched.set_next(name, wake)
        self.wake_if_idle(t)

    def wake_if_idle(self, t: float) -> None:
        """When nothing is in flight and every scheduled member is asleep in a wait, wake
        them all ``clock.wait_seconds`` after ``t``."""
        if self.landings.next_time() is not None:
            return
        active = self.sched.active()
        if any(math.isfinite(self.sched.next_time[m]) for m in active):
            return
        for m in active:
            self.sched.set_next(m, t + self.cfg.clock.wait_seconds)

    def notify(self, name: str, t: float, text: str) -> None:
        """Queue feedback for ``name``, visible from ``t`` on."""
        self.feedback[name].append((t, text))

    def duration(self, name: str, action: str) -> float:
        """Draw the duration of ``action`` by member ``name``."""
        return self.clock.duration(name, self.team.actor_type(name), action)

    def end(self, status: str, t: float, error: str | None = None) -> None:
        """End the session (the first call wins); the editor text is what is submitted."""
        if self.status is None:
            self.status = status
            self.end_time = t
            self.error = error
            self.submitted = self.ws.editor_text
            self.interrupt_in_flight()

    def end_on_infra_failure(self, failure: str | None, t: float) -> None:
        """End with ``infra_error`` at ``t`` when the sandbox itself failed (``failure``):
        what follows would measure the infrastructure, not the team."""
        if failure is not None:
            self.end(INFRA_ERROR, t, f"sandbox infrastructure failed: {failure}")

    def working(self, t: float, exclude: str) -> tuple[Activity, ...]:
        """Members' actions under way at ``t`` (their effect lands later), other than
        ``exclude``'s, earliest start first: one per (actor, action) event."""
        found: list[tuple[float, int]] = []
        for landing in self.landings.waiting():
            if landing.time > t:
                for seq in landing.seqs:
                    event = self.events[seq]
                    if event.actor != exclude and event.actor != "env" and event.t_start <= t:
                        found.append((event.t_start, seq))
        if not found:
            return ()
        return tuple(Activity(self.events[seq].actor, self.events[seq].action_type, since)
                     for since, seq in sorted(found))

    def refuse_stale_update(self, seq: int, author: str, t: float) -> None:
        """An editor update that landed on a version its author had not seen does not take
        effect (:func:`collabsim.session.effects.refuses_stale_updates`): its event becomes
        an ``error`` and the author is told to read the new text first."""
        self.events[seq] = dataclasses.replace(
            self.events[seq], status="error",
            observation="The editor changed while you were writing; your update was not "
                        "applied. Read the new text first.")
        self.history_entries.pop(seq, None)
        if self.writer is not None:
            self.writer.rewrite(self.events)
        self.notify(author, t, "Your EDITOR_UPDATE was not applied: the editor changed while "
                               "you were writing. Read the new text first.")

    def interrupt_in_flight(self) -> list[int]:
        """Drop the effects still waiting to land; mark their events ``interrupted``.

        Returns:
            The ``seq`` of every event marked (see the module docstring).
        """
        seqs = sorted({seq for landing in self.landings.drain() for seq in landing.seqs})
        for seq in seqs:
            self.events[seq] = dataclasses.replace(self.events[seq], status="interrupted")
            self.history_entries.pop(seq, None)
        if seqs and self.writer is not None:
            self.writer.rewrite(self.events)
        return seqs

    def end_build(self, t: float) -> None:
        """Leave the build phase: freeze the memory, put the gates in force, log it."""
        if self.phase != "build":
            return
        self.phase = "work"
        self.ws.memory_read_only = True
        for name in self.waiting:  # a new phase concerns everyone
            if self.sched.next_time[name] > t:
                self.sched.set_next(name, t)
        if self.structure.gates_chosen_by_team:
            entries = [text for _, _, text in sorted(self.gate_entries)]
            self.gates = chosen_gates(entries, self.members)
        else:
            self.gates = self.preassigned()
        self.emit(t, t, "env", "PHASE_START", {"phase": "work", "gates": dict(self.gates)})

    def land_until(self, horizon: float) -> None:
        """Apply landed effects up to ``horizon`` in time order; handle build-phase ends."""
        while self.status is None:
            t_next = self.landings.next_time()
            t_land = math.inf if t_next is None else t_next
            t_cap = self.structure.build_max_seconds if self.phase == "build" else math.inf
            if t_cap <= min(t_land, horizon):
                self.end_build(t_cap)
                continue
            if t_land > horizon:
                return
            landing = self.landings.pop()
            landing.apply(landing.time)
            if self.phase == "build" and all(m in self.ws.agreed for m in self.members):
                self.end_build(landing.time)
