"""``collabsim dynamics`` through the CLI entry point."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from collabsim.cli.main import main
from collabsim.core.events import TraceEvent
from collabsim.graphs.explorer_io import load_explorer
from collabsim.graphs.kolab_io import write_kolab_graph
from collabsim.graphs.nodelink import write_node_link
from collabsim.metrics.dynamics import DYNAMICS_COLUMNS

pytestmark = pytest.mark.filterwarnings("ignore::collabsim.graphs.kolab_io.GraphDataWarning")


def _read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        assert tuple(reader.fieldnames or ()) == DYNAMICS_COLUMNS
        return list(reader)


def _trace(path: Path, seed: int) -> None:
    kinds = {"agent": "ai", "D": "human", "env": "env"}
    rows = [
        (
            0,
            0,
            "env",
            "SESSION_START",
            "ok",
            (),
            {"task_id": "t/0/0", "team": "D", "structure": "default", "seed": seed},
        ),
        (0, 0, "env", "PHASE_START", "ok", (), {"phase": "work"}),
        (0, 10, "agent", "EXECUTE_CODE", "ok", (), {"code": "1"}),
        (10, 12, "D", "SEND_TEAMMATE_MESSAGE", "ok", (2,), {"message": "check"}),
        (12, 20, "agent", "EDITOR_UPDATE", "ok", (), {"text": "h"}),
        (20, 30, "D", "EDITOR_UPDATE", "ok", (4,), {"text": "h2"}),
        (30, 31 + seed, "agent", "FINISH", "ok", (), {}),
    ]
    events = [
        TraceEvent(i, t0, t1, actor, kinds[actor], action, args, status, "", refs)
        for i, (t0, t1, actor, action, status, refs, args) in enumerate(rows)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(e.to_json() + "\n" for e in events), encoding="utf-8")


def test_explorer_dataset_table(
    kolab_sessions_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "table.csv"
    assert main(["dynamics", str(kolab_sessions_path), "--out", str(out)]) == 0
    rows = _read_csv(out)
    assert len(rows) == 31
    first = rows[0]
    assert first["session_id"] == "p1|session1"
    assert (first["edges_total"], first["edges_crossing"], first["loop"]) == ("25", "6", "2")
    assert abs(float(first["human_burstiness"]) - 0.087) <= 0.0005
    printed = capsys.readouterr()
    assert "p48|session2" in printed.out and "0.240" in printed.out
    assert "-0.354" in printed.out  # 3 decimals on stdout
    assert "responder is an AI node" in printed.err  # quirks reported, not fatal


def test_single_graph_files(
    kolab_sessions_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = load_explorer(kolab_sessions_path)[3]
    for path in (
        write_kolab_graph(graph, tmp_path / "kolab.json"),
        write_node_link(graph, tmp_path / "nodelink.json"),
    ):
        out = tmp_path / f"{path.stem}.csv"
        assert main(["dynamics", str(path), "--out", str(out), "--quiet"]) == 0
        rows = _read_csv(out)
        assert [r["session_id"] for r in rows] == [graph.session.session_id]
        assert rows[0]["edges_total"] == str(len(graph.edges))
    assert capsys.readouterr().err.count("wrote 1 rows") == 2


def test_folder_of_traces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _trace(tmp_path / "runs" / "a" / "trace.jsonl", 0)
    _trace(tmp_path / "runs" / "b" / "trace.jsonl", 1)
    # An LLM session keeps its call log beside the trace; it is not a session to read.
    (tmp_path / "runs" / "b" / "llm_calls.jsonl").write_text('{"model": "m"}\n', encoding="utf-8")
    out = tmp_path / "sim.csv"
    assert main(["dynamics", str(tmp_path / "runs"), "--out", str(out)]) == 0
    rows = _read_csv(out)
    assert [r["session_id"] for r in rows] == ["t/0/0|D|default|seed0", "t/0/0|D|default|seed1"]
    assert rows[0]["responses_modify"] == "1" and rows[0]["edges_crossing"] != "0"
    assert "seed1" in capsys.readouterr().out


def test_errors_name_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "weird.json"
    bad.write_text(json.dumps({"hello": 1}), encoding="utf-8")
    assert main(["dynamics", str(bad)]) == 2
    assert "weird.json" in capsys.readouterr().err
    broken = tmp_path / "runs" / "x.jsonl"
    broken.parent.mkdir()
    broken.write_text('{"seq": 0}\n{"seq": 1}\n', encoding="utf-8")
    assert main(["dynamics", str(tmp_path / "runs")]) == 2
    assert "x.jsonl" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["dynamics", str(empty)]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["dynamics", str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err


def test_a_graph_file_nested_too_deeply_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 38.14: deep nesting in a session file is a one-line error naming it, exit 2."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert main(["dynamics", str(deep)]) == 2
    err = capsys.readouterr().err
    assert "deep.json" in err and "nested too deeply" in err and "Traceback" not in err
