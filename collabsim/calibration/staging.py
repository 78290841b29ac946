"""Write a command's files into a private folder first, then move them into place.

A failure half-way (a bad plot, a full disk) leaves the output folder as it was: nothing is
half-written. Used by ``collabsim calibrate`` and ``collabsim fidelity``; the implementation
is the shared :class:`collabsim.core.outputs.StagedOutput`.
"""

from __future__ import annotations

from collabsim.core.outputs import StagedOutput

__all__ = ["StagedOutput"]
