"""The pure ``run(cfg)`` job: results, tables, the store and reruns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collabsim.cli.run_app import compose_config
from collabsim.experiment.job import run
from collabsim.experiment.tasksource import TaskSelectionError, resolve_tasks
from collabsim.session.trace import read_trace


def job_cfg(tmp_path, *overrides: str):
    """The packaged configs (configs/) composed as `collabsim run` does, with a small test grid."""
    return compose_config(
        [
            "tasks.n_tasks=2",
            "tasks.seed=3",
            f"tasks.root={tmp_path / 'suite'}",
            "team.compositions=[single,DR]",
            "structure=default_and_scaffolded",
            "policy.agent.mistakes.wrong_ordinal=0.5",
            "seeds=[0,1]",
            "sandbox.wall_seconds=10.0",
            "run.max_concurrency=3",
            f"run.store={tmp_path / 'store'}",
            "run.progress=false",
            *overrides,
        ]
    )


def test_job_runs_every_session_and_reports_metrics(tmp_path):
    outcome = run(job_cfg(tmp_path), tmp_path / "out")
    sessions = outcome.sessions
    # 2 tasks x (single + DR x 2 structures) x 2 seeds
    assert len(sessions) == 12
    assert set(sessions["status"]) == {"finished"}
    for column in ("W_human", "W_total", "M_team", "H_init_norm", "C_wf", "S_hyp", "Performance"):
        assert column in sessions
    assert sessions["Performance"].between(0, 1).all()
    assert "Performance" in outcome.report and "mean (SE)" in outcome.report
    assert (tmp_path / "out" / "sessions.csv").is_file()
    assert (tmp_path / "out" / "aggregate.csv").is_file()
    # one trace per session, readable, starting with the environment's SESSION_START
    traces = sorted((tmp_path / "store" / "sessions").glob("*/trace.jsonl"))
    assert len(traces) == 12
    assert read_trace(traces[0])[0].action_type == "SESSION_START"
    plan = json.loads((traces[0].parent / "plan.json").read_text())
    assert plan["seed"] in (0, 1)
    # virtual clock: a collaborator works while the agent does (in some DR session: the agent
    # waits for reactions to its outputs, as Kolab's AI does, so most of its work abuts theirs)
    def overlaps(trace: Path) -> bool:
        events = read_trace(trace)
        agent = [e for e in events if e.actor == "agent"]
        others = [e for e in events if e.actor in ("D", "R")]
        return any(a.t_start < o.t_end and o.t_start < a.t_end for a in agent for o in others)

    assert any(overlaps(t) for t in traces if "__DR__" in t.parent.name)


def test_rerun_reuses_the_store_and_gives_identical_tables(tmp_path):
    first = run(job_cfg(tmp_path), tmp_path / "out1")
    second = run(job_cfg(tmp_path), tmp_path / "out2")
    assert (first.summary.ran, first.summary.reused) == (12, 0)
    assert (second.summary.ran, second.summary.reused) == (0, 12)
    assert first.sessions.drop(columns=["trace_path"], errors="ignore").equals(
        second.sessions.drop(columns=["trace_path"], errors="ignore")
    )


def test_equal_configs_in_fresh_stores_give_byte_identical_traces(tmp_path):
    a = run(job_cfg(tmp_path / "a"), tmp_path / "a" / "out")
    b = run(job_cfg(tmp_path / "b"), tmp_path / "b" / "out")
    assert list(a.sessions["hypothesis"]) == list(b.sessions["hypothesis"])
    traces_a = sorted((tmp_path / "a" / "store" / "sessions").glob("*/trace.jsonl"))
    traces_b = sorted((tmp_path / "b" / "store" / "sessions").glob("*/trace.jsonl"))
    assert [t.parent.name for t in traces_a] == [t.parent.name for t in traces_b]
    assert all(x.read_bytes() == y.read_bytes() for x, y in zip(traces_a, traces_b, strict=True))


def test_task_selection_errors_name_the_setting(tmp_path):
    with pytest.raises(TaskSelectionError, match="tasks.root is required"):
        resolve_tasks({"kind": "discoverybench", "root": None})
    with pytest.raises(TaskSelectionError, match="tasks.kind"):
        resolve_tasks({"kind": "kaggle"})
    spec = {"kind": "generated", "n_tasks": 2, "seed": 0, "root": str(tmp_path / "g")}
    with pytest.raises(TaskSelectionError, match="tasks.ids: not found"):
        resolve_tasks({**spec, "ids": ["nope/0/0"]})


def test_discoverybench_tasks_can_be_selected_by_dataset_and_id(discoverybench_root):
    tasks, report = resolve_tasks(
        {"kind": "discoverybench", "root": str(discoverybench_root), "datasets": ["archaeology"]}
    )
    assert len(tasks) == 38 and not report.problems
    picked, _ = resolve_tasks(
        {"kind": "discoverybench", "root": str(discoverybench_root), "ids": ["archaeology/27/0"]}
    )
    assert [t.task_id for t in picked] == ["archaeology/27/0"]


def test_reused_sandboxes_write_the_same_traces_as_one_worker_per_session(tmp_path, monkeypatch):
    from collabsim.sandbox import pool as pool_module

    created = []
    real_init = pool_module.Sandbox.__init__

    def counting_init(self, *args, **kwargs):
        created.append(self)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(pool_module.Sandbox, "__init__", counting_init)
    traces, workers = {}, {}
    for reuse in ("true", "false"):
        store = tmp_path / f"store-{reuse}"
        created.clear()
        run(job_cfg(tmp_path, f"run.store={store}", f"run.reuse_sandboxes={reuse}"),
            tmp_path / f"out-{reuse}")
        workers[reuse] = len(created)
        traces[reuse] = {p.parent.name: p.read_bytes()
                         for p in (store / "sessions").glob("*/trace.jsonl")}
    assert len(traces["true"]) == 12 and traces["true"] == traces["false"]
    # pooled: at most one sandbox and one checker (collaborators' isolated cells) per session
    # in flight (run.max_concurrency=3); unpooled: one per session, its checks in fresh forks
    assert 0 < workers["true"] <= 2 * 3 and workers["false"] >= 12


def test_sandbox_reuse_is_automatic_for_scripted_policies_only(tmp_path):
    from collabsim.experiment.job import reuses_sandboxes
    from collabsim.experiment.settings import validate_job

    assert reuses_sandboxes(validate_job(job_cfg(tmp_path)))  # the default: auto, scripted

    def settings(policy: str, reuse: str) -> object:
        return validate_job(job_cfg(tmp_path, f"policy={policy}", f"run.reuse_sandboxes={reuse}"))

    # A model's code could patch a library deeper than the reset reaches: fresh workers.
    assert not reuses_sandboxes(settings("llm", "auto"))
    assert reuses_sandboxes(settings("llm", "true"))
    assert not reuses_sandboxes(settings("scripted", "false"))


def test_a_generated_suite_is_written_only_into_a_new_or_empty_folder(tmp_path):
    """tasks=generated with tasks.root never writes among a user's files, and never reuses a
    suite generated with other settings as if it were the one asked for."""
    data = tmp_path / "my_data"
    data.mkdir()
    (data / "notes.txt").write_text("mine\n")
    spec = {"kind": "generated", "n_tasks": 2, "seed": 0, "root": str(data)}
    with pytest.raises(TaskSelectionError, match="is not an empty folder and holds no generated"):
        resolve_tasks(spec)
    assert sorted(p.name for p in data.iterdir()) == ["notes.txt"]
    suite = tmp_path / "suite"
    tasks, _ = resolve_tasks({**spec, "root": str(suite)})
    assert len(tasks) == 2
    again, _ = resolve_tasks({**spec, "root": str(suite)})
    assert [t.task_id for t in again] == [t.task_id for t in tasks]
    with pytest.raises(TaskSelectionError, match="holds a generated suite with .*n_tasks=2, "
                                                 "seed=0, not n_tasks=3, seed=0"):
        resolve_tasks({**spec, "root": str(suite), "n_tasks": 3})


def test_the_initiative_setting_measures_the_same_sessions_another_way(tmp_path):
    base = run(job_cfg(tmp_path, "seeds=[0]"), tmp_path / "out")
    said = run(job_cfg(tmp_path, "seeds=[0]", "metrics.initiative_events=messages"),
               tmp_path / "said")
    assert said.summary.reused == len(said.sessions)  # same store keys: nothing rerun
    key = ["task_id", "team", "structure", "seed"]
    both = base.sessions.merge(said.sessions, on=key, suffixes=("", "_said"))
    scaffolded = both[both["structure"] == "scaffolded"]
    default = both[both["structure"] == "default"]
    # the work-phase column leaves the build phase out; without one it equals all events
    assert (default["H_init_work"] == default["H_init_norm"]).all()
    assert (scaffolded["H_init_work"] != scaffolded["H_init_norm"]).any()
    # counting messages only changes the measure, not the sessions
    assert (both["Performance"] == both["Performance_said"]).all()
    assert (both["H_init_norm"] != both["H_init_norm_said"]).any()
    assert "H_init,norm (work)" in said.report
