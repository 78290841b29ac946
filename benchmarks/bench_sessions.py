"""Scripted sessions per second on generated tasks, for the single agent and the DR team.

Runs every session of the chosen variants on the generated suite through the same runner as
``collabsim run`` (sandboxed code, traces written to a temporary store) and prints sessions
per second overall and per core. Aim: >= 20 sessions/s per core, so that the full grid of
1,482 sessions fits in about a minute on 2 cores.

    python benchmarks/bench_sessions.py [--tasks 38] [--concurrency 4]

``--grid archaeology`` instead runs the real grid exactly as
``collabsim run experiment=archaeology tasks.root=ROOT run.show_sessions=false`` does (the same
config composition and :func:`collabsim.experiment.job.run`, into a fresh folder) and prints
the wall time, the CPU time of this process and of its children (sandbox workers), sessions
per second and where the time went (job phases; with ``--profile``, the main thread's top
functions, which slows the run).

    python benchmarks/bench_sessions.py --grid archaeology [--root DATA] [--out DIR] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import resource
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


GRIDS = {"archaeology": ["experiment=archaeology", "run.show_sessions=false"]}
DEFAULT_ROOT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "discoverybench"


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def bench_grid(name: str, root: Path, out: Path | None, profile: bool) -> None:
    """Run a named grid like ``collabsim run`` does and print where the time went."""
    from collabsim.cli.run_app import compose_config
    from collabsim.experiment.job import run
    from collabsim.sandbox import shutdown_zygote

    cfg = compose_config([*GRIDS[name], f"tasks.root={root}"])
    with tempfile.TemporaryDirectory() as tmp:
        target = out or Path(tmp) / "job"
        if target.exists() and any(target.iterdir()):
            raise SystemExit(f"--out {target} is not empty (stored sessions would be reused)")
        profiler = cProfile.Profile() if profile else None
        cpu0 = _cpu()
        start = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        outcome = run(cfg, target)
        if profiler is not None:
            profiler.disable()
        wall = time.perf_counter() - start
        # The fork server reaps the workers; reaping it adds their CPU to RUSAGE_CHILDREN.
        shutdown_zygote()
        cpu1 = _cpu()
    own, kids = cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]
    n = len(outcome.sessions)
    statuses = outcome.sessions["status"].value_counts().to_dict()
    print(f"grid={name} sessions={n} ran={outcome.summary.ran} statuses={statuses} "
          f"cores={os.cpu_count()} load(1 min)={os.getloadavg()[0]:.1f}")
    print(f"wall={wall:.1f} s  cpu: parent={own:.1f} s children (sandbox)={kids:.1f} s "
          f"total={own + kids:.1f} s  rate={n / wall:.1f} sessions/s  "
          f"cpu per session: parent={1000 * own / n:.1f} ms children={1000 * kids / n:.1f} ms")
    print(f"lower bound on 2 idle cores: max(parent, total/2) = {max(own, (own + kids) / 2):.1f} s")
    print("phases (wall s): " + "  ".join(f"{k}={v:.1f}" for k, v in outcome.phases.items()))
    if profiler is not None:
        for key in ("tottime", "cumulative"):
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats(key).print_stats(25)
            print(f"-- main thread, top 25 by {key} --")
            print(text.getvalue().split("\n\n", 1)[-1].strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=38)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--grid", choices=sorted(GRIDS), help="run a whole experiment grid")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="DiscoveryBench root")
    parser.add_argument("--out", type=Path, help="job folder for --grid (default: temporary)")
    parser.add_argument("--profile", action="store_true", help="profile the main thread")
    args = parser.parse_args()
    if args.grid:
        bench_grid(args.grid, args.root, args.out, args.profile)
        return
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
