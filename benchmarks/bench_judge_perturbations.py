"""Validate the statistical judge with the perturbation suite.

From every statistical gold hypothesis on the shared data (DiscoveryBench real/train and
synth/dev metadata golds, the non-archaeology answer-key golds) the suite builds wrong
variants (direction flipped, a variable dropped or replaced, a number changed beyond
tolerance, the population changed; see collabsim/metrics/judge_perturbations.py) and
prints the share of pairs the default judge orders correctly (gold 1, perturbation
strictly below) with a Wilson 95 % interval, per kind and overall (target >= 95 %).
It also prints how often another gold of the same dataset (a different claim about the same
data) scores below 1 against a gold; the pairs scoring 1 are listed with --show-failures
(on the shared data they are re-wordings of the same finding).

    COLLABSIM_SHARED_DATA=../shared/data python benchmarks/bench_judge_perturbations.py
    python benchmarks/bench_judge_perturbations.py --seed 1 --show-failures
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from collabsim.metrics.judge_family import FamilyJudge
from collabsim.metrics.judge_perturbations import (
    evaluate,
    shared_gold_tasks,
    summary,
    wilson_interval,
)

REPO = Path(__file__).resolve().parents[1]


def _cross_golds(tasks: list, show: bool) -> None:
    """Print how often another gold of the same dataset scores below 1 against a gold."""
    judge = FamilyJudge()
    equal: list[tuple[str, str]] = []
    pairs = 0
    for a in tasks:
        for b in tasks:
            if a.dataset != b.dataset or a.gold_hypothesis.strip() == b.gold_hypothesis.strip():
                continue
            pairs += 1
            if judge.score(b.gold_hypothesis, a.gold_hypothesis, a).performance >= 1.0:
                equal.append((a.task_id, b.task_id))
    below = pairs - len(equal)
    lo, hi = wilson_interval(below, pairs)
    print(f"\nother golds of the same dataset scoring below 1: {below}/{pairs} "
          f"({below / pairs:.1%}, 95% CI [{lo:.1%}, {hi:.1%}])")
    if show:
        for a_id, b_id in equal:
            print(f"  {b_id} scores 1 against the gold of {a_id}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path,
                        default=Path(os.environ.get("COLLABSIM_SHARED_DATA",
                                                    REPO.parent / "shared" / "data")))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show-failures", action="store_true")
    args = parser.parse_args()
    try:
        tasks = shared_gold_tasks(args.data)
    except FileNotFoundError as err:
        print(err, file=sys.stderr)
        return 2
    start = time.perf_counter()
    results = evaluate(tasks, FamilyJudge(), seed=args.seed)
    took = time.perf_counter() - start
    print(f"{len(tasks)} statistical golds, {len(results)} pairs, seed {args.seed}, "
          f"{took:.1f} s")
    print(f"{'kind':<18} {'ordered':>7} {'pairs':>5} {'share':>6}  95% CI (Wilson)")
    for kind, k, n, share, lo, hi in summary(results):
        print(f"{kind:<18} {k:>7} {n:>5} {share:>6.1%}  [{lo:.1%}, {hi:.1%}]")
    if args.show_failures:
        for r in results:
            if not r.ordered:
                print(f"\n{r.kind} {r.task_id}: gold {r.gold_score:.2f}, "
                      f"perturbed {r.perturbed_score:.2f}\n  {r.text}")
    _cross_golds(tasks, args.show_failures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
