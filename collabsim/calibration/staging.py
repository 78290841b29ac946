"""Write a command's files into a private folder first, then move them into place.

A failure half-way (a bad plot, a full disk) leaves the output folder as it was: nothing is
half-written. Used by ``collabsim calibrate`` and ``collabsim fidelity``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType


class StagedOutput:
    """Context manager: ``with StagedOutput(out) as staged:`` write into ``staged.dir``, then
    ``staged.publish(names)``; the staging folder is removed on exit, published or not."""

    def __init__(self, out: Path) -> None:
        self.out = Path(out)
        self.dir = Path()

    def __enter__(self) -> StagedOutput:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        # Beside the target, so the final os.replace stays on one file system (atomic).
        self.dir = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.", dir=self.out.parent))
        return self

    def publish(self, names: Sequence[str]) -> list[Path]:
        """Move the staged files ``names`` into the output folder; returns their new paths."""
        self.out.mkdir(parents=True, exist_ok=True)
        written = []
        for name in names:
            os.replace(self.dir / name, self.out / name)
            written.append(self.out / name)
        return written

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
