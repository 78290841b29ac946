"""Who decides next, and when effects land.

:class:`Scheduler` always lets the participant with the earliest next-decision time act
(ties broken by team order: agent first); a participant is busy until its action ends, so a
collaborator works while the agent computes and intervals overlap. A participant asleep in a
wait has next-decision time ``inf`` until something wakes it
(:meth:`collabsim.session.state.SessionState.wait`).

:class:`LandingQueue` holds effects that take hold at their action's ``t_end`` (a chat
message, a code cell, an editor text, ...), applied in time order, ties in the order they
were scheduled.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass(order=True)
class Landing:
    """One scheduled effect: ``apply(time)`` runs when the session reaches ``time``.

    ``seqs`` are the trace events whose effect it is (marked ``interrupted`` when the session
    ends before it lands).
    """

    time: float
    order: int
    apply: Callable[[float], None] = field(compare=False)
    seqs: tuple[int, ...] = field(default=(), compare=False)


class LandingQueue:
    """Effects waiting to land, earliest first (ties: scheduling order)."""

    def __init__(self) -> None:
        self._heap: list[Landing] = []
        self._n = 0

    def push(self, t: float, apply: Callable[[float], None], seqs: tuple[int, ...] = ()) -> None:
        """Schedule ``apply`` at ``t`` (the effect of trace events ``seqs``)."""
        self._n += 1
        heapq.heappush(self._heap, Landing(t, self._n, apply, seqs))

    def next_time(self) -> float | None:
        """When the earliest effect lands (None: nothing in flight)."""
        return self._heap[0].time if self._heap else None

    def waiting(self) -> tuple[Landing, ...]:
        """Every effect still waiting, in no particular order (the queue is left as it is)."""
        return tuple(self._heap)

    def pop(self) -> Landing:
        """Remove and return the earliest effect."""
        return heapq.heappop(self._heap)

    def drain(self) -> list[Landing]:
        """Remove and return every effect still waiting (earliest first)."""
        out = sorted(self._heap)
        self._heap.clear()
        return out


class Scheduler:
    """Earliest-next-decision-first scheduling with a fixed tie order.

    Args:
        order: Participant names in tie-break order (agent first).
    """

    def __init__(self, order: Sequence[str]) -> None:
        self.order = tuple(order)
        self.next_time: dict[str, float] = {n: 0.0 for n in self.order}
        self.retired: set[str] = set()

    def active(self) -> list[str]:
        """Participants still scheduled (not retired), in tie-break order."""
        return [n for n in self.order if n not in self.retired]

    def peek(self) -> tuple[str, float] | None:
        """The participant who acts next and when (None when everyone is retired)."""
        best: tuple[float, int, str] | None = None
        for i, n in enumerate(self.order):
            if n in self.retired:
                continue
            key = (self.next_time[n], i, n)
            if best is None or key < best:
                best = key
        return None if best is None else (best[2], best[0])

    def set_next(self, name: str, t: float) -> None:
        """Set when ``name`` decides next."""
        self.next_time[name] = t

    def retire(self, name: str) -> None:
        """Stop scheduling ``name`` (out of turns)."""
        self.retired.add(name)
