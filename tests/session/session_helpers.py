"""Small hand-written participants, a tiny task and an in-process executor for engine tests."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from collabsim.participants.protocol import Observation, Role
from collabsim.tasks.model import ColumnInfo, DatasetInfo, Task

WAIT = "WAIT_TEAMMATE_CONTINUE()"


def make_task(root: Path) -> Task:
    """A one-file task: a short time series in ``series.csv``."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / "series.csv"
    rows = ["year,dagger"] + [f"{y},{v}" for y, v in zip(range(-3000, -2000, 100), [1, 1, 2, 5, 3, 3, 8, 2, 1, 1], strict=True)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return Task(
        task_id="tiny/0/0",
        dataset="tiny",
        metadata_id=0,
        query_id=0,
        query="When does dagger first rise?",
        question_type="context",
        domain="archaeology",
        domain_knowledge="",
        workflow_tags="",
        datasets=(
            DatasetInfo(
                name="series.csv",
                description="dagger counts per century",
                columns=(ColumnInfo("year", "year"), ColumnInfo("dagger", "count")),
                path=path,
            ),
        ),
        source="generated",
        gold_hypothesis="SECRET-GOLD dagger first rises around -2700.",
    )


@dataclass
class ScriptParticipant:
    """Plays a fixed list of action texts, then ``then`` forever; records observations."""

    name: str
    role: Role
    script: Sequence[str]
    then: str = WAIT
    observations: list[Observation] = field(default_factory=list)

    async def act(self, observation: Observation) -> str:
        self.observations.append(observation)
        i = len(self.observations) - 1
        return self.script[i] if i < len(self.script) else self.then


@dataclass
class FnParticipant:
    """Decides with a function of the observation; records observations."""

    name: str
    role: Role
    fn: Callable[[Observation], str]
    observations: list[Observation] = field(default_factory=list)

    async def act(self, observation: Observation) -> str:
        self.observations.append(observation)
        return self.fn(observation)


class FakeExecutor:
    """In-process executor (tests only): exec with captured stdout, persistent namespace."""

    instances: list[FakeExecutor] = []

    def __init__(self, files: Sequence[Path], limits: object = None) -> None:
        self.files = list(files)
        self.namespace: dict[str, object] = {}
        self.closed = False
        self.calls: list[str] = []
        FakeExecutor.instances.append(self)

    def execute(self, code: str) -> object:
        from types import SimpleNamespace

        self.calls.append(code)
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                exec(compile(code, "<cell>", "exec"), self.namespace)  # noqa: S102
        except BaseException as exc:  # noqa: BLE001
            return SimpleNamespace(output=buf.getvalue(), error=f"{type(exc).__name__}: {exc}", status="error")
        return SimpleNamespace(output=buf.getvalue(), error=None, status="ok")

    def close(self) -> None:
        self.closed = True
