"""Performance per DiscoveryBench domain of a run, with 95 % bootstrap CIs over tasks.

``python benchmarks/per_domain_performance.py RUN_DIR [--team single] [--structure single]``

Reads ``RUN_DIR/sessions.csv`` (a ``collabsim run`` on a DiscoveryBench folder), averages each
task's sessions (seeds), and prints per domain - the task id's first part, with the synthetic
split's ``_<i>_<j>`` suffix removed - the number of tasks, the mean Performance and a
percentile bootstrap 95 % CI over tasks (2,000 resamples, seed 0), then the same per split
(synthetic domains: names of the form ``<name>_<i>_<j>``) and overall. Beside Performance:
the judge's chance baselines of the same tasks (columns ``chance_*`` of ``sessions.csv``,
collabsim.metrics.baselines: the query as the hypothesis, another gold of the dataset, the
canned non-answer), mean over the tasks that have one.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pandas as pd

from collabsim.metrics.baselines import BASELINE_COLUMNS, BASELINE_LABELS
from collabsim.reporting.bootstrap import mean_interval

_SYNTH = re.compile(r"_\d+_\d+$")
_SHORT = {"chance_query": "query", "chance_other_gold": "other", "chance_non_answer": "non-ans"}


def _short(column: str) -> str:
    """A baseline column's heading (a baseline added later is shown by its own name)."""
    return _SHORT.get(column, column.removeprefix("chance_"))


def bootstrap_ci(values: np.ndarray, rng: np.random.Generator, n: int = 2000
                 ) -> tuple[float, float]:
    """Percentile 95 % interval of the mean over ``n`` resamples."""
    if len(values) < 2:
        return float("nan"), float("nan")
    return mean_interval(values, rng, n)


def main() -> None:
    """Print the per-domain table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--team", default="single")
    parser.add_argument("--structure", default="single")
    args = parser.parse_args()
    frame = pd.read_csv(args.run_dir / "sessions.csv")
    frame = frame[(frame.team == args.team) & (frame.structure == args.structure)]
    chance = [c for c in BASELINE_COLUMNS if c in frame]
    per_task = frame.groupby("task_id")[["Performance", *chance]].mean().reset_index()
    first = per_task.task_id.str.split("/").str[0]
    per_task["split"] = np.where(first.str.contains(_SYNTH), "synth", "real")
    per_task["domain"] = first.str.replace(_SYNTH, "", regex=True)
    rng = np.random.default_rng(0)
    rows = [(f"{split}: {domain}", group)
            for (split, domain), group in per_task.groupby(["split", "domain"])]
    rows += [(f"{split}: all", group) for split, group in per_task.groupby("split")]
    rows.append(("overall", per_task))
    heads = "".join(f" {_short(c):>8}" for c in chance)
    print(f"{'domain':<52} {'tasks':>5} {'Performance':>11}  {'95 % CI':<12}{heads}")
    for name, group in rows:
        values = group.Performance.to_numpy()
        low, high = bootstrap_ci(values, rng)
        ci = "-" if np.isnan(low) else f"[{low:.2f}, {high:.2f}]"
        cells = "".join(f" {group[c].mean():>8.2f}" for c in chance)
        print(f"{name:<52} {len(values):>5} {values.mean():>11.2f}  {ci:<12}{cells}")
    if chance:
        print("chance baselines: " + ", ".join(f"{_short(c)} = {BASELINE_LABELS[c]}"
                                               for c in chance))


if __name__ == "__main__":
    main()
