"""Gymnasium environments built on the collabsim engine.

Importing this package registers them under the ``collabsim/`` id namespace::

    import gymnasium as gym
    import envs  # noqa: F401  (registers the ids)

    env = gym.make("collabsim/TeamAnalysis-v0", team="DR", structure="scaffolded")

or without the import: ``gym.make("envs:collabsim/TeamAnalysis-v0")``.
"""

from gymnasium.envs.registration import register, registry

ENV_IDS = ("collabsim/TeamAnalysis-v0",)

if "collabsim/TeamAnalysis-v0" not in registry:
    register(
        id="collabsim/TeamAnalysis-v0",
        entry_point="envs.team_analysis:TeamAnalysisEnv",
        disable_env_checker=False,
    )

__all__ = ["ENV_IDS"]
