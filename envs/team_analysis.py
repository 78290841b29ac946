"""``collabsim/TeamAnalysis-v0`` (legacy): the first agent env, kept for existing users.

It is ``collabsim/DiscoveryTeam-v1`` with the old argument names (``tasks_root``,
``collaborator_params``); new code should use ``DiscoveryTeam-v1``.

## Version history
* v0: text-only agent env; since ``DiscoveryTeam-v1`` it shares its engine, and its text
  spaces are async-safe (:class:`~collabsim.envs.text_space.SharedText`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from collabsim.envs.discovery_team import DiscoveryTeamEnv


class TeamAnalysisEnv(DiscoveryTeamEnv):
    """A collabsim session with the learner as the AI agent (legacy argument names).

    Args:
        tasks_root: DiscoveryBench-layout root (None: the built-in generated suite).
        task_ids: Restrict episodes to these task ids.
        team: ``"single"``, ``"D"``, ``"R"`` or ``"DR"``.
        structure: Collaboration structure.
        max_turns: Decisions per participant before the episode ends.
        collaborator_params: Parameters of the scripted collaborators.
        render_mode: ``"ansi"`` to return the observation text from :meth:`render`.
    """

    def __init__(
        self,
        tasks_root: str | Path | None = None,
        task_ids: list[str] | None = None,
        team: str = "DR",
        structure: str = "default",
        max_turns: int = 30,
        collaborator_params: dict[str, Any] | None = None,
        render_mode: str | None = None,
    ) -> None:
        keys = [k for k in team if k in "DR"] if team != "single" else []
        super().__init__(
            tasks=tasks_root, task_ids=task_ids, team=team, structure=structure,
            max_turns=max_turns, render_mode=render_mode,
            opponent_params=dict.fromkeys(keys, dict(collaborator_params or {})),
        )


def observation_array(text: str) -> np.ndarray:
    """Bytes of an observation as a uint8 array (for learners that want numbers)."""
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
