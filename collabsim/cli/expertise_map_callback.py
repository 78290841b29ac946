"""Hydra callback: an expertise-map multirun ends by writing its table and figure.

Enabled by ``configs/experiment/expertise_map.yaml``; see
:mod:`collabsim.reporting.expertise_map`. A failure to write the map is logged and never
fails the sweep: the jobs' own results are already on disk.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from collabsim.reporting.expertise_map import ExpertiseMapError, write

log = logging.getLogger(__name__)


class ExpertiseMapCallback(Callback):
    """Writes ``expertise_map.csv`` / ``.png`` / ``.txt`` when the multirun ends."""

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        """Write the map into ``hydra.sweep.dir``."""
        sweep_dir = Path(str(config.hydra.sweep.dir))
        try:
            _csv, png, txt = write(sweep_dir)
        except (ExpertiseMapError, OSError, ValueError) as err:
            log.warning("expertise map not written: %s", err)
            print(f"collabsim: expertise map not written: {err}")
            return
        print(f"Expertise map: {png}")
        print(txt.read_text(encoding="utf-8"), end="")
