"""Numeric conventions of the archaeology-style analyses.

The generator plants events with these definitions, the scripted analysis computes them and
the task text states them, so they are defined here once.
"""

from __future__ import annotations

#: A significant change: a difference of at least this many z units between consecutive bins.
THRESHOLD = 0.5
#: Sustained values last at least this many consecutive 100-year bins.
SUSTAIN_BINS = 3
#: A rolling minimum within this distance of the highest one counts as the highest plateau.
PLATEAU_TOLERANCE = 0.25
#: Width of a time bin in years.
BIN_YEARS = 100
#: Tolerance, in years, when a claimed year or period is matched against another.
DEFAULT_TOLERANCE_YEARS = 100
