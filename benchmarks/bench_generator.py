"""Task generator speed (plain script): ``python benchmarks/bench_generator.py [n_tasks]``.

Prints the CPU and wall time to generate a suite of ``n_tasks`` (default 200) generated
archaeology-style tasks into a temporary folder; the target is under 5 s of CPU for 200
tasks. Wall time is inflated when other processes share the machine; CPU time much less so.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from collabsim.tasks.generator import generate_suite


def main() -> None:
    """Generate one suite and print its timings."""
    n_tasks = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory(prefix="collabsim-bench-gen-") as tmp:
        cpu, wall = time.process_time(), time.perf_counter()
        generate_suite(Path(tmp) / "suite", n_tasks, seed=3)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"generated {n_tasks} tasks: {cpu:.2f} s CPU, {wall:.2f} s wall "
          f"({n_tasks / cpu:.0f} tasks per CPU second; target: 200 tasks < 5 s CPU)")


if __name__ == "__main__":
    main()
