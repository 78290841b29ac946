"""Run predictors over benchmark instances and evaluate them.

:func:`make_predictors` turns a spec such as ``"majority,mode,learned,llm:gpt-4o-mini"`` into
predictor objects (LLM predictors once per requested modality combination);
:func:`run_benchmark` runs every predictor on every task it handles (several runs where the
predictor asks for them) and evaluates each task x predictor x modality setting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from collabsim.kolab.evaluate import Evaluation, evaluate_runs
from collabsim.kolab.instances import ALL_TASKS, InstanceSet
from collabsim.kolab.predictors.base import PredictionRun, Predictor, task_kind
from collabsim.kolab.predictors.baselines import MajorityClass, ModeRating
from collabsim.kolab.render import FrameSource, Modality


@dataclass(frozen=True)
class ResultRow:
    """Evaluation of one task x predictor x modality setting.

    Attributes:
        task: Task id.
        predictor: Predictor name.
        modality: Modality setting.
        evaluation: Metrics, or None when nothing could be evaluated.
        n_missing: Instances left out because they lack a requested modality.
        notes: Notes from the predictor runs and the evaluation.
    """

    task: str
    predictor: str
    modality: str
    evaluation: Evaluation | None
    n_missing: int = 0
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class BenchmarkResult:
    """Instance counts, evaluated rows and the raw prediction runs."""

    counts: dict[str, int]
    rows: tuple[ResultRow, ...]
    runs: tuple[PredictionRun, ...] = field(repr=False, default=())
    instance_notes: tuple[str, ...] = ()


def make_predictors(
    spec: str | Sequence[str],
    *,
    modalities: Sequence[Sequence[Modality]] = ((Modality.GRAPH,),),
    runs: int = 3,
    seed: int = 0,
    temperature: float = 0.0,
    llm_extra: Mapping[str, Any] | None = None,
    frame_source: FrameSource | None = None,
    cache_dir: Path | None = None,
    progress: bool = True,
) -> list[Predictor]:
    """Build predictors from names: ``majority``, ``mode``, ``learned``, ``llm:<model>``.

    Args:
        spec: Comma-separated names or a list of names.
        modalities: Modality combinations for LLM predictors (one predictor each).
        runs: Runs per LLM setting.
        seed: Seed of the learned predictor.
        temperature: LLM sampling temperature.
        llm_extra: Extra litellm arguments (e.g. ``{"mock_response": "ADOPT"}``).
        frame_source: Frames for the ``frames`` modality.
        cache_dir: LLM reply cache (None = no cache, so runs are independent calls).
        progress: Show progress bars.

    Raises:
        ValueError: On an unknown predictor name.
    """
    from collabsim.kolab.predictors.learned import LearnedPredictor
    from collabsim.kolab.predictors.llm import LLMPredictor

    names = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec)]
    out: list[Predictor] = []
    for name in filter(None, names):
        if name == "majority":
            out.append(MajorityClass())
        elif name == "mode":
            out.append(ModeRating())
        elif name == "learned":
            out.append(LearnedPredictor(seed=seed, progress=progress))
        elif name.startswith("llm:") and len(name) > 4:
            for combo in modalities:
                out.append(
                    LLMPredictor(
                        name[4:],
                        combo,
                        runs=runs,
                        temperature=temperature,
                        extra=llm_extra,
                        frame_source=frame_source,
                        cache_dir=cache_dir,
                        progress=progress,
                    )
                )
        else:
            raise ValueError(
                f"unknown predictor {name!r}; use majority, mode, learned or llm:<model>"
            )
    return out


def run_benchmark(
    instances: InstanceSet,
    predictors: Sequence[Predictor],
    tasks: Sequence[str] = ALL_TASKS,
    *,
    seed: int = 0,
    n_boot: int = 1000,
    bootstrap_unit: str = "instance",
    progress: bool = True,
) -> BenchmarkResult:
    """Run each predictor on each task it handles and evaluate it.

    Args:
        instances: Built instances.
        predictors: Predictors to run.
        tasks: Tasks to run (instances of other tasks are ignored).
        seed: Seed of the bootstrap.
        n_boot: Bootstrap resamples.
        bootstrap_unit: ``"instance"`` or ``"participant"`` (cluster bootstrap).
        progress: Show a progress bar over settings.
    """
    if bootstrap_unit not in {"instance", "participant"}:
        raise ValueError(f"bootstrap_unit must be instance or participant, got {bootstrap_unit!r}")
    jobs = [(task, p) for task in tasks for p in predictors if task_kind(task) in p.kinds]
    rows: list[ResultRow] = []
    all_runs: list[PredictionRun] = []
    for task, predictor in tqdm(jobs, desc="kolab settings", disable=not progress):
        subset = instances.by_task(task)
        if not subset:
            rows.append(
                ResultRow(task, predictor.name, predictor.modality, None, 0, ("no instances",))
            )
            continue
        runs = [predictor.predict(subset, run=r) for r in range(max(1, predictor.runs))]
        all_runs.extend(runs)
        notes = tuple(dict.fromkeys(n for r in runs for n in r.notes))
        ids = runs[0].instance_ids
        if any(r.instance_ids != ids for r in runs):
            raise RuntimeError(f"{predictor.name} predicted different instances across runs")
        n_missing = len(runs[0].missing)
        if not ids:
            rows.append(ResultRow(task, predictor.name, predictor.modality, None, n_missing, notes))
            continue
        by_id = {i.instance_id: i for i in subset}
        y_true = [by_id[i].target for i in ids]
        groups = [by_id[i].participant_id for i in ids] if bootstrap_unit == "participant" else None
        evaluation = evaluate_runs(
            task_kind(task),
            y_true,
            [r.predictions for r in runs],
            seed=seed,
            n_boot=n_boot,
            groups=groups,
        )
        rows.append(
            ResultRow(task, predictor.name, predictor.modality, evaluation, n_missing, notes)
        )
    return BenchmarkResult(
        counts=instances.counts(tasks),
        rows=tuple(rows),
        runs=tuple(all_runs),
        instance_notes=instances.notes,
    )
