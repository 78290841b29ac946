"""Print what asking a teammate is worth in the macro env: ignoring vs asking first.

Usage::

    python benchmarks/bench_solo_policy.py [--seeds 6] [--knowledge by_profile]
        [--team DR] [--structure default] [--max-turns 20] [--max-waits 10]

On the held-out generated tasks (``split="test"``) in ``collabsim/DiscoveryTeam-v1`` with the
macro interface, plays on the same (task, seed) episodes:

* (a) ``ignore``: the teammate-ignoring three-step policy ``analyse_variant_0``,
  ``update_editor``, ``finish``;
* (b) ``ask_first``: the ask macro of each kind of fact the agent's brief leaves open
  (``ask_reading`` goes to R, ``ask_convention`` to D), waiting until the answer arrives (at
  most ``--max-waits`` waits), then the same three steps (variant 0 applies the answer)

(:mod:`collabsim.experiments.macro_policies`). Prints each policy's mean judge Performance
with a 95 % percentile bootstrap CI, the paired (b) - (a) difference with its CI, the same
per kind of the task's decisive fact, and how the questions went (answered with a value,
the right value, "I don't know", no answer within the waits). The target:
(b) - (a) >= 0.3 under ``knowledge=by_profile``, team DR, structure default.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np

from collabsim.envs import make_discovery_team
from collabsim.experiments.macro_policies import AskFirst, IgnoreTeammates
from collabsim.experiments.train_agent import bootstrap_ci


def play(env: Any, policy: Any, task_id: str, seed: int) -> dict[str, Any]:
    """One episode of ``policy``; what it scored and how its questions went."""
    features, info = env.reset(seed=seed, options={"task_id": task_id})
    policy.reset()
    done, steps = False, 0
    while not done:
        action = policy.act(features, info["action_mask"])
        features, _, terminated, truncated, info = env.step(action)
        done, steps = terminated or truncated, steps + 1
    task = env.base.task
    # the learner's questions as its last observation (where it finished) shows them
    asks = env.asks(env.base.last_observation)
    truth = {f.topic: f.fix for f in task.facts}
    return {
        "policy": policy.name, "task_id": task_id, "seed": seed,
        "kind": task.facts[0].kind if task.facts else "none",
        "performance": float(info["performance"]), "status": info["status"], "steps": steps,
        "asked": len(asks),
        "answered": sum(isinstance(a, dict) for _, _, a in asks),
        "right": sum(isinstance(a, dict) and a == truth.get(t) for t, _, a in asks),
        "unknown": sum(a is None for _, _, a in asks),
        "unanswered": sum(a is False for _, _, a in asks),
    }


def ci_text(values: np.ndarray, signed: bool = False) -> str:
    lo, hi = bootstrap_ci(values)
    f = "{:+.3f}" if signed else "{:.3f}"
    return f"{f.format(values.mean())}  95% CI [{f.format(lo)}, {f.format(hi)}]"


def main() -> None:
    """Run both policies and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=6, help="episodes per held-out task")
    parser.add_argument("--knowledge", default="by_profile")
    parser.add_argument("--team", default="DR")
    parser.add_argument("--structure", default="default")
    parser.add_argument("--max-turns", type=int, default=20)
    parser.add_argument("--max-waits", type=int, default=10)
    args = parser.parse_args()
    wall, cpu = time.perf_counter(), time.process_time()
    env = make_discovery_team(interface="macro", team=args.team, structure=args.structure,
                              knowledge=args.knowledge, split="test",
                              max_turns=args.max_turns, cell_cache=True)
    rows = []
    try:
        tasks = [t.task_id for t in env.base.tasks if t.gold_hypothesis]
        for task_id in tasks:
            for k in range(args.seeds):
                seed = 10_000 + 97 * k  # the seeds of experiments/train_agent.py's evaluation
                for policy in (IgnoreTeammates(), AskFirst(args.max_waits)):
                    rows.append(play(env, policy, task_id, seed))
    finally:
        env.close()
    import pandas as pd

    df = pd.DataFrame(rows)
    n = int((df.policy == "ignore").sum())
    print(f"held-out generated tasks: {len(tasks)} tasks x {args.seeds} seeds = {n} episodes "
          f"per policy; knowledge={args.knowledge}, team {args.team}, {args.structure}, "
          f"max_turns {args.max_turns}, at most {args.max_waits} waits for an answer")
    wide = df.pivot_table(index=["task_id", "seed"], columns="policy", values="performance")
    kinds = df[df.policy == "ignore"].set_index(["task_id", "seed"]).kind
    for label, part in [("all", wide), *[(f"{k} fact", wide[kinds == k])
                                         for k in sorted(kinds.unique())]]:
        print(f"\n{label} ({len(part)} episodes per policy): mean judge Performance")
        print(f"  (a) ignore     {ci_text(part['ignore'].to_numpy(float))}")
        print(f"  (b) ask_first  {ci_text(part['ask_first'].to_numpy(float))}")
        diff = (part["ask_first"] - part["ignore"]).to_numpy(float)
        print(f"  (b) - (a) paired  {ci_text(diff, signed=True)}")
    ask = df[df.policy == "ask_first"]
    print(f"\nask_first's questions: {int(ask.asked.sum())} in {n} episodes; answered with a "
          f"value {int(ask.answered.sum())} (the fact's own value {int(ask.right.sum())}), "
          f"\"I don't know\" {int(ask.unknown.sum())}, no answer within the waits "
          f"{int(ask.unanswered.sum())}; mean steps: ignore {df[df.policy == 'ignore'].steps.mean():.1f}, "
          f"ask_first {ask.steps.mean():.1f}")
    diff = (wide["ask_first"] - wide["ignore"]).to_numpy(float)
    met = diff.mean() >= 0.3
    print(f"\nacceptance (b) - (a) >= 0.3: {'met' if met else 'NOT met'} "
          f"({diff.mean():+.3f})")
    print(f"wall {time.perf_counter() - wall:.1f} s, CPU {time.process_time() - cpu:.1f} s "
          f"(this process), load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
