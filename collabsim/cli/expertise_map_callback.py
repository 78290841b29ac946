"""Hydra callback: an expertise-map multirun ends by writing its table and figure.

Enabled by ``configs/experiment/expertise_map.yaml``; see
:mod:`collabsim.reporting.expertise_map` and :mod:`collabsim.cli.sweep_figures`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from collabsim.cli.sweep_figures import SweepFigureCallback
from collabsim.reporting.expertise_map import write


def _announce(written: Sequence[Path]) -> None:
    _csv, png, txt = written
    print(f"Expertise map: {png}")
    print(txt.read_text(encoding="utf-8"), end="")


class ExpertiseMapCallback(SweepFigureCallback):
    """Writes ``expertise_map.csv`` / ``.png`` / ``.txt`` when the multirun ends."""

    def __init__(self) -> None:
        super().__init__("expertise map", write, _announce)
