"""Cost of a score-deciding cell run isolated (plain script):
``python benchmarks/bench_isolated_cells.py [N]``.

A collaborator's recomputation runs where no earlier cell of the session ran
(:meth:`collabsim.sandbox.Sandbox.execute_isolated`). Prints, per cell, the wall time and the
CPU time of the whole process tree (parent, zygote, workers: reaped workers counted by the
zygote's children times, live ones read from ``/proc``) for the same analysis cell run

* in the session's warm worker (what it cost before isolation),
* in a pooled checker (``SandboxPool``, the default under ``policy=scripted``), reset
  between cells,
* in a fresh worker and working directory (a sandbox outside a pool).

On a shared machine wall times are inflated by other load; CPU times much less so.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from collabsim.sandbox import Sandbox, SandboxLimits, SandboxPool, set_preload_files, zygote_pid

CELL = (
    "import pandas as pd\n"
    "from collabsim.domain.analysis_helpers import read_table, table\n"
    "df = read_table('series.csv')\n"
    "t = table('series.csv', df)\n"
    "print(len(t), t['dagger'].idxmax())"
)
_TICK = os.sysconf("SC_CLK_TCK")


def _proc_cpu(pid: int, children: bool) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(x) for x in fields[11:15 if children else 13]) / _TICK


def tree_cpu() -> float:
    """CPU seconds of this process, its zygote and the zygote's children (live and reaped)."""
    own = os.times()
    total = own.user + own.system
    zygote = zygote_pid()
    if zygote is None:
        return total
    total += _proc_cpu(zygote, children=True)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == zygote:
                total += _proc_cpu(int(entry), children=False)
    return total


def measure(label: str, n: int, run: Callable[[], object]) -> None:
    walls = []
    cpu0 = tree_cpu()
    for _ in range(n):
        start = time.perf_counter()
        run()
        walls.append(time.perf_counter() - start)
    time.sleep(0.2)  # let a pool's background resets finish
    cpu = (tree_cpu() - cpu0) / n
    print(f"{label:<34} wall median {statistics.median(walls) * 1000:6.1f} ms   "
          f"CPU {cpu * 1000:6.1f} ms per cell")


def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "series.csv"
        csv.write_text("year,dagger\n" + "".join(f"{y},{y % 7}\n" for y in range(-3000, -2000, 10)))
        set_preload_files([csv])
        limits = SandboxLimits()
        with SandboxPool(max_idle=1) as pool:
            lease = pool([csv], limits)
            lease.execute(CELL)
            lease.execute_isolated(CELL)  # the checker exists from here on
            measure("session's warm worker", n, lambda: lease.execute(CELL))
            measure("pooled checker (reset each cell)", n, lambda: lease.execute_isolated(CELL))
            lease.close()
        with Sandbox([csv], limits) as sb:
            sb.execute(CELL)
            measure("fresh worker per cell", n, lambda: sb.execute_isolated(CELL))
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
