"""Hydra callback: a sensitivity multirun ends by writing its plot at the sweep root.

Enabled by ``configs/experiment/sensitivity.yaml``; see
:mod:`collabsim.participants.sensitivity` and :mod:`collabsim.cli.sweep_figures`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from collabsim.cli.sweep_figures import SweepFigureCallback
from collabsim.participants.sensitivity import write


def _announce(written: Sequence[Path]) -> None:
    print(f"Sensitivity plot: {written[1]}")


class SensitivityPlotCallback(SweepFigureCallback):
    """Writes ``sensitivity.csv`` and ``sensitivity.png`` when the multirun ends."""

    def __init__(self) -> None:
        super().__init__("sensitivity plot", write, _announce)
