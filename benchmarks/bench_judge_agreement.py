"""Agreement of the default judge with hand scores by DiscoveryBench's HMS rubric (issue 36).

``benchmarks/data/judge_agreement_hms.csv`` holds 65 hypotheses the scripted single agent
submitted on the development tasks (``collabsim run tasks=discoverybench
tasks.root=../shared/data/discoverybench_dev team=single``, seed 0: every real/train task and
40 synth/dev tasks drawn with ``numpy.random.default_rng(36)``), each scored by hand, before
the judge's score was looked at, with the hypothesis-matching rubric of DiscoveryBench's
``eval/new_eval.py``:

* ``hms_context``: 1 when the hypothesis is about the gold's context (population, subgroup,
  period; the query's own frame need not be restated), else 0;
* ``hms_variables``: F1 of the variables both name (precision over the hypothesis', recall
  over the gold's);
* ``hms_relation``: 1 the same relation, 0.5 similar but more general (right direction, off
  numbers, an association for the gold's formula), 0 different or contradicting;
* ``hms_score`` = context x variables x relation; a non-answer is 0 throughout.

The golds are read from the shared data at run time (never copied here). Printed: Cohen's
kappa of "score above 0" (judge vs hand) and Spearman's rho of the scores, each with a paired
percentile bootstrap 95 % interval over the hypotheses, and the confusion counts.

    python benchmarks/bench_judge_agreement.py [--data ../shared/data] [--show]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import bootstrap, spearmanr
from sklearn.metrics import cohen_kappa_score

from collabsim.metrics.judge_family import FamilyJudge
from collabsim.tasks.discoverybench import load_tasks

REPO = Path(__file__).resolve().parents[1]
SCORES = REPO / "benchmarks" / "data" / "judge_agreement_hms.csv"


def _interval(x: pd.Series, y: pd.Series, statistic: Callable[[Any, Any], float]
              ) -> tuple[float, float]:
    """Paired percentile bootstrap 95 % interval of a statistic over the scored pairs
    (2,000 resamples, seed 0)."""
    res = bootstrap((x.to_numpy(), y.to_numpy()), statistic, paired=True, vectorized=False,
                    n_resamples=2000, method="percentile", rng=np.random.default_rng(0))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path,
                        default=Path(os.environ.get("COLLABSIM_SHARED_DATA",
                                                    REPO.parent / "shared" / "data")))
    parser.add_argument("--show", action="store_true", help="list the disagreements")
    args = parser.parse_args()
    root = args.data / "discoverybench_dev"
    if not root.is_dir():
        print(f"shared data folder not found: {root}", file=sys.stderr)
        return 2
    tasks = {t.task_id: t for t in load_tasks(root).tasks}
    hand = pd.read_csv(SCORES)
    judge = FamilyJudge()
    scores = [judge.score(str(h), tasks[t].gold_hypothesis, tasks[t])
              for t, h in zip(hand.task_id, hand.hypothesis, strict=True)]
    hand["judge"] = [s.performance for s in scores]
    a, b = list(hand.hms_score > 0), list(hand.judge > 0)
    rho = spearmanr(hand.hms_score, hand.judge).statistic
    both = sum(x and y for x, y in zip(a, b, strict=True))
    print(f"{len(hand)} hand-scored hypotheses; above 0: hand {sum(a)}, judge {sum(b)}, "
          f"both {both}, neither {sum(not x and not y for x, y in zip(a, b, strict=True))}")
    low_k, high_k = _interval(hand.hms_score > 0, hand.judge > 0, cohen_kappa_score)
    low_r, high_r = _interval(hand.hms_score, hand.judge,
                              lambda x, y: spearmanr(x, y).statistic)
    print(f"Cohen's kappa (score > 0): {cohen_kappa_score(a, b):.3f} "
          f"[{low_k:.3f}, {high_k:.3f}] (chance 0)")
    print(f"Spearman rho (scores):     {rho:.3f} [{low_r:.3f}, {high_r:.3f}] (chance 0)")
    print(f"mean score: hand {hand.hms_score.mean():.3f}, judge {hand.judge.mean():.3f}")
    if args.show:
        for i, row in hand.iterrows():
            if (row.hms_score > 0) != (row.judge > 0) or abs(row.hms_score - row.judge) >= 0.5:
                print(f"\n[{i}] {row.task_id}: hand {row.hms_score:.2f}, judge {row.judge:.2f}"
                      f" ({row.note})\n  {row.hypothesis[:200]}\n  judge: "
                      f"{scores[i].rationale[-220:]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
