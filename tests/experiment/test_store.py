"""The result store cannot lie: foreign or unreadable entries rerun, jobs share one store."""

from __future__ import annotations

import json
import logging
import re
import shutil
import subprocess
import sys
import threading
import time

import pytest

from collabsim.cli.run_app import compose_config
from collabsim.experiment.job import plan_job, run
from collabsim.experiment.store import ResultStore


def small_cfg(tmp_path, store, *overrides):
    return compose_config(
        [
            "tasks.n_tasks=3",
            f"tasks.root={tmp_path / 'suite'}",
            "team=single",
            "seeds=[0,1]",
            f"run.store={store}",
            "run.progress=false",
            *overrides,
        ]
    )


def test_a_result_copied_from_another_session_is_rerun_with_a_warning(tmp_path, caplog):
    cfg = small_cfg(tmp_path, tmp_path / "store")
    first = run(cfg, tmp_path / "out1")
    store = ResultStore(tmp_path / "store")
    plans = plan_job(cfg).plans
    victim, donor = plans[1], plans[0]
    shutil.copy(store.result_path(donor), store.result_path(victim))
    with caplog.at_level(logging.WARNING):
        second = run(cfg, tmp_path / "out2")
    assert (second.summary.ran, second.summary.reused) == (1, 5)
    assert str(store.result_path(victim)) in caplog.text and "another session" in caplog.text
    # every session exactly once, with its own identity, and the same table as before
    rows = second.sessions[["task_id", "seed"]].apply(tuple, axis=1)
    assert rows.is_unique and len(rows) == 6
    assert first.sessions.drop(columns="trace_path", errors="ignore").equals(
        second.sessions.drop(columns="trace_path", errors="ignore")
    )
    assert json.loads(store.result_path(victim).read_text())["key"] == victim.key


def test_unreadable_entries_count_as_missing_and_the_tables_are_still_written(tmp_path, caplog):
    cfg = small_cfg(tmp_path, tmp_path / "store")
    run(cfg, tmp_path / "out1")
    store = ResultStore(tmp_path / "store")
    plans = plan_job(cfg).plans
    folder, garbage = store.result_path(plans[0]), store.result_path(plans[1])
    folder.unlink()
    (folder / "nested").mkdir(parents=True)  # a folder where the record should be
    garbage.write_bytes(b"\xff\xfe not json")
    with caplog.at_level(logging.WARNING):
        outcome = run(cfg, tmp_path / "out2")
    assert (outcome.summary.ran, outcome.summary.reused) == (2, 4)
    assert len(outcome.sessions) == 6 and set(outcome.sessions["status"]) == {"finished"}
    assert (tmp_path / "out2" / "sessions.csv").is_file()
    assert folder.is_file() and json.loads(garbage.read_text())["key"] == plans[1].key
    assert "unreadable" in caplog.text


def test_a_session_locked_by_another_job_is_waited_for_and_reused_not_rerun(tmp_path):
    cfg = small_cfg(tmp_path, tmp_path / "store")
    plans = plan_job(cfg).plans
    held = plans[0]
    store = ResultStore(tmp_path / "store")
    # the "other job": a finished run of the same session in another store
    other = small_cfg(tmp_path, tmp_path / "other", "tasks.limit=1", "seeds=[0]")
    run(other, tmp_path / "out-other")
    other_store = ResultStore(tmp_path / "other")
    lock = store.lock(held)
    outcome: list = []
    job = threading.Thread(target=lambda: outcome.append(run(cfg, tmp_path / "out")))
    job.start()
    deadline = time.monotonic() + 120
    while sum(store.load(p, warn=False) is not None for p in plans[1:]) < 5:
        assert time.monotonic() < deadline and job.is_alive()
        time.sleep(0.05)
    time.sleep(0.3)
    assert job.is_alive()  # waiting for the held session, not running it
    for name in ("trace.jsonl", "plan.json", "result.json"):
        shutil.copy(other_store.session_dir(held) / name, store.session_dir(held) / name)
    lock.release()
    job.join(120)
    assert not job.is_alive()
    assert (outcome[0].summary.ran, outcome[0].summary.reused) == (5, 1)
    assert store.trace_path(held).read_bytes() == other_store.trace_path(held).read_bytes()


def test_two_concurrent_jobs_on_one_store_run_each_session_once(tmp_path):
    store = tmp_path / "store"
    args = [
        "run",
        "tasks.n_tasks=12",
        f"tasks.root={tmp_path / 'suite'}",
        "team=all",
        "structure=default",
        "seeds=[0]",
        f"run.store={store}",
        "run.progress=false",
        "run.show_sessions=false",
        "run.max_concurrency=2",
    ]
    # generate the suite once so both jobs start their sessions at about the same time
    plan_job(compose_config(args[1:]))
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "collabsim.cli.main", *args, f"hydra.run.dir={tmp_path / n}"],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in ("a", "b")
    ]
    outputs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e[-2000:] for _, e in outputs]
    counts = [
        tuple(map(int, re.search(r"(\d+) sessions run, (\d+) reused", out).groups()))
        for out, _ in outputs
    ]
    total = 12 * 4  # single, D, R and DR (under default) for 12 tasks
    assert counts[0][0] + counts[1][0] == total, counts
    assert all(ran + reused == total for ran, reused in counts)
    results = sorted((store / "sessions").glob("*/result.json"))
    assert len(results) == total
    for path in results:
        record = json.loads(path.read_text())
        plan = json.loads((path.parent / "plan.json").read_text())
        assert record["key"] == plan["key"] and record["status"] == "finished"
    for name in ("a", "b"):
        table = (tmp_path / name / "sessions.csv").read_text().splitlines()
        assert len(table) == total + 1 and len(set(table)) == total + 1


def test_an_edited_result_is_checked_against_its_trace_and_rerun(tmp_path, caplog):
    """Issue 23, item 5: an edited ``submitted_hypothesis`` was reused silently."""
    cfg = small_cfg(tmp_path, tmp_path / "store")
    first = run(cfg, tmp_path / "out1")
    store = ResultStore(tmp_path / "store")
    plans = plan_job(cfg).plans
    edited, retraced = store.result_path(plans[0]), store.trace_path(plans[1])
    record = json.loads(edited.read_text())
    record["submitted_hypothesis"] = "Around 1234 BCE, everything peaked."
    edited.write_text(json.dumps(record))
    # a trace changed after its result was written no longer matches the stored digest
    retraced.write_text(retraced.read_text().replace('"observation": ""', '"observation": " "', 1))
    with caplog.at_level(logging.WARNING):
        second = run(cfg, tmp_path / "out2")
    assert (second.summary.ran, second.summary.reused) == (2, 4)
    assert str(edited) in caplog.text and "differs from the one in trace.jsonl" in caplog.text
    assert str(store.result_path(plans[1])) in caplog.text and "digest" in caplog.text
    assert first.sessions["hypothesis"].equals(second.sessions["hypothesis"])
    assert first.sessions["Performance"].equals(second.sessions["Performance"])
    rewritten = json.loads(edited.read_text())
    assert rewritten["submitted_hypothesis"] == first.sessions["hypothesis"].iloc[0]
    assert len(rewritten["trace_sha256"]) == 64
    # the rerun wrote a consistent record again: a third run reuses everything
    assert run(cfg, tmp_path / "out3").summary.ran == 0



def _edit(value):
    return lambda record: record.update(value)


@pytest.mark.parametrize(("edit", "why"), [
    (_edit({"counts": {"agent": "EXECUTE_CODE"}}), "not a result record"),
    (_edit({"counts": ["agent"]}), "not a result record"),
    (_edit({"gates": "FINISH"}), "not a result record"),
    (_edit({"turns": 1}), "record_sha256 differs"),
    (_edit({"virtual_seconds": 1.5}), "record_sha256 differs"),
    (_edit({"counts": {"agent": {"EXECUTE_CODE": 99}}}), "record_sha256 differs"),
], ids=["counts of text", "counts a list", "gates of text", "turns", "virtual_seconds",
        "counts changed"])
def test_every_field_a_reuse_reads_is_checked(edit, why, tmp_path, caplog):
    """Issue 38.11: a malformed or edited result.json is rerun with a warning, never reused
    and never a crash of the whole job."""
    cfg = small_cfg(tmp_path, tmp_path / "store")
    first = run(cfg, tmp_path / "out1")
    store = ResultStore(tmp_path / "store")
    path = store.result_path(plan_job(cfg).plans[0])
    record = json.loads(path.read_text())
    edit(record)
    path.write_text(json.dumps(record))
    with caplog.at_level(logging.WARNING):
        second = run(cfg, tmp_path / "out2")
    assert (second.summary.ran, second.summary.reused) == (1, 5)
    assert str(path) in caplog.text and why in caplog.text
    assert first.sessions.drop(columns="trace_path", errors="ignore").equals(
        second.sessions.drop(columns="trace_path", errors="ignore"))
