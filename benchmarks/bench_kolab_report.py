"""Time the default ``collabsim kolab report`` and show where the time goes (plain script).

``python benchmarks/bench_kolab_report.py [--data PATH] [--permutations 100] [--jobs N]
[--bootstrap 1000] [--out DIR]``

Runs the same steps as ``collabsim kolab report`` with its default settings (tasks,
predictors, 100 permutations per null, both nulls, 1000 bootstrap resamples, the dynamics
study) and prints, per part, the wall time and the CPU time (this process plus its worker
processes): instances, chance levels, baselines, the learned predictor's fold featurizers,
its fits (the observed targets and every null permutation, fitted together), bootstrap
evaluation, the dynamics study, and the report files and plots. Wall time is inflated when
other processes share the machine; CPU time much less so, so the script also prints the
machine's load and the CPU time divided by the jobs used.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared/data/kolab/explorer_sessions.json"


def main() -> None:
    """Run the default report once and print the time per part."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--permutations", type=int, default=100)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=None, help="default: all cores")
    parser.add_argument("--out", type=Path, default=None, help="default: a temporary directory")
    args = parser.parse_args()

    from collabsim.kolab.progress import cpu_seconds as _cpu

    wall0, cpu0 = time.perf_counter(), _cpu()
    from collabsim.cli.kolab_cmd import DEFAULT_PREDICTORS, DEFAULT_TASKS
    from collabsim.graphs.explorer_io import load_explorer
    from collabsim.kolab.benchmark import make_predictors, run_benchmark
    from collabsim.kolab.dynamics_study import dynamics_study
    from collabsim.kolab.instances import build_instances, expand_tasks
    from collabsim.kolab.parallel import default_jobs
    from collabsim.kolab.report import write_report

    jobs = args.jobs or default_jobs()
    parts: list[tuple[str, float, float]] = []

    def mark(name: str, wall: float, cpu: float) -> tuple[float, float]:
        now_wall, now_cpu = time.perf_counter(), _cpu()
        parts.append((name, now_wall - wall, now_cpu - cpu))
        return now_wall, now_cpu

    load_before = os.getloadavg()
    wall, cpu = wall0, cpu0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graphs = load_explorer(args.data)
    tasks = expand_tasks(DEFAULT_TASKS.split(","))
    instances = build_instances(graphs, tasks)
    wall, cpu = mark("instances (imports, load, build)", wall, cpu)
    predictors = make_predictors(DEFAULT_PREDICTORS, seed=0, progress=False, jobs=jobs)
    result = run_benchmark(
        instances, predictors, tasks, seed=0, n_boot=args.bootstrap,
        n_permutations=args.permutations, progress=False, null_schemes=("global", "blocked"),
    )  # fmt: skip
    run_wall, run_cpu = time.perf_counter() - wall, _cpu() - cpu
    learned = next(p for p in predictors if p.name == "learned")
    measured = {
        "chance levels": result.timings.get("chance levels"),
        "baselines": result.timings.get("baselines"),
        "learned: fold featurizers (fits + nulls share them)":
            learned.timings.get("featurizers"),  # type: ignore[attr-defined]
        "learned: fits + nulls (stacked per fold)": learned.timings.get("fits"),  # type: ignore[attr-defined]
        "bootstrap (evaluation)": result.timings.get("bootstrap"),
    }  # fmt: skip
    for name, value in measured.items():
        parts.append((name, *(value or (0.0, 0.0))))
    learned_all = result.timings.get("learned", (0.0, 0.0))
    inner = [v for k, v in measured.items() if k.startswith("learned") and v]
    parts.append(("learned: rest (features, hashing)", learned_all[0] - sum(v[0] for v in inner),
                  learned_all[1] - sum(v[1] for v in inner)))  # fmt: skip
    parts.append(("run_benchmark total", run_wall, run_cpu))
    wall, cpu = time.perf_counter(), _cpu()
    study = dynamics_study(graphs)
    wall, cpu = mark("dynamics study", wall, cpu)
    out = args.out or Path(tempfile.mkdtemp(prefix="bench_kolab_report_")) / "rep"
    write_report(result, out, study=study, settings={"benchmark": "bench_kolab_report.py"},
                 instances_by_id={i.instance_id: i for i in instances.instances},
                 jobs=jobs)  # fmt: skip
    wall, cpu = mark("report files and plots", wall, cpu)
    total_wall, total_cpu = time.perf_counter() - wall0, _cpu() - cpu0
    load_after = os.getloadavg()

    print(f"kolab report, default settings: {args.permutations} permutations x 2 nulls, "
          f"{args.bootstrap} bootstrap resamples, jobs={jobs} (cores: {os.cpu_count()})")  # fmt: skip
    print(f"{'part':<42} {'wall s':>8} {'CPU s':>8}")
    for name, w, c in parts:
        print(f"{name:<42} {w:8.1f} {c:8.1f}")
    print(f"{'total':<42} {total_wall:8.1f} {total_cpu:8.1f}")
    print(f"CPU time / {jobs} jobs = {total_cpu / jobs:.1f} s (the wall time on an otherwise "
          f"idle machine with {jobs} cores, if the work spread perfectly)")  # fmt: skip
    # the critical path: parts spread over the jobs (fold featurizers, fits, figures) take
    # their CPU time / jobs, every other part its CPU time on one core
    spread = ("learned: fold featurizers", "learned: fits", "report files and plots")
    path = sum(c / jobs if name.startswith(spread) else c for name, _, c in parts
               if name != "run_benchmark total")  # fmt: skip
    print(f"critical path ~ {path:.1f} s (serial parts' CPU + spread parts' CPU / {jobs}); "
          f"estimated wall on an idle machine: {max(path, total_cpu / jobs):.1f} s")  # fmt: skip
    print("load average (1, 5, 15 min) before: {:.1f} {:.1f} {:.1f}; after: {:.1f} {:.1f} {:.1f}"
          .format(*load_before, *load_after))  # fmt: skip
    print(f"report written to {out}")


if __name__ == "__main__":
    main()
