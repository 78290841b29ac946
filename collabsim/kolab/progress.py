"""Progress of a long command that reads well in a terminal and in a log file.

A :class:`Stage` is one step of the work (one task x predictor setting, the dynamics study,
...). In a terminal it is one progress bar, left on screen when the stage ends; stages never
nest bars. When the stream is not a terminal (a log file, a pipe), nothing is redrawn: the
stage writes one line when it finishes, with its time, e.g. ``learned 1b: 12.3 s``.
"""

from __future__ import annotations

import resource
import sys
import time
from types import TracebackType
from typing import TextIO

from tqdm import tqdm


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its finished worker processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class Clock:
    """Adds wall and CPU seconds (:func:`cpu_seconds`) to named parts of a ``timings`` dict.

    ``with Clock(timings, "bootstrap"): ...`` adds the block's ``(wall, cpu)`` to
    ``timings["bootstrap"]``.
    """

    def __init__(self, timings: dict[str, tuple[float, float]], part: str) -> None:
        self.timings, self.part = timings, part
        self._wall = self._cpu = 0.0

    def __enter__(self) -> Clock:
        self._wall, self._cpu = time.perf_counter(), cpu_seconds()
        return self

    def __exit__(self, *exc: object) -> None:
        wall, cpu = self.timings.get(self.part, (0.0, 0.0))
        self.timings[self.part] = (
            wall + time.perf_counter() - self._wall,
            cpu + cpu_seconds() - self._cpu,
        )


def is_terminal(stream: TextIO | None = None) -> bool:
    """True when ``stream`` (default stderr) is an interactive terminal."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Stage:
    """One stage: a bar in a terminal, a line with its time when it finishes otherwise.

    Args:
        desc: What the stage does (the bar's label and the line's start).
        total: Steps, when known (more can be added with :meth:`add_total`).
        enabled: False shows nothing.
        stream: Where to write (default stderr).
    """

    def __init__(
        self, desc: str, total: int | None = None, *, enabled: bool = True,
        stream: TextIO | None = None,
    ) -> None:  # fmt: skip
        self.desc = desc
        self.total = total
        self.enabled = enabled
        self.stream = sys.stderr if stream is None else stream
        self.seconds = 0.0
        self._bar: tqdm | None = None
        self._start = 0.0

    def __enter__(self) -> Stage:
        self._start = time.perf_counter()
        if self.enabled and is_terminal(self.stream):
            self._bar = tqdm(total=self.total, desc=self.desc, file=self.stream, leave=True,
                             dynamic_ncols=True)  # fmt: skip
        return self

    def add_total(self, n: int) -> None:
        """Announce ``n`` more steps."""
        self.total = (self.total or 0) + n
        if self._bar is not None:
            self._bar.total = self.total
            self._bar.refresh()

    def update(self, n: int = 1) -> None:
        """Count ``n`` finished steps."""
        if self._bar is not None:
            self._bar.update(n)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.seconds = time.perf_counter() - self._start
        if self._bar is not None:
            self._bar.close()
        elif self.enabled and exc_type is None:
            print(f"{self.desc}: {self.seconds:.1f} s", file=self.stream, flush=True)


__all__ = ["Clock", "Stage", "cpu_seconds", "is_terminal"]
