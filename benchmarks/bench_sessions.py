"""Scripted sessions per second on generated tasks, for the single agent and the DR team.

Runs every session of the chosen variants on the generated suite through the same runner as
``collabsim run`` (sandboxed code, traces written to a temporary store) and prints sessions
per second overall and per core. Aim: >= 20 sessions/s per core, so that the full grid of
1,482 sessions fits in about a minute on 2 cores.

    python benchmarks/bench_sessions.py [--tasks 38] [--concurrency 4]

``--grid archaeology`` (or ``--grid discoverybench_all``: every task under ``--root`` x the
13 variants x 3 seeds) instead runs the real grid exactly as
``collabsim run experiment=archaeology tasks.root=ROOT run.show_sessions=false`` does (the same
config composition and :func:`collabsim.experiment.job.run`, into a fresh folder) and prints
the wall time, the CPU time of this process (main thread and other threads) and of its
children (the sandbox's fork server and workers), sessions per second and where the time
went: job phases and the main thread's CPU per session by component (participants' policies,
observations, trace events, metrics, store); with ``--profile``, the main thread's top
functions (this slows the run). ``--no-reuse`` forks a fresh sandbox worker for every session
(``run.reuse_sandboxes=false``, the behaviour before sandbox pooling), for comparison.

    python benchmarks/bench_sessions.py --grid archaeology [--root DATA] [--out DIR] [--profile]
        [--no-reuse] [--override 'seeds=[0]' ...]

On a shared machine wall time depends on the other load (printed: the 1-minute load
average); the CPU seconds much less so. The lower bound on 2 idle cores is
``max(main thread, total CPU / 2)``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import io
import os
import pstats
import resource
import sys
import tempfile
import time
from pathlib import Path

from collabsim.experiment.job import plan_job
from collabsim.experiment.participants import ParticipantBuilder
from collabsim.experiment.runner import run_plans
from collabsim.experiment.session_configs import SessionConfigs
from collabsim.experiment.settings import validate_job
from collabsim.experiment.store import ResultStore

BASE_CFG = {
    "tasks": {"kind": "generated", "n_tasks": 38, "seed": 0},
    "policy": {"name": "scripted", "agent": {}, "collaborator": {}},
    "clock": {},
    "sandbox": {},
    "run": {"max_concurrency": 4},
}


def bench(team: str, structure: str, n_tasks: int, seeds: list[int], concurrency: int) -> None:
    settings = validate_job({
        **BASE_CFG, "tasks": {**BASE_CFG["tasks"], "n_tasks": n_tasks},
        "team": {"compositions": [team]}, "structure": {"names": [structure]}, "seeds": seeds,
    })
    plans = plan_job(settings).plans
    builder = ParticipantBuilder(settings)
    with tempfile.TemporaryDirectory() as tmp:
        store = ResultStore(Path(tmp))
        start = time.perf_counter()
        summary = asyncio.run(
            run_plans(
                plans, store, SessionConfigs(settings), builder.build,
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


GRIDS = {"archaeology": ["experiment=archaeology", "run.show_sessions=false"],
         "discoverybench_all": ["experiment=discoverybench_all", "run.show_sessions=false"]}
DEFAULT_ROOT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "discoverybench"


def _cpu() -> tuple[float, float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime, time.thread_time()


class _Components:
    """Main-thread CPU (``time.thread_time``) spent in the job's parts, while installed.

    Wraps a few functions; the scripted policies never suspend inside ``act``, so the
    thread time around it is theirs alone.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._undo: list[tuple[object, str, object]] = []

    def _wrap(self, owner: object, name: str, label: str, is_async: bool = False) -> None:
        original = getattr(owner, name)
        seconds = self.seconds
        seconds.setdefault(label, 0.0)
        if is_async:
            @functools.wraps(original)
            async def wrapped(*args, **kwargs):
                start = time.thread_time()
                try:
                    return await original(*args, **kwargs)
                finally:
                    seconds[label] += time.thread_time() - start
        else:
            @functools.wraps(original)
            def wrapped(*args, **kwargs):
                start = time.thread_time()
                try:
                    return original(*args, **kwargs)
                finally:
                    seconds[label] += time.thread_time() - start
        self._undo.append((owner, name, original))
        setattr(owner, name, wrapped)

    def __enter__(self) -> _Components:
        from collabsim.experiment.results_table import SessionRows
        from collabsim.session import engine, orchestrator
        from collabsim.session.state import SessionState

        self._wrap(engine, "_ask", "participants' policies (act)", is_async=True)
        self._wrap(orchestrator.Orchestrator, "next_turn", "orchestrator: scheduling + observations")
        self._wrap(orchestrator, "parse_action", "orchestrator: parsing actions")
        self._wrap(SessionState, "emit", "orchestrator: trace events (incl. file writes)")
        self._wrap(SessionRows, "add", "metrics of finished sessions")
        for name in ("try_lock", "load", "prepare", "save"):
            self._wrap(ResultStore, name, "result store (locks, plan/result records)")
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)


def bench_grid(name: str, root: Path, out: Path | None, profile: bool, reuse: bool,
               extra: list[str] | None = None) -> None:
    """Run a named grid like ``collabsim run`` does and print where the time went
    (``extra``: further overrides, e.g. ``seeds=[0]`` or ``tasks.limit=40``)."""
    from collabsim.cli.run_app import compose_config
    from collabsim.experiment.job import run
    from collabsim.sandbox import shutdown_zygote

    overrides = [*GRIDS[name], f"tasks.root={root}", f"run.reuse_sandboxes={str(reuse).lower()}",
                 *(extra or [])]
    cfg = compose_config(overrides)
    with tempfile.TemporaryDirectory() as tmp:
        target = out or Path(tmp) / "job"
        if target.exists() and any(target.iterdir()):
            raise SystemExit(f"--out {target} is not empty (stored sessions would be reused)")
        profiler = cProfile.Profile() if profile else None
        cpu0 = _cpu()
        start = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        with _Components() as components:
            outcome = run(cfg, target)
        if profiler is not None:
            profiler.disable()
        wall = time.perf_counter() - start
        main_thread = time.thread_time() - cpu0[2]
        # The fork server reaps the workers; reaping it adds their CPU to RUSAGE_CHILDREN.
        shutdown_zygote()
        cpu1 = _cpu()
    own, kids = cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]
    n = len(outcome.sessions)
    statuses = outcome.sessions["status"].value_counts().to_dict()
    print(f"grid={name} {' '.join(extra or [])} sessions={n} ran={outcome.summary.ran} "
          f"statuses={statuses} "
          f"cores={os.cpu_count()} load(1 min)={os.getloadavg()[0]:.1f} "
          f"reuse_sandboxes={reuse}")
    print(f"wall={wall:.1f} s  cpu: parent={own:.1f} s (main thread {main_thread:.1f} s) "
          f"children (sandbox)={kids:.1f} s total={own + kids:.1f} s  rate={n / wall:.1f} "
          f"sessions/s")
    print(f"per session: wall={1000 * wall / n:.1f} ms  cpu={1000 * (own + kids) / n:.1f} ms")
    print(f"lower bound on 2 idle cores: max(main thread, total/2) = "
          f"{max(main_thread, (own + kids) / 2):.1f} s")
    print("phases (wall s): " + "  ".join(f"{k}={v:.1f}" for k, v in outcome.phases.items()))
    print("where the CPU goes (ms per session):")
    rows = [("sandbox: fork server + workers (children)", kids),
            ("parent: threads other than main (sandbox client calls)", own - main_thread),
            ("parent: main thread", main_thread)]
    rows += [(f"  main thread: {label}", sec) for label, sec in
             sorted(components.seconds.items(), key=lambda kv: -kv[1])]
    rows.append(("  main thread: rest (event loop, runner, engine loop)",
                 main_thread - sum(components.seconds.values())))
    for label, sec in rows:
        print(f"  {label:62s} {1000 * sec / n:6.1f}")
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
    parser.add_argument("--no-reuse", action="store_true",
                        help="a fresh sandbox worker per session (run.reuse_sandboxes=false)")
    parser.add_argument("--override", action="append", default=[], metavar="KEY=VALUE",
                        help="a further config override for --grid (repeatable), e.g. "
                             "'seeds=[0]' or tasks.limit=40")
    args = parser.parse_args()
    if args.grid and not args.root.is_dir():
        print(f"error: --root {args.root}: no such folder (the DiscoveryBench root; default: "
              "../shared/data/discoverybench beside the repository)", file=sys.stderr)
        raise SystemExit(2)
    if args.grid:
        bench_grid(args.grid, args.root, args.out, args.profile, reuse=not args.no_reuse,
                   extra=args.override)
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
