"""Metrics: pure functions over session results, traces and workflow graphs.

Each metric lives in its own module (``dynamics``, ``outcome``, ``activity``, ...); every
docstring states its formula. The dynamics figures are re-exported here for convenience.
"""

from collabsim.metrics.dynamics import DYNAMICS_COLUMNS, dynamics_row, dynamics_rows

__all__ = ["DYNAMICS_COLUMNS", "dynamics_row", "dynamics_rows"]
