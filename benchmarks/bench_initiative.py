"""Print the initiative entropy of a finished run over all events and over the work phase.

Usage::

    python benchmarks/bench_initiative.py RUN_DIR [RUN_DIR ...]

``RUN_DIR``: a ``collabsim run`` output folder whose ``sessions.csv`` has the ``H_init_norm``
and ``H_init_work`` columns (:mod:`collabsim.metrics.initiative`). For each folder: both
columns per structure and team (mean (SE) over tasks, seeds averaged first,
:func:`collabsim.reporting.tables.aggregate`), then every structure's paired difference from
``default`` for the same team (sessions paired by task and seed, 95 % percentile-bootstrap
interval over tasks, :func:`collabsim.reporting.paired.paired_differences`). Give the same
sessions measured with ``metrics.initiative_events=messages`` as a second folder to compare
the two event classes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from collabsim.reporting.paired import paired_differences
from collabsim.reporting.tables import aggregate, format_table

COLUMNS = ("H_init_norm", "H_init_work")


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_dirs", type=Path, nargs="+")
    args = parser.parse_args()
    for run_dir in args.run_dirs:
        sessions = pd.read_csv(run_dir / "sessions.csv")
        teams = sessions[sessions.team != "single"]
        print(f"== {run_dir}")
        print(format_table(aggregate(teams, metrics=COLUMNS), metrics=COLUMNS,
                           decimals=dict.fromkeys(COLUMNS, 3)))
        for metric in COLUMNS:
            deltas = paired_differences(teams, ["structure", "team"], {"structure": "default"},
                                        metric=metric)
            for _, row in deltas.iterrows():
                print(f"{metric} {row.structure} - default, {row.team}: "
                      f"{row.baseline:.3f} -> {row.variant:.3f}, {row.delta:+.3f} "
                      f"[{row.ci_low:+.3f}, {row.ci_high:+.3f}] over {row.n_tasks} tasks")
        print()


if __name__ == "__main__":
    main()
