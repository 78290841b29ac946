"""Experiment tracking at the edge of the system (wandb is imported only here, lazily).

Ready to compare in the wandb UI, offline unless ``tracking.mode=online``:

* **one run per variant** of a job (``structure/team`` under the job's settings): a job of
  ``team=all structure=default_and_scaffolded`` logs seven runs, a sweep one per variant of
  every job;
* **config** of scalar keys only: ``team``, ``structure``, every setting of the job under its
  dotted name (``policy.agent.deference``, ``tasks.limit``; lists as JSON text), so runs
  group and filter by any of them; the swept settings (the job's command-line overrides,
  ``policy.agent.mistakes.wrong_column_variant``) are among them, and listed in ``swept``;
* **name** ``scaffolded/DR wrong_column_variant=0 #3`` (the job number in a sweep);
* **tags** naming that run's variant only: ``structure:…``, ``team:…``, ``policy:…``,
  ``tasks:…``, one ``<setting>=<value>`` per swept setting and, for ``policy=llm``,
  ``agent:<model>`` / ``collaborator:<model>``;
* **group** the sweep id: ``sweep-<date>_<time>-<hash>`` for every job of one multirun
  (the hash is of the sweep folder's absolute path, so two sweeps never share a group and
  all jobs of one sweep always do), ``run-…`` for a single run; ``tracking.group`` overrides;
* **job_type** ``sweep-job`` or ``run``;
* **summary** ``Performance``, ``H_init_norm``, ``H_init_work`` (over the work phase),
  ``W_human``, ``M_team``, ``C_wf``,
  ``cost_usd`` (mean model cost per session), each with ``…_se`` (SE over tasks, seeds
  averaged first), ``n_tasks``, ``n_sessions``; with model calls the variant's totals
  (:func:`cost_scalars`, from the cost columns of ``sessions.csv``): ``cost/usd``,
  ``cost/llm_calls``, ``cost/prompt_tokens``, ``cost/completion_tokens``,
  ``cost/unknown_price_calls``, ``cost/<seat>/calls`` and ``cost/<seat>/usd``;
* **table** ``sessions`` (that variant's sessions) and the job's tables (``report.txt``,
  ``aggregate.csv``, ``sessions.csv``) as a ``job-report`` artifact; with
  ``tracking.per_session=true`` every session's metrics are also a history step.

A sweep's report (written by the sweep callback at the sweep root) is logged by
:func:`log_sweep_report` as one more run of the group (job_type ``sweep-report``): every
figure as an image, the aggregate and paired-difference tables, and the whole report folder
(report.md/.html, CSVs, LaTeX, PNG/PDF figures) as a ``report`` artifact. Its summary
(:func:`report_summary`) holds scalars a dashboard can chart: ``sessions``, ``variants`` and,
per paired difference (:func:`paired_scalars`), ``paired/<variant>/delta`` (variant minus
its reference, Performance), ``paired/<variant>/ci_low`` and ``paired/<variant>/ci_high``
(its 95 % interval over tasks), ``paired/<variant>/n_tasks`` and ``paired/<variant>/n_pairs``,
where ``<variant>`` is the variant's figure label (``scaffolded/D wrong_column_variant=1``).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from collabsim.reporting.variants import (
    flatten,
    override_keys,
    override_values,
    short_names,
    variant_label,
)

SUMMARY_METRICS: tuple[str, ...] = ("Performance", "H_init_norm", "H_init_work", "W_human",
                                    "M_team", "C_wf")
SESSION_METRICS: tuple[str, ...] = (*SUMMARY_METRICS, "W_total", "A_profile", "S_hyp", "turns",
                                    "virtual_min", "cost_usd")
MAX_TAG = 64  # wandb rejects longer tags
JOB_FILES = ("report.txt", "aggregate.csv", "sessions.csv")


class Tracker(Protocol):
    """Receives a finished job."""

    def log_job(self, outcome: Any) -> None:
        """Log the job's tables and summary."""
        ...

    def close(self) -> None:
        """Finish the run."""
        ...


class NullTracker:
    """Tracking switched off (``tracking=none``)."""

    def log_job(self, outcome: Any) -> None:
        """Do nothing."""

    def close(self) -> None:
        """Do nothing."""


def _short_hash(path: Path) -> str:
    return hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:8]


def sweep_dir_of(output_dir: Path) -> Path | None:
    """The multirun folder a job folder belongs to (Hydra writes ``multirun.yaml`` there)."""
    parent = Path(output_dir).parent
    return parent if (parent / "multirun.yaml").is_file() else None


def sweep_group(sweep_dir: Path) -> str:
    """The group id of every run of one sweep."""
    sweep_dir = Path(sweep_dir)
    return f"sweep-{sweep_dir.parent.name}_{sweep_dir.name}-{_short_hash(sweep_dir)}"


def swept_settings(config: Mapping[str, Any], overrides: Sequence[str] = (),
                   choices: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The settings a job's command line set (not team, structure, tasks, seeds or run):
    dotted name -> the value the job resolved (a config group: its chosen option)."""
    return override_values(override_keys(overrides), overrides, config, choices)


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def run_identity(config: Mapping[str, Any], output_dir: Path, structure: str | None = None,
                 team: str | None = None, swept: Mapping[str, Any] | None = None,
                 sweep_dir: Path | None = None) -> dict[str, Any]:
    """Name, tags, group and job type of one variant's run (see the module docstring).

    Args:
        config: The job's resolved config.
        output_dir: The job's output folder.
        structure: The variant's structure (default: the job's first).
        team: The variant's team (default: the job's first).
        swept: The job's swept settings (:func:`swept_settings`).
        sweep_dir: The sweep folder when the job is part of a multirun (default: found
            from ``multirun.yaml`` next to the job folder).
    """
    output_dir = Path(output_dir)
    swept = dict(swept or {})
    teams = [str(t) for t in (config.get("team") or {}).get("compositions") or ["single"]]
    structures = [str(s) for s in (config.get("structure") or {}).get("names") or ["default"]]
    team = team or teams[0]
    structure = "single" if team == "single" else (structure or structures[0])
    short = short_names(list(swept))
    setting_text = [f"{short[k]}={_text(v)}" for k, v in swept.items()]
    name = " ".join([f"{structure}/{team}", *setting_text])
    sweep = Path(sweep_dir) if sweep_dir is not None else sweep_dir_of(output_dir)
    if sweep is not None:
        name += f" #{output_dir.name}"
        group = sweep_group(sweep)
    else:
        group = f"run-{output_dir.parent.name}_{output_dir.name}-{_short_hash(output_dir)}"
    spec = config.get("tracking") or {}
    if spec.get("group"):
        group = str(spec["group"])
    policy = str((config.get("policy") or {}).get("name") or "scripted")
    tags = [f"structure:{structure}", f"team:{team}", f"policy:{policy}",
            f"tasks:{(config.get('tasks') or {}).get('kind', '')}", *setting_text]
    if policy == "llm":
        llm = config.get("llm") or {}
        for role in ("agent", "collaborator"):
            model = (llm.get(role) or {}).get("model")
            if model:
                tags.append(f"{role}:{model}")
    return {
        "name": name,
        "group": group,
        "job_type": "sweep-job" if sweep is not None else "run",
        "tags": [t[:MAX_TAG] for t in dict.fromkeys(tags)],
    }


def run_config(config: Mapping[str, Any], structure: str, team: str,
               swept: Mapping[str, Any]) -> dict[str, Any]:
    """Scalar config keys of one variant's run: ``team``, ``structure``, every setting of the
    job flattened to its dotted name, and ``swept`` (the names of the swept settings)."""
    plain = {k: v for k, v in config.items() if k != "hydra"}
    flat = flatten(plain)
    for key in [k for k in flat if k.startswith(("team.compositions", "structure.names"))]:
        del flat[key]
    return {"team": team, "structure": structure, **flat, **dict(swept),
            "swept": ",".join(swept)}


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def variant_summary(row: Mapping[str, Any] | pd.Series,
                    metrics: Sequence[str] = (*SUMMARY_METRICS, "cost_usd")) -> dict[str, float]:
    """One variant's aggregate row -> ``{metric: mean, metric_se: SE, n_tasks, n_sessions}``
    (values that are not finite numbers, e.g. the SE of one task, are left out)."""
    out: dict[str, float] = {}
    for metric in metrics:
        for suffix, col in (("", f"{metric}_mean"), ("_se", f"{metric}_se")):
            value = _finite(row.get(col))
            if value is not None:
                out[f"{metric}{suffix}"] = value
    for count in ("n_tasks", "n_sessions"):
        value = _finite(row.get(count))
        if value is not None:
            out[count] = int(value)
    return out


def cost_scalars(sessions: pd.DataFrame) -> dict[str, float | int]:
    """Model-use totals of some sessions as wandb scalars (empty without cost columns):
    ``cost/llm_calls``, ``cost/prompt_tokens``, ``cost/completion_tokens``, ``cost/usd``,
    ``cost/unknown_price_calls`` and per seat ``cost/<seat>/calls``, ``cost/<seat>/usd``."""
    from collabsim.experiment.session_costs import cost_totals

    totals = cost_totals(sessions) if "llm_calls" in sessions.columns else None
    if totals is None:
        return {}
    out: dict[str, float | int] = {
        "cost/llm_calls": totals["llm_calls"], "cost/failed_calls": totals["llm_failed_calls"],
        "cost/prompt_tokens": totals["prompt_tokens"],
        "cost/completion_tokens": totals["completion_tokens"], "cost/usd": totals["cost_usd"],
        "cost/unknown_price_calls": totals["cost_unknown_calls"],
    }
    for seat, usage in totals["seats"].items():
        out[f"cost/{seat}/calls"] = usage.get("calls", 0)
        out[f"cost/{seat}/usd"] = usage.get("cost_usd", 0.0)
    return out


def _import_wandb() -> Any:
    try:
        import wandb
    except ImportError as exc:
        raise RuntimeError(
            "tracking=wandb needs the wandb package: pip install 'collabsim[wandb]'"
        ) from exc
    return wandb


class WandbTracker:
    """Logs a job to Weights & Biases: one run per variant.

    Args:
        spec: The ``tracking`` config section (project, entity, mode, group, per_session).
        config: The whole resolved config.
        output_dir: The job's output folder (wandb files go under it).
        overrides: The job's command-line overrides (its swept settings are taken from them).
        choices: Hydra's runtime choices of the config groups.
        sweep_dir: The sweep folder when the job is part of a multirun.
    """

    def __init__(self, spec: Mapping[str, Any], config: Mapping[str, Any], output_dir: Path,
                 overrides: Sequence[str] = (), choices: Mapping[str, Any] | None = None,
                 sweep_dir: Path | None = None) -> None:
        self._wandb = _import_wandb()
        self._spec = dict(spec)
        self._config = dict(config)
        self._output_dir = Path(output_dir)
        self._per_session = bool(spec.get("per_session", False))
        self._sweep_dir = sweep_dir
        self.swept = swept_settings(config, overrides, choices)
        #: The identities of the runs logged so far.
        self.runs: list[dict[str, Any]] = []

    def _init(self, identity: Mapping[str, Any], config: Mapping[str, Any]) -> Any:
        return self._wandb.init(
            project=str(self._spec.get("project") or "collabsim"),
            entity=self._spec.get("entity"),
            mode=str(self._spec.get("mode") or "offline"),
            dir=str(self._output_dir),
            config=dict(config),
            # one process logs several runs (variants; joblib and submitit jobs)
            reinit="finish_previous",
            **identity,
        )

    def log_job(self, outcome: Any) -> None:
        """Log one run per variant of the job: summary, sessions table, job-report artifact
        and, with ``per_session``, one history step per session."""
        from collabsim.reporting.tables import aggregate

        wandb = self._wandb
        sessions = outcome.sessions.copy()
        if "cost_usd" not in sessions.columns:  # no model call (the table has no cost column)
            sessions["cost_usd"] = 0.0
        metrics = [m for m in (*SUMMARY_METRICS, "cost_usd") if m in sessions.columns]
        agg = aggregate(sessions, metrics=metrics)
        for _, row in agg.iterrows():
            structure, team = str(row["structure"]), str(row["team"])
            identity = run_identity(self._config, self._output_dir, structure, team,
                                    self.swept, self._sweep_dir)
            own = sessions[(sessions["structure"] == structure) & (sessions["team"] == team)]
            run = self._init(identity, run_config(self._config, structure, team, self.swept))
            try:
                if self._per_session:
                    for i, srow in enumerate(own.itertuples(index=False)):
                        record = {f"session/{m}": v for m in SESSION_METRICS
                                  if m in own.columns
                                  and (v := _finite(getattr(srow, m))) is not None}
                        run.log(record, step=i)
                run.log({"sessions": wandb.Table(dataframe=own.astype({"seed": "int64"}))})
                run.summary.update({
                    **variant_summary(row, metrics),
                    **cost_scalars(own),
                    "sessions_run": outcome.summary.ran,
                    "sessions_reused": outcome.summary.reused,
                    "sessions_infra_error": outcome.summary.infra_errors,
                    "sessions_unscored": sum(outcome.summary.unscored.values()),
                    "wall_seconds": outcome.wall_seconds,
                })
                files = [self._output_dir / f for f in JOB_FILES
                         if (self._output_dir / f).is_file()]
                if files:
                    artifact = wandb.Artifact(f"job-report-{_artifact_slug(identity)}",
                                              type="job-report")
                    for path in files:
                        artifact.add_file(str(path), name=path.name)
                    run.log_artifact(artifact)
            finally:
                run.finish()
            self.runs.append(identity)

    def close(self) -> None:
        """Nothing left open: every variant's run is finished as it is logged."""


def _artifact_slug(identity: Mapping[str, Any]) -> str:
    text = f"{identity['group']}-{identity['name']}"
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in text)[:120]


PAIRED_FIELDS: tuple[str, ...] = ("delta", "ci_low", "ci_high", "n_tasks", "n_pairs")


def paired_scalars(deltas: pd.DataFrame, columns: Sequence[str]) -> dict[str, float]:
    """The paired-difference table as summary scalars: ``paired/<variant>/<field>`` for each
    field of :data:`PAIRED_FIELDS` (values that are not finite numbers are left out).

    Args:
        deltas: One row per variant with its reference (``report_deltas.csv``): ``structure``,
            ``team``, the setting ``columns``, ``delta``, ``ci_low``, ``ci_high``, ``n_tasks``,
            ``n_pairs``.
        columns: The variant's setting columns (``Variants.columns``).
    """
    out: dict[str, float] = {}
    for _, row in deltas.iterrows():
        label = variant_label(row, columns)
        for field in PAIRED_FIELDS:
            value = _finite(row.get(field))
            if value is not None:
                out[f"paired/{label}/{field}"] = (int(value) if field.startswith("n_")
                                                  else value)
    return out


def report_summary(report: Any) -> dict[str, float]:
    """Every report-level scalar of a sweep report's run (the one place to add another):
    ``sessions``, ``variants``, ``noise_floor`` (the report's noise floor, when its seeds
    give one) and :func:`paired_scalars`."""
    floor = _finite(getattr(report, "noise_floor", None))
    return {"sessions": len(report.sessions), "variants": len(report.aggregate),
            **({} if floor is None else {"noise_floor": floor}),
            **paired_scalars(report.deltas, report.variants.columns)}


def log_sweep_report(report: Any, spec: Mapping[str, Any], sweep_dir: Path) -> None:
    """Log a sweep report as one run of the sweep's group (job_type ``sweep-report``): the
    figures as images, the aggregate and paired-difference tables, the report's scalars
    (:func:`report_summary`) in its summary, the report folder as a ``report`` artifact.

    Args:
        report: The :class:`collabsim.experiment.sweep_report.SweepReport` written.
        spec: The ``tracking`` config section.
        sweep_dir: The sweep folder (the report's folder).
    """
    wandb = _import_wandb()
    sweep_dir = Path(sweep_dir)
    group = str(spec.get("group") or sweep_group(sweep_dir))
    run = wandb.init(
        project=str(spec.get("project") or "collabsim"), entity=spec.get("entity"),
        mode=str(spec.get("mode") or "offline"), dir=str(sweep_dir), group=group,
        job_type="sweep-report", name=f"report {sweep_dir.name}", tags=["sweep-report"],
        config={"variants": ",".join(report.variants.by), "swept": ",".join(
            report.variants.columns)},
        reinit="finish_previous",
    )
    try:
        run.log({f"figures/{name}": wandb.Image(str(path))
                 for name, path in report.figures.items()})
        run.log({"aggregate": wandb.Table(dataframe=report.aggregate.astype(
                    {c: str for c in report.variants.columns})),
                 "paired_differences": wandb.Table(dataframe=report.deltas.astype(
                    {c: str for c in report.variants.columns}))})
        run.summary.update(report_summary(report))
        artifact = wandb.Artifact(f"report-{group}"[:120], type="report")
        for name in ("report.md", "report.html", "report_sessions.csv", "report_aggregate.csv",
                     "report_aggregate.tex", "report_deltas.csv", "report_deltas.tex"):
            if (sweep_dir / name).is_file():
                artifact.add_file(str(sweep_dir / name), name=name)
        if (sweep_dir / "figures").is_dir():
            artifact.add_dir(str(sweep_dir / "figures"), name="figures")
        run.log_artifact(artifact)
    finally:
        run.finish()


def make_tracker(spec: Mapping[str, Any], config: Mapping[str, Any], output_dir: Path,
                 overrides: Sequence[str] = (), choices: Mapping[str, Any] | None = None,
                 sweep_dir: Path | None = None) -> Tracker:
    """Build the tracker named by ``spec["backend"]`` (``none`` or ``wandb``).

    Raises:
        ValueError: Unknown backend.
    """
    backend = str(spec.get("backend") or "none")
    if backend == "none":
        return NullTracker()
    if backend == "wandb":
        return WandbTracker(spec, config, output_dir, overrides, choices, sweep_dir)
    raise ValueError(f"tracking.backend: unknown backend {backend!r} (none|wandb)")
