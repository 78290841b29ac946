"""Predictors for the Kolab benchmark: baselines, LLMs (through litellm) and learned models."""

from collabsim.kolab.predictors.base import PredictionRun, Predictor, task_kind
from collabsim.kolab.predictors.baselines import MajorityClass, ModeRating

__all__ = ["MajorityClass", "ModeRating", "PredictionRun", "Predictor", "task_kind"]
