"""Scripted sessions per second on generated tasks, for the single agent and the DR team.

Runs every session of the chosen variants on the generated suite through the same runner as
``collabsim run`` (sandboxed code, traces written to a temporary store) and prints sessions
per second overall and per core. Aim: >= 20 sessions/s per core, so that the full grid of
1,482 sessions fits in about a minute on 2 cores.

    python benchmarks/bench_sessions.py [--tasks 38] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from collabsim.experiment.job import _session_config, outcome_settings
from collabsim.experiment.participants import ParticipantBuilder
from collabsim.experiment.plan import plan_sessions
from collabsim.experiment.runner import run_plans
from collabsim.experiment.store import ResultStore
from collabsim.experiment.tasksource import resolve_tasks

BASE_CFG = {
    "tasks": {"kind": "generated", "n_tasks": 38, "seed": 0},
    "policy": {"name": "scripted", "agent": {}, "collaborator": {}},
    "clock": {},
    "sandbox": {},
    "run": {"max_turns": 40, "max_virtual_seconds": 7200, "max_concurrency": 4},
}


def bench(team: str, structure: str, n_tasks: int, seeds: list[int], concurrency: int) -> None:
    cfg = {**BASE_CFG, "tasks": {**BASE_CFG["tasks"], "n_tasks": n_tasks}}
    tasks, _ = resolve_tasks(cfg["tasks"])
    plans = plan_sessions(tasks, [team], [structure], seeds, outcome_settings(cfg))
    builder = ParticipantBuilder(cfg)
    with tempfile.TemporaryDirectory() as tmp:
        store = ResultStore(Path(tmp))
        start = time.perf_counter()
        summary = asyncio.run(
            run_plans(
                plans, store, _session_config, builder.build,
                max_concurrency=concurrency, progress=False,
            )
        )
        elapsed = time.perf_counter() - start
    cores = os.cpu_count() or 1
    rate = len(summary.results) / elapsed
    statuses: dict[str, int] = {}
    for result in summary.results:
        statuses[result.status] = statuses.get(result.status, 0) + 1
    print(
        f"{team:>6} {structure:<11} sessions={len(summary.results):4d}  time={elapsed:6.2f} s  "
        f"rate={rate:6.1f} sessions/s  per core={rate / cores:6.1f}  statuses={statuses}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=38)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    seeds = list(range(args.seeds))
    print(f"cores={os.cpu_count()} tasks={args.tasks} seeds={args.seeds} concurrency={args.concurrency}")
    # Warm-up: start the sandbox fork server and generate the suite outside the timing.
    bench("single", "single", 1, [0], 1)
    print("--")
    bench("single", "single", args.tasks, seeds, args.concurrency)
    bench("DR", "default", args.tasks, seeds, args.concurrency)
    bench("DR", "scaffolded", args.tasks, seeds, args.concurrency)


if __name__ == "__main__":
    main()
