"""The sandbox's read checks: no cell reads collabsim's code or the judges' data (issue 38).

Whatever the install layout, a sandbox cell must not get at anything that gives a task's
answer away: the packaged reference workflows, a generated suite's answer key, or the
generator's code, which rebuilds any generated task's gold from its seed (by import, by
``importlib`` or ``runpy``, by reading the source or the byte code and ``exec``-ing it).
Every probe runs twice: with the audit hook in place and with it switched off through
``gc`` (then only Landlock stands in the way, and a read rule that followed a venv's
``lib64 -> lib`` link would let the reads through).

``tests/sandbox/test_judge_data.py`` runs this file in a venv holding a regular copy of
the package; ``bash .ci/wheel_check`` runs it under the non-editable wheel::

    python tests/sandbox/read_checks.py [JUDGE_FILE ...]

It prints one JSON line (what got through, per hook state) and exits 0 when nothing did.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from sandbox_helpers import DISABLE_HOOK

import collabsim
from collabsim.sandbox import Sandbox, SandboxLimits

PACKAGE = Path(collabsim.__file__).resolve().parent

# Each probe returns something truthy when it got at the generator (a refusal raises).
PROBES = r"""
import gc, importlib, importlib.machinery, importlib.util, json, linecache, marshal, os, runpy
import sys, types
package = os.path.dirname(sys.modules["collabsim"].__file__)
source = os.path.join(package, "tasks", "generator.py")

def via_lib64(path):  # the same file through the venv's lib64 -> lib link
    return path.replace(f"{sys.prefix}/lib/", f"{sys.prefix}/lib64/")

def read(path):
    with open(path, "rb") as fh:
        return fh.read()

def from_spec():
    spec = importlib.util.spec_from_file_location("g", source)
    module = sys.modules["g"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_task

def exec_source():
    module = sys.modules["g"] = types.ModuleType("g")
    exec(compile(read(source), source, "exec"), module.__dict__)
    return module.build_task

def byte_code():
    return marshal.loads(read(importlib.util.cache_from_source(source))[16:])

def os_read():
    fd = os.open(source, os.O_RDONLY)
    try:
        return os.read(fd, 1)
    finally:
        os.close(fd)

probes = {
    "from-import": lambda: exec("from collabsim.tasks.generator import build_task") or True,
    "import_module": lambda: importlib.import_module("collabsim.tasks.generator").build_task,
    "spec_from_file_location": from_spec,
    "runpy.run_module": lambda: runpy.run_module("collabsim.tasks.generator")["build_task"],
    "runpy.run_path": lambda: runpy.run_path(source)["build_task"],
    "open+exec": exec_source,
    "open via lib64": lambda: read(via_lib64(source)),
    "os.open": os_read,
    "byte code": byte_code,
    "get_data": lambda: importlib.machinery.SourceFileLoader("g", source).get_data(source),
    "linecache": lambda: linecache.getlines(source),
}
got = []
for name, probe in probes.items():
    try:
        if probe():
            got.append(name)
    except BaseException:  # noqa: B036 - refused, whatever the layer raised
        pass
for path in JUDGE_FILES:
    for where in dict.fromkeys((path, via_lib64(path))):
        try:
            with open(where, "rb") as fh:
                fh.read(1)
            got.append(where)
        except OSError:
            pass
from collabsim.sandbox.worker import Worker
layers = next(o for o in gc.get_objects() if isinstance(o, Worker)).layers
numpy = bool(read(importlib.util.find_spec("numpy").origin))  # the installation stays readable
print(json.dumps({"got": got, "landlock": layers["landlock"], "numpy": numpy}))
"""


def package_files() -> list[str]:
    """Every file of the imported package (code, byte code and data), listed from outside."""
    return sorted(str(path) for path in PACKAGE.rglob("*") if path.is_file())


def run_checks(judge_files: list[str]) -> dict[str, dict[str, object]]:
    """Run the probes in one sandbox cell, hook in place and switched off.

    Args:
        judge_files: Files to try to read besides the package's own (e.g. a generated
            suite's answer key).

    Returns:
        Per hook state (``"on"``, ``"off"``), what got through and the Landlock ABI.
    """
    cell = f"JUDGE_FILES = {[*package_files(), *judge_files]!r}\n{PROBES}"
    found: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "probe.csv"
        table.write_text("year,count\n-2300,4\n")
        # the default output limit would cut a long list of leaks short
        with Sandbox([table], SandboxLimits(output_chars=10_000_000)) as sandbox:
            for hook in ("on", "off"):
                if hook == "off":
                    off = sandbox.execute(DISABLE_HOOK)
                    assert off.output == "hook off\n", off
                result = sandbox.execute(cell)
                lines = result.output.strip().splitlines()
                assert lines, (result.output, result.error)
                found[hook] = json.loads(lines[-1])
    return found


def main(argv: list[str]) -> int:
    """Run the checks; print the findings; exit status 1 if anything got through."""
    found = run_checks(argv)
    print(json.dumps({"package": str(PACKAGE), **found}))
    leaks = found["on"]["got"] or (found["off"]["landlock"] and found["off"]["got"])
    if not (found["on"]["numpy"] and found["off"]["numpy"]):
        print("read checks: the Python installation is not readable from a cell", file=sys.stderr)
        return 1
    if leaks:
        print(f"read checks: a sandbox cell got at {leaks}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
