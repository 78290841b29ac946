"""Traces write and read any string a cell can print (issue 38.8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.executors import InProcessExecutor
from helpers.participants import ScriptParticipant

from collabsim.cli.main import main
from collabsim.core.actions import format_action
from collabsim.graphs.from_trace import graph_from_trace_file
from collabsim.graphs.from_trace import read_trace as read_graph_trace
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.results import read_result, write_result
from collabsim.session.trace import read_trace
from collabsim.tasks.model import Task

HOSTILE = "lone \udc80 surrogate, line\u2028separator, para\u2029graph, nel\x85, ok é🎉"


def test_a_session_whose_cell_prints_any_string_finishes_and_reads_back(
    task: Task, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = ScriptParticipant("agent", "agent", [
        format_action("EXECUTE_CODE", code=f"print({HOSTILE!r})"),
        format_action("EDITOR_UPDATE", text=HOSTILE),
        "FINISH()",
    ])
    folder = tmp_path / "session"
    trace = folder / "trace.jsonl"
    result = run_session_sync(SessionConfig(task=task, team=team_from_dict("single")),
                              {"agent": agent}, trace, executor_factory=InProcessExecutor)
    assert result.status == "finished", result.error
    assert result.submitted_hypothesis == HOSTILE
    write_result(folder / "result.json", result)
    assert read_result(folder / "result.json").submitted_hypothesis == HOSTILE

    text = trace.read_bytes().decode("utf-8")  # valid UTF-8 throughout
    events = read_trace(trace)
    assert len(text.splitlines()) == len(events), "no line break inside an event's line"
    cell = next(e for e in events if e.action_type == "EXECUTE_CODE")
    assert HOSTILE in cell.observation or HOSTILE[:10] in cell.observation
    assert [e.seq for e in read_graph_trace(trace)] == [e.seq for e in events]
    graph_from_trace_file(trace)

    assert main(["dynamics", str(folder)]) == 0
    out = tmp_path / "page.html"
    assert main(["view", str(folder), "--out", str(out)]) == 0
    assert out.stat().st_size > 0
    capsys.readouterr()


def test_lines_written_before_the_escape_still_read(tmp_path: Path) -> None:
    """A raw U+2028 inside a string of an older trace is not a line break to the readers."""
    event = {"seq": 0, "t_start": 0.0, "t_end": 1.0, "actor": "agent", "actor_type": "ai",
             "action_type": "SEND_TEAMMATE_MESSAGE", "args": {"message": "a\u2028b"},
             "status": "ok", "observation": "", "refs": []}
    trace = tmp_path / "trace.jsonl"
    trace.write_text(json.dumps(event, ensure_ascii=False) + "\n", encoding="utf-8")
    assert read_trace(trace)[0].args["message"] == "a\u2028b"
    assert read_graph_trace(trace)[0].args["message"] == "a\u2028b"
