"""``collabsim fidelity``: simulated sessions (a real ``collabsim run``) against the Kolab data."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers.cli import collabsim_exit_code
from matplotlib import image as mpimg

from collabsim.calibration.fidelity import (
    FIDELITY_METRICS,
    adopt_check,
    compare_metric,
    response_times,
    session_metrics,
)
from collabsim.cli.main import main
from collabsim.graphs.model import Edge, Node, Response, SessionInfo, WorkflowGraph


@pytest.fixture(scope="module")
def sim_run(tmp_path_factory) -> Path:
    """A small real run (in the test process): team DR, default structure, 3 generated tasks x 2 seeds."""
    out = tmp_path_factory.mktemp("run")
    code = collabsim_exit_code(["run", "team=DR", "structure=default", "tasks.n_tasks=3",
                                "seeds=[0,1]", "run.progress=false", f"hydra.run.dir={out}"],
                               cwd=out)
    assert code == 0
    return out


def test_fidelity_on_a_run_writes_the_report_table_and_one_plot_per_metric(
    sim_run: Path, kolab_sessions_path: Path, shared_data: Path, tmp_path, capsys
):
    traces = sorted(sim_run.rglob("trace.jsonl"))
    assert len(traces) == 6
    out = tmp_path / "fid"
    rc = main(["fidelity", str(sim_run), "--kolab", str(kolab_sessions_path), "--out", str(out)])
    assert rc == 0
    assert "compared 6 simulated with 31 real sessions on 10 metrics" in capsys.readouterr().out
    names = {p.name for p in out.iterdir()}
    pngs = {f"fidelity_{m}.png" for m in FIDELITY_METRICS} | {"fidelity_overview.png"}
    assert names == pngs | {"report.md", "sessions.csv"}
    for name in pngs:
        img = mpimg.imread(out / name)
        assert img.shape[0] > 300 and img.shape[1] > 500
        assert img[..., :3].std() > 0.05  # something is drawn

    report = (out / "report.md").read_text()
    for label in FIDELITY_METRICS.values():
        row = next(line for line in report.splitlines() if line.startswith(f"| {label} |"))
        assert row.count("|") == 10
    assert "KS D (p)" in report and "W (chance)" in report
    assert "Simulated adopt share:" in report and "0.17 to 1.00" in report
    # the binary metric is a comparison of two shares, each with its Wilson interval
    last_row = next(line for line in report.splitlines() if line.startswith("| last AI output"))
    assert "| 30/31 = 0.97 [0.84, 0.99] | 31 (0) |" in last_row
    assert "real 30/31 = 0.97 [0.84, 0.99] vs simulated " in report
    share_row = next(line for line in report.splitlines() if line.startswith("| share of AI"))
    assert "| 0.667 [0.523, 0.838] | 31 (0) |" in share_row

    table = pd.read_csv(out / "sessions.csv")
    real = table[table.source == "real"].set_index("session_id")
    sim = table[table.source == "simulated"]
    assert len(real) == 31 and len(sim) == 6
    assert set(sim.team) == {"DR"} and set(sim.structure) == {"default"}
    assert real.last_ai_responded.sum() == 30 and set(sim.last_ai_responded) <= {0.0, 1.0}
    assert sim.ai_response_share.between(0, 1).all()
    # the real side reproduces the figures the Kolab explorer page prints
    printed = json.loads((shared_data / "kolab" / "explorer_metrics_dev.json").read_text())
    for sid, figures in printed["sessions"].items():
        for key in ("h_cross", "human_burstiness", "human_memory", "retention_strict"):
            assert real.loc[sid, key] == pytest.approx(figures[key], abs=6e-4), (sid, key)
    # the simulated side is what the traces say: burstiness of the humans' action starts
    sim = sim.set_index("session_id")
    for path in traces:
        events = [json.loads(line) for line in path.read_text().splitlines()]
        start = events[0]["args"]
        sid = f"{start['task_id']}|{start['team']}|{start['structure']}|seed{start['seed']}"
        t = np.sort(
            [
                e["t_start"]
                for e in events
                if e["actor_type"] == "human"
                and e["action_type"] != "INVALID"
                and e["status"] not in ("rejected", "interrupted")  # never landed: no node
            ]
        )
        gaps = np.diff(t)
        if len(gaps) == 0:
            # the humans never got an action in (the agent finished first): kept, undefined
            assert math.isnan(sim.loc[sid, "human_burstiness"])
            continue
        expected = (gaps.std() - gaps.mean()) / (gaps.std() + gaps.mean())
        assert sim.loc[sid, "human_burstiness"] == pytest.approx(expected)


def test_response_time_is_from_the_ai_output_to_the_end_of_the_human_reaction():
    nodes = [
        Node("h1", "user", "human", intervals=((0, 10),)),
        Node("a1", "agent", "ai", intervals=((10, 30),)),
        Node("h2", "user", "human", intervals=((30, 75),)),
        Node("a2", "agent", "ai", intervals=((75, 80),)),
        Node("h3", "user", "human", intervals=((70, 78),)),  # done before a2 ended
    ]
    edges = [Edge("h1", "a1"), Edge("a1", "h2"), Edge("h2", "a2"), Edge("a2", "h3")]
    graph = WorkflowGraph(
        SessionInfo("s"), (), nodes, edges, [Response("h2", "h1", "a1", "modify")]
    )
    assert list(response_times(graph)) == [45.0, 0.0]
    row = session_metrics(graph)
    assert row["response_time_q50"] == pytest.approx(22.5)
    assert row["response_time_q90"] == pytest.approx(40.5)
    assert row["h_cross"] == 1.0
    assert row["retention_strict"] == 0.0 and row["retention_broad"] == 1.0
    assert set(row) == {"session_id", *FIDELITY_METRICS}


def test_distances_are_zero_for_equal_samples_and_flag_a_shift():
    rng = np.random.default_rng(0)
    base = rng.normal(0, 1, 60)
    same = compare_metric("h_cross", base, base)
    assert same.ks_stat == 0 and same.wasserstein == 0
    assert same.verdict == "no detectable difference"
    shifted = compare_metric("h_cross", base, base + 1.5)
    assert shifted.ks_p < 0.001 and shifted.wasserstein == pytest.approx(1.5)
    assert shifted.wasserstein > shifted.wasserstein_null95 and shifted.verdict == "differs"
    empty = compare_metric("human_memory", base, [math.nan, math.nan])
    assert empty.sim_undefined == 2 and not empty.comparable
    assert empty.verdict == "not measurable in the simulation" and math.isnan(empty.ks_stat)


def _responses_graph(pid: str, labels: list[str]) -> WorkflowGraph:
    nodes = [Node("a", "agent", "ai", intervals=((0, 1),))]
    responses = []
    for i, label in enumerate(labels):
        nodes.append(Node(f"h{i}", "user", "human", intervals=((1, 2),)))
        responses.append(Response(f"h{i}", None, "a", label))  # type: ignore[arg-type]
    return WorkflowGraph(SessionInfo(pid, participant_id=pid), (), nodes, (), responses)


def test_adopt_share_is_checked_against_the_real_per_participant_range():
    real = [
        _responses_graph("p1", ["adopt", "reject"]),
        _responses_graph("p1", ["adopt", "adopt"]),  # same person: pooled, 3/4
        _responses_graph("p2", ["adopt", "modify", "reject", "reject", "reject"]),  # 1/5
    ]
    inside = adopt_check(real, [_responses_graph("s", ["adopt", "modify"])])
    assert (inside.real_min, inside.real_max) == (0.2, 0.75)
    assert inside.real_pooled == pytest.approx(4 / 9)
    assert inside.sim_share == 0.5 and inside.within is True
    assert adopt_check(real, [_responses_graph("s", ["adopt"])]).within is False
    assert adopt_check(real, [_responses_graph("s", [])]).within is None


@pytest.mark.parametrize("case", ["missing", "not_a_folder", "no_traces", "bad_trace"])
def test_bad_simulation_folder_is_one_line_exit_2_and_nothing_written(
    case, kolab_sessions_path: Path, tmp_path, capsys
):
    sim = tmp_path / "sim"
    if case == "not_a_folder":
        sim.write_text("x")
    elif case == "no_traces":
        (sim / "s1").mkdir(parents=True)
        (sim / "s1" / "llm_calls.jsonl").write_text('{"tag": "agent"}\n')  # not a trace
    elif case == "bad_trace":
        (sim / "s1").mkdir(parents=True)
        (sim / "s1" / "trace.jsonl").write_text('{"seq": 0}\n{"seq": 1}\n')
    out = tmp_path / "out"
    rc = main(["fidelity", str(sim), "--kolab", str(kolab_sessions_path), "--out", str(out)])
    assert rc == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("collabsim fidelity: error: SIM_DIR ") and str(sim) in err
    assert not out.exists()


def test_a_run_without_simulated_humans_is_refused(kolab_sessions_path: Path, tmp_path, capsys):
    session = tmp_path / "sim" / "s1"
    session.mkdir(parents=True)
    events = [
        {"seq": 0, "t_start": 0, "t_end": 0, "actor": "env", "actor_type": "env",
         "action_type": "SESSION_START", "args": {}, "status": "ok", "observation": "", "refs": []},
        {"seq": 1, "t_start": 0, "t_end": 5, "actor": "agent", "actor_type": "ai",
         "action_type": "EDITOR_UPDATE", "args": {"text": "x"}, "status": "ok",
         "observation": "", "refs": []},
    ]  # fmt: skip
    (session / "trace.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    out = tmp_path / "out"
    rc = main(
        ["fidelity", str(tmp_path / "sim"), "--kolab", str(kolab_sessions_path), "--out", str(out)]
    )
    assert rc == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none of the 1 sessions has a simulated human" in err
    assert not out.exists()


def test_empty_kolab_file_is_one_line_exit_2(sim_run: Path, tmp_path, capsys):
    kolab = tmp_path / "empty.json"
    kolab.write_text('{"name": "empty", "sessions": []}')
    out = tmp_path / "out"
    assert main(["fidelity", str(sim_run), "--kolab", str(kolab), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"collabsim fidelity: error: --kolab {kolab}: the Kolab file has no sessions\n"
    assert not out.exists()


@pytest.mark.parametrize("command", ["calibrate", "fidelity"])
def test_an_output_path_that_is_a_file_is_refused(
    command, sim_run: Path, kolab_sessions_path: Path, tmp_path, capsys
):
    out = tmp_path / "taken"
    out.write_text("keep me")
    args = ["--kolab", str(kolab_sessions_path), "--out", str(out)]
    argv = [command, *([str(sim_run)] if command == "fidelity" else []), *args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"collabsim {command}: error: --out {out}: exists and is not a folder\n"
    assert out.read_text() == "keep me"
