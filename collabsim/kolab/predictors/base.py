"""The predictor interface and the record of one prediction run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from collabsim.kolab.instances import RATING_TASKS, Instance

TaskKind = Literal["adoption", "rating"]
PredictionValue = str | float | None
"""An adoption label, a rating (int or float in 1-5), or None for an invalid/unparsed reply."""


def task_kind(task: str) -> TaskKind:
    """``"rating"`` for 2a/2b, else ``"adoption"``."""
    return "rating" if task in RATING_TASKS else "adoption"


@dataclass(frozen=True)
class PredictionRun:
    """Predictions of one predictor, for one task and modality setting, in one run.

    Attributes:
        predictor: Predictor name.
        task: Task id.
        modality: Modality setting (``"-"`` when the predictor ignores inputs).
        run: Run index (0-based).
        instance_ids: Instance ids, aligned with ``predictions``.
        predictions: One value per instance; None marks an invalid reply.
        raw: Raw model replies (LLM predictors), else empty.
        notes: Free-text notes (e.g. failed calls).
        missing: Ids of instances not predicted because they lack a requested modality
            (excluded from evaluation and reported, never counted as predictions).
    """

    predictor: str
    task: str
    modality: str
    run: int
    instance_ids: tuple[str, ...]
    predictions: tuple[PredictionValue, ...]
    raw: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()

    @property
    def n_invalid(self) -> int:
        """Number of instances without a valid prediction."""
        return sum(p is None for p in self.predictions)

    @classmethod
    def over(
        cls,
        predictor: str,
        modality: str,
        instances: Sequence[Instance],
        predictions: Sequence[PredictionValue],
        run: int = 0,
        notes: Sequence[str] = (),
    ) -> PredictionRun:
        """The run of ``predictor`` predicting ``predictions`` for all of ``instances`` (one
        task; the task is read from the first instance, ``""`` when there is none)."""
        return cls(
            predictor=predictor,
            task=instances[0].task if instances else "",
            modality=modality,
            run=run,
            instance_ids=tuple(i.instance_id for i in instances),
            predictions=tuple(predictions),
            notes=tuple(notes),
        )


class Predictor(Protocol):
    """Predicts the targets of a list of instances of one task.

    Attributes:
        name: Short name used in reports (``"majority"``, ``"llm:gpt-4o"``).
        modality: Modality setting the predictor reads (``"-"`` for input-free baselines).
        kinds: Task kinds the predictor handles.
        runs: Runs per setting (stochastic predictors run several times).
    """

    name: str
    modality: str
    kinds: tuple[TaskKind, ...]
    runs: int

    def predict(self, instances: Sequence[Instance], *, run: int = 0) -> PredictionRun:
        """Predict every instance (all of one task); ``run`` selects the repetition."""
        ...
