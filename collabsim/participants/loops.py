"""Loop detection: a participant taking the same action again and again.

A model can get stuck: the same cell run 39 times in a row costs tokens and says nothing
new. :class:`LoopGuard` counts how often a participant has taken the same action (its
canonical text, arguments included) in a row. After ``repeats`` times (``llm.loop_repeats``,
default :data:`DEFAULT_LOOP_REPEATS`) the participant is told on its next prompt that it
repeats itself; taking it once more ends the session with status ``loop`` (scored: it is the
model's own behaviour). Waiting never counts as a loop, nor does it break a run of repeats (a
model alternating a wait and the same cell still loops): ``WAIT_TEAMMATE_CONTINUE``, and
``MEMORY_AGREE`` said again while the teammates' agreements are still under way (it changes
nothing, like a wait). Nor do turns without a usable action.
"""

from __future__ import annotations

from dataclasses import dataclass

from collabsim.core.actions import Action, format_action

DEFAULT_LOOP_REPEATS = 3
"""Default of ``llm.loop_repeats``: identical actions in a row before the warning."""

_NEVER_A_LOOP = frozenset({"WAIT_TEAMMATE_CONTINUE", "MEMORY_AGREE"})


@dataclass
class LoopGuard:
    """Counts one participant's identical actions in a row.

    Attributes:
        repeats: Identical actions in a row after which the participant is warned; one more
            is a loop.
        last: Canonical text of the last counted action ("" before any).
        count: How many times in a row ``last`` was taken.
    """

    repeats: int = DEFAULT_LOOP_REPEATS
    last: str = ""
    count: int = 0

    def __post_init__(self) -> None:
        if self.repeats < 1:
            raise ValueError(f"loop_repeats must be >= 1, got {self.repeats}")

    def is_loop(self, action: Action) -> bool:
        """True when taking ``action`` now would repeat it more than ``repeats`` times."""
        if action.name in _NEVER_A_LOOP:
            return False
        return format_action(action.name, **action.args) == self.last and self.count >= self.repeats

    def record(self, action: Action) -> None:
        """Count ``action`` as taken."""
        if action.name in _NEVER_A_LOOP:
            return
        text = format_action(action.name, **action.args)
        self.count = self.count + 1 if text == self.last else 1
        self.last = text

    def warning(self) -> str | None:
        """The note for the next prompt once the last action was taken ``repeats`` times."""
        if self.count < self.repeats:
            return None
        return (
            f"You have taken the same action {self.count} times in a row ({self.last[:200]}); "
            "it gives nothing new. Do something different: taking it once more ends the "
            "session."
        )
