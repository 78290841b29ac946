"""Legality: which actions a member may take now, and why an action is refused.

* Only the agent may ``FINISH``, unless a ``FINISH`` gate is in force: then its owner may
  finish too (directly), and anyone else's ``FINISH`` is a gate request.
* During a build phase only ``SEND_TEAMMATE_MESSAGE``, ``MEMORY_ADD``, ``MEMORY_AGREE`` and
  waiting are allowed; ``MEMORY_*`` are illegal outside it.
* ``SEND_TEAMMATE_MESSAGE`` needs a teammate; ``APPROVE`` / ``REJECT`` need a request
  waiting for the decider.
* ``MEMORY_ADD`` needs a known section; a ``gates`` entry must parse.
* A gated request identical to one of its author's still-pending requests is refused.

Every refusal is a sentence for its author (it becomes their feedback and an ``INVALID``
trace event).
"""

from __future__ import annotations

from typing import Any

from collabsim.core.actions import Action, ActionName
from collabsim.session.state import SessionState
from collabsim.session.structures import GATES_SECTION, parse_gate_entry
from collabsim.session.workspace import truncate

BUILD_ACTIONS: tuple[str, ...] = (
    ActionName.SEND_TEAMMATE_MESSAGE.value,
    ActionName.MEMORY_ADD.value,
    ActionName.MEMORY_AGREE.value,
    ActionName.WAIT_TEAMMATE_CONTINUE.value,
)
"""Actions allowed during the group-memory build phase."""


def available_actions(s: SessionState, name: str) -> tuple[str, ...]:
    """Action names legal for member ``name`` now."""
    has_mates = len(s.members) > 1
    if s.phase == "build":
        return tuple(a for a in BUILD_ACTIONS if has_mates or a != "SEND_TEAMMATE_MESSAGE")
    out = ["SEND_TEAMMATE_MESSAGE"] if has_mates else []
    out += ["EXECUTE_CODE", "EDITOR_UPDATE", "WAIT_TEAMMATE_CONTINUE"]
    if name == s.team.agent or s.gates.get("FINISH") == name:
        out.append("FINISH")
    if s.ws.pending_for(name):
        out += ["APPROVE", "REJECT"]
    return tuple(out)


_WORK_PHASE_REFUSALS = {
    "FINISH": "FINISH: only the agent (or the owner of a FINISH gate) can finish.",
    "APPROVE": "APPROVE: no gate request is waiting for your decision.",
    "REJECT": "REJECT: no gate request is waiting for your decision.",
    "SEND_TEAMMATE_MESSAGE": "SEND_TEAMMATE_MESSAGE: you have no teammates in this session.",
}
"""Why an action of the work phase is not available, by action name."""


def illegal_reason(s: SessionState, name: str, action: Action) -> str | None:
    """Why ``action`` is not available to ``name`` now (None: it is)."""
    available = available_actions(s, name)
    if action.name in available:
        return None
    a = action.name
    if a in ("MEMORY_ADD", "MEMORY_AGREE"):
        if not s.structure.has_memory:
            return f"{a}: structure {s.structure.name!r} has no group memory."
        return f"{a}: the group memory is read-only after the build phase."
    if s.phase == "build":
        return (
            f"{a} is not available during the group-memory build phase; use "
            "SEND_TEAMMATE_MESSAGE, MEMORY_ADD or MEMORY_AGREE (the work phase starts when "
            "everyone has agreed)."
        )
    refusal = _WORK_PHASE_REFUSALS.get(a)
    return refusal or f"{a} is not available now; available: {', '.join(available)}."


def memory_problem(s: SessionState, action: Action) -> str | None:
    """Why a ``MEMORY_ADD`` cannot be accepted (None: it can)."""
    section = action.args["section"].strip().lower()
    sections = s.structure.memory_sections
    if section not in sections:
        return f"MEMORY_ADD: unknown section {action.args['section']!r}; sections: " + ", ".join(
            sections
        )
    if section == GATES_SECTION:
        try:
            parse_gate_entry(action.args["text"], s.members)
        except ValueError as exc:
            return f'MEMORY_ADD(section="gates"): {exc}'
    return None


def gate_owner(s: SessionState, name: str, action: Action) -> str | None:
    """The owner who must decide ``action`` by ``name`` (None: it takes effect directly)."""
    owner = s.gates.get(action.name) if s.phase == "work" else None
    return owner if owner is not None and owner != name else None


def duplicate_request(s: SessionState, name: str, action: Action, owner: str) -> str | None:
    """Refusal when ``name`` already has the same request pending (None: not a duplicate)."""
    for req in s.ws.pending_by(name):
        same = {k: v for k, v in req.args.items() if k != "request_id"}
        if req.action_type == action.name and same == dict(action.args):
            return f"{action.name}: the same request {req.request_id} is still waiting for {owner}."
    return None


INVALID_TEXT_CHARS = 1000
"""Arguments of an ``INVALID`` event are cut to this length."""


def record_invalid(
    s: SessionState, name: str, t: float, text: Any, error: str, action: Action | None = None
) -> float:
    """Log an unparseable or illegal attempt and tell its author; return its ``t_end``."""
    t_end = t + s.duration(name, "INVALID")
    if action is None:
        args: dict[str, Any] = {"text": truncate(str(text), INVALID_TEXT_CHARS)}
    else:
        args = {
            "action": action.name,
            "args": {k: truncate(v, INVALID_TEXT_CHARS) for k, v in action.args.items()},
        }
    s.emit(t, t_end, name, "INVALID", args, status="error", observation=error)
    s.notify(name, t_end, f"Your last action had no effect: {error}")
    return t_end
