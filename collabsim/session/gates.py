"""The gate protocol: requests by non-owners and the owner's decision.

A gated action by a non-owner is logged with its own action type, status ``pending`` and
``args.request_id`` (``g1``, ``g2``, ...); the request lands at its ``t_end``. The owner's
``APPROVE``/``REJECT`` event refs the request; right after it an outcome event by the
author (same action type, status ``approved``/``rejected``, ``refs = (request, decision)``,
``t_start = t_end =`` the decision's end) records the result; an approved action takes
effect then (approved code runs then). A rejection's reason goes to the author. A decision
still in flight when the session ends is ``interrupted``, with its outcome event.
``APPROVE`` / ``REJECT`` need a landed, undecided request owned by the decider (``"1"``,
``"#g1"`` are accepted for ``g1``).
"""

from __future__ import annotations

from collections.abc import Callable, Generator

from collabsim.core.actions import Action
from collabsim.core.records import GateRequest
from collabsim.session.effects import apply_effect
from collabsim.session.sandboxing import CellCall, CodeRun
from collabsim.session.state import SessionState
from collabsim.session.workspace import normalise_request_id

Refuse = Callable[[str, Action], float]
"""``(reason, action) -> t_end``: log an ``INVALID`` attempt for the decider."""


def request(s: SessionState, name: str, t: float, action: Action, owner: str) -> float:
    """Log ``name``'s gated ``action`` as a request to ``owner``; return its ``t_end``."""
    s.n_requests += 1
    rid = f"g{s.n_requests}"
    t_end = t + s.duration(name, action.name)
    refs: tuple[int, ...] = ()
    if action.name == "EDITOR_UPDATE" and s.ws.editor_seq is not None:
        refs = (s.ws.editor_seq,)
    args = {**action.args, "request_id": rid}
    ev = s.emit(t, t_end, name, action.name, args, "pending", f"awaiting approval by {owner}", refs)
    req = GateRequest(
        request_id=rid,
        seq=ev.seq,
        time=t_end,
        author=name,
        owner=owner,
        action_type=action.name,
        args=dict(args),
    )
    s.land(t_end, lambda _t: s.ws.add_request(req), name, (ev.seq,))
    s.notify(
        owner,
        t_end,
        f'{name} requests {action.name} ({rid}); decide with APPROVE(request_id="{rid}") '
        f'or REJECT(request_id="{rid}", reason="...").',
    )
    s.notify(name, t_end, f"Your {action.name} is gated: request {rid} awaits {owner}.")
    return t_end


def decide(
    s: SessionState, name: str, t: float, action: Action, refuse: Refuse
) -> Generator[CellCall, CodeRun, float]:
    """Apply ``name``'s ``APPROVE`` / ``REJECT``; return the decider's ``t_end``.

    Yields:
        The cell to run when the approved action is an ``EXECUTE_CODE`` (see
        :func:`collabsim.session.effects.apply_effect`).
    """
    rid = normalise_request_id(action.args["request_id"])
    record = s.ws.requests.get(rid)
    mine = ", ".join(r.request_id for r in s.ws.pending_for(name)) or "none"
    if record is None:
        return refuse(
            f"{action.name}: unknown request id {action.args['request_id']!r} "
            f"(requests waiting for you: {mine}).",
            action,
        )
    req = record.request
    if req.owner != name:
        return refuse(f"{action.name}: request {rid} is decided by {req.owner}, not you.", action)
    if record.state != "pending":
        return refuse(f"{action.name}: request {rid} was already {record.state}.", action)
    t_end = t + s.duration(name, action.name)
    args = {"request_id": rid, **{k: v for k, v in action.args.items() if k != "request_id"}}
    decision = s.emit(t, t_end, name, action.name, args, "ok", "", (req.seq,))
    outcome_refs = (req.seq, decision.seq)
    original = Action(req.action_type, dict(req.args))
    state = "approved" if action.name == "APPROVE" else "rejected"
    settles = (decision.seq,)
    if state == "rejected":
        reason = action.args["reason"]
        outcome = s.emit(
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
        settles += (outcome.seq,)

    def settle(_: float) -> None:
        record.state = state  # type: ignore[assignment]
        record.decision_seq = decision.seq

    # Queued before the approved effect: when that effect ends the session (an approved
    # FINISH), the decision has landed and is not cut off with whatever else is in flight.
    s.land(t_end, settle, name, settles)
    if state == "approved":
        yield from apply_effect(s, req.author, original, t_end, t_end, "approved", outcome_refs)
        note = f"Your {req.action_type} request {rid} was approved by {name}"
        comment = action.args.get("comment")
        note += f": {comment}" if comment else "."
    s.notify(req.author, t_end, note)
    return t_end
