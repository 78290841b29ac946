"""The steppable session: one task, one team, one structure, one seed -> a trace.

:class:`Orchestrator` is driven like a Gymnasium loop, with the caller in charge of the
participants::

    orch = Orchestrator(config, trace_path)
    orch.use_participant_durations(policies)   # simulated humans time their own actions
    orch.start()
    while (turn := orch.next_turn()) is not None:
        orch.submit(policies[turn.member].decide(turn.observation))   # action text
    orch.close()

``run_session`` (:mod:`collabsim.session.engine`) is this loop with asynchronous participants
(awaiting :meth:`Orchestrator.asubmit`, which runs code off the event loop); gym envs call
:meth:`Orchestrator.submit` directly.

**Scheduling.** Participants act one decision at a time on a virtual clock (see
:mod:`collabsim.session.clock`, :mod:`collabsim.session.scheduler`): the participant whose
next decision time is earliest acts (ties: agent, then collaborators in team order). An
action started at ``t_start`` ends at ``t_end = t_start + duration``; its author is busy
until ``t_end`` and its effect lands at ``t_end`` (:mod:`collabsim.session.effects`).
``WAIT_TEAMMATE_CONTINUE`` is not logged, not work and takes no time (a build phase whose
last allowed decision is a wait ends at once); it counts as a turn. Its author sleeps until
the next event that concerns it, or at most ``max_seconds`` when given (not a positive,
finite number: invalid; :meth:`collabsim.session.state.SessionState.wait`).
Legality: :mod:`collabsim.session.rules`; gates: :mod:`collabsim.session.gates`; what a
member sees: :mod:`collabsim.session.observations`.

**Ending.** An effective ``FINISH`` ends the session (status ``finished``; submitted = editor
text when it lands). The session also ends when the agent has used ``max_turns`` decisions
(``max_turns``), when the next decision would start after ``max_time`` (``timeout``), or
when the driver calls :meth:`Orchestrator.abort` (a participant raised ``SessionAbort`` or
failed), and after a decision whose cell the sandbox itself failed to run (``infra_error``,
:mod:`collabsim.session.sandboxing`). Otherwise the submitted text is the editor text at the end. Actions in flight at
the end (effect not landed, even if due at the end time) keep their trace events, with
status ``interrupted``, and never take effect (:mod:`collabsim.session.state`).
:meth:`close` writes ``SESSION_END`` and closes the sandbox.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Generator, Mapping
from pathlib import Path
from typing import Any

from collabsim.core.action_parser import parse_action
from collabsim.core.actions import Action, wait_bound
from collabsim.core.replies import UnusableReply
from collabsim.session import gates
from collabsim.session.config import ExecutorFactory, SessionConfig
from collabsim.session.config import default_executor_factory as _default_factory
from collabsim.session.effects import apply_effect
from collabsim.session.observations import Turn, observe
from collabsim.session.rules import (
    duplicate_request,
    gate_owner,
    illegal_reason,
    memory_problem,
    record_invalid,
)
from collabsim.session.sandboxing import CellCall, CellRunner, CodeRun
from collabsim.session.state import SessionState

log = logging.getLogger(__name__)

_Step = Generator[CellCall, CodeRun, "float | None"]


class Orchestrator:
    """One session, stepped one decision at a time.

    Args:
        config: The session definition.
        trace_path: Where to write the JSONL trace (None: no file).
        executor_factory: ``(files, limits) -> CodeExecutor``; default: the real sandbox,
            created at the first ``EXECUTE_CODE``.
    """

    def __init__(self, config: SessionConfig, trace_path: Path | None = None, *,
                 executor_factory: ExecutorFactory | None = None) -> None:
        self.state = SessionState(config, trace_path)
        self.runner = CellRunner(executor_factory or _default_factory,
                                 [d.path for d in config.task.datasets], config.limits)
        self._turn: Turn | None = None
        self._in_build = False
        self._started = False
        self._closed = False

    def use_participant_durations(self, participants: Mapping[str, object]) -> None:
        """Let each participant with an ``action_duration(action)`` method time its own
        actions (simulated humans' calibrated durations; None from it: the clock's draw)."""
        for name in self.state.members:
            sampler = getattr(participants.get(name), "action_duration", None)
            if callable(sampler):
                self.state.clock.use_participant_durations(name, sampler)

    @property
    def done(self) -> bool:
        """True once the session has ended (no more turns)."""
        return self.state.status is not None

    def start(self) -> None:
        """Log the session start; call once before :meth:`next_turn`."""
        if self._started:
            raise RuntimeError("session already started")
        self._started = True
        s = self.state
        s.emit(
            0.0,
            0.0,
            "env",
            "SESSION_START",
            {
                "task_id": s.cfg.task.task_id,
                # the question and domain (never the gold) so a trace reads on its own
                "query": s.cfg.task.query,
                "domain": s.cfg.task.domain,
                "team": s.team.label,
                "members": list(s.members),
                "structure": s.structure.name,
                "seed": s.cfg.seed,
            },
        )
        s.emit(0.0, 0.0, "env", "PHASE_START", {"phase": s.phase, "gates": dict(s.gates)})

    def next_turn(self) -> Turn | None:
        """Advance virtual time to the next decision; None once the session has ended.

        Calling it again before :meth:`submit` returns the same turn.
        """
        if not self._started:
            raise RuntimeError("call start() before next_turn()")
        if self._turn is not None:
            return self._turn
        s = self.state
        while s.status is None:
            nxt = s.sched.peek()
            t_next = nxt[1] if nxt is not None else math.inf
            s.land_until(min(t_next, s.cfg.max_time))
            if s.status is not None:
                break
            if s.sched.peek() != nxt:  # the work phase started and woke a sleeper earlier
                continue
            if nxt is None:
                s.end("max_turns", s.end_time)
                break
            name, t = nxt
            if t > s.cfg.max_time:
                s.end("timeout", s.cfg.max_time)
                break
            if s.turns[name] >= s.cfg.max_turns:
                if name == s.team.agent:
                    s.end("max_turns", t)
                    break
                s.sched.retire(name)
                s.wake_if_idle(t)  # it may have been the last one with a decision scheduled
                continue
            observation = observe(s, name, t)
            s.turns[name] += 1
            self._in_build = s.phase == "build"
            s.waiting.discard(name)
            self._turn = Turn(name, observation)
            return self._turn
        return None

    def submit(self, text: Any, usage: Mapping[str, int] | None = None) -> None:
        """Apply the current member's reply; code runs here, blocking.

        Args:
            text: The action text, or an :class:`~collabsim.core.replies.UnusableReply`
                (logged as ``INVALID`` with its error, never parsed, no action applied).
            usage: The model calls that decided it (language-model participants), written
                on the decision's trace events.
        """
        steps = self._submit(text, usage)
        try:
            cell = next(steps)
            while True:
                cell = steps.send(self.runner.run(cell))
        except StopIteration:
            return

    async def asubmit(self, text: Any, usage: Mapping[str, int] | None = None) -> None:
        """:meth:`submit` for event loops: code runs in a worker thread."""
        steps = self._submit(text, usage)
        try:
            cell = next(steps)
            while True:
                cell = steps.send(await self.runner.arun(cell))
        except StopIteration:
            return

    def abort(self, status: str, error: str, at: float | None = None) -> None:
        """End the session now with ``status`` (default time: the pending turn's)."""
        turn, self._turn = self._turn, None
        t = at if at is not None else (turn.time if turn is not None else self.state.end_time)
        self.state.end(status, t, error)

    # ----------------------------------------------------------------- one decision
    def _submit(
        self, text: Any, usage: Mapping[str, int] | None = None
    ) -> Generator[CellCall, CodeRun, None]:
        turn, self._turn = self._turn, None
        if turn is None:
            raise RuntimeError("submit() without a pending turn; call next_turn() first")
        s = self.state
        name, t = turn.member, turn.time
        s.turn_usage = (name, dict(usage)) if usage is not None else None
        try:
            t_done = yield from self._act(name, t, text)
        finally:
            s.turn_usage = None
        if t_done is not None:  # None: it waits (_act put it to sleep)
            s.sched.set_next(name, t_done)
        if self._in_build:
            s.build_turns += 1
            if s.build_turns >= s.structure.build_max_turns:
                s.land(t if t_done is None else max(t_done, t), s.end_build, name)
        s.end_on_infra_failure(self.runner.infra_failure, t)

    def _act(self, name: str, t: float, text: Any) -> _Step:
        """Carry out one reply; return its author's next decision time (None: wait)."""
        s = self.state
        if isinstance(text, UnusableReply):
            return record_invalid(s, name, t, text.text, text.error)
        action, refusal = self._checked_action(name, text)
        if action is None or refusal is not None:
            return record_invalid(s, name, t, text, refusal or "unparseable action", action)
        if action.name == "WAIT_TEAMMATE_CONTINUE":
            return self._wait(name, t, text, action)
        if action.name in ("APPROVE", "REJECT"):
            return (
                yield from gates.decide(
                    s, name, t, action, lambda why, a: record_invalid(s, name, t, "", why, a)
                )
            )
        return (yield from self._propose(name, t, text, action))

    def _checked_action(self, name: str, text: Any) -> tuple[Action | None, str | None]:
        """Parse a reply and check that its action is available to ``name`` now.

        Returns:
            (the action, None when the reply does not parse; why it is refused, None when
            it is accepted).
        """
        parsed = parse_action(text)
        if parsed.action is None:
            return None, parsed.error or "unparseable action"
        return parsed.action, illegal_reason(self.state, name, parsed.action)

    def _wait(self, name: str, t: float, text: Any, action: Action) -> float | None:
        """Put ``name`` to sleep until a teammate acts or the action's bound passes.

        Returns:
            None (it waits), or the next decision time when the bound is invalid.
        """
        s = self.state
        try:
            bound = wait_bound(action)
        except ValueError as exc:
            return record_invalid(s, name, t, text, f"{action.name}: {exc}.", action)
        s.wait(name, t, bound)
        return None

    def _propose(self, name: str, t: float, text: Any, action: Action) -> _Step:
        """Carry out an action, or ask its gate's owner when a gate guards it.

        A ``MEMORY_ADD`` is checked and its section normalised first; a request the same
        member already has pending is refused.
        """
        s = self.state
        if action.name == "MEMORY_ADD":
            problem = memory_problem(s, action)
            if problem is not None:
                return record_invalid(s, name, t, text, problem, action)
            section = action.args["section"].strip().lower()
            action = Action("MEMORY_ADD", {**action.args, "section": section})
        owner = gate_owner(s, name, action)
        if owner is not None:
            duplicate = duplicate_request(s, name, action, owner)
            if duplicate is not None:
                return record_invalid(s, name, t, text, duplicate, action)
            return gates.request(s, name, t, action, owner)
        t_end = t + s.duration(name, action.name)
        yield from apply_effect(s, name, action, t, t_end)
        return t_end

    # ----------------------------------------------------------------- code and closing
    def _log_end(self) -> bool:
        """Write ``SESSION_END`` once; False when already closed."""
        if self._closed:
            return False
        self._closed = True
        s = self.state
        if s.status is not None:
            end_args: dict[str, Any] = {"status": s.status, "submitted": s.submitted}
            if s.error:
                end_args["error"] = s.error
            try:
                s.emit(s.end_time, s.end_time, "env", "SESSION_END", end_args)
            except Exception:  # noqa: BLE001 - closing must go on
                log.exception("could not write SESSION_END")
        return True

    def close(self) -> None:
        """Log the end (if ended), close the sandbox and the trace file (idempotent)."""
        if not self._log_end():
            return
        s = self.state
        try:
            self.runner.close()
        finally:
            if s.writer is not None:
                s.writer.close()

    async def aclose(self) -> None:
        """:meth:`close` for event loops (the sandbox closes in a worker thread)."""
        if not self._log_end():
            return
        s = self.state
        try:
            await self.runner.aclose()
        finally:
            if s.writer is not None:
                s.writer.close()
