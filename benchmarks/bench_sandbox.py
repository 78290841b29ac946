"""Sandbox throughput figures (plain script): ``python benchmarks/bench_sandbox.py``.

Prints zygote start-up, sandbox creations per second, trivial-cell latency, a pandas
``read_csv`` cell's latency and whole "sessions" per second (create, a few small pandas cells,
close), with the CPU time of parent, zygote and workers next to the wall figures (on a shared
machine wall times are inflated by other load; CPU times much less so).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from collabsim.sandbox import Sandbox, SandboxLimits, shutdown_zygote, zygote_pid

SESSION_CELLS = (
    "df = pd.read_csv('table.csv')",
    "print(df.shape)",
    "s = df.groupby('group')['value'].mean()\nprint(s.idxmax(), round(s.max(), 3))",
    "first = df.loc[df['value'].diff() > 0.5, 'year'].min()\nprint(first)",
)


def _table(root: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 2000
    frame = pd.DataFrame(
        {
            "year": np.arange(-4000, -4000 + n),
            "group": rng.choice(list("abcde"), n),
            "value": rng.normal(size=n).cumsum(),
        }
    )
    path = root / "table.csv"
    frame.to_csv(path, index=False)
    return path


def _ms(samples: list[float]) -> str:
    return (
        f"median {statistics.median(samples) * 1e3:.2f} ms, "
        f"p90 {sorted(samples)[int(0.9 * len(samples))] * 1e3:.2f} ms"
    )


def main(n_sandboxes: int = 200, n_cells: int = 500, n_sessions: int = 200) -> None:
    """Run the benchmark and print the figures."""
    limits = SandboxLimits()
    with tempfile.TemporaryDirectory() as tmp:
        table = _table(Path(tmp))
        shutdown_zygote()
        start = time.perf_counter()
        with Sandbox([table], limits) as sb:
            sb.execute("pass")
        print(f"zygote start + first sandbox: {time.perf_counter() - start:.3f} s")

        created: list[float] = []
        closed: list[float] = []
        cpu0 = time.process_time() + _zygote_cpu()
        for _ in range(n_sandboxes):
            t0 = time.perf_counter()
            sb = Sandbox([table], limits)
            t1 = time.perf_counter()
            sb.close()
            created.append(t1 - t0)
            closed.append(time.perf_counter() - t1)
        rate = n_sandboxes / (sum(created) + sum(closed))
        cpu = (time.process_time() + _zygote_cpu() - cpu0) / n_sandboxes
        print(
            f"sandbox create: {_ms(created)}; close: {_ms(closed)}; {rate:.0f} create+close/s; "
            f"CPU of parent+zygote+workers {cpu * 1e3:.2f} ms per create+close"
        )

        with Sandbox([table], limits) as sb:
            sb.execute("x = 1")
            trivial = []
            assert sb.pid is not None
            cpu0 = time.process_time() + _zygote_cpu() + _own_cpu(sb.pid)
            for _ in range(n_cells):
                t0 = time.perf_counter()
                sb.execute("x += 1")
                trivial.append(time.perf_counter() - t0)
            cpu = time.process_time() + _zygote_cpu() + _own_cpu(sb.pid) - cpu0
            print(
                f"trivial execute: {_ms(trivial)}; CPU of parent+zygote+worker "
                f"{cpu / n_cells * 1e3:.3f} ms per cell"
            )
            reads = []
            for _ in range(max(1, n_cells // 5)):
                t0 = time.perf_counter()
                result = sb.execute("df = pd.read_csv('table.csv')\nprint(len(df))")
                reads.append(time.perf_counter() - t0)
            assert result.output == "2000\n", result
            print(f"pandas read_csv cell (2000 rows): {_ms(reads)}")

        for threads in (1, 4):
            cpu0 = time.process_time() + _zygote_cpu()
            t0 = time.perf_counter()
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(lambda _: _session(table, limits), range(n_sessions)))
            wall = time.perf_counter() - t0
            cpu = time.process_time() + _zygote_cpu() - cpu0
            print(
                f"sessions ({len(SESSION_CELLS)} pandas cells each, {threads} thread(s)): "
                f"{n_sessions / wall:.1f}/s wall; CPU of parent+zygote+workers "
                f"{cpu / n_sessions * 1e3:.1f} ms/session = {n_sessions / cpu:.1f} sessions/CPU-s"
            )
    shutdown_zygote()


def _session(table: Path, limits: SandboxLimits) -> None:
    with Sandbox([table], limits) as sb:
        for cell in SESSION_CELLS:
            result = sb.execute(cell)
            assert result.status == "ok", result


def _own_cpu(pid: int) -> float:
    """CPU seconds of a live process (utime+stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _zygote_cpu() -> float:
    """CPU seconds of the zygote and its reaped workers (utime+stime+cutime+cstime)."""
    pid = zygote_pid()
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(v) for v in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
