"""Gymnasium environments for training agents and simulated users on collabsim sessions.

Importing this package registers the ids (gymnasium has no plugin discovery, so one import
is needed; ``gym.register_envs`` makes it explicit and keeps linters from removing it)::

    import gymnasium as gym
    import collabsim_envs

    gym.register_envs(collabsim_envs)
    env = gym.make("collabsim/DiscoveryTeam-v0", team="DR", split="train")
    macro = gym.make("collabsim/DiscoveryTeam-v0", interface="macro")  # Discrete + Box
    user = gym.make("collabsim/Collaborator-v0", role="R")

or with no import at all: ``gym.make("collabsim_envs:collabsim/DiscoveryTeam-v0")``.

The package is named ``collabsim_envs`` (not ``envs``) so a user's own ``envs/`` folder
cannot shadow it.

Ids: ``collabsim/DiscoveryTeam-v0`` (learner = AI agent,
:mod:`collabsim_envs.discovery_team`), ``collabsim/Collaborator-v0`` (learner = collaborator
D or R, :mod:`collabsim_envs.collaborator`), ``collabsim/TeamAnalysis-v0`` (legacy agent env).
Each accepts ``interface="text"`` (default) or ``"macro"``
(:class:`collabsim_envs.macro.MacroActions`).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.envs.registration import register, registry

MAX_EPISODE_STEPS = 100
ENV_IDS = ("collabsim/DiscoveryTeam-v0", "collabsim/Collaborator-v0", "collabsim/TeamAnalysis-v0")
INTERFACES = ("text", "macro")


def _wrap(env: gym.Env, interface: str) -> gym.Env:
    if interface not in INTERFACES:
        raise ValueError(f"interface must be one of {INTERFACES}, got {interface!r}")
    if interface == "macro":
        from collabsim_envs.macro import MacroActions

        return MacroActions(env)
    return env


def make_discovery_team(interface: str = "text", **kwargs: Any) -> gym.Env:
    """``collabsim/DiscoveryTeam-v0`` with the ``text`` or ``macro`` interface."""
    from collabsim_envs.discovery_team import DiscoveryTeamEnv

    return _wrap(DiscoveryTeamEnv(**kwargs), interface)


def make_collaborator(interface: str = "text", **kwargs: Any) -> gym.Env:
    """``collabsim/Collaborator-v0`` with the ``text`` or ``macro`` interface."""
    from collabsim_envs.collaborator import CollaboratorEnv

    return _wrap(CollaboratorEnv(**kwargs), interface)


def make_team_analysis(interface: str = "text", **kwargs: Any) -> gym.Env:
    """Legacy ``collabsim/TeamAnalysis-v0`` with the ``text`` or ``macro`` interface."""
    from collabsim_envs.team_analysis import TeamAnalysisEnv

    return _wrap(TeamAnalysisEnv(**kwargs), interface)


_ENTRY_POINTS = {
    "collabsim/DiscoveryTeam-v0": "collabsim_envs:make_discovery_team",
    "collabsim/Collaborator-v0": "collabsim_envs:make_collaborator",
    "collabsim/TeamAnalysis-v0": "collabsim_envs:make_team_analysis",
}
for _id, _entry in _ENTRY_POINTS.items():
    if _id not in registry:
        register(id=_id, entry_point=_entry, max_episode_steps=MAX_EPISODE_STEPS)

# the text spaces' shared-memory codec must be registered in every process that vectorises
import collabsim_envs.text_space  # noqa: E402,F401

__all__ = ["ENV_IDS", "make_collaborator", "make_discovery_team", "make_team_analysis"]
