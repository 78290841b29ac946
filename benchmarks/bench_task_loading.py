"""Loading DiscoveryBench task folders with the statistical data checks (plain script):
``python benchmarks/bench_task_loading.py [ROOT ...]``.

For each root (default: ``$COLLABSIM_SHARED_DATA/discoverybench_dev`` and
``.../discoverybench``) it prints the tasks and problems :func:`load_tasks` finds and the
wall time of a first load in a fresh process (tables parsed, queries read) and of a second
load in the same process (cached), then the time of the data checks alone
(:mod:`collabsim.tasks.datachecks`, caches cleared). Run it on a quiet machine or say the
load (``uptime``).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from collabsim.tasks import datachecks
from collabsim.tasks.discoverybench import load_tasks


def _clear() -> None:
    for cached in (datachecks._query_problems, datachecks._rows, datachecks._parsed,
                   datachecks._long):
        cached.cache_clear()


def main(roots: list[str]) -> None:
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min)")
    for root in map(Path, roots):
        _clear()
        started = time.perf_counter()
        report = load_tasks(root)
        first = time.perf_counter() - started
        started = time.perf_counter()
        load_tasks(root)
        again = time.perf_counter() - started
        _clear()
        started = time.perf_counter()
        for task in report.tasks:
            datachecks.query_problems(task)
        checks = time.perf_counter() - started
        unanswerable = len({p.task_id for p in report.problems if p.task_id})
        print(f"{root}: {len(report.tasks)} tasks, {len(report.problems)} problems "
              f"({unanswerable} queries the data cannot answer); load {first:.2f} s first, "
              f"{again:.2f} s again; checks of the loaded tasks alone {checks:.2f} s")


if __name__ == "__main__":
    shared = Path(os.environ.get("COLLABSIM_SHARED_DATA", Path(__file__).resolve().parents[2]
                                 / "shared" / "data"))
    main(sys.argv[1:] or [str(shared / "discoverybench_dev"), str(shared / "discoverybench")])
