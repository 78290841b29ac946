"""The scripted policies decide from (observation, seed, params) alone: at every decision of
real sessions, a fresh instance asked at turn n decides as the one that answered turns
0..n-1 (what a policy said, wrote and decided is read back from the observation), and the
observation says what the policies read of it (when the member first saw the draft, which
request a decision decided, what an editor update of its own wrote)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.tasks import SESSION_GRIDS, run_session_grid

from collabsim.core.events import TraceEvent
from collabsim.core.observation import Observation
from collabsim.core.records import HistoryEntry
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.session_log import HistoryState, read_entry
from collabsim.session.workspace import event_summary

GRIDS = {k: v for k, v in SESSION_GRIDS.items() if k != "everyone"}


@pytest.mark.slow
@pytest.mark.parametrize("grid", sorted(GRIDS))
def test_a_fresh_policy_decides_at_every_turn_as_the_one_that_decided_before(
        grid: str, tmp_path: Path, discoverybench_root: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    decided: list[str] = []
    differ: list[tuple[str, str, str, int]] = []
    for cls in (ScriptedAgent, ScriptedCollaborator):
        init, decide = cls.__init__, cls.decide

        def recording_init(self: Any, *args: Any, __init: Any = init, **kwargs: Any) -> None:
            __init(self, *args, **kwargs)
            self.built_with = (args, kwargs)

        def compared(self: Any, obs: Observation, __decide: Any = decide,
                     __cls: Any = cls) -> str:
            action = __decide(self, obs)
            args, kwargs = self.built_with
            fresh = __cls(*args, **kwargs)  # it never saw the turns before
            decided.append(obs.me)
            if __decide(fresh, obs) != action:
                differ.append((obs.me, obs.task.task_id, obs.structure, obs.turn))
            return action

        monkeypatch.setattr(cls, "__init__", recording_init)
        monkeypatch.setattr(cls, "decide", compared)
    outcome = run_session_grid(grid, tmp_path, discoverybench_root)
    assert differ == []
    assert set(outcome.sessions["status"]) == {"finished"}
    assert {"agent", "D", "R"} <= set(decided) and len(decided) > 300


def _update(seq: int, text: str, status: str, request: str = "") -> HistoryEntry:
    args = {"text": text, **({"request_id": request} if request else {})}
    event = TraceEvent(seq=seq, t_start=0.0, t_end=1.0, actor="D", actor_type="human",
                       action_type="EDITOR_UPDATE", args=args, status=status)
    return HistoryEntry(seq, 1.0, "D", "EDITOR_UPDATE", status, event_summary(event))


def test_what_i_wrote_is_read_from_my_editor_updates_in_the_history() -> None:
    short, long = "Around 1700 BCE it rose.", "Around 1700 BCE it rose " + "again " * 60
    history = HistoryState("D")
    for entry in (_update(1, short, "ok"), _update(2, long, "pending", "g1"),
                  _update(3, long, "rejected", "g1")):
        history = read_entry(history, entry)
    assert history.wrote(short) and history.wrote(long)
    # neither a prefix of what I wrote, nor a longer text it is a prefix of
    for other in (short[:-1], short + " Later too.", long[:-1], long + "again "):
        assert not history.wrote(other), other
    assert history.wrote_besides([short]) and not history.wrote_besides([short, long])
