"""User errors through ``collabsim run`` as a user meets them (real subprocesses).

Every bad value ends with exit code 2 and one line on stderr naming the setting, without a
Python traceback and without writing anything: no Hydra output folder, no ``.hydra/``, no
plan.json, no store.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SECRET = "sk-test-DO-NOT-ECHO-0123456789"


def collabsim(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "collabsim.cli.main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def corrupt_root(tmp_path: Path) -> Path:
    root = tmp_path / "corrupt"
    folder = root / "real" / "test" / "archaeology"
    folder.mkdir(parents=True)
    (folder / "metadata_0.json").write_text("{not json", encoding="utf-8")
    return root


def non_utf8_root(tmp_path: Path, discoverybench_root: Path) -> Path:
    root = tmp_path / "db"
    source = discoverybench_root / "real" / "test" / "archaeology"
    bad = os.path.join(os.fsencode(root / "real" / "test"), b"arch\xff")
    os.makedirs(bad)
    for item in source.iterdir():
        if item.name == "metadata_27.json" or item.suffix == ".csv":
            shutil.copy(item, os.path.join(bad, os.fsencode(item.name)))
    shutil.copytree(discoverybench_root / "eval", root / "eval")
    return root


# (bad override(s), the setting the one line must name)
BAD_VALUES = [
    (["tasks=discoverybench"], "tasks.root"),
    (["tasks=discoverybench", "tasks.root={tmp}/missing"], "tasks.root"),
    (["tasks=discoverybench", "tasks.root={corrupt}"], "tasks.root"),
    (["tasks=discoverybench", "tasks.root={non_utf8}"], "tasks.root"),
    (["seeds=-5"], "seeds"),
    (["seeds=abc"], "seeds"),
    (['seeds="12"'], "seeds"),
    (["seeds=[]"], "seeds"),
    (["run.max_concurrency=0"], "run.max_concurrency"),
    (["tasks.limit=0"], "tasks.limit"),
    (["tasks.limit=-1"], "tasks.limit"),
    (["run.max_turns=0"], "run.max_turns"),
    (["run.max_virtual_seconds=-1"], "run.max_virtual_seconds"),
    (["sandbox.memory_mb=0"], "sandbox.memory_mb"),
    (["sandbox.output_chars=abc"], "sandbox.output_chars"),
    (["sandbox.disk_mb=0"], "sandbox.disk_mb"),
    (["tasks.ids=[nope/0/0]"], "tasks.ids"),
    (["run.store=/etc/passwd"], "run.store"),
    (["team=XYZ"], "team"),
    (["structure.names=[gates]"], "structure.names"),
    (["policy.agent.mistakes.wrong_ordinal=2"], "policy.agent"),
    (["+team.profiles.D.params.asertiveness=0.9"], "asertiveness"),
    (["+structure.overrides.scaffolded.build_max_turns=0"], "structure.overrides"),
    (["+clock.seed_offset=1"], "clock"),
    ([f"+llm.agent.extra.api_key={SECRET}"], "llm.agent.extra"),
    (["-m", "team=D,XYZ"], "team"),
    (["-m", "seeds=[0],[-1]"], "seeds"),
    (["seeds=["], "seeds=["),
    (["--frobnicate"], "--frobnicate"),
]


@pytest.mark.parametrize(
    ("overrides", "setting"), BAD_VALUES, ids=[" ".join(o) for o, _ in BAD_VALUES]
)
def test_bad_value_is_one_line_exit_2_and_nothing_written(
    overrides, setting, tmp_path, discoverybench_root
):
    work = tmp_path / "work"
    work.mkdir()
    places = {"tmp": tmp_path}
    if any("{corrupt}" in o for o in overrides):
        places["corrupt"] = corrupt_root(tmp_path)
    if any("{non_utf8}" in o for o in overrides):
        places["non_utf8"] = non_utf8_root(tmp_path, discoverybench_root)
    args = [o.format(**places) for o in overrides]
    out = tmp_path / "out"
    store = tmp_path / "store"
    uses_store = any(a.startswith("run.store=") for a in args)
    small_suite = [] if "tasks=discoverybench" in args else [
        "tasks.n_tasks=3", f"tasks.root={tmp_path / 'suite'}"
    ]  # fmt: skip
    if any(a.startswith(("tasks.root=", "tasks.ids=")) for a in args):
        small_suite = small_suite[:1]
    proc = collabsim(
        "run",
        *args,
        *small_suite,
        *([] if uses_store else [f"run.store={store}"]),
        f"hydra.run.dir={out}",
        f"hydra.sweep.dir={out}",
        cwd=work,
    )
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("collabsim run: ") and setting in lines[0], lines[0]
    assert "Traceback" not in proc.stderr + proc.stdout
    assert SECRET not in proc.stderr + proc.stdout
    assert not out.exists() and not store.exists()
    assert list(work.iterdir()) == []  # no outputs/, multirun/, .hydra/ in the working folder


def test_run_on_a_folder_of_bad_data_reports_problems_and_skips_those_tasks(
    tmp_path, discoverybench_root
):
    """Empty and binary CSVs are load problems: the task is skipped, never scored 0."""
    from collabsim.experiment.tasksource import resolve_tasks

    root = tmp_path / "db"
    shutil.copytree(discoverybench_root / "eval", root / "eval")
    source = discoverybench_root / "real" / "test" / "archaeology"
    meta = json.loads((source / "metadata_27.json").read_text(encoding="utf-8"))
    for name, content in (("good", None), ("empty", b""), ("binary", b"\x00\x01\x02PK\x03\x04")):
        folder = root / "real" / "test" / name
        folder.mkdir(parents=True)
        (folder / "metadata_27.json").write_text(json.dumps(meta), encoding="utf-8")
        for entry in meta["datasets"]:
            target = folder / entry["name"]
            if content is None:
                shutil.copy(source / entry["name"], target)
            else:
                target.write_bytes(content)
    tasks, report = resolve_tasks({"kind": "discoverybench", "root": str(root)})
    assert {t.dataset for t in tasks} == {"good"}
    problems = " ".join(f"{p.path} {p.message}" for p in report.problems)
    assert "empty" in problems and "binary" in problems


@pytest.mark.parametrize("command", [["kolab", "report"], ["kolab", "instances"], ["dynamics"]])
def test_a_sessions_file_without_sessions_is_an_error(command, tmp_path):
    data = tmp_path / "sessions.json"
    data.write_text(json.dumps({"sessions": []}), encoding="utf-8")
    if command[0] == "kolab":
        args = [*command, "--data", str(data)] + (
            ["--out", str(tmp_path / "rep")] if command[1] == "report" else []
        )
    else:
        args = [*command, str(data)]
    proc = collabsim(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no sessions" in lines[0] and "sessions.json" in lines[0]
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "rep").exists()
