"""The session engine: one task, one team, one structure, one seed -> a trace and a result.

**Scheduling.** Participants act one decision at a time on a virtual clock (see
``collabsim.session.clock``): the participant whose next decision time is earliest acts
(ties: agent, then collaborators in team order). An action started at ``t_start`` ends at
``t_end = t_start + duration``; its author is busy until ``t_end`` and its effect (a chat
message, a code cell with its output, an editor text, a memory entry, a gate request, a
finish) *lands* at ``t_end`` - nobody sees it before. Code runs when the action is decided
(in decision order, which makes the shared sandbox namespace deterministic); its output
lands at ``t_end``. ``WAIT_TEAMMATE_CONTINUE`` is not logged and not work: it moves its
author's next decision to the next landing of anything new (or ``wait_seconds`` later when
nothing is in flight); it still counts as a turn.

**Visibility.** Everyone sees the landed chat, code cells, editor text, group memory, the
gates in force and the requests they must decide or are waiting for. The agent's history is
the team-level action history (every member's landed actions, except other members'
``INVALID`` attempts); a collaborator's history is its own actions only. Feedback (errors,
approvals, rejections with reasons, requests to decide) reaches only its addressee. Tasks
are shown through ``Task.brief()`` only.

**Legality.** Only the agent may ``FINISH``, unless a ``FINISH`` gate is in force: then its
owner may finish too (directly), and anyone else's ``FINISH`` is a gate request. During a
build phase only ``SEND_TEAMMATE_MESSAGE``, ``MEMORY_ADD``, ``MEMORY_AGREE`` and waiting are
allowed; ``MEMORY_*`` are illegal outside it (entries decided during the build phase still
land after it ends; gate lines among them count). ``SEND_TEAMMATE_MESSAGE`` needs a teammate.
A gated request identical to one of its author's still-pending requests is refused.
``APPROVE`` / ``REJECT`` need a landed, undecided request owned by the decider (request ids
``g1``, ``g2``...; ``"1"``, ``"#g1"`` are accepted). Unparseable or illegal actions are logged
as ``INVALID`` (status ``error``) and their author gets the reason as feedback.

**Gates.** A gated action by a non-owner is logged with its own action type, status
``pending`` and ``args.request_id``; the request lands at its ``t_end``. The owner's
``APPROVE``/``REJECT`` event refs the request; right after it an outcome event by the
author (same action type, status ``approved``/``rejected``, ``refs = (request, decision)``,
``t_start = t_end =`` the decision's end) records the result; an approved action takes
effect then (approved code runs then). A rejection's reason goes to the author.

**Ending.** An effective ``FINISH`` ends the session (status ``finished``; submitted = editor
text when it lands). The session also ends when the agent has used ``max_turns`` decisions
(``max_turns``), when the next decision would start after ``max_time`` (``timeout``), when a
participant raises ``SessionAbort`` (its status), or when a participant raises anything else
(``error``; also for an internal engine failure, which is logged, never raised). Otherwise
the submitted text is the editor text at the end. Actions in flight
at the end keep their trace events, but their effects are not applied. The sandbox is
closed in every case.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from collabsim.participants.protocol import (
    GateRequest,
    Observation,
    Participant,
    SessionAbort,
)
from collabsim.session.actions import Action, parse_action
from collabsim.session.clock import Scheduler, VirtualClock
from collabsim.session.config import (
    CodeExecutor,
    ExecutorFactory,
    SessionConfig,
    default_executor_factory,
)
from collabsim.session.events import MESSAGE_ACTIONS, TraceEvent
from collabsim.session.results import SessionResult
from collabsim.session.structures import (
    GATES_SECTION,
    chosen_gates,
    parse_gate_entry,
    preassigned_gates,
)
from collabsim.session.trace import TraceWriter
from collabsim.session.workspace import (
    MemoryEntry,
    Workspace,
    normalise_request_id,
    truncate,
    visible_history,
)

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

BUILD_ACTIONS = ("SEND_TEAMMATE_MESSAGE", "MEMORY_ADD", "MEMORY_AGREE", "WAIT_TEAMMATE_CONTINUE")
WAIT = "WAIT_TEAMMATE_CONTINUE"
_INVALID_TEXT_CHARS = 1000


@dataclass(order=True)
class _Landing:
    time: float
    order: int
    apply: Callable[[float], None] = field(compare=False)


class _Session:
    """Mutable state of one running session."""

    def __init__(
        self,
        config: SessionConfig,
        participants: Mapping[str, Participant],
        trace_path: Path | None,
        executor_factory: ExecutorFactory,
    ) -> None:
        self.cfg = config
        self.team = config.team
        self.members = self.team.members
        self.participants = participants
        self.brief = config.task.brief()
        self.structure = config.structure
        self.ws = Workspace(
            cell_output_chars=config.cell_output_chars,
            memory_sections=self.structure.memory_sections,
        )
        self.clock = VirtualClock(
            config.clock, config.seed, self.members, salt=config.task.task_id
        )
        self.sched = Scheduler(self.members)
        self.writer = TraceWriter(trace_path) if trace_path is not None else None
        self.executor_factory = executor_factory
        self.executor: CodeExecutor | None = None
        self.events: list[TraceEvent] = []
        self.landings: list[_Landing] = []
        self.n_landings = 0
        self.feedback: dict[str, list[tuple[float, str]]] = {m: [] for m in self.members}
        self.turns: dict[str, int] = {m: 0 for m in self.members}
        self.waiting: set[str] = set()
        self.phase = "build" if self.structure.has_memory else "work"
        self.build_turns = 0
        self.gates: dict[str, str] = {} if self.structure.has_memory else self._preassigned()
        self.gate_entries: list[tuple[float, int, str]] = []
        self.n_requests = 0
        self.request_seq: dict[str, int] = {}
        self.status: str | None = None
        self.end_time = 0.0
        self.error: str | None = None
        self.submitted = ""

    # ----------------------------------------------------------------- bookkeeping
    def _preassigned(self) -> dict[str, str]:
        return preassigned_gates(self.structure, self.members, self.team.agent)

    def _emit(
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
        )
        self.events.append(event)
        if self.writer is not None:
            self.writer.write(event)
        return event

    def _land(self, t: float, apply: Callable[[float], None], author: str | None) -> None:
        """Schedule an effect at ``t``; waiting members (other than its author) wake then."""
        self.n_landings += 1
        heapq.heappush(self.landings, _Landing(t, self.n_landings, apply))
        for name in self.waiting:
            if name != author and self.sched.next_time[name] > t:
                self.sched.set_next(name, t)

    def _notify(self, name: str, t: float, text: str) -> None:
        self.feedback[name].append((t, text))

    def _end(self, status: str, t: float, error: str | None = None) -> None:
        if self.status is None:
            self.status = status
            self.end_time = t
            self.error = error
            self.submitted = self.ws.editor_text

    # ----------------------------------------------------------------- phases
    def _end_build(self, t: float) -> None:
        if self.phase != "build":
            return
        self.phase = "work"
        self.ws.memory_read_only = True
        if self.structure.gates_chosen_by_team:
            entries = [text for _, _, text in sorted(self.gate_entries)]
            self.gates = chosen_gates(entries, self.members)
        else:
            self.gates = self._preassigned()
        self._emit(t, t, "env", "PHASE_START", {"phase": "work", "gates": dict(self.gates)})

    def _land_until(self, horizon: float) -> None:
        """Apply landed effects up to ``horizon`` in time order; handle build-phase ends."""
        while self.status is None:
            t_land = self.landings[0].time if self.landings else math.inf
            t_cap = self.structure.build_max_seconds if self.phase == "build" else math.inf
            if t_cap <= min(t_land, horizon):
                self._end_build(t_cap)
                continue
            if t_land > horizon:
                return
            landing = heapq.heappop(self.landings)
            landing.apply(landing.time)
            if self.phase == "build" and all(m in self.ws.agreed for m in self.members):
                self._end_build(landing.time)

    # ----------------------------------------------------------------- observation
    def _available(self, name: str) -> tuple[str, ...]:
        has_mates = len(self.members) > 1
        if self.phase == "build":
            return tuple(a for a in BUILD_ACTIONS if has_mates or a != "SEND_TEAMMATE_MESSAGE")
        out = ["SEND_TEAMMATE_MESSAGE"] if has_mates else []
        out += ["EXECUTE_CODE", "EDITOR_UPDATE", WAIT]
        if name == self.team.agent or self.gates.get("FINISH") == name:
            out.append("FINISH")
        if self.ws.pending_for(name):
            out += ["APPROVE", "REJECT"]
        return tuple(out)

    def _observe(self, name: str, t: float) -> Observation:
        due = [text for (ft, text) in self.feedback[name] if ft <= t]
        self.feedback[name] = [(ft, text) for (ft, text) in self.feedback[name] if ft > t]
        return Observation(
            me=name,
            role=self.team.role(name),
            profile=self.team.profile(name),
            teammates=tuple(m for m in self.members if m != name),
            time=t,
            structure=self.structure.name,
            phase=self.phase,  # type: ignore[arg-type]
            task=self.brief,
            chat=tuple(self.ws.chat),
            code_cells=tuple(self.ws.cells),
            editor_text=self.ws.editor_text,
            memory=self.ws.memory_view(),
            gates=dict(self.gates) if self.phase == "work" else {},
            pending_for_me=self.ws.pending_for(name),
            my_pending=self.ws.pending_by(name),
            history=visible_history(self.events, name, name == self.team.agent, t),
            feedback=tuple(due),
            available_actions=self._available(name),
            turn=self.turns[name],
        )

    # ----------------------------------------------------------------- actions
    def _kind(self, name: str) -> str:
        return self.team.actor_type(name)

    def _duration(self, name: str, action: str) -> float:
        return self.clock.duration(name, self._kind(name), action)  # type: ignore[arg-type]

    def _invalid(
        self, name: str, t: float, text: Any, error: str, action: Action | None = None
    ) -> float:
        t_end = t + self._duration(name, "INVALID")
        if action is None:
            args: dict[str, Any] = {"text": truncate(str(text), _INVALID_TEXT_CHARS)}
        else:
            args = {
                "action": action.name,
                "args": {k: truncate(v, _INVALID_TEXT_CHARS) for k, v in action.args.items()},
            }
        self._emit(t, t_end, name, "INVALID", args, status="error", observation=error)
        self._notify(name, t_end, f"Your last action had no effect: {error}")
        return t_end

    def _illegal_reason(self, name: str, action: Action) -> str | None:
        if action.name in self._available(name):
            return None
        a = action.name
        if a in ("MEMORY_ADD", "MEMORY_AGREE"):
            if not self.structure.has_memory:
                return f"{a}: structure {self.structure.name!r} has no group memory."
            return f"{a}: the group memory is read-only after the build phase."
        if self.phase == "build":
            return (
                f"{a} is not available during the group-memory build phase; use "
                "SEND_TEAMMATE_MESSAGE, MEMORY_ADD or MEMORY_AGREE (the work phase starts when "
                "everyone has agreed)."
            )
        if a == "FINISH":
            return "FINISH: only the agent (or the owner of a FINISH gate) can finish."
        if a in ("APPROVE", "REJECT"):
            return f"{a}: no gate request is waiting for your decision."
        if a == "SEND_TEAMMATE_MESSAGE":
            return "SEND_TEAMMATE_MESSAGE: you have no teammates in this session."
        return f"{a} is not available now; available: {', '.join(self._available(name))}."

    def _message_refs(self, name: str, t: float) -> tuple[int, ...]:
        best: TraceEvent | None = None
        for e in self.events:
            if (
                e.actor_type == "env"
                or e.actor == name
                or e.action_type in MESSAGE_ACTIONS
                or e.action_type == "INVALID"
                or e.t_end > t
            ):
                continue
            if best is None or (e.t_end, e.seq) >= (best.t_end, best.seq):
                best = e
        return () if best is None else (best.seq,)

    async def _run_code(self, code: str) -> tuple[str, bool]:
        try:
            if self.executor is None:
                files = [d.path for d in self.cfg.task.datasets]
                self.executor = await asyncio.to_thread(
                    self.executor_factory, files, self.cfg.limits
                )
            result = await asyncio.to_thread(self.executor.execute, code)
        except Exception as exc:  # noqa: BLE001 - a broken sandbox must not end the session
            return f"[sandbox failure] {type(exc).__name__}: {exc}", False
        parts = [str(result.output or "")]
        if result.error:
            parts.append(str(result.error))
        if result.status != "ok" and not result.error:
            parts.append(f"[{result.status}]")
        return "\n".join(p for p in parts if p).strip("\n"), result.status == "ok"

    async def _effect(
        self,
        name: str,
        action: Action,
        t_start: float,
        t_end: float,
        status: str = "ok",
        refs: tuple[int, ...] = (),
    ) -> None:
        """Log an effective action by ``name`` and land its effect at ``t_end``."""
        a = action.name
        args = dict(action.args)
        if a == "EXECUTE_CODE":
            output, ok = await self._run_code(args["code"])
            ev_status = status if status != "ok" else ("ok" if ok else "error")
            ev = self._emit(t_start, t_end, name, a, args, ev_status, output, refs)
            self._land(
                t_end, lambda t: self.ws.add_cell(ev.seq, t, name, args["code"], output, ok), name
            )
        elif a == "SEND_TEAMMATE_MESSAGE":
            refs = refs or self._message_refs(name, t_start)
            ev = self._emit(t_start, t_end, name, a, args, status, "", refs)
            self._land(
                t_end, lambda t: self.ws.post_message(ev.seq, t, name, args["message"]), name
            )
        elif a == "EDITOR_UPDATE":
            if not refs and self.ws.editor_seq is not None:
                refs = (self.ws.editor_seq,)
            ev = self._emit(t_start, t_end, name, a, args, status, "", refs)
            self._land(t_end, lambda t: self.ws.set_editor(ev.seq, args["text"]), name)
        elif a == "FINISH":
            self._emit(t_start, t_end, name, a, args, status, "", refs)
            self._land(t_end, lambda t: self._end("finished", t), name)
        elif a == "MEMORY_ADD":
            ev = self._emit(t_start, t_end, name, a, args, status, "", refs)
            entry = MemoryEntry(ev.seq, t_end, name, args["section"], args["text"])
            self._land(t_end, lambda t: self.ws.add_memory(entry), name)
        elif a == "MEMORY_AGREE":
            self._emit(t_start, t_end, name, a, args, status, "", refs)
            self._land(t_end, lambda t: self.ws.agree(name), name)

    async def _decide_gate(self, name: str, t: float, action: Action) -> float:
        rid = normalise_request_id(action.args["request_id"])
        record = self.ws.requests.get(rid)
        mine = ", ".join(r.request_id for r in self.ws.pending_for(name)) or "none"
        if record is None:
            return self._invalid(
                name,
                t,
                "",
                f"{action.name}: unknown request id {action.args['request_id']!r} "
                f"(requests waiting for you: {mine}).",
                action,
            )
        req = record.request
        if req.owner != name:
            return self._invalid(
                name,
                t,
                "",
                f"{action.name}: request {rid} is decided by {req.owner}, not you.",
                action,
            )
        if record.state != "pending":
            return self._invalid(
                name, t, "", f"{action.name}: request {rid} was already {record.state}.", action
            )
        t_end = t + self._duration(name, action.name)
        args = {"request_id": rid, **{k: v for k, v in action.args.items() if k != "request_id"}}
        decision = self._emit(t, t_end, name, action.name, args, "ok", "", (req.seq,))
        outcome_refs = (req.seq, decision.seq)
        original = Action(req.action_type, dict(req.args))
        if action.name == "APPROVE":
            await self._effect(req.author, original, t_end, t_end, "approved", outcome_refs)
            note = f"Your {req.action_type} request {rid} was approved by {name}"
            comment = action.args.get("comment")
            note += f": {comment}" if comment else "."
            state = "approved"
        else:
            reason = action.args["reason"]
            self._emit(
                t_end,
                t_end,
                req.author,
                req.action_type,
                dict(original.args),
                "rejected",
                reason,
                outcome_refs,
            )
            note = f"Your {req.action_type} request {rid} was rejected by {name}: {reason}"
            state = "rejected"

        def settle(_: float) -> None:
            record.state = state  # type: ignore[assignment]
            record.decision_seq = decision.seq

        self._land(t_end, settle, name)
        self._notify(req.author, t_end, note)
        return t_end

    def _request(self, name: str, t: float, action: Action, owner: str) -> float:
        self.n_requests += 1
        rid = f"g{self.n_requests}"
        t_end = t + self._duration(name, action.name)
        refs: tuple[int, ...] = ()
        if action.name == "EDITOR_UPDATE" and self.ws.editor_seq is not None:
            refs = (self.ws.editor_seq,)
        args = {**action.args, "request_id": rid}
        ev = self._emit(
            t, t_end, name, action.name, args, "pending", f"awaiting approval by {owner}", refs
        )
        req = GateRequest(
            request_id=rid,
            seq=ev.seq,
            time=t_end,
            author=name,
            owner=owner,
            action_type=action.name,
            args=dict(args),
        )
        self._land(t_end, lambda _t: self.ws.add_request(req), name)
        self._notify(
            owner,
            t_end,
            f'{name} requests {action.name} ({rid}); decide with APPROVE(request_id="{rid}") '
            f'or REJECT(request_id="{rid}", reason="...").',
        )
        self._notify(name, t_end, f"Your {action.name} is gated: request {rid} awaits {owner}.")
        return t_end

    def _memory_check(self, action: Action) -> str | None:
        section = action.args["section"].strip().lower()
        sections = self.structure.memory_sections
        if section not in sections:
            return (
                f"MEMORY_ADD: unknown section {action.args['section']!r}; sections: "
                + ", ".join(sections)
            )
        if section == GATES_SECTION:
            try:
                parse_gate_entry(action.args["text"], self.members)
            except ValueError as exc:
                return f'MEMORY_ADD(section="gates"): {exc}'
        return None

    async def _act(self, name: str, t: float, text: Any) -> float | None:
        """Carry out one reply; return its author's next decision time (None: wait)."""
        parsed = parse_action(text)
        if parsed.action is None:
            return self._invalid(name, t, text, parsed.error or "unparseable action")
        action = parsed.action
        reason = self._illegal_reason(name, action)
        if reason is not None:
            return self._invalid(name, t, text, reason, action)
        if action.name == WAIT:
            return None
        if action.name in ("APPROVE", "REJECT"):
            return await self._decide_gate(name, t, action)
        if action.name == "MEMORY_ADD":
            problem = self._memory_check(action)
            if problem is not None:
                return self._invalid(name, t, text, problem, action)
            section = action.args["section"].strip().lower()
            action = Action("MEMORY_ADD", {**action.args, "section": section})
        owner = self.gates.get(action.name) if self.phase == "work" else None
        if owner is not None and owner != name:
            for req in self.ws.pending_by(name):
                same = {k: v for k, v in req.args.items() if k != "request_id"}
                if req.action_type == action.name and same == dict(action.args):
                    return self._invalid(
                        name,
                        t,
                        text,
                        f"{action.name}: the same request {req.request_id} is "
                        f"still waiting for {owner}.",
                        action,
                    )
            return self._request(name, t, action, owner)
        t_end = t + self._duration(name, action.name)
        await self._effect(name, action, t, t_end)
        if action.name == "MEMORY_ADD" and action.args["section"] == GATES_SECTION:
            self.gate_entries.append((t_end, len(self.events) - 1, action.args["text"]))
        return t_end

    async def _decide(self, name: str, t: float) -> None:
        obs = self._observe(name, t)
        self.turns[name] += 1
        in_build = self.phase == "build"
        self.waiting.discard(name)
        try:
            text = await self.participants[name].act(obs)
        except SessionAbort as exc:
            self._end(exc.status, t, f"{name}: {exc.reason}")
            return
        except Exception as exc:  # noqa: BLE001 - a failing policy ends only its session
            self._end("error", t, f"{name} raised {type(exc).__name__}: {exc}")
            return
        t_next = await self._act(name, t, text)
        if t_next is None:
            pending = [la.time for la in self.landings if la.time > t]
            t_next = min(pending) if pending else t + self.cfg.clock.wait_seconds
            self.waiting.add(name)
        self.sched.set_next(name, t_next)
        if in_build:
            self.build_turns += 1
            if self.build_turns >= self.structure.build_max_turns:
                self._land(max(t_next, t), self._end_build, name)

    # ----------------------------------------------------------------- main loop
    async def run(self) -> None:
        self._emit(
            0.0,
            0.0,
            "env",
            "SESSION_START",
            {
                "task_id": self.cfg.task.task_id,
                "team": self.team.label,
                "members": list(self.members),
                "structure": self.structure.name,
                "seed": self.cfg.seed,
            },
        )
        self._emit(0.0, 0.0, "env", "PHASE_START", {"phase": self.phase, "gates": dict(self.gates)})
        while self.status is None:
            nxt = self.sched.peek()
            t_next = nxt[1] if nxt is not None else math.inf
            self._land_until(min(t_next, self.cfg.max_time))
            if self.status is not None:
                break
            if nxt is None:
                self._end("max_turns", self.end_time)
                break
            name, t = nxt
            if t > self.cfg.max_time:
                self._end("timeout", self.cfg.max_time)
                break
            if self.turns[name] >= self.cfg.max_turns:
                if name == self.team.agent:
                    self._end("max_turns", t)
                    break
                self.sched.retire(name)
                continue
            await self._decide(name, t)

    async def close(self) -> None:
        if self.status is not None:
            end_args: dict[str, Any] = {"status": self.status, "submitted": self.submitted}
            if self.error:
                end_args["error"] = self.error
            try:
                self._emit(self.end_time, self.end_time, "env", "SESSION_END", end_args)
            except Exception:  # noqa: BLE001 - closing must go on
                log.exception("could not write SESSION_END")
        try:
            if self.executor is not None:
                await asyncio.to_thread(self.executor.close)
        finally:
            if self.writer is not None:
                self.writer.close()


def _policy_label(config: SessionConfig, participants: Mapping[str, Participant]) -> str:
    if config.policy:
        return config.policy
    labels = [
        str(getattr(participants[m], "policy_name", type(participants[m]).__name__))
        for m in config.team.members
    ]
    return (
        labels[0]
        if len(set(labels)) == 1
        else ",".join(f"{m}={lab}" for m, lab in zip(config.team.members, labels, strict=True))
    )


def _counts(events: Sequence[TraceEvent]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for e in events:
        if e.actor_type == "env" or e.status in ("approved", "rejected"):
            continue
        per = counts.setdefault(e.actor, {})
        per[e.action_type] = per.get(e.action_type, 0) + 1
    return {a: dict(sorted(c.items())) for a, c in counts.items()}


async def run_session(
    config: SessionConfig,
    participants: Mapping[str, Participant],
    trace_path: Path | None = None,
    *,
    executor_factory: ExecutorFactory | None = None,
) -> SessionResult:
    """Run one session to its end.

    Args:
        config: The session definition.
        participants: One policy per team member name (``config.team.members``).
        trace_path: Where to write the JSONL trace (None: no file).
        executor_factory: ``(files, limits) -> CodeExecutor``; default: the real sandbox,
            created at the first ``EXECUTE_CODE``.

    Returns:
        The session result. Participant failures never propagate: they end the session
        with status ``error`` (or the ``SessionAbort`` status).

    Raises:
        ValueError: ``participants`` does not match the team.
    """
    missing = [m for m in config.team.members if m not in participants]
    if missing:
        raise ValueError(f"no participant for team member(s) {missing}")
    wall_start = time.perf_counter()
    session = _Session(
        config, participants, trace_path, executor_factory or default_executor_factory
    )
    try:
        try:
            await session.run()
        except Exception as exc:  # noqa: BLE001 - an engine bug must not take a sweep down
            log.exception("session engine failed")
            session._end("error", session.end_time, f"engine error {type(exc).__name__}: {exc}")
    finally:
        await session.close()
    return SessionResult(
        task_id=config.task.task_id,
        team=config.team.label,
        structure=config.structure.name,
        seed=config.seed,
        policy=_policy_label(config, participants),
        submitted_hypothesis=session.submitted,
        status=session.status or "error",
        virtual_seconds=round(session.end_time, 6),
        wall_seconds=round(time.perf_counter() - wall_start, 6),
        turns=sum(session.turns.values()),
        counts=_counts(session.events),
        n_events=len(session.events),
        trace_path=str(trace_path) if trace_path is not None else None,
        error=session.error,
        gates=dict(session.gates),
    )


def run_session_sync(
    config: SessionConfig,
    participants: Mapping[str, Participant],
    trace_path: Path | None = None,
    *,
    executor_factory: ExecutorFactory | None = None,
) -> SessionResult:
    """Blocking wrapper of :func:`run_session` (not callable from a running event loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(
            run_session(config, participants, trace_path, executor_factory=executor_factory)
        )
    raise RuntimeError("run_session_sync called inside an event loop; await run_session instead")


__all__ = [
    "CodeExecutor",
    "ExecutorFactory",
    "SessionConfig",
    "default_executor_factory",
    "run_session",
    "run_session_sync",
]
