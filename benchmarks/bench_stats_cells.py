"""Statistical cells in the sandbox, with and without scipy/statsmodels pre-imported
(plain script): ``python benchmarks/bench_stats_cells.py [N]``.

For N fresh sandboxes (one per "session") it runs the compute-stats cell of an OLS plan on a
2,000-row table and prints the cell's wall time (median, p90) and the zygote's start-up,
first with the default fork server (numpy/pandas only: every session's first stats cell
imports statsmodels itself), then with :data:`collabsim.domain.stats.cell.CELL_MODULES`
pre-imported (what ``collabsim run`` does when a statistical task is in the job).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from collabsim.domain.stats.cell import CELL_MODULES, parse_stats_result, stats_cell
from collabsim.domain.stats.model import StatPlan
from collabsim.sandbox import Sandbox, set_preload_modules, shutdown_zygote

PLAN = StatPlan("table.csv", "y", ("x", "group"), controls=("z",), analysis="ols")


def _table(root: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 2000
    x, z = rng.normal(size=n), rng.normal(size=n)
    frame = pd.DataFrame({"x": x, "z": z, "group": rng.choice(list("abc"), n),
                          "y": 0.5 * x - 0.2 * z + rng.normal(size=n)})
    path = root / "table.csv"
    frame.to_csv(path, index=False)
    return path


def _run(table: Path, n: int, preload: tuple[str, ...]) -> tuple[float, list[float]]:
    shutdown_zygote()
    set_preload_modules(preload)
    start = time.perf_counter()
    Sandbox([table]).close()  # starts the zygote
    startup = time.perf_counter() - start
    times = []
    code = stats_cell(PLAN)
    for _ in range(n):
        box = Sandbox([table])
        try:
            t0 = time.perf_counter()
            result = box.execute(code)
            times.append(time.perf_counter() - t0)
            parsed = parse_stats_result(result.output)
            assert parsed is not None and parsed.effects, result.output[-500:]
        finally:
            box.close()
    return startup, times


def main(n: int = 20) -> None:
    """Print the figures."""
    with tempfile.TemporaryDirectory() as tmp:
        table = _table(Path(tmp))
        for label, preload in (("numpy/pandas only", ()), ("stats modules pre-imported",
                                                           CELL_MODULES)):
            startup, times = _run(table, n, preload)
            ordered = sorted(times)
            print(f"{label:28s} zygote start {startup:.2f} s; stats cell over {n} sessions: "
                  f"median {statistics.median(times) * 1e3:.0f} ms, "
                  f"p90 {ordered[int(0.9 * len(ordered))] * 1e3:.0f} ms")
    shutdown_zygote()
    set_preload_modules(())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
