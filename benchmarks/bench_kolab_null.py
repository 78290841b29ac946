"""Speed of the learned predictor's permutation null (plain script).

``python benchmarks/bench_kolab_null.py [--data PATH] [--tasks 1b,2a] [--permutations 5]``

For each task prints the CPU and wall time of the observed leave-one-participant-out fit
(which also fits every fold featurizer, reused by all permutations; CPU = this process and its
worker processes) and the CPU and wall
time per permutation of the global and the within-participant (blocked) null. With 100
permutations per null, a task's null costs about 100 x the per-permutation CPU. Wall time
is inflated when other processes share the machine; CPU time much less so.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

from collabsim.graphs.explorer_io import load_explorer
from collabsim.kolab.chance import permutation_null
from collabsim.kolab.instances import build_instances, expand_tasks
from collabsim.kolab.predictors.learned import LearnedPredictor
from collabsim.kolab.progress import cpu_seconds

DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared/data/kolab/explorer_sessions.json"


def main() -> None:
    """Time the observed fit and a few permutations of each null per task."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--tasks", default="1b,1b+h,2a,2b")
    parser.add_argument("--permutations", type=int, default=5)
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graphs = load_explorer(args.data)
    tasks = expand_tasks(args.tasks.split(","))
    instances = build_instances(graphs, tasks)
    for task in tasks:
        inst = instances.by_task(task)
        predictor = LearnedPredictor(progress=False)
        cpu, wall = cpu_seconds(), time.perf_counter()
        predictor.predict(inst)
        cpu, wall = cpu_seconds() - cpu, time.perf_counter() - wall
        line = f"{task:<5} n={len(inst):<4} observed fit {cpu:6.1f} s CPU {wall:6.1f} s wall"
        for scheme in ("global", "blocked"):
            c, w = cpu_seconds(), time.perf_counter()
            permutation_null(predictor, inst, 0.0, n_permutations=args.permutations,
                             seed=0, scheme=scheme)  # fmt: skip
            c, w = cpu_seconds() - c, time.perf_counter() - w
            n = args.permutations
            line += f" | {scheme} {c / n:5.2f} s CPU {w / n:5.2f} s wall per permutation"
        print(line, flush=True)


if __name__ == "__main__":
    main()
