"""Experiment tracking at the edge of the system (wandb is imported only here, lazily).

One wandb run per job, offline unless ``tracking.mode=online``:

* **name** from the variant the job runs (``scaffolded/DR``; several teams or structures are
  joined with ``+``; a sweep job adds its job number);
* **tags** ``structure:…``, ``team:…``, ``policy:…``, ``tasks:…`` and, for ``policy=llm``,
  ``agent:<model>`` / ``collaborator:<model>``;
* **group** the sweep id: ``sweep-<date>_<time>-<hash>`` for every job of one multirun
  (the hash is of the sweep folder's absolute path, so two sweeps never share a group and
  all jobs of one sweep always do), ``run-…`` for a single run; ``tracking.group`` overrides;
* **job_type** ``sweep-job`` or ``run``;
* **summary** per variant: ``<structure>/<team>/<metric>`` and ``…_se`` for Performance,
  H_init_norm, W_human, M_team, C_wf and ``cost_usd`` (mean model cost per session); when the
  job has one variant besides the single agent the same metrics also appear unprefixed;
* **tables** ``comparison`` (one row per variant) and ``sessions``; with
  ``tracking.per_session=true`` every session's metrics are also logged as one history step.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

SUMMARY_METRICS: tuple[str, ...] = ("Performance", "H_init_norm", "W_human", "M_team", "C_wf")
SESSION_METRICS: tuple[str, ...] = (*SUMMARY_METRICS, "W_total", "A_profile", "S_hyp", "turns",
                                    "virtual_min", "cost_usd")
MAX_TAG = 64  # wandb rejects longer tags


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


def run_identity(config: Mapping[str, Any], output_dir: Path) -> dict[str, Any]:
    """Name, tags, group and job type of a job's run (see the module docstring).

    Args:
        config: The job's resolved config.
        output_dir: The job's output folder.
    """
    output_dir = Path(output_dir)
    teams = [str(t) for t in (config.get("team") or {}).get("compositions") or ["single"]]
    structures = [str(s) for s in (config.get("structure") or {}).get("names") or ["default"]]
    shown_structures = ["single"] if teams == ["single"] else structures
    name = f"{'+'.join(shown_structures)}/{'+'.join(teams)}"
    sweep = sweep_dir_of(output_dir)
    if sweep is not None:
        name += f" #{output_dir.name}"
        group = f"sweep-{sweep.parent.name}_{sweep.name}-{_short_hash(sweep)}"
    else:
        group = f"run-{output_dir.parent.name}_{output_dir.name}-{_short_hash(output_dir)}"
    spec = config.get("tracking") or {}
    if spec.get("group"):
        group = str(spec["group"])
    policy = str((config.get("policy") or {}).get("name") or "scripted")
    tags = [f"structure:{s}" for s in shown_structures] + [f"team:{t}" for t in teams]
    tags += [f"policy:{policy}", f"tasks:{(config.get('tasks') or {}).get('kind', '')}"]
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


def session_costs(sessions: pd.DataFrame, config: Mapping[str, Any], output_dir: Path) -> list[float]:
    """Model cost (USD) of every session of a job, from the call logs in its store folder.

    Sessions without a call log (scripted policies) cost 0.
    """
    from collabsim.experiment.collect import match_session_dirs

    store = ((config.get("run") or {}).get("store")) or output_dir
    folders = match_session_dirs(sessions, Path(store), dict(config))
    costs = []
    for folder in folders:
        total = 0.0
        for log in sorted(folder.glob("*llm_calls.jsonl")) if folder is not None else ():
            for line in log.read_text(encoding="utf-8").splitlines():
                try:
                    total += float(json.loads(line).get("cost_usd") or 0.0)
                except (ValueError, AttributeError):
                    continue
        costs.append(total)
    return costs


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def variant_summary(agg: pd.DataFrame, metrics: Sequence[str] = (*SUMMARY_METRICS, "cost_usd")) -> dict[str, float]:
    """``<structure>/<team>/<metric>`` (mean) and ``…_se`` for every variant, plus the
    unprefixed metrics when exactly one variant other than the single agent is present."""
    out: dict[str, float] = {}
    others = agg[agg["team"] != "single"]
    for _, row in agg.iterrows():
        for metric in metrics:
            for suffix, col in (("", f"{metric}_mean"), ("_se", f"{metric}_se")):
                value = _finite(row.get(col))
                if value is not None:
                    out[f"{row['structure']}/{row['team']}/{metric}{suffix}"] = value
    lone = others if len(others) == 1 else agg if len(agg) == 1 else None
    if lone is not None:
        row = lone.iloc[0]
        for metric in metrics:
            value = _finite(row.get(f"{metric}_mean"))
            if value is not None:
                out[metric] = value
    return out


class WandbTracker:
    """Logs a job to Weights & Biases.

    Args:
        spec: The ``tracking`` config section (project, entity, mode, group, per_session).
        config: The whole resolved config (logged as the run config).
        output_dir: The job's output folder (wandb files go under it).
    """

    def __init__(self, spec: Mapping[str, Any], config: Mapping[str, Any], output_dir: Path) -> None:
        try:
            import wandb
        except ImportError as exc:
            raise RuntimeError(
                "tracking=wandb needs the wandb package: pip install 'collabsim[wandb]'"
            ) from exc
        self._wandb = wandb
        self._config = dict(config)
        self._output_dir = Path(output_dir)
        self._per_session = bool(spec.get("per_session", False))
        self.identity = run_identity(config, output_dir)
        self._run = wandb.init(
            project=str(spec.get("project") or "collabsim"),
            entity=spec.get("entity"),
            mode=str(spec.get("mode") or "offline"),
            dir=str(output_dir),
            config=dict(config),
            # joblib and submitit workers run several jobs in one process
            reinit="finish_previous",
            **self.identity,
        )

    def log_job(self, outcome: Any) -> None:
        """Log the comparison and sessions tables, per-variant summary metrics and, with
        ``per_session``, one history step per session."""
        from collabsim.reporting.tables import aggregate

        wandb = self._wandb
        sessions = outcome.sessions.copy()
        sessions["cost_usd"] = session_costs(sessions, self._config, self._output_dir)
        metrics = [m for m in (*SUMMARY_METRICS, "cost_usd") if m in sessions.columns]
        agg = aggregate(sessions, metrics=metrics)
        comparison = agg.copy()
        comparison.insert(0, "variant", comparison["structure"] + "/" + comparison["team"])
        if self._per_session:
            for i, row in enumerate(sessions.itertuples(index=False)):
                record = {f"session/{m}": v for m in SESSION_METRICS
                          if m in sessions.columns
                          and (v := _finite(getattr(row, m))) is not None}
                self._run.log(record, step=i)
        self._run.log({
            "comparison": wandb.Table(dataframe=comparison),
            "sessions": wandb.Table(dataframe=sessions.astype({"seed": "int64"})),
        })
        self._run.summary.update({
            **variant_summary(agg, metrics),
            "sessions_run": outcome.summary.ran,
            "sessions_reused": outcome.summary.reused,
            "sessions_infra_error": int(getattr(outcome.summary, "infra_errors", 0)),
            "wall_seconds": outcome.wall_seconds,
        })

    def close(self) -> None:
        """Finish the wandb run."""
        self._run.finish()


def make_tracker(spec: Mapping[str, Any], config: Mapping[str, Any], output_dir: Path) -> Tracker:
    """Build the tracker named by ``spec["backend"]`` (``none`` or ``wandb``).

    Raises:
        ValueError: Unknown backend.
    """
    backend = str(spec.get("backend") or "none")
    if backend == "none":
        return NullTracker()
    if backend == "wandb":
        return WandbTracker(spec, config, output_dir)
    raise ValueError(f"tracking.backend: unknown backend {backend!r} (none|wandb)")
