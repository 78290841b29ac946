"""Trace files and result records."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from collabsim.core.events import TraceEvent
from collabsim.session.results import SessionResult, read_result, write_result
from collabsim.session.trace import TraceReadError, TraceWriter, read_trace


def event(seq: int) -> TraceEvent:
    return TraceEvent(
        seq,
        1.0 * seq,
        1.0 * seq + 0.5,
        "agent",
        "ai",
        "EXECUTE_CODE",
        {"code": "print('é')\n"},
        "ok",
        "é",
        (seq - 1,) if seq else (),
    )


def test_rewrite_replaces_the_lines_atomically_and_later_writes_append(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path)
    writer.write(event(0))
    writer.write(event(1))
    cut = dataclasses.replace(event(1), status="interrupted")
    writer.rewrite([event(0), cut])
    writer.write(event(2))
    writer.close()
    assert read_trace(path) == [event(0), cut, event(2)]
    assert [p.name for p in tmp_path.iterdir()] == ["t.jsonl"]  # no temporary file left


def test_writer_flushes_each_event_and_reader_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "t.jsonl"
    writer = TraceWriter(path)
    writer.write(event(0))
    # flushed: visible before close
    assert path.read_text(encoding="utf-8").count("\n") == 1
    writer.write(event(1))
    writer.close()
    assert read_trace(path) == [event(0), event(1)]


def test_reader_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(event(0).to_json() + '\n{"seq": 1}\n' + event(2).to_json() + "\n")
    with pytest.raises(TraceReadError, match=r"t\.jsonl:2: .*missing field"):
        read_trace(path)
    path.write_text(event(0).to_json() + "\n" + event(1).to_json()[:20])
    with pytest.raises(TraceReadError, match=r"t\.jsonl:2"):
        read_trace(path)
    assert read_trace(path, allow_truncated_tail=True) == [event(0)]


def test_result_round_trip_and_atomic_write(tmp_path: Path) -> None:
    result = SessionResult(
        task_id="a/1/0",
        team="DR",
        structure="scaffolded",
        seed=3,
        policy="scripted",
        submitted_hypothesis="h",
        status="finished",
        virtual_seconds=12.5,
        wall_seconds=0.1,
        turns=7,
        counts={"agent": {"FINISH": 1}},
        n_events=9,
        trace_path="t.jsonl",
        gates={"FINISH": "D"},
    )
    assert SessionResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    path = tmp_path / "out" / "result.json"
    write_result(path, result)
    assert read_result(path) == result
    assert [p.name for p in path.parent.iterdir()] == ["result.json"]
    path.write_text("{}")
    with pytest.raises(ValueError, match="result.json"):
        read_result(path)
