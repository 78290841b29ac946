"""Print how much the simulated collaborators change outcomes in a finished run.

Usage::

    python benchmarks/bench_team_effects.py RUN_DIR

``RUN_DIR``: a ``collabsim run`` output folder whose ``sessions.csv`` has the single agent and
team variants. Prints the share of (task, seed, variant) pairs whose submitted hypothesis
differs from the single agent's (with a binomial standard error) and those whose judged
Performance differs, and the collaborators'
objections and the share of wrong ones (the run's ``objections`` / ``objections_wrong``
columns, see :mod:`collabsim.metrics.objections`), per structure.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd


def differing(sessions: pd.DataFrame) -> pd.Series:
    """Per team session: does its hypothesis differ from the single agent's (same task, seed)?"""
    single = sessions[sessions.team == "single"].set_index(["task_id", "seed"]).hypothesis
    team = sessions[sessions.team != "single"]
    return pd.Series([str(h) != str(single.get((t, s))) for t, s, h in
                      zip(team.task_id, team.seed, team.hypothesis, strict=True)],
                     index=team.index)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", type=Path)
    args = parser.parse_args()
    sessions = pd.read_csv(args.run_dir / "sessions.csv")
    diff = differing(sessions)
    se = math.sqrt(diff.mean() * (1 - diff.mean()) / len(diff))
    print(f"team hypothesis differs from the single agent's: {int(diff.sum())} of {len(diff)} "
          f"(task, seed, variant) pairs = {diff.mean():.3f} (SE {se:.3f})")
    team = sessions[sessions.team != "single"].assign(differs=diff)
    print(team.groupby(["structure", "team"]).differs.mean().round(3).unstack().to_string())
    solo = sessions[sessions.team == "single"].set_index(["task_id", "seed"]).Performance
    delta = pd.Series([p - solo.get((t, s)) for t, s, p in
                       zip(team.task_id, team.seed, team.Performance, strict=True)])
    print(f"judged Performance differs: {int((delta.abs() > 1e-9).sum())} pairs "
          f"({int((delta > 1e-9).sum())} better, {int((delta < -1e-9).sum())} worse)")
    by = team.groupby("structure")[["objections", "objections_wrong"]].sum()
    by["wrong_share"] = by.objections_wrong / by.objections
    total = by[["objections", "objections_wrong"]].sum()
    print(f"objections: {int(total.objections)}, wrong: {int(total.objections_wrong)} = "
          f"{total.objections_wrong / max(total.objections, 1):.3f}")
    print(by.round(3).to_string())


if __name__ == "__main__":
    main()
