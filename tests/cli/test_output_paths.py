"""Every user-named output path is checked before anything is written (issue 23, item 2).

``--out`` never replaces a device, an input of the same command, or a folder holding files
collabsim did not write; ``--out ''`` is a one-line error; files are written atomically.
The commands run in the test process (``collabsim_cli``: exit code and file-descriptor output
as a shell sees them).
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
from pathlib import Path

import pytest

SESSION = "p1|s1"


def one_line_exit_2(proc: subprocess.CompletedProcess[str], needle: str) -> None:
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], proc.stderr


@contextlib.contextmanager
def dev_null_guard():
    """Put /dev/null back should a broken build replace it (the machine is shared)."""
    try:
        yield Path("/dev/null")
    finally:
        if not stat.S_ISCHR(os.stat("/dev/null").st_mode) and os.geteuid() == 0:
            os.remove("/dev/null")
            os.mknod("/dev/null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            os.chmod("/dev/null", 0o666)


@pytest.fixture
def device(tmp_path):
    """A character device of our own (root only), so a failing build cannot hurt the system."""
    if os.geteuid() != 0:
        pytest.skip("creating a device node needs root; /dev/null is tested instead")
    node = tmp_path / "null"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return node


def test_view_out_dev_null_leaves_the_device_alone(tmp_path, kolab_sessions_path,
                                                  collabsim_cli):
    with dev_null_guard() as null:
        proc = collabsim_cli("view", str(kolab_sessions_path), "--session", SESSION, "--out",
                         str(null), cwd=tmp_path)
        assert stat.S_ISCHR(os.stat(null).st_mode)  # still the device
    one_line_exit_2(proc, "/dev/null")


@pytest.mark.parametrize("command", ["view", "dynamics"])
def test_out_on_a_device_is_refused_and_the_device_stays(command, device, tmp_path,
                                                         kolab_sessions_path, collabsim_cli):
    args = ["--session", SESSION] if command == "view" else []
    proc = collabsim_cli(command, str(kolab_sessions_path), *args, "--out", str(device),
                     cwd=tmp_path)
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    one_line_exit_2(proc, str(device))


def test_view_out_on_its_input_trace_keeps_the_trace(tmp_path, kolab_sessions_path,
                                                    collabsim_cli):
    data = tmp_path / "sessions.json"
    data.write_bytes(kolab_sessions_path.read_bytes())
    before = data.read_bytes()
    proc = collabsim_cli("view", str(data), "--session", SESSION, "--out", str(data), cwd=tmp_path)
    one_line_exit_2(proc, "input")
    assert data.read_bytes() == before


@pytest.mark.parametrize("command", ["view", "dynamics", "report", "kolab", "calibrate",
                                     "fidelity", "data"])
def test_empty_out_is_one_line_exit_2(command, tmp_path, kolab_sessions_path, collabsim_cli):
    k = str(kolab_sessions_path)
    argv = {
        "view": ["view", k, "--session", SESSION, "--out", ""],
        "dynamics": ["dynamics", k, "--out", ""],
        "report": ["report", str(tmp_path), "--out", ""],
        "kolab": ["kolab", "report", "--data", k, "--out", ""],
        "calibrate": ["calibrate", "--kolab", k, "--out", ""],
        "fidelity": ["fidelity", str(tmp_path), "--kolab", k, "--out", ""],
        "data": ["data", "fetch", "discoverybench", "--dest", "", "--url",
                 "http://127.0.0.1:9/none.tar.gz", "--no-progress"],
    }[command]
    (tmp_path / "keep.txt").write_text("mine")
    proc = collabsim_cli(*argv, cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


@pytest.mark.parametrize("command", ["report", "kolab", "calibrate", "fidelity"])
def test_out_folder_with_other_files_is_refused(command, tmp_path, kolab_sessions_path,
                                                collabsim_cli):
    out = tmp_path / "mine"
    (out / "other").mkdir(parents=True)
    (out / "other" / "results.csv").write_text("precious")
    (out / "notes.txt").write_text("precious")
    k = str(kolab_sessions_path)
    argv = {
        "report": ["report", str(tmp_path / "nothing"), "--out", str(out)],
        "kolab": ["kolab", "report", "--data", k, "--out", str(out)],
        "calibrate": ["calibrate", "--kolab", k, "--out", str(out)],
        "fidelity": ["fidelity", str(tmp_path / "nothing"), "--kolab", k, "--out", str(out)],
    }[command]
    proc = collabsim_cli(*argv, cwd=tmp_path)
    one_line_exit_2(proc, str(out))
    assert (out / "other" / "results.csv").read_text() == "precious"
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "other"]


@pytest.mark.parametrize("command", ["kolab", "calibrate", "dynamics"])
def test_out_on_the_input_data_file_is_refused(command, tmp_path, kolab_sessions_path,
                                                collabsim_cli):
    data = tmp_path / "sessions.json"
    data.write_bytes(kolab_sessions_path.read_bytes())
    before = data.read_bytes()
    argv = {
        "kolab": ["kolab", "report", "--data", str(data), "--out", str(data)],
        "calibrate": ["calibrate", "--kolab", str(data), "--out", str(data)],
        "dynamics": ["dynamics", str(data), "--out", str(data)],
    }[command]
    proc = collabsim_cli(*argv, cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert data.read_bytes() == before


def test_guard_rules(tmp_path):
    from collabsim.core.outputs import OutputPathError, check_output_dir, check_output_file

    (tmp_path / "in.jsonl").write_text("x")
    with pytest.raises(OutputPathError, match="empty"):
        check_output_file("")
    with pytest.raises(OutputPathError, match="input"):
        check_output_file(tmp_path / "in.jsonl", inputs=[tmp_path / "in.jsonl"])
    with pytest.raises(OutputPathError, match="folder"):
        check_output_file(tmp_path)
    with pytest.raises(OutputPathError, match="device"):
        check_output_file("/dev/null")
    with pytest.raises(OutputPathError, match="not a folder"):
        check_output_dir("/dev/null")
    with pytest.raises(OutputPathError, match="input"):
        check_output_dir(tmp_path, inputs=[tmp_path])
    # a rerun into the command's own output folder is fine
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "report.md").write_text("old")
    assert check_output_dir(tmp_path / "rep", own_names=("report.md",)) == tmp_path / "rep"
    assert check_output_file(tmp_path / "new" / "page.html") == tmp_path / "new" / "page.html"


def test_atomic_file_leaves_the_old_file_when_writing_fails(tmp_path):
    from collabsim.core.outputs import atomic_file

    out = tmp_path / "page.html"
    out.write_text("previous page")
    with pytest.raises(RuntimeError), atomic_file(out) as tmp:
        tmp.write_text("half")
        raise RuntimeError("disk full half-way")
    assert out.read_text() == "previous page"
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]  # no temporary left
    with atomic_file(out) as tmp:
        tmp.write_text("new page")
    assert out.read_text() == "new page" and oct(out.stat().st_mode & 0o777) != "0o600"


# ------------------------------------------------ the job folder and the caches (issue 38.12/17)
RUN = ("run", "team=single", "seeds=[0]", "tasks.n_tasks=1", "run.show_sessions=false")


def _run(collabsim_cli, tmp_path: Path, *overrides: str) -> subprocess.CompletedProcess[str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return collabsim_cli(*RUN, *overrides, cwd=work)


@pytest.mark.parametrize("kind", ["file", "device", "proc", "under a file"])
def test_a_job_folder_that_cannot_be_one_is_refused_before_hydra_writes(
    kind, tmp_path, device, collabsim_cli
):
    folder = {"file": tmp_path / "a_file", "device": device, "proc": Path("/proc/collabsim_x"),
              "under a file": tmp_path / "a_file" / "job"}[kind]
    (tmp_path / "a_file").write_text("mine\n", encoding="utf-8")
    proc = _run(collabsim_cli, tmp_path, f"hydra.run.dir={folder}")
    one_line_exit_2(proc, "hydra.run.dir=")
    assert (tmp_path / "a_file").read_text(encoding="utf-8") == "mine\n"
    assert not any((tmp_path / "work").iterdir())


def test_a_users_own_file_in_the_job_folder_is_never_replaced(tmp_path, collabsim_cli):
    job = tmp_path / "mine"
    job.mkdir()
    (job / "sessions.csv").write_text("my own table\n", encoding="utf-8")
    proc = _run(collabsim_cli, tmp_path, f"hydra.run.dir={job}")
    one_line_exit_2(proc, "sessions.csv was not written by collabsim")
    assert (job / "sessions.csv").read_text(encoding="utf-8") == "my own table\n"
    assert sorted(p.name for p in job.iterdir()) == ["sessions.csv"]


@pytest.mark.parametrize("planted", [".hydra/config.yaml", ".hydra", "report.txt"])
def test_a_link_planted_in_the_job_folder_is_not_written_through(planted, tmp_path,
                                                                 collabsim_cli):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "config.yaml").write_text("keep\n", encoding="utf-8")
    job = tmp_path / "job"
    (job / ".hydra").mkdir(parents=True)
    link = job / planted
    if planted == ".hydra":
        (job / ".hydra").rmdir()
        link.symlink_to(precious, target_is_directory=True)
    else:
        (job / ".hydra" / "config.yaml").write_text("x: 1\n", encoding="utf-8")
        link.unlink(missing_ok=True)
        link.symlink_to(precious / "config.yaml")
    proc = _run(collabsim_cli, tmp_path, f"hydra.run.dir={job}")
    one_line_exit_2(proc, "is a symbolic link")
    assert (precious / "config.yaml").read_text(encoding="utf-8") == "keep\n"


def test_a_job_folder_collabsim_wrote_is_rerun_in_place(tmp_path, collabsim_cli):
    job = tmp_path / "job"
    first = _run(collabsim_cli, tmp_path, f"hydra.run.dir={job}")
    assert first.returncode == 0, first.stderr[-2000:]
    again = _run(collabsim_cli, tmp_path, f"hydra.run.dir={job}", f"run.store={job}")
    assert again.returncode == 0, again.stderr[-2000:]
    assert "1 reused from the store" in again.stdout


@pytest.mark.parametrize(("setting", "where"), [
    ("run.store", "/proc/collabsim_store"), ("run.store", "{file}"),
    ("COLLABSIM_CACHE_DIR", "/proc/collabsim_cache"), ("COLLABSIM_CACHE_DIR", "{file}"),
])
def test_stores_and_caches_that_cannot_be_written_are_one_line(setting, where, tmp_path,
                                                               collabsim_cli, monkeypatch):
    """Not a traceback, and not a job folder advising to free space."""
    (tmp_path / "a_file").write_text("mine\n", encoding="utf-8")
    where = where.format(file=tmp_path / "a_file")
    job = tmp_path / "job"
    if setting == "run.store":
        proc = _run(collabsim_cli, tmp_path, f"run.store={where}", f"hydra.run.dir={job}")
    else:
        monkeypatch.setenv(setting, where)
        proc = _run(collabsim_cli, tmp_path, f"hydra.run.dir={job}")
    one_line_exit_2(proc, setting)
    assert "free space" not in proc.stderr and not job.exists()


def test_the_llm_cache_folder_is_checked_under_policy_llm(tmp_path, collabsim_cli):
    job = tmp_path / "job"
    proc = _run(collabsim_cli, tmp_path, "policy=llm", "llm.cache_dir=/proc/collabsim_llm",
                f"hydra.run.dir={job}")
    one_line_exit_2(proc, "llm.cache_dir=/proc/collabsim_llm")
    assert not job.exists()


@pytest.mark.parametrize("target", ["sessions.csv", "result.json"])
def test_view_never_writes_over_a_file_of_its_input_folder(target, tmp_path, collabsim_cli):
    job = tmp_path / "job"
    assert _run(collabsim_cli, tmp_path, f"hydra.run.dir={job}").returncode == 0
    folder = job if target == "sessions.csv" else next((job / "sessions").iterdir())
    before = (folder / target).read_bytes()
    proc = collabsim_cli("view", str(folder), "--out", str(folder / target), cwd=tmp_path)
    one_line_exit_2(proc, "is a file in the input folder")
    assert (folder / target).read_bytes() == before
    page = collabsim_cli("view", str(folder), "--out", str(folder / "page.html"), cwd=tmp_path)
    assert page.returncode == 0 and (folder / "page.html").is_file()
    again = collabsim_cli("view", str(folder), "--out", str(folder / "page.html"), cwd=tmp_path)
    assert again.returncode == 0, "a page the viewer wrote may be replaced"


def test_a_users_own_report_in_the_sweep_folder_is_never_replaced(tmp_path, collabsim_cli):
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    (sweep / "report.md").write_text("my notes\n", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    proc = collabsim_cli("run", "-m", "team=D,R", "seeds=[0]", "tasks.n_tasks=1",
                         f"hydra.sweep.dir={sweep}", cwd=work)
    one_line_exit_2(proc, "report.md was not written by collabsim")
    assert (sweep / "report.md").read_text(encoding="utf-8") == "my notes\n"
    assert sorted(p.name for p in sweep.iterdir()) == ["report.md"]
