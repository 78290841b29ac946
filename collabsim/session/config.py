"""What defines a session: :class:`SessionConfig`, and the code-executor protocol.

Kept apart from the engine loop so that callers (the experiment layer, the gym environment,
benchmarks) can build configurations without reading the scheduler.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from collabsim.core.coordination import CoordinationSpec
from collabsim.core.knowledge import EVERYONE, KnowledgeSplit
from collabsim.core.team import TeamSpec
from collabsim.session.clock import ClockSpec
from collabsim.session.structures import StructureSpec, builtin_structure
from collabsim.tasks.model import Task

if TYPE_CHECKING:
    from collabsim.sandbox.limits import SandboxLimits


class ExecutionResult(Protocol):
    """What an executor returns (``collabsim.sandbox.ExecResult`` satisfies it)."""

    output: str
    error: str | None
    status: str


class CodeExecutor(Protocol):
    """A persistent code runner for one session (``collabsim.sandbox.Sandbox`` satisfies it)."""

    def execute(self, code: str) -> ExecutionResult:
        """Run one cell; never raises on user code."""
        ...

    def close(self) -> None:
        """Release the runner (idempotent)."""
        ...


ExecutorFactory = Callable[[Sequence[Path], Any], CodeExecutor]

MAX_TURNS = 80
"""Decisions per participant a session allows unless told otherwise: the one default of
``SessionConfig.max_turns``, ``run.max_turns`` and the gym's ``max_turns``. Teammates who take
part (answering the agent's outputs, steps of their own: a Kolab session has 31 human nodes)
wake the waiting agent at every landing; 40 left the agent too few decisions to wait for the
checks of its draft in a team with a build phase, 80 fits participating teams."""
MAX_VIRTUAL_SECONDS = 7200.0
"""Virtual seconds a session may last unless told otherwise: the one default of
``SessionConfig.max_time``, ``run.max_virtual_seconds`` and the gym's time budget."""


def default_executor_factory(files: Sequence[Path], limits: Any) -> CodeExecutor:
    """Create the real sandbox (imported lazily) for a task's files."""
    from collabsim.sandbox import Sandbox, SandboxLimits

    return Sandbox(list(files), limits if limits is not None else SandboxLimits())


@dataclass(frozen=True)
class SessionConfig:
    """Everything that defines a session (equal configs + policies -> identical traces).

    Attributes:
        task: The task (participants only see ``task.brief()``).
        team: Team composition.
        structure: Collaboration structure.
        seed: Session seed (clock durations; policies get it from their own config).
        clock: Virtual-clock duration model.
        limits: Sandbox limits (None: sandbox defaults).
        max_turns: Decisions per participant (waits included); the session ends when the
            agent has used them, a collaborator just stops.
        max_time: Virtual-time budget in seconds.
        policy: Policy label for the result record ("" = derived from participant classes).
        trace_observation_chars: Trace ``observation`` fields are cut to this length.
        knowledge: Who holds which kind of the task's facts (``tasks.knowledge``).
        coordination: The team's coordination costs and structural remedies
            (:mod:`collabsim.core.coordination`).
    """

    task: Task
    team: TeamSpec = field(default_factory=TeamSpec)
    structure: StructureSpec = field(default_factory=lambda: builtin_structure("default"))
    seed: int = 0
    clock: ClockSpec = field(default_factory=ClockSpec)
    limits: SandboxLimits | None = None
    max_turns: int = MAX_TURNS
    max_time: float = MAX_VIRTUAL_SECONDS
    policy: str = ""
    trace_observation_chars: int = 2000
    knowledge: KnowledgeSplit = EVERYONE
    coordination: CoordinationSpec = field(default_factory=CoordinationSpec)

    def __post_init__(self) -> None:
        if self.structure.solo and self.team.collaborators:
            raise ValueError(
                f"structure {self.structure.name!r} is for the agent alone, but team "
                f"{self.team.label!r} has collaborators"
            )
        if self.max_turns < 1 or not self.max_time > 0:
            raise ValueError("max_turns and max_time must be positive")
