"""Random and mutated action strings never break a session."""

from __future__ import annotations

from pathlib import Path

from helpers.participants import FnParticipant, fuzz_strings

from collabsim.core.observation import Observation
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.session.trace import read_trace
from collabsim.tasks.model import Task


def test_fuzzed_actions_never_raise_out_of_the_engine(
    task: Task, tmp_path: Path, executor_factory
) -> None:
    strings = fuzz_strings(seed=99, n=360)
    feed = iter(strings)
    used = 0

    def play(obs: Observation) -> str:
        nonlocal used
        used += 1
        return next(feed, "FINISH()")

    statuses = []
    for k, structure in enumerate(["default", "preassigned_gates", "scaffolded", "memory"] * 3):
        if used >= len(strings):
            break
        parts = {
            name: FnParticipant(name, "agent" if name == "agent" else "collaborator", play)
            for name in ("agent", "D", "R")
        }
        cfg = SessionConfig(
            task=task,
            team=team_from_dict("DR"),
            structure=builtin_structure(structure, build_max_turns=6),
            seed=k,
            max_turns=40,
        )
        path = tmp_path / f"fuzz_{k}.jsonl"
        result = run_session_sync(cfg, parts, path, executor_factory=executor_factory)
        assert result.status in ("finished", "max_turns", "timeout"), result.error
        assert result.error is None
        events = read_trace(path)
        assert events[-1].action_type == "SESSION_END"
        assert [e.seq for e in events] == list(range(len(events)))
        statuses.append(result.status)
    assert used >= 300
    assert executor_factory.closed == executor_factory.created
