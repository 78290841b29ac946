"""Per-session spending limits for model calls.

A :class:`Budget` caps the tokens and/or dollars one session may spend. The client checks it
*before* each call, from the totals already spent plus a worst-case projection of the call
about to be made (estimated prompt tokens + ``max_tokens``; their price when litellm knows
it). A call that could overspend is not made: :class:`BudgetExceeded` is raised instead. It is
a :class:`~collabsim.core.errors.SessionAbort` with status ``"budget_exceeded"``, so
the session engine ends that session with that status and a sweep carries on.

Replies served from the cache count at their recorded size and price. That keeps a replay
identical to the original run (the same call hits the limit at the same point); the cost that
was actually billed is reported separately (see :mod:`collabsim.llm.usage`).
"""

from __future__ import annotations

from dataclasses import dataclass

from collabsim.core.errors import BUDGET_EXCEEDED, SessionAbort

BUDGET_STATUS = BUDGET_EXCEEDED


class BudgetExceeded(SessionAbort):
    """Raised instead of a model call that would exceed the session budget."""

    def __init__(self, reason: str) -> None:
        """Build the abort signal with status ``budget_exceeded``."""
        super().__init__(BUDGET_STATUS, reason)


@dataclass(frozen=True)
class Budget:
    """Token and/or dollar limits for one session (None = unlimited).

    Attributes:
        max_tokens: Maximum prompt + completion tokens over all calls of the session.
        max_usd: Maximum cost in US dollars over all calls of the session.
    """

    max_tokens: int | None = None
    max_usd: float | None = None

    def __post_init__(self) -> None:
        """Reject negative limits."""
        if self.max_tokens is not None and self.max_tokens < 0:
            raise ValueError(f"max_tokens must be >= 0, got {self.max_tokens}")
        if self.max_usd is not None and self.max_usd < 0:
            raise ValueError(f"max_usd must be >= 0, got {self.max_usd}")

    @property
    def unlimited(self) -> bool:
        """True when neither limit is set."""
        return self.max_tokens is None and self.max_usd is None

    def check(
        self,
        spent_tokens: int,
        spent_usd: float,
        next_tokens: int = 0,
        next_usd: float = 0.0,
    ) -> None:
        """Raise :class:`BudgetExceeded` if spending ``next_*`` on top of ``spent_*`` overspends.

        Args:
            spent_tokens: Tokens already spent (including calls in flight).
            spent_usd: Dollars already spent (including calls in flight).
            next_tokens: Worst-case tokens of the call about to be made.
            next_usd: Worst-case dollars of the call about to be made.

        Raises:
            BudgetExceeded: When a limit is reached or would be passed.
        """
        if self.max_tokens is not None and spent_tokens + next_tokens > self.max_tokens:
            raise BudgetExceeded(
                f"token budget: {spent_tokens} spent + up to {next_tokens} for the next call "
                f"> max_tokens={self.max_tokens}"
            )
        if self.max_usd is not None and spent_usd + next_usd > self.max_usd:
            raise BudgetExceeded(
                f"dollar budget: ${spent_usd:.6f} spent + up to ${next_usd:.6f} for the next call "
                f"> max_usd={self.max_usd}"
            )
