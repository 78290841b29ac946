"""Effect handlers: the table covers every action with an effect; message refs."""

from __future__ import annotations

import numpy as np

from collabsim.core.actions import ACTION_SPECS, ActionName
from collabsim.core.events import MESSAGE_ACTIONS, TraceEvent
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.effects import EFFECTS, message_refs
from collabsim.session.state import SessionState
from collabsim.tasks.model import Task


def test_every_action_but_wait_and_decisions_has_exactly_one_effect() -> None:
    no_effect = {ActionName.WAIT_TEAMMATE_CONTINUE, ActionName.APPROVE, ActionName.REJECT}
    assert set(EFFECTS) == set(ActionName) - no_effect
    assert set(ActionName) == set(ACTION_SPECS)
    for name, effect in EFFECTS.items():
        assert effect.spec is ACTION_SPECS[name]
        assert effect.runs_code == (name == ActionName.EXECUTE_CODE)


def _scan(events: list[TraceEvent], name: str, t: float) -> tuple[int, ...]:
    """The definition: the latest (t_end, seq) non-message event by someone else, ended by t."""
    best = None
    for e in events:
        if e.actor_type == "env" or e.actor == name or e.action_type in MESSAGE_ACTIONS:
            continue
        if e.action_type == "INVALID" or e.t_end > t:
            continue
        if best is None or (e.t_end, e.seq) >= (best.t_end, best.seq):
            best = e
    return () if best is None else (best.seq,)


def test_message_refs_match_a_full_scan_of_the_trace(task: Task) -> None:
    rng = np.random.default_rng(7)
    s = SessionState(SessionConfig(task=task, team=team_from_dict("DR")), None)
    actors = ["env", "agent", "D", "R"]
    kinds = ["EXECUTE_CODE", "SEND_TEAMMATE_MESSAGE", "INVALID", "EDITOR_UPDATE", "PHASE_START"]
    for _ in range(400):
        actor = actors[int(rng.integers(4))]
        kind = kinds[int(rng.integers(5))] if actor != "env" else "PHASE_START"
        start = float(rng.integers(0, 50))
        s.emit(start, start + float(rng.integers(0, 4)), actor, kind)
        name, t = actors[1 + int(rng.integers(3))], float(rng.integers(0, 55))
        assert message_refs(s, name, t) == _scan(s.events, name, t)
