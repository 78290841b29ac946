"""Tracking with the real wandb package, offline: runs are read back from their files."""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from collabsim.tracking import NullTracker, make_tracker, run_identity, variant_summary

METRICS = ("Performance", "H_init_norm", "W_human", "M_team", "C_wf", "cost_usd")


def read_offline_run(run_dir: Path) -> dict:
    """Decode an offline run's ``run-*.wandb`` log (LevelDB-style blocks of Record protos)."""
    from wandb.proto import wandb_internal_pb2 as pb

    (path,) = run_dir.glob("run-*.wandb")
    data = path.read_bytes()
    assert data[:4] == b":W&B"
    pos, block, buf = 7, 32768, b""
    out: dict = {"summary": {}, "history": []}
    while pos + 7 <= len(data):
        if block - pos % block < 7:
            pos += block - pos % block
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos:pos + 7])
        chunk, pos = data[pos + 7:pos + 7 + length], pos + 7 + length
        if kind == 0:
            continue
        buf = chunk if kind in (1, 2) else buf + chunk
        if kind not in (1, 4):
            continue
        record = pb.Record()
        record.ParseFromString(buf)
        which = record.WhichOneof("record_type")
        if which == "run":
            out.update(name=record.run.display_name, group=record.run.run_group,
                       job_type=record.run.job_type, tags=list(record.run.tags))
        elif which == "summary":
            for item in record.summary.update:
                out["summary"][item.key or "/".join(item.nested_key)] = json.loads(item.value_json)
        elif which == "history":
            out["history"].append({i.key or "/".join(i.nested_key): json.loads(i.value_json)
                                   for i in record.history.item})
    return out


@pytest.fixture(scope="module")
def wandb_sweep(tmp_path_factory):
    root = tmp_path_factory.mktemp("wandb_sweep")
    proc = subprocess.run(
        [sys.executable, "-m", "collabsim.cli.main", "run", "-m", "tracking=wandb",
         "tracking.per_session=true", "team=D,DR", "structure=scaffolded", "tasks.limit=2",
         "run.progress=false", f"hydra.sweep.dir={root / 'multirun'}"],
        cwd=root, capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root / "multirun", proc


def runs_of(sweep: Path) -> dict[str, dict]:
    runs = {}
    for job in ("0", "1"):
        (run_dir,) = (sweep / job / "wandb").glob("offline-run-*")
        runs[job] = read_offline_run(run_dir)
    return runs


def test_offline_runs_have_name_tags_group_and_job_type(wandb_sweep):
    sweep, _ = wandb_sweep
    runs = runs_of(sweep)
    assert runs["0"]["name"] == "scaffolded/D #0" and runs["1"]["name"] == "scaffolded/DR #1"
    assert set(runs["1"]["tags"]) >= {"structure:scaffolded", "team:DR", "policy:scripted"}
    groups = {r["group"] for r in runs.values()}
    assert len(groups) == 1  # every job of the sweep shares the sweep id
    assert re.fullmatch(r"sweep-.+_multirun-[0-9a-f]{8}", groups.pop())
    assert {r["job_type"] for r in runs.values()} == {"sweep-job"}


def test_offline_run_summary_has_the_variant_metrics(wandb_sweep):
    sweep, _ = wandb_sweep
    job = pd.read_csv(sweep / "1" / "sessions.csv")
    summary = runs_of(sweep)["1"]["summary"]
    for metric in METRICS:
        assert f"scaffolded/DR/{metric}" in summary and metric in summary
    assert summary["Performance"] == pytest.approx(job["Performance"].mean())
    assert summary["W_human"] == pytest.approx(job["W_human"].mean())
    assert summary["cost_usd"] == 0.0  # scripted policies make no model calls
    assert summary["comparison/_type"] == "table-file"
    table = json.loads((next((sweep / "1" / "wandb").glob("offline-run-*"))
                        / "files" / summary["comparison/path"]).read_text())
    assert table["data"][0][table["columns"].index("variant")] == "scaffolded/DR"


def test_per_session_history_and_no_deprecation(wandb_sweep):
    sweep, proc = wandb_sweep
    history = runs_of(sweep)["0"]["history"]
    per_session = [h for h in history if "session/Performance" in h]
    assert len(per_session) == 2  # two tasks, one seed
    assert "deprecat" not in (proc.stdout + proc.stderr).lower()


def test_groups_are_unique_per_sweep_and_per_run(tmp_path):
    ids = []
    for sweep in ("a", "b"):
        folder = tmp_path / "2026-12-01" / sweep
        (folder / "0").mkdir(parents=True)
        (folder / "multirun.yaml").write_text("{}")
        ids.append(run_identity({}, folder / "0")["group"])
    assert ids[0] != ids[1]
    single = run_identity({}, tmp_path / "outputs" / "10-00-00")
    assert single["group"].startswith("run-") and single["job_type"] == "run"
    assert run_identity({"tracking": {"group": "mine"}}, tmp_path / "x")["group"] == "mine"


def test_llm_models_become_tags(tmp_path):
    config = {"policy": {"name": "llm"}, "team": {"compositions": ["DR"]},
              "structure": {"names": ["default"]},
              "llm": {"agent": {"model": "gpt-4o-mini"},
                      "collaborator": {"model": "collabsim/scripted"}}}
    identity = run_identity(config, tmp_path / "job")
    assert identity["name"] == "default/DR"
    assert {"agent:gpt-4o-mini", "collaborator:collabsim/scripted", "policy:llm"} <= set(
        identity["tags"])


def test_variant_summary_prefixes_each_variant():
    agg = pd.DataFrame({"structure": ["single", "default"], "team": ["single", "D"],
                        "Performance_mean": [0.5, 0.75], "Performance_se": [0.1, float("nan")]})
    summary = variant_summary(agg, ["Performance"])
    assert summary == {"single/single/Performance": 0.5, "single/single/Performance_se": 0.1,
                       "default/D/Performance": 0.75, "Performance": 0.75}


def test_none_backend_is_a_no_op(tmp_path: Path):
    assert isinstance(make_tracker({"backend": "none"}, {}, tmp_path), NullTracker)


def test_unknown_backend_is_rejected(tmp_path: Path):
    with pytest.raises(ValueError, match="tracking.backend"):
        make_tracker({"backend": "mlflow"}, {}, tmp_path)


def test_missing_wandb_gives_an_install_hint(monkeypatch, tmp_path: Path):
    monkeypatch.setitem(sys.modules, "wandb", None)
    with pytest.raises(RuntimeError, match=r"pip install 'collabsim\[wandb\]'"):
        make_tracker({"backend": "wandb"}, {}, tmp_path)
