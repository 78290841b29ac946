"""Experiment tracking at the edge of the system (wandb is imported only here, lazily).

One wandb run per job, grouped by sweep (the Hydra sweep folder, unless ``tracking.group``
is set), offline unless ``tracking.mode=online``. The run logs the resolved config, the
per-session table and the aggregate table.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol


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


class WandbTracker:
    """Logs a job to Weights & Biases.

    Args:
        spec: The ``tracking`` config section (project, entity, mode, group).
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
        mode = str(spec.get("mode") or "offline")
        group = spec.get("group") or output_dir.parent.name
        os.environ.setdefault("WANDB_SILENT", "true")
        self._run = wandb.init(
            project=str(spec.get("project") or "collabsim"),
            entity=spec.get("entity"),
            mode=mode,
            group=str(group),
            dir=str(output_dir),
            config=dict(config),
            reinit=True,
        )

    def log_job(self, outcome: Any) -> None:
        """Log per-session and aggregate tables plus summary figures."""
        wandb = self._wandb
        self._run.log(
            {
                "sessions": wandb.Table(dataframe=outcome.sessions),
                "aggregate": wandb.Table(dataframe=outcome.aggregate),
                "sessions_run": outcome.summary.ran,
                "sessions_reused": outcome.summary.reused,
                "wall_seconds": outcome.wall_seconds,
            }
        )

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
