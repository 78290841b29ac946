"""Gymnasium environments for training agents and simulated users on collabsim sessions.

Importing this package registers the ids (gymnasium has no plugin discovery, so one import
is needed; ``gym.register_envs`` makes it explicit and keeps linters from removing it)::

    import gymnasium as gym
    import collabsim.envs

    gym.register_envs(collabsim.envs)
    env = gym.make("collabsim/DiscoveryTeam-v1", team="DR", split="train")
    macro = gym.make("collabsim/DiscoveryTeam-v1", interface="macro")  # Discrete + Box
    user = gym.make("collabsim/Collaborator-v1", role="R")

or with no import at all: ``gym.make("collabsim.envs:collabsim/DiscoveryTeam-v1")``.

The source lives in the repository's top-level ``envs/`` folder and is installed as
``collabsim.envs`` (not a top-level ``envs``), so a user's own ``envs/`` folder cannot shadow it.

Ids: ``collabsim/DiscoveryTeam-v1`` (learner = AI agent,
:mod:`collabsim.envs.discovery_team`), ``collabsim/Collaborator-v1`` (learner = collaborator
D or R, :mod:`collabsim.envs.collaborator`), ``collabsim/TeamAnalysis-v0`` (legacy agent env).
Each accepts ``interface="text"`` (default) or ``"macro"``
(:class:`collabsim.envs.macro.MacroActions`).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.envs.registration import register, registry

MAX_EPISODE_STEPS = 100
ENV_IDS = ("collabsim/DiscoveryTeam-v1", "collabsim/Collaborator-v1", "collabsim/TeamAnalysis-v0")
INTERFACES = ("text", "macro")


def _wrap(env: gym.Env, interface: str) -> gym.Env:
    if interface not in INTERFACES:
        raise ValueError(f"interface must be one of {INTERFACES}, got {interface!r}")
    if interface == "macro":
        from collabsim.envs.macro import MacroActions

        return MacroActions(env)
    return env


def make_discovery_team(interface: str = "text", **kwargs: Any) -> gym.Env:
    """``collabsim/DiscoveryTeam-v1`` with the ``text`` or ``macro`` interface."""
    from collabsim.envs.discovery_team import DiscoveryTeamEnv

    return _wrap(DiscoveryTeamEnv(**kwargs), interface)


def make_collaborator(interface: str = "text", **kwargs: Any) -> gym.Env:
    """``collabsim/Collaborator-v1`` with the ``text`` or ``macro`` interface."""
    from collabsim.envs.collaborator import CollaboratorEnv

    return _wrap(CollaboratorEnv(**kwargs), interface)


def make_team_analysis(interface: str = "text", **kwargs: Any) -> gym.Env:
    """Legacy ``collabsim/TeamAnalysis-v0`` with the ``text`` or ``macro`` interface."""
    from collabsim.envs.team_analysis import TeamAnalysisEnv

    return _wrap(TeamAnalysisEnv(**kwargs), interface)


_ENTRY_POINTS = {
    "collabsim/DiscoveryTeam-v1": "collabsim.envs:make_discovery_team",
    "collabsim/Collaborator-v1": "collabsim.envs:make_collaborator",
    "collabsim/TeamAnalysis-v0": "collabsim.envs:make_team_analysis",
}
for _id, _entry in _ENTRY_POINTS.items():
    if _id not in registry:
        register(id=_id, entry_point=_entry, max_episode_steps=MAX_EPISODE_STEPS)

# the text spaces' shared-memory codec must be registered in every process that vectorises
import collabsim.envs.text_space  # noqa: E402,F401

__all__ = ["ENV_IDS", "make_collaborator", "make_discovery_team", "make_team_analysis"]
