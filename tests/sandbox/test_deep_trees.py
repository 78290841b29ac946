"""A folder nested deeper than the recursion limit never breaks the sweep or a close
(issue 23, item 4: ``[sandbox failure] RecursionError`` in every later process)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from collabsim.sandbox import Sandbox
from collabsim.sandbox.workdirs import WORKDIR_PREFIX, remove_tree, sweep_stale

DEPTH = 1400


def _nest(root: Path, depth: int = DEPTH) -> None:
    """``root/d/d/.../d/leaf.txt``, ``depth`` levels, built with relative opens."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            sub = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = sub
        os.close(os.open("leaf.txt", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
        os.symlink("/etc/hostname", "link", dir_fd=fd)
    finally:
        os.close(fd)


def test_the_startup_sweep_removes_a_folder_nested_past_the_recursion_limit(tmp_path: Path):
    assert sys.getrecursionlimit() < DEPTH
    stale = tmp_path / f"{WORKDIR_PREFIX}999999999-1-abcd"  # no such process: stale
    stale.mkdir()
    _nest(stale)
    kept = tmp_path / "other"
    kept.mkdir()
    assert sweep_stale(tmp_path) == [stale]
    assert not stale.exists() and kept.is_dir()
    assert Path("/etc/hostname").exists()  # links are removed, never followed


def test_remove_tree_handles_unreadable_folders_and_plain_files(tmp_path: Path):
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "f").write_text("x")
    os.chmod(tree / "a" / "b", 0o000)
    os.chmod(tree / "a", 0o500)
    single = tmp_path / "file.txt"
    single.write_text("x")
    assert remove_tree(tree) and not tree.exists()
    assert remove_tree(single) and not single.exists()
    assert remove_tree(tmp_path / "missing")


def test_closing_a_sandbox_that_holds_folders_nested_past_the_recursion_limit(task_csv: Path):
    sandbox = Sandbox([task_csv])
    workdir = sandbox.workdir
    try:
        assert sandbox.execute("import os; os.mkdir('out')").status == "ok"
        # what a cell can build (os.mkdir + os.chdir in a loop), made here: the audit hook
        # makes 1,400 levels take long in a cell on a loaded machine
        _nest(workdir / "out")
        sandbox.reset_files([task_csv])  # deeper than shutil.rmtree's recursion allows
        assert sorted(p.name for p in workdir.iterdir()) == [task_csv.name]
        _nest(workdir)
    finally:
        sandbox.close()  # deeper than shutil.rmtree's recursion allows
    assert not workdir.exists()
