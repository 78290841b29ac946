"""Hydra callbacks that end a study's multirun by writing its figure at the sweep root.

A study (:mod:`collabsim.participants.sensitivity`, :mod:`collabsim.reporting.expertise_map`)
reads every job's ``sessions.csv`` and writes its table and figure into ``hydra.sweep.dir``.
A failure to write them is logged and never fails the sweep: the jobs' own results are
already on disk.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

log = logging.getLogger(__name__)


class SweepFigureCallback(Callback):
    """Writes a study's outputs when the multirun ends (see module docstring).

    Args:
        study: What the outputs are called in messages (``sensitivity plot``).
        write: Writes them into the sweep folder and returns their paths.
        announce: Prints what was written.
    """

    def __init__(self, study: str, write: Callable[[Path], Sequence[Path]],
                 announce: Callable[[Sequence[Path]], None]) -> None:
        self.study = study
        self.write = write
        self.announce = announce

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        """Write the study's outputs into ``hydra.sweep.dir``."""
        sweep_dir = Path(str(config.hydra.sweep.dir))
        try:
            written = self.write(sweep_dir)
        except (OSError, ValueError) as err:  # the studies' own errors are ValueErrors
            log.warning("%s not written: %s", self.study, err)
            print(f"collabsim: {self.study} not written: {err}")
            return
        self.announce(written)
