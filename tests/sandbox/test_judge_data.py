"""Nothing that gives an answer away is readable from sandbox code, whatever the install
layout: the packaged reference workflows (issue 23, item 3), the generator that rebuilds
golds (issue 38, item 2), also through a venv's ``lib64 -> lib`` link (issue 38, item 3)."""

from __future__ import annotations

import json
import os
import py_compile
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from read_checks import run_checks

from collabsim.sandbox.hidden import PACKAGE_DIR, carve, judge_paths
from collabsim.tasks.discoverybench import PACKAGED_REFERENCE_DIR

REFERENCE = sorted(PACKAGED_REFERENCE_DIR.rglob("*.json"))
PACKAGE_PARENT = str(PACKAGED_REFERENCE_DIR.resolve().parents[2])  # holds collabsim/
READ_CHECKS = Path(__file__).with_name("read_checks.py")


def test_the_whole_package_is_out_of_reach():
    """The reference workflows and the generator's code alike (source, byte code, data)."""
    assert len(REFERENCE) >= 38
    assert str(PACKAGE_DIR) in judge_paths()
    assert all(str(p.resolve()).startswith(f"{PACKAGE_DIR}/") for p in REFERENCE)


def test_a_second_copy_on_the_import_path_is_out_of_reach_too(tmp_path: Path, monkeypatch):
    """A venv with system site-packages may see another installed collabsim: a cell could
    read and exec that copy's generator."""
    (tmp_path / "collabsim" / "tasks").mkdir(parents=True)
    (tmp_path / "collabsim" / "__init__.py").write_text("")
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path), "", "relative"])
    assert judge_paths() == tuple(sorted({str(PACKAGE_DIR), str(tmp_path / "collabsim")}))


def test_read_rules_keep_everything_but_the_judges_data(tmp_path: Path):
    site = tmp_path / "site-packages"
    (site / "pkg" / "data" / "gold").mkdir(parents=True)
    (site / "pkg" / "sub").mkdir()
    (site / "other").mkdir()
    (site / "pkg" / "__init__.py").write_text("")
    (site / "top.pth").write_text("")
    (site / "pkg" / "leak").symlink_to(site / "pkg" / "data")
    rules = carve((str(site), str(tmp_path / "elsewhere")),
                  (str(site / "pkg" / "data"),))
    assert sorted(rules.full) == sorted(
        [str(site / "other"), str(site / "pkg" / "__init__.py"), str(site / "pkg" / "sub"),
         str(site / "top.pth"), str(tmp_path / "elsewhere")])
    assert sorted(rules.list_only) == [str(site), str(site / "pkg")]


def _grants(rules_full: tuple[str, ...], hidden: str) -> list[str]:
    """Rules whose target (Landlock follows links) is the hidden folder or lies above it."""
    return [r for r in rules_full
            if (real := os.path.realpath(r)) == hidden or hidden.startswith(real + "/")]


def test_read_rules_follow_links_to_the_folder_they_grant(tmp_path: Path):
    """A venv's ``lib64 -> lib``, a root that is a link (Debian's ``/lib -> usr/lib``) and a
    link back up are carved by their real path, never granted whole."""
    venv = tmp_path / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    hidden = site / "collabsim"
    (hidden / "data").mkdir(parents=True)
    (site / "numpy").mkdir()
    (venv / "bin").mkdir()
    (venv / "lib64").symlink_to("lib")
    (site / "loop").symlink_to(venv)
    (tmp_path / "lib").symlink_to(venv / "lib")
    rules = carve((str(venv), str(tmp_path / "lib")), (str(hidden),))
    assert _grants(rules.full, str(hidden)) == []
    assert str(site / "numpy") in rules.full and str(venv / "bin") in rules.full
    assert str(venv / "lib") in rules.list_only


_PROBE = r"""
import json, os, socket, sys
from collabsim.sandbox.limits import SandboxLimits
from collabsim.sandbox.policy import python_read_roots
from collabsim.sandbox.worker import Worker
workdir, parent, targets, outside = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
a, _b = socket.socketpair()
worker = Worker(a, workdir, SandboxLimits().to_json())
# a layout where the package lies inside a read root (a wheel in site-packages, a checkout
# under /usr/src or /opt beside its venv)
worker.setup((parent, *python_read_roots()))

def readable(path):
    try:
        with open(path, "rb") as fh:
            fh.read(1)
        return True
    except OSError:
        return False

out = {"hook": sum(readable(t) for t in targets)}
worker.policy.internal = 1  # audit hook off: what the kernel layer alone allows
out["kernel"] = sum(readable(t) for t in targets)
out["outside"] = readable(outside)
out["landlock"] = worker.layers["landlock"]
print(json.dumps(out))
"""


def test_a_worker_whose_read_roots_hold_the_package_cannot_read_it(tmp_path):
    """The data and the generator's code; a file beside the package stays readable."""
    targets = [*REFERENCE, PACKAGE_DIR / "tasks" / "generator.py", PACKAGE_DIR / "__init__.py"]
    outside = str(Path(PACKAGE_PARENT) / "pyproject.toml")
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path), PACKAGE_PARENT,
         json.dumps([str(p) for p in targets]), outside],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["hook"] == 0  # the audit hook refuses them
    assert found["outside"]  # the rest of the read root stays readable
    if found["landlock"]:
        assert found["kernel"] == 0  # and so does the kernel, with the hook switched off


def test_a_sandbox_cell_gets_at_nothing_of_the_package():
    """The layout the tests run in (editable): the read checks from a real sandbox cell."""
    found = run_checks([])
    assert found["on"]["got"] == [] and found["on"]["numpy"], found
    assert found["off"]["got"] == [] or not found["off"]["landlock"], found


def _regular_install(root: Path) -> Path:
    """A venv like a user's after ``pip install collabsim`` (not editable).

    ``python -m venv`` makes the ``lib64 -> lib`` link on 64-bit Linux; it is made by hand
    where it does not (as Debian and Ubuntu venvs have it). The dependencies come from the
    interpreter's own site-packages.
    """
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True, timeout=120)
    if not (venv / "lib64").exists():
        (venv / "lib64").symlink_to("lib")
    site = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    copy = site / "site-packages" / "collabsim"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    py_compile.compile(str(copy / "tasks" / "generator.py"), doraise=True)  # as pip does
    return venv


@pytest.mark.slow
def test_a_cell_under_a_regular_install_cannot_rebuild_a_gold(tmp_path: Path):
    """Items 2 and 3 of issue 38 in the layout they were found in: the package inside a venv
    with ``lib64``; every way to the generator and to the data, hook on and off."""
    venv = _regular_install(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run([str(venv / "bin" / "python"), str(READ_CHECKS)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    found = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else {}
    assert found, proc.stderr[-3000:]
    assert found["package"].startswith(f"{venv.resolve()}/"), found  # the copy, not the checkout
    assert found["on"]["got"] == [], found["on"]
    if found["off"]["landlock"]:
        assert found["off"]["got"] == [], found["off"]
    assert proc.returncode == 0, proc.stderr[-3000:]
