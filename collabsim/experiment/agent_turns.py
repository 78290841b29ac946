"""The scripted agent's turn budget: ``finish_by_turn`` derived from the session's turn limit.

The agent stops waiting for its teammates (a lead's go, checks of its draft, a teammate at
work) from decision ``max_turns - finish_margin_turns`` on, so a gated ``FINISH`` still has
``finish_margin_turns`` decisions to be decided before the turn budget ends. The margin is a
parameter of the scripted agent (``policy.agent.finish_margin_turns``, written once in
:data:`collabsim.participants.scripted_params.AGENT_DEFAULTS`); ``finish_by_turn`` itself is
computed where the agent is built, from the turn limit of the run (``run.max_turns``) or of
the gym environment (``max_turns=``), so it follows ``run.max_turns=20`` instead of staying at
a number derived by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from collabsim.participants.scripted_params import AGENT_DEFAULTS

FINISH_MARGIN_KEY = "finish_margin_turns"
FINISH_BY_TURN_KEY = "finish_by_turn"


def default_finish_margin() -> int:
    """The scripted agent's default ``finish_margin_turns``."""
    return int(AGENT_DEFAULTS[FINISH_MARGIN_KEY])


def finish_by_turn(max_turns: int, margin: int) -> int:
    """The decision from which the agent stops waiting: ``max_turns - margin`` (at least 0)."""
    return max(0, int(max_turns) - int(margin))


def agent_params(params: Mapping[str, Any] | None, max_turns: int) -> dict[str, Any]:
    """The scripted agent's parameters for a session of ``max_turns`` decisions.

    ``finish_margin_turns`` (default: the packaged config's) is replaced by the
    ``finish_by_turn`` it gives; parameters that already name ``finish_by_turn`` (a direct
    use of the policies, e.g. a gym env's ``opponent_params``) are passed on unchanged.
    """
    given = dict(params or {})
    if FINISH_BY_TURN_KEY in given:
        given.pop(FINISH_MARGIN_KEY, None)
        return given
    margin = given.get(FINISH_MARGIN_KEY)
    turn = finish_by_turn(max_turns, default_finish_margin() if margin is None else margin)
    out: dict[str, Any] = {}
    for key, value in given.items():  # in the margin's place: the config file's order
        out[key if key != FINISH_MARGIN_KEY else FINISH_BY_TURN_KEY] = (
            value if key != FINISH_MARGIN_KEY else turn)
    out.setdefault(FINISH_BY_TURN_KEY, turn)
    return out
