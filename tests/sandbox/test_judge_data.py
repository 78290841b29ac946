"""Judges' data (the packaged reference workflows) is unreadable from sandbox code whatever
the install layout (issue 23, item 3: "38 reference workflow files readable")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from collabsim.sandbox import Sandbox
from collabsim.sandbox.hidden import carve, judge_paths
from collabsim.tasks.discoverybench import PACKAGED_REFERENCE_DIR

REFERENCE = sorted(PACKAGED_REFERENCE_DIR.rglob("*.json"))
PACKAGE_PARENT = str(PACKAGED_REFERENCE_DIR.resolve().parents[2])  # holds collabsim/


def test_the_packaged_reference_workflows_are_judges_data():
    assert len(REFERENCE) >= 38
    assert str(PACKAGED_REFERENCE_DIR.resolve().parent) in judge_paths()


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


_PROBE = r"""
import json, os, socket, sys
from collabsim.sandbox.limits import SandboxLimits
from collabsim.sandbox.policy import python_read_roots
from collabsim.sandbox.worker import Worker
workdir, parent, targets, sibling = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
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
out["sibling"] = readable(sibling)
out["landlock"] = worker.layers["landlock"]
print(json.dumps(out))
"""


def test_a_worker_whose_read_roots_hold_the_package_cannot_read_its_judges_data(tmp_path):
    sibling = str(Path(PACKAGE_PARENT) / "collabsim" / "__init__.py")
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path), PACKAGE_PARENT,
         json.dumps([str(p) for p in REFERENCE]), sibling],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["hook"] == 0  # the audit hook refuses them
    assert found["sibling"]  # the rest of the package stays readable (imports work)
    if found["landlock"]:
        assert found["kernel"] == 0  # and so does the kernel, with the hook switched off


def test_a_sandbox_cell_finds_no_judges_file(task_csv: Path):
    """The dev (editable) layout: the cell looks where the package says its data is."""
    with Sandbox([task_csv]) as sandbox:
        result = sandbox.execute(
            "import collabsim, os\n"
            "root = os.path.join(os.path.dirname(collabsim.__file__), 'data')\n"
            "found = 0\n"
            "for folder, _, names in os.walk(root):\n"
            "    for name in names:\n"
            "        try:\n"
            "            open(os.path.join(folder, name)).read(); found += 1\n"
            "        except OSError:\n"
            "            pass\n"
            "print('readable', found)\n")
    assert result.output.strip() == "readable 0", (result.output, result.error)
