"""Effect handlers: what an effective action does, one handler per action spec.

An effective action (taken directly, or approved through a gate) is logged when it is
decided and its effect *lands* at its ``t_end``: nobody sees it before. Each landing names
its event, so that an effect the session's end cuts off marks it ``interrupted``
(:meth:`collabsim.session.state.SessionState.interrupt_in_flight`). :data:`EFFECTS` maps
each action with an effect to its handler; ``WAIT_TEAMMATE_CONTINUE``, ``APPROVE`` and
``REJECT`` have none (the orchestrator and :mod:`collabsim.session.gates` handle them).

Code runs when the action is decided (in decision order, which makes the shared sandbox
namespace deterministic). Handlers never run code themselves: :func:`apply_effect` is a
generator that yields the :class:`~collabsim.session.sandboxing.CellCall` of an
``EXECUTE_CODE`` and receives ``(output, ok)``, so the same handlers serve a blocking driver
(gym envs) and an asynchronous one (``run_session``). The agent's cells share the session's
namespace; a collaborator's cell is ``isolated`` (a new worker: its result decides a score,
so nothing the agent ran may answer it).

``refs``: a message refs the latest non-message event by another member that its author had
seen when deciding; an ``EDITOR_UPDATE`` refs the update it revises.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any

from collabsim.core.actions import ACTION_SPECS, Action, ActionName, ActionSpec
from collabsim.core.records import MemoryEntry
from collabsim.session.sandboxing import CellCall, CodeRun
from collabsim.session.state import SessionState
from collabsim.session.structures import GATES_SECTION

Handler = Callable[
    [SessionState, str, Action, float, float, str, tuple[int, ...], CodeRun | None], None
]


@dataclass(frozen=True)
class Effect:
    """How one action takes effect.

    Attributes:
        spec: The action's spec.
        handler: ``(state, author, action, t_start, t_end, status, refs, code_run) -> None``;
            logs the event and schedules what lands at ``t_end``.
        runs_code: Whether the action's ``code`` argument must run first.
    """

    spec: ActionSpec
    handler: Handler
    runs_code: bool = False


def message_refs(s: SessionState, name: str, t: float) -> tuple[int, ...]:
    """The latest non-message event by another member that had ended by ``t``.

    "Latest" orders by ``(t_end, seq)``; environment events and ``INVALID`` attempts never
    count.
    """
    i = bisect.bisect_right(s.respondable, (t, math.inf, ""))
    while i > 0:
        i -= 1
        _, seq, actor = s.respondable[i]
        if actor != name:
            return (seq,)
    return ()


def _execute_code(
    s: SessionState,
    name: str,
    action: Action,
    t_start: float,
    t_end: float,
    status: str,
    refs: tuple[int, ...],
    ran: CodeRun | None,
) -> None:
    assert ran is not None
    output, ok = ran
    args = dict(action.args)
    ev_status = status if status != "ok" else ("ok" if ok else "error")
    ev = s.emit(t_start, t_end, name, action.name, args, ev_status, output, refs)
    s.land(t_end, lambda t: s.ws.add_cell(ev.seq, t, name, args["code"], output, ok), name,
           (ev.seq,))


def _send_message(
    s: SessionState,
    name: str,
    action: Action,
    t_start: float,
    t_end: float,
    status: str,
    refs: tuple[int, ...],
    ran: CodeRun | None,
) -> None:
    args = dict(action.args)
    refs = refs or message_refs(s, name, t_start)
    ev = s.emit(t_start, t_end, name, action.name, args, status, "", refs)
    s.land(t_end, lambda t: s.ws.post_message(ev.seq, t, name, args["message"]), name, (ev.seq,))


def _editor_update(
    s: SessionState,
    name: str,
    action: Action,
    t_start: float,
    t_end: float,
    status: str,
    refs: tuple[int, ...],
    ran: CodeRun | None,
) -> None:
    args = dict(action.args)
    base = s.ws.editor_seq  # the version its author wrote against
    if not refs and base is not None:
        refs = (base,)
    ev = s.emit(t_start, t_end, name, action.name, args, status, "", refs)

    def land(t: float) -> None:
        if s.ws.editor_seq != base and refuses_stale_updates(s):
            s.refuse_stale_update(ev.seq, name, t)
        else:
            s.ws.set_editor(ev.seq, args["text"])

    s.land(t_end, land, name, (ev.seq,))


def refuses_stale_updates(s: SessionState) -> bool:
    """Whether the editor refuses an update written against a version another member has
    since replaced (:mod:`collabsim.core.coordination`): when lost updates are switched off,
    or when the editor has one owner (``single_owner`` with an ``EDITOR_UPDATE`` gate in
    force). Otherwise the last writer wins, also over a change its author never saw."""
    c = s.cfg.coordination
    return not c.lost_updates or (c.single_owner and "EDITOR_UPDATE" in s.gates)


def _finish(
    s: SessionState,
    name: str,
    action: Action,
    t_start: float,
    t_end: float,
    status: str,
    refs: tuple[int, ...],
    ran: CodeRun | None,
) -> None:
    ev = s.emit(t_start, t_end, name, action.name, dict(action.args), status, "", refs)
    s.land(t_end, lambda t: s.end("finished", t), name, (ev.seq,))


def _memory_add(
    s: SessionState,
    name: str,
    action: Action,
    t_start: float,
    t_end: float,
    status: str,
    refs: tuple[int, ...],
    ran: CodeRun | None,
) -> None:
    args = dict(action.args)
    ev = s.emit(t_start, t_end, name, action.name, args, status, "", refs)
    entry = MemoryEntry(ev.seq, t_end, name, args["section"], args["text"])
    s.land(t_end, lambda t: s.ws.add_memory(entry), name, (ev.seq,))
    if args["section"] == GATES_SECTION:
        s.gate_entries.append((t_end, ev.seq, args["text"]))


def _memory_agree(
    s: SessionState,
    name: str,
    action: Action,
    t_start: float,
    t_end: float,
    status: str,
    refs: tuple[int, ...],
    ran: CodeRun | None,
) -> None:
    ev = s.emit(t_start, t_end, name, action.name, dict(action.args), status, "", refs)
    s.land(t_end, lambda t: s.ws.agree(name), name, (ev.seq,))


def _effect(name: ActionName, handler: Handler, runs_code: bool = False) -> Effect:
    return Effect(ACTION_SPECS[name], handler, runs_code)


EFFECTS: Mapping[ActionName, Effect] = {
    ActionName.EXECUTE_CODE: _effect(ActionName.EXECUTE_CODE, _execute_code, runs_code=True),
    ActionName.SEND_TEAMMATE_MESSAGE: _effect(ActionName.SEND_TEAMMATE_MESSAGE, _send_message),
    ActionName.EDITOR_UPDATE: _effect(ActionName.EDITOR_UPDATE, _editor_update),
    ActionName.FINISH: _effect(ActionName.FINISH, _finish),
    ActionName.MEMORY_ADD: _effect(ActionName.MEMORY_ADD, _memory_add),
    ActionName.MEMORY_AGREE: _effect(ActionName.MEMORY_AGREE, _memory_agree),
}
"""Action -> its effect, for every action that changes the workspace or ends the session."""


def apply_effect(
    s: SessionState,
    name: str,
    action: Action,
    t_start: float,
    t_end: float,
    status: str = "ok",
    refs: tuple[int, ...] = (),
) -> Generator[CellCall, CodeRun, None]:
    """Log an effective action by ``name`` and land its effect at ``t_end``.

    Yields:
        The cell to run, for an ``EXECUTE_CODE`` (send back ``(output, ok)``); isolated when
        ``name`` is a collaborator.
    """
    effect = EFFECTS[ActionName(action.name)]
    ran: Any = None
    if effect.runs_code:
        ran = yield CellCall(action.args["code"], isolated=name != s.team.agent)
    effect.handler(s, name, action, t_start, t_end, status, refs, ran)
