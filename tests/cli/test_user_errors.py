"""User errors through ``collabsim run`` as a user meets them.

Every bad value ends with exit code 2 and one line on stderr naming the setting, without a
Python traceback and without writing anything: no Hydra output folder, no ``.hydra/``, no
plan.json, no store. The command runs in the test process (``collabsim_cli``: exit code and
file-descriptor output as a shell sees them); a few values go through a real subprocess too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

SECRET = "sk-test-DO-NOT-ECHO-0123456789"


def collabsim_process(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
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
    (["sandbox.max_files=0"], "sandbox.max_files"),
    (["sandbox.max_files=1e9"], "sandbox.max_files"),
    (["sandbox.max_files=2000000"], "sandbox.max_files"),
    # non-finite or absurd limits (issue 23, item 10): refused, not an OverflowError per cell
    (["sandbox.cpu_seconds=inf"], "sandbox.cpu_seconds"),
    (["sandbox.wall_seconds=inf"], "sandbox.wall_seconds"),
    (["sandbox.wall_seconds=1e300"], "sandbox.wall_seconds"),
    (["sandbox.wall_seconds=nan"], "sandbox.wall_seconds"),
    (["sandbox.memory_mb=1e15"], "sandbox.memory_mb"),
    (["sandbox.file_mb=1e15"], "sandbox.file_mb"),
    # a key inside a URL (issue 23, item 13): Hydra would write it to .hydra/*.yaml
    ([f"+llm.agent.extra.api_base=http://user:{SECRET}@host/v1"], "llm.agent.extra.api_base"),
    (["+llm.agent.extra.api_base=http://user:hunter2@host/v1"], "llm.agent.extra.api_base"),
    (["tasks.ids=[nope/0/0]"], "tasks.ids"),
    (["run.store=/etc/passwd"], "run.store"),
    (["team=XYZ"], "team"),
    (["structure.names=[gates]"], "structure.names"),
    (["policy.agent.mistakes.wrong_ordinal=2"], "policy.agent"),
    # issue 38.18: every scripted parameter checked before anything is written
    (["+policy.agent.deferenc=0.3"], "deferenc"),
    (["policy.agent.deference=-1"], "policy.agent: deference"),
    (["policy.agent.deference=2"], "policy.agent: deference"),
    (["+policy.collaborator.assertivenes=0.3"], "assertivenes"),
    (["+policy.collaborator.error_in_area=2"], "policy.collaborator: error_in_area"),
    (["+team.profiles.D.params.asertiveness=0.9"], "asertiveness"),
    (["+structure.overrides.scaffolded.build_max_turns=0"], "structure.overrides"),
    (["+clock.seed_offset=1"], "clock"),
    (["metrics.initiative_events=everything"], "metrics.initiative_events"),
    (["+metrics.initiative_phase=work"], "metrics.initiative_phase"),
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
    overrides, setting, tmp_path, discoverybench_root, collabsim_cli
):
    _check_bad_value(overrides, setting, tmp_path, discoverybench_root, collabsim_cli)


# one value per route to the refusal (settings model, Hydra multirun, command-line parser)
@pytest.mark.parametrize(
    ("overrides", "setting"),
    [(["seeds=-5"], "seeds"), (["-m", "team=D,XYZ"], "team"), (["--frobnicate"], "--frobnicate")],
    ids=["settings", "multirun", "parser"],
)
def test_bad_value_through_a_real_process_is_one_line_exit_2(
    overrides, setting, tmp_path, discoverybench_root
):
    _check_bad_value(overrides, setting, tmp_path, discoverybench_root, collabsim_process)


def _check_bad_value(
    overrides: list[str],
    setting: str,
    tmp_path: Path,
    discoverybench_root: Path,
    collabsim: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
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
def test_a_sessions_file_without_sessions_is_an_error(command, tmp_path, collabsim_cli):
    data = tmp_path / "sessions.json"
    data.write_text(json.dumps({"sessions": []}), encoding="utf-8")
    if command[0] == "kolab":
        args = [*command, "--data", str(data)] + (
            ["--out", str(tmp_path / "rep")] if command[1] == "report" else []
        )
    else:
        args = [*command, str(data)]
    proc = collabsim_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no sessions" in lines[0] and "sessions.json" in lines[0]
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "rep").exists()


def _conf_dir(tmp_path: Path, experiment: str) -> Path:
    conf = tmp_path / "myconf" / "experiment"
    conf.mkdir(parents=True)
    (conf / "bad.yaml").write_text("# @package _global_\n" + experiment, encoding="utf-8")
    return conf.parent


# settings in a config file under --config-dir (issue 23, items 10, 13 and 14)
CONF_FILE_VALUES = [
    ("sandbox:\n  wall_seconds: .inf\n", "sandbox.wall_seconds"),
    ("sandbox:\n  memory_mb: 1e15\n", "sandbox.memory_mb"),
    ("run:\n  max_concurrency: 0\n", "run.max_concurrency"),
    ("llm:\n  agent:\n    extra:\n      api_base: http://u:hunter2@host/v1\n",
     "llm.agent.extra.api_base"),
]


@pytest.mark.parametrize(("experiment", "setting"), CONF_FILE_VALUES,
                         ids=[s for _, s in CONF_FILE_VALUES])
def test_bad_setting_in_a_config_dir_is_one_line_and_leaves_nothing(experiment, setting,
                                                                    tmp_path, collabsim_cli):
    """``collabsim run -cd myconf experiment=bad``: refused before Hydra writes its job
    folder, ``.hydra/`` or ``run_app.log``."""
    conf = _conf_dir(tmp_path, experiment)
    work = tmp_path / "work"
    work.mkdir()
    out = tmp_path / "out"
    proc = collabsim_cli("run", "-cd", str(conf), "experiment=bad", "team=single", "seeds=[0]",
                     "tasks.n_tasks=1", f"tasks.root={tmp_path / 'suite'}",
                     f"run.store={tmp_path / 'store'}", f"hydra.run.dir={out}", cwd=work)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert len(lines) == 1 and setting in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr and "hunter2" not in proc.stderr + proc.stdout
    assert not out.exists() and not (tmp_path / "store").exists()
    assert list(work.iterdir()) == []


def test_kolab_report_on_one_participant_is_one_line_exit_2(tmp_path, kolab_sessions_path,
                                                           collabsim_cli):
    data = json.loads(kolab_sessions_path.read_text(encoding="utf-8"))
    data["sessions"] = [s for s in data["sessions"] if s["participant_id"] == "p1"]
    one = tmp_path / "one.json"
    one.write_text(json.dumps(data), encoding="utf-8")
    proc = collabsim_cli("kolab", "report", "--data", str(one), "--out", str(tmp_path / "rep"),
                     "--bootstrap", "5", "--permutations", "2", "--no-progress",
                     "--no-dynamics", cwd=tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert len(lines) == 1 and "2 participants" in lines[0] and "one.json" in lines[0], lines
    assert not (tmp_path / "rep").exists()


def _root_with_bad_tables(tmp_path: Path, discoverybench_root: Path) -> Path:
    """One good archaeology task, one whose CSV is a header only, one whose CSV is prose."""
    root = tmp_path / "db"
    shutil.copytree(discoverybench_root / "eval", root / "eval")
    source = discoverybench_root / "real" / "test" / "archaeology"
    meta = json.loads((source / "metadata_27.json").read_text(encoding="utf-8"))
    prose = ("The settlement data were collected over many seasons, and they show, in short,\n"
             "that the region changed a lot. We do not include the numbers here.\n")
    for name in ("good", "headeronly", "prose"):
        folder = root / "real" / "test" / name
        folder.mkdir(parents=True)
        (folder / "metadata_27.json").write_text(json.dumps(meta), encoding="utf-8")
        for entry in meta["datasets"]:
            target = folder / entry["name"]
            if name == "good":
                shutil.copy(source / entry["name"], target)
            elif name == "headeronly":
                header = (source / entry["name"]).read_text(encoding="utf-8").splitlines()[0]
                target.write_text(header + "\n", encoding="utf-8")
            else:
                target.write_text(prose, encoding="utf-8")
    return root


def test_header_only_and_prose_csvs_are_listed_problems_not_tasks(tmp_path, discoverybench_root):
    """Issue 23, item 11: such files used to load as tasks and be scored 0.0."""
    from collabsim.experiment.tasksource import resolve_tasks

    root = _root_with_bad_tables(tmp_path, discoverybench_root)
    tasks, report = resolve_tasks({"kind": "discoverybench", "root": str(root)})
    assert {t.dataset for t in tasks} == {"good"}
    problems = {p.path.parent.name: p.message for p in report.problems}
    assert set(problems) == {"headeronly", "prose"}
    assert "no data rows" in problems["headeronly"]
    assert "names none of its columns" in problems["prose"]


def test_run_says_how_many_task_files_it_skipped_and_where_the_list_is(
    tmp_path, discoverybench_root, collabsim_cli
):
    root = _root_with_bad_tables(tmp_path, discoverybench_root)
    out = tmp_path / "out"
    proc = collabsim_cli("run", "tasks=discoverybench", f"tasks.root={root}", "team=single",
                     "structure=default", "seeds=[0]", "run.progress=false",
                     f"hydra.run.dir={out}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    listed = out / "task_problems.csv"
    assert "2 task problem(s) under tasks.root (bad data" in proc.stdout
    assert str(listed) in proc.stdout
    text = listed.read_text(encoding="utf-8")
    assert "headeronly" in text and "prose" in text and "good" not in text
    sessions = (out / "sessions.csv").read_text(encoding="utf-8")
    assert "good/27/" in sessions and "prose" not in sessions and "headeronly" not in sessions
