"""Hydra callback: a multirun ends by writing ``collabsim report`` at the sweep root.

Enabled by ``configs/hydra/callbacks/sweep_report.yaml``. The report reads every job folder
of the sweep (and the shared ``run.store`` when one was used), so it is the same as running
``collabsim report <sweep dir> --out <sweep dir>``. With ``tracking=wandb`` the report is
also logged as one run of the sweep's group (:func:`collabsim.tracking.log_sweep_report`).
A failure to write or log the report is logged and never fails the sweep: the jobs' own
results are already on disk.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

log = logging.getLogger(__name__)


class SweepReportCallback(Callback):
    """Writes the sweep report when a Hydra multirun ends.

    Args:
        views: Also write one HTML page per session.
    """

    def __init__(self, views: bool = True) -> None:
        self.views = bool(views)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        """Build the report over ``hydra.sweep.dir`` into the same folder."""
        from collabsim.experiment.sweep_report import build_report
        from collabsim.viewer import write_view

        sweep_dir = Path(str(config.hydra.sweep.dir))
        try:
            report = build_report([sweep_dir], sweep_dir,
                                  views=write_view if self.views else None,
                                  title=f"collabsim sweep {sweep_dir}")
        except Exception as err:  # noqa: BLE001 - a report problem must not fail the sweep
            log.warning("sweep report not written: %s", err)
            print(f"collabsim: sweep report not written: {err}")
            return
        print(f"Sweep report: {len(report.sessions)} sessions, {len(report.aggregate)} variants "
              f"-> {report.out_dir / 'report.md'}")
        tracking = config.get("tracking") or {}
        if tracking.get("backend") == "wandb":
            from omegaconf import OmegaConf

            from collabsim.tracking import log_sweep_report

            try:
                log_sweep_report(report, OmegaConf.to_container(tracking, resolve=True),
                                 sweep_dir)
            except Exception as err:  # noqa: BLE001 - tracking must not fail the sweep
                log.warning("sweep report not logged to wandb: %s", err)
                print(f"collabsim: sweep report not logged to wandb: {err}")
