"""Kolab benchmark: adoption and rating prediction over real human-agent workflow graphs.

Modules: :mod:`~collabsim.kolab.instances` (benchmark instances and leak-free windows),
:mod:`~collabsim.kolab.render` (text/frame renderings per modality),
:mod:`~collabsim.kolab.predictors` (baselines, LLM, learned), :mod:`~collabsim.kolab.evaluate`
(metrics with bootstrap intervals), :mod:`~collabsim.kolab.chance` (stratified random guess,
permutation null), :mod:`~collabsim.kolab.report` and :mod:`~collabsim.kolab.plots` (Markdown,
CSV, PNG) and :mod:`~collabsim.kolab.dynamics_study` (dynamics metrics vs ratings).
"""

from collabsim.kolab.instances import (
    ADOPTION_TASKS,
    ALL_TASKS,
    RATING_TASKS,
    Instance,
    build_instances,
    count_instances,
)

__all__ = [
    "ADOPTION_TASKS",
    "ALL_TASKS",
    "RATING_TASKS",
    "Instance",
    "build_instances",
    "count_instances",
]
