"""Run a session to its end: the asynchronous driver of the :class:`Orchestrator`.

The session semantics (scheduling, visibility, legality, gates, ending) are documented in
:mod:`collabsim.session.orchestrator` and the modules it names. :func:`run_session` asks
each participant in turn (``await participant.act(observation)``) and submits the reply
(an :class:`~collabsim.core.replies.UnusableReply` becomes an ``INVALID`` event, and a
participant's optional ``last_turn_usage`` - its model calls of the turn - goes on the
turn's trace events);
a participant raising :class:`~collabsim.core.errors.SessionAbort` ends the session with its
status, any other exception with ``error``; an internal engine failure is logged, never
raised, and also ends the session with ``error``. The sandbox is closed in every case.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from collabsim.core.errors import SessionAbort
from collabsim.core.events import TraceEvent
from collabsim.core.observation import Participant
from collabsim.core.outputs import is_out_of_space
from collabsim.core.replies import UnusableReply
from collabsim.session.config import (
    CodeExecutor,
    ExecutorFactory,
    SessionConfig,
    default_executor_factory,
)
from collabsim.session.observations import Turn
from collabsim.session.orchestrator import Orchestrator
from collabsim.session.results import SessionResult

log = logging.getLogger(__name__)


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
        if e.actor_type == "env" or e.status in ("approved", "rejected", "interrupted"):
            continue
        per = counts.setdefault(e.actor, {})
        per[e.action_type] = per.get(e.action_type, 0) + 1
    return {a: dict(sorted(c.items())) for a, c in counts.items()}


def session_result(
    orch: Orchestrator, policy: str, wall_seconds: float, trace_path: Path | None
) -> SessionResult:
    """The result record of an ended (closed) session."""
    s = orch.state
    cfg = s.cfg
    return SessionResult(
        task_id=cfg.task.task_id,
        team=cfg.team.label,
        structure=cfg.structure.name,
        seed=cfg.seed,
        policy=policy,
        submitted_hypothesis=s.submitted,
        status=s.status or "error",
        virtual_seconds=round(s.end_time, 6),
        wall_seconds=round(wall_seconds, 6),
        turns=sum(s.turns.values()),
        counts=_counts(s.events),
        n_events=len(s.events),
        trace_path=str(trace_path) if trace_path is not None else None,
        error=s.error,
        gates=dict(s.gates),
    )


async def _ask(
    orch: Orchestrator, turn: Turn, participant: Participant
) -> str | UnusableReply | None:
    """The participant's reply, or None after ending the session for its failure."""
    try:
        return await participant.act(turn.observation)
    except SessionAbort as exc:
        orch.abort(exc.status, f"{turn.member}: {exc.reason}")
    except Exception as exc:  # noqa: BLE001 - a failing policy ends only its session
        if is_out_of_space(exc):
            raise  # the disk is full: the job stops (no session could record its end)
        orch.abort("error", f"{turn.member} raised {type(exc).__name__}: {exc}")
    return None


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
    orch = Orchestrator(config, trace_path, executor_factory=executor_factory)
    orch.use_participant_durations(participants)
    try:
        try:
            orch.start()
            while (turn := orch.next_turn()) is not None:
                participant = participants[turn.member]
                text = await _ask(orch, turn, participant)
                if text is not None:
                    # an LLM participant's model calls of this turn go on its trace events
                    usage = getattr(participant, "last_turn_usage", None)
                    await orch.asubmit(text, usage)
        except Exception as exc:  # noqa: BLE001 - an engine bug must not take a sweep down
            if is_out_of_space(exc):
                raise  # not an engine bug: the job ends with one line saying so
            log.exception("session engine failed")
            orch.abort("error", f"engine error {type(exc).__name__}: {exc}", at=orch.state.end_time)
    finally:
        await orch.aclose()
    wall = time.perf_counter() - wall_start
    return session_result(orch, _policy_label(config, participants), wall, trace_path)


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
    "Orchestrator",
    "SessionConfig",
    "Turn",
    "default_executor_factory",
    "run_session",
    "run_session_sync",
]
