"""Cost of the sandbox's disk check on a working directory full of empty files.

    python benchmarks/bench_disk_walk.py [--files 10000 150000]

For each count, fills a temporary folder with that many empty files and prints the time of
``collabsim.sandbox.workdirs.disk_usage`` over it, unbounded and bounded by the default
``sandbox.max_files`` (the walk stops past the limit), median of 5 calls. See
docs/sandbox.md (``max_files``).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from collabsim.sandbox import SandboxLimits
from collabsim.sandbox.workdirs import disk_usage


def _median_ms(folder: Path, limit: int | None) -> float:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        disk_usage(folder, max_entries=limit)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[5, 10_000, 150_000])
    args = parser.parse_args()
    limit = SandboxLimits().max_files
    print(f"max_files={limit}")
    for n in args.files:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            for i in range(n):
                (folder / f"f{i}").touch()
            print(f"{n:>8} empty files: unbounded walk {_median_ms(folder, None):8.2f} ms, "
                  f"bounded by max_files {_median_ms(folder, limit):8.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
