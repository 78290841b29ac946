"""Hydra callback: a sensitivity multirun ends by writing its plot at the sweep root.

Enabled by ``configs/experiment/sensitivity.yaml``; see
:mod:`collabsim.participants.sensitivity`. A failure to plot is logged and never fails the
sweep: the jobs' own results are already on disk.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from collabsim.participants.sensitivity import SensitivityError, write

log = logging.getLogger(__name__)


class SensitivityPlotCallback(Callback):
    """Writes ``sensitivity.csv`` and ``sensitivity.png`` when the multirun ends."""

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        """Write the table and plot into ``hydra.sweep.dir``."""
        sweep_dir = Path(str(config.hydra.sweep.dir))
        try:
            _csv, png = write(sweep_dir)
        except (SensitivityError, OSError, ValueError) as err:
            log.warning("sensitivity plot not written: %s", err)
            print(f"collabsim: sensitivity plot not written: {err}")
            return
        print(f"Sensitivity plot: {png}")
