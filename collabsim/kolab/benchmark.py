"""Run predictors over benchmark instances and evaluate them against chance.

:func:`make_predictors` turns a spec such as ``"majority,mode,learned,llm:gpt-4o-mini"`` into
predictor objects (LLM predictors once per requested modality combination);
:func:`run_benchmark` runs every predictor on every task it handles (several runs where the
predictor asks for them), evaluates each task x predictor x modality setting with bootstrap
intervals over instances and over participants, computes each task's stratified-random
chance level and each learned predictor's permutation null, and warns when an offline
predictor forecasts implausibly well.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from collabsim.kolab.chance import (
    DEFAULT_PERMUTATIONS,
    NULL_SCHEMES,
    ChanceLevel,
    PermutationNull,
    null_from_predictions,
    null_targets,
    permutation_null,
    stratified_chance,
)
from collabsim.kolab.evaluate import Evaluation, evaluate_runs, macro_f1
from collabsim.kolab.instances import ALL_TASKS, InstanceSet
from collabsim.kolab.predictors.base import PredictionRun, Predictor, task_kind
from collabsim.kolab.predictors.baselines import (
    CarryForwardLabel,
    CarryForwardRating,
    MajorityClass,
    ModeRating,
)
from collabsim.kolab.progress import Clock, Stage
from collabsim.kolab.render import FrameSource, Modality

SUSPICIOUS_MACRO_F1 = 0.45
"""An offline forecaster at or above this LOPO macro-F1 triggers a leak warning: the paper's
frontier models reach about 0.49-0.52 and 247 instances cannot support an offline text model
near that."""


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
        null: Global permutation null of the predictor (learned predictors), else None.
        null_blocked: Within-participant (blocked) permutation null, when requested.
        uses_history: True when the inputs include the session's earlier labels or ratings
            (task 1b+h, the carry-forward baseline, the learned rating model).
    """

    task: str
    predictor: str
    modality: str
    evaluation: Evaluation | None
    n_missing: int = 0
    notes: tuple[str, ...] = ()
    null: PermutationNull | None = None
    uses_history: bool = False
    null_blocked: PermutationNull | None = None


@dataclass(frozen=True)
class BenchmarkResult:
    """Instance counts, evaluated rows, chance levels, warnings and the raw prediction runs.

    Attributes:
        counts: Instances per task.
        rows: One row per task x predictor x modality.
        runs: Every prediction run.
        instance_notes: Notes from building the instances.
        chance: Task -> level -> value: ``stratified_<metric>`` (random guess drawn from the
            true distribution: expected value and 95% range), ``majority_macro_f1`` or
            ``mode_mae`` (the constant baseline).
        warnings: Leak warnings (offline forecasters scoring >= 0.45 macro-F1).
    """

    counts: dict[str, int]
    rows: tuple[ResultRow, ...]
    runs: tuple[PredictionRun, ...] = field(repr=False, default=())
    instance_notes: tuple[str, ...] = ()
    chance: dict[str, dict[str, ChanceLevel]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    timings: dict[str, tuple[float, float]] = field(default_factory=dict, compare=False)
    """Wall and CPU seconds per part of the run: ``chance levels``, ``baselines``,
    ``learned`` (fits and permutation nulls, fitted together), ``llm``, ``bootstrap``
    (evaluation)."""


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
    learned_groups: Sequence[str] | None = None,
    inner_folds: int | None = None,
    jobs: int | None = None,
) -> list[Predictor]:
    """Build predictors from names: ``majority``, ``mode``, ``carry-forward``, ``learned``,
    ``llm:<model>``.

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
        learned_groups: Feature groups the learned predictor may use (None = all of
            :data:`~collabsim.kolab.predictors.features.FEATURE_GROUPS`).
        inner_folds: Grouped inner folds of the learned predictor's nested selection
            (None = leave one training participant out).
        jobs: Processes the learned predictor spreads its folds over (None = all cores).

    Raises:
        ValueError: On an unknown predictor name or feature group.
    """
    from collabsim.kolab.predictors.features import FEATURE_GROUPS
    from collabsim.kolab.predictors.learned import LearnedPredictor
    from collabsim.kolab.predictors.llm import LLMPredictor

    unknown = sorted(set(learned_groups or ()) - set(FEATURE_GROUPS))
    if unknown:
        raise ValueError(
            f"unknown feature group(s) {', '.join(unknown)}; known: {', '.join(FEATURE_GROUPS)}"
        )
    names = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec)]
    out: list[Predictor] = []
    for name in filter(None, names):
        if name == "majority":
            out.append(MajorityClass())
        elif name == "mode":
            out.append(ModeRating())
        elif name == "carry-forward":
            out += [CarryForwardRating(), CarryForwardLabel()]
        elif name == "learned":
            out.append(LearnedPredictor(
                    seed=seed, progress=progress, groups=learned_groups, inner_folds=inner_folds,
                    jobs=jobs,
                ))
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
                f"unknown predictor {name!r}; use majority, mode, carry-forward, learned "
                "or llm:<model>"
            )
    return out


def _chance_levels(
    task: str, subset: Sequence[Any], seed: int, n_draws: int
) -> dict[str, ChanceLevel]:
    """Stratified-random levels plus the constant baseline (majority label / mode rating)."""
    kind = task_kind(task)
    targets = [i.target for i in subset]
    levels = {f"stratified_{k}": v for k, v in stratified_chance(
        kind, targets, seed=seed, n_draws=n_draws).items()}  # fmt: skip
    if kind == "adoption":
        const = MajorityClass().predict(subset).predictions
        value = macro_f1(targets, list(const))
        levels["majority_macro_f1"] = ChanceLevel("macro_f1", value, value, value, 1)
    else:
        const = ModeRating().predict(subset).predictions
        value = float(np.mean([abs(float(p) - float(t)) for p, t in zip(const, targets,
                                                                         strict=True)]))  # fmt: skip
        levels["mode_mae"] = ChanceLevel("mae", value, value, value, 1)
    return levels


def _applies(predictor: Predictor, task: str) -> bool:
    """True unless the predictor names the tasks it is for (``tasks``) and ``task`` is not one."""
    only = getattr(predictor, "tasks", None)
    return only is None or task in only


def _predictor_uses_history(predictor: Predictor, task: str) -> bool:
    """True when the predictor's inputs for ``task`` include the session's earlier labels."""
    per_task = getattr(predictor, "uses_history_for", None)
    if per_task is not None:
        return bool(per_task(task))
    return bool(getattr(predictor, "uses_history", False))


def _timing_part(predictor: Predictor) -> str:
    """The part of :attr:`BenchmarkResult.timings` a predictor's runs count towards."""
    if hasattr(predictor, "predict_labels"):
        return "learned"
    return "llm" if predictor.name.startswith("llm:") else "baselines"


def _check_schemes(null_schemes: Sequence[str]) -> None:
    unknown = sorted(set(null_schemes) - set(NULL_SCHEMES))
    if unknown:
        raise ValueError(
            f"unknown null scheme(s) {', '.join(unknown)}; known: {', '.join(NULL_SCHEMES)}"
        )


def _nulls(
    predictor: Predictor,
    subset: Sequence[Any],
    observed: float,
    shuffled: dict[str, np.ndarray],
    null_preds: list[Any],
    null_schemes: Sequence[str],
    n_permutations: int,
    seed: int,
    progress: bool,
    timings: dict[str, tuple[float, float]],
    part: str,
) -> dict[str, PermutationNull]:
    """Each requested null: from the stacked predictions when they were fitted with the
    observed run, else rerun one permutation at a time."""
    nulls: dict[str, PermutationNull] = {}
    for pos, scheme in enumerate(shuffled):
        part_preds = null_preds[pos * n_permutations : (pos + 1) * n_permutations]
        nulls[scheme] = null_from_predictions(subset, observed, shuffled[scheme], part_preds, scheme)
    for scheme in dict.fromkeys(null_schemes):
        if scheme not in nulls:  # a one-by-one predictor
            with Clock(timings, part):
                nulls[scheme] = permutation_null(
                    predictor,  # type: ignore[arg-type]
                    subset,
                    observed,
                    n_permutations=n_permutations,
                    seed=seed,
                    scheme=scheme,
                    progress=progress,
                )
    return nulls


def _predict(
    predictor: Predictor,
    subset: Sequence[Any],
    shuffled: Mapping[str, Any],
    stage: Stage,
) -> tuple[list[PredictionRun], list[Any]]:
    """Run one predictor on one task's instances.

    With shuffled targets (a stacked learned predictor and at least one null scheme), one call
    fits the observed targets and every permutation together and shows its progress on
    ``stage``; otherwise the predictor runs as many times as it asks for.

    Args:
        predictor: The predictor.
        subset: The task's instances.
        shuffled: Permuted targets per null scheme (empty: no stacked nulls).
        stage: The progress stage of this task x predictor setting.

    Returns:
        The prediction runs and the permutation predictions (empty without shuffled targets).
    """
    if not shuffled:
        return [predictor.predict(subset, run=r) for r in range(max(1, predictor.runs))], []
    predictor.stage = stage  # type: ignore[attr-defined]
    try:
        run, null_preds = predictor.predict_with_targets(  # type: ignore[attr-defined]
            subset, np.concatenate(list(shuffled.values()))
        )
    finally:
        predictor.stage = None  # type: ignore[attr-defined]
    return [run], null_preds


def _leak_alert(
    task: str, predictor: Predictor, evaluation: Evaluation, n_instances: int
) -> str | None:
    """The leak warning for an offline adoption forecaster that scores implausibly well.

    Task 1a and LLM predictors are exempt; the threshold is :data:`SUSPICIOUS_MACRO_F1`.

    Args:
        task: Task id.
        predictor: The predictor.
        evaluation: Its evaluation on the task.
        n_instances: Instances it was evaluated on.

    Returns:
        The warning line, or None.
    """
    if (
        evaluation.kind != "adoption"
        or task == "1a"
        or predictor.name.startswith("llm:")
        or not evaluation.values["macro_f1"] >= SUSPICIOUS_MACRO_F1  # NaN: no warning
    ):
        return None
    return (
        f"{task} {predictor.name}: macro-F1 {evaluation.values['macro_f1']:.3f} >= "
        f"{SUSPICIOUS_MACRO_F1} under leave-one-participant-out, far above what "
        f"{n_instances} instances support for an offline model; the usual cause is a leak"
    )


def run_benchmark(
    instances: InstanceSet,
    predictors: Sequence[Predictor],
    tasks: Sequence[str] = ALL_TASKS,
    *,
    seed: int = 0,
    n_boot: int = 1000,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    n_chance_draws: int = 2000,
    progress: bool = True,
    null_schemes: Sequence[str] = ("global",),
) -> BenchmarkResult:
    """Run each predictor on each task it handles and evaluate it against chance.

    Args:
        instances: Built instances.
        predictors: Predictors to run.
        tasks: Tasks to run (instances of other tasks are ignored).
        seed: Seed of the bootstraps, chance draws and permutations.
        n_boot: Bootstrap resamples (each of the instance and the participant bootstrap).
        n_permutations: Permutations of the targets per learned predictor and task (0: none).
        n_chance_draws: Draws of the stratified random guess.
        progress: Show progress: one bar per task x predictor setting in a terminal, else one
            line per finished setting with its time (no redraws in a log).
        null_schemes: Which permutation nulls to run (``global``, ``blocked``; see
            :data:`~collabsim.kolab.chance.NULL_SCHEMES`); each gets ``n_permutations``.

    Raises:
        ValueError: On an unknown null scheme.
    """
    _check_schemes(null_schemes)
    jobs = [
        (task, p) for task in tasks for p in predictors
        if task_kind(task) in p.kinds and _applies(p, task)
    ]  # fmt: skip
    rows: list[ResultRow] = []
    all_runs: list[PredictionRun] = []
    chance: dict[str, dict[str, ChanceLevel]] = {}
    alerts: list[str] = []
    timings: dict[str, tuple[float, float]] = {}
    with Clock(timings, "chance levels"):
        for task in tasks:
            subset = instances.by_task(task)
            if subset:
                chance[task] = _chance_levels(task, subset, seed, n_chance_draws)
    for task, predictor in jobs:
        subset = instances.by_task(task)
        history = task_kind(task) == "adoption" and bool(subset) and subset[0].uses_history
        history = history or _predictor_uses_history(predictor, task)
        if not subset:
            rows.append(
                ResultRow(task, predictor.name, predictor.modality, None, 0, ("no instances",),
                          uses_history=history)  # fmt: skip
            )
            continue
        part = _timing_part(predictor)
        stacked = hasattr(predictor, "predict_with_targets") and n_permutations > 0
        schemes = list(dict.fromkeys(null_schemes)) if stacked else []
        desc = f"{task} {predictor.name}" + (
            f" [{predictor.modality}]" if predictor.modality not in ("-", "graph") else "")
        if schemes:
            desc += f" (+{len(schemes)} nulls x {n_permutations} permutations)"
        with Stage(desc, enabled=progress) as stage:
            shuffled = {s: null_targets(subset, n_permutations=n_permutations, seed=seed, scheme=s)
                        for s in schemes}  # fmt: skip
            with Clock(timings, part):
                runs, null_preds = _predict(predictor, subset, shuffled, stage)
            all_runs.extend(runs)
            notes = tuple(dict.fromkeys(n for r in runs for n in r.notes))
            ids = runs[0].instance_ids
            if any(r.instance_ids != ids for r in runs):
                raise RuntimeError(f"{predictor.name} predicted different instances across runs")
            n_missing = len(runs[0].missing)
            if not ids:
                rows.append(
                    ResultRow(task, predictor.name, predictor.modality, None, n_missing, notes,
                              uses_history=history)  # fmt: skip
                )
                continue
            by_id = {i.instance_id: i for i in subset}
            y_true = [by_id[i].target for i in ids]
            with Clock(timings, "bootstrap"):
                evaluation = evaluate_runs(
                    task_kind(task),
                    y_true,
                    [r.predictions for r in runs],
                    seed=seed,
                    n_boot=n_boot,
                    groups=[by_id[i].participant_id for i in ids],
                )
            nulls: dict[str, PermutationNull] = {}
            if n_permutations > 0 and hasattr(predictor, "predict_labels") and len(ids) == len(
                subset
            ):
                metric = "macro_f1" if evaluation.kind == "adoption" else "spearman"
                nulls = _nulls(predictor, subset, evaluation.values.get(metric, float("nan")),
                               shuffled, null_preds, null_schemes, n_permutations, seed,
                               progress, timings, part)  # fmt: skip
        alert = _leak_alert(task, predictor, evaluation, len(ids))
        if alert:
            alerts.append(alert)
        rows.append(
            ResultRow(task, predictor.name, predictor.modality, evaluation, n_missing, notes,
                      null=nulls.get("global"), uses_history=history,
                      null_blocked=nulls.get("blocked"))  # fmt: skip
        )
    return BenchmarkResult(
        counts=instances.counts(tasks),
        rows=tuple(rows),
        runs=tuple(all_runs),
        instance_notes=instances.notes,
        chance=chance,
        warnings=tuple(alerts),
        timings=timings,
    )
