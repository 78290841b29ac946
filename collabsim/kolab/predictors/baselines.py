"""Baselines: the majority adoption label, the mode rating and the carry-forward rules.

Both are fitted on the targets of the instances they are asked to predict (as the Kolab
benchmark's baselines are), so they are the floor any predictor must beat; on the explorer data
they are ``adopt`` and ``5``. Ties go to the earlier label in ``adopt, modify, reject`` and to the
higher rating. The carry-forward baseline predicts a step's rating as the professional's
rating of the session's previous rated step (5, the most common rating, when there is none):
it reads only :attr:`Instance.history`, the same rating of earlier steps. The carry-forward
label rule (1b+h only, a reference rule and not a learned design) predicts the label of the
session's most recently finished earlier response, and the majority label of the instances
when there is none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from collabsim.graphs.model import RESPONSE_LABELS
from collabsim.kolab.instances import HISTORY_TASKS, Instance
from collabsim.kolab.predictors.base import PredictionRun, TaskKind


def _run(name: str, instances: Sequence[Instance], value: str | float, run: int) -> PredictionRun:
    return PredictionRun.over(name, "-", instances, [value] * len(instances), run)


def carry_forward(instance: Instance) -> float:
    """The rating of the session's previous rated step, 5 (the most common rating) if none."""
    return float(instance.history[-1]) if instance.history else 5.0


class MajorityClass:
    """Always predicts the most frequent adoption label of the instances."""

    name = "majority"
    modality = "-"
    kinds: tuple[TaskKind, ...] = ("adoption",)
    runs = 1

    def predict(self, instances: Sequence[Instance], *, run: int = 0) -> PredictionRun:
        """Predict the majority label for every instance."""
        counts = Counter(str(i.target) for i in instances)
        label = max(
            RESPONSE_LABELS, key=lambda lab: (counts.get(lab, 0), -RESPONSE_LABELS.index(lab))
        )
        return _run(self.name, instances, label, run)


class ModeRating:
    """Always predicts the most frequent rating of the instances."""

    name = "mode"
    modality = "-"
    kinds: tuple[TaskKind, ...] = ("rating",)
    runs = 1

    def predict(self, instances: Sequence[Instance], *, run: int = 0) -> PredictionRun:
        """Predict the mode rating for every instance."""
        counts = Counter(int(i.target) for i in instances)
        mode = max(range(1, 6), key=lambda r: (counts.get(r, 0), r))
        return _run(self.name, instances, float(mode), run)


class CarryForwardRating:
    """Predicts the previous step's rating in the same session (5 when there is none)."""

    name = "carry-forward"
    modality = "history"
    kinds: tuple[TaskKind, ...] = ("rating",)
    runs = 1
    uses_history = True

    def predict(self, instances: Sequence[Instance], *, run: int = 0) -> PredictionRun:
        """Predict each instance's last earlier rating, or 5."""
        return PredictionRun.over(self.name, self.modality, instances,
                                  [carry_forward(i) for i in instances], run)


class CarryForwardLabel:
    """1b+h reference rule: the label of the session's last finished earlier response.

    :attr:`Instance.history` holds the labels of the session's responses finished strictly
    before the window's cut, ordered by when they finished, so its last entry is the most
    recent reaction known at forecast time. Without one the rule falls back to the majority
    label of the instances (as :class:`MajorityClass`). Nothing is fitted besides that
    fallback; it is a reference row, not a learned design.
    """

    name = "carry-forward"
    modality = "history"
    kinds: tuple[TaskKind, ...] = ("adoption",)
    tasks: frozenset[str] = frozenset(HISTORY_TASKS)
    runs = 1
    uses_history = True

    def predict(self, instances: Sequence[Instance], *, run: int = 0) -> PredictionRun:
        """Predict each instance's last earlier label, or the majority label."""
        fallback = MajorityClass().predict(instances).predictions[0] if instances else ""
        return PredictionRun.over(
            self.name, self.modality, instances,
            [str(i.history[-1]) if i.history else fallback for i in instances], run,
            notes=("reference rule (last finished label of the session, majority label when "
                   "none), not a learned design",),
        )
