"""Deprecated alias of :mod:`collabsim_envs.team_analysis`."""

from collabsim_envs.team_analysis import TeamAnalysisEnv, observation_array

__all__ = ["TeamAnalysisEnv", "observation_array"]
