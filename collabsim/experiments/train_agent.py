"""Train a policy with PPO on the macro-action env and evaluate it on held-out tasks.

    pip install 'collabsim[rl]'          # stable-baselines3 + torch (CPU)
    collabsim train                      # knowledge=by_profile, 150,000 steps
    collabsim train --learner D          # a simulated collaborator
    collabsim train --knowledge everyone --timesteps 20000   # the published setting

(the same as ``python -m collabsim.experiments.train_agent ...``, or
``python experiments/train_agent.py ...`` in a checkout). Trains ``PPO("MlpPolicy")`` on
``collabsim/DiscoveryTeam-v1`` (``--learner agent``) or ``collabsim/Collaborator-v1``
(``--learner D|R``) in the macro interface, on the ``train`` split of the generated tasks. Then
evaluates, on the held-out ``test`` split and on the real DiscoveryBench tasks
(``--real-tasks``; by default the copy ``collabsim data fetch discoverybench`` keeps, else a
checkout's ``../shared/data/discoverybench``), the policies of :func:`policy_legend`
(``ppo``, ``random`` - the chance level -, ``scripted``, and in the agent seat ``ignore`` and
``ask_first`` of :mod:`collabsim.experiments.macro_policies`) in the learner's seat on the same
(task, seed) episodes.

``--knowledge`` says who holds the tasks' decisive facts (:mod:`collabsim.core.knowledge`):
``by_profile``, the default - D holds the data conventions, R the readings, the agent nothing,
so the agent must ask and PPO - ignore measures what asking is worth - or ``everyone``, the
published setting, where the agent's own brief has every fact and the teammate-ignoring
``ignore`` already solves the generated tasks (the output says so). The default of
``--timesteps`` is enough to learn asking under ``by_profile`` (docs/gym.md: far fewer steps
learn to skip the teammates, not to ask them).

It prints one line defining each evaluated policy, then each policy's mean judge Performance
(and, for a collaborator, its episode return including the alignment term) with a 95 %
bootstrap CI, the paired PPO - random and (agent seat) PPO - ignore differences with their
95 % CIs, and in how many episodes each policy asked a teammate about a fact; it writes to
``--out``: ``learning_curve.png`` (training episode Performance, rolling mean, vs timesteps),
``evaluation.csv`` (one row per episode), ``summary.json`` and the SB3 model.
``--tracking wandb`` logs the curve and the summary to a wandb run (offline unless
``--wandb-mode online``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

# a checkout's test data: <repo>/../shared/data/discoverybench
CHECKOUT_REAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "discoverybench"

# the setting where collaboration matters: under "everyone" the agent needs no teammate
DEFAULT_KNOWLEDGE = "by_profile"
# by_profile: the training Performance (mean of 200 episodes) passes 0.8 at about 85,000
# steps, and 150,000 steps reach 0.933 held-out (docs/gym.md, Study 2)
DEFAULT_TIMESTEPS = 150_000
LEARNS_TO_ASK_STEPS = 80_000

# what the policies of every seat are; the agent seat's reference policies define their own
# (collabsim.experiments.macro_policies, imported late: `collabsim --help` must stay light)
POLICY_SUMMARIES = {
    "ppo": "the trained policy (deterministic actions)",
    "random": "a uniformly random valid macro each step (the chance level)",
    "scripted": "collabsim's scripted policy for the learner's seat",
}


def _fail(message: str) -> None:
    print(f"collabsim train: {message}", file=sys.stderr)
    raise SystemExit(2)


def default_real_tasks() -> Path | None:
    """The DiscoveryBench copy to evaluate on when ``--real-tasks`` is not given: the one
    ``collabsim data fetch discoverybench`` keeps, else a checkout's shared data, else None."""
    from collabsim.datafetch import cached_root

    cached = cached_root()
    if cached is not None:
        return cached
    return CHECKOUT_REAL if CHECKOUT_REAL.is_dir() else None


def build_parser(add_help: bool = True) -> argparse.ArgumentParser:
    """The command-line options (also the parent parser of ``collabsim train``)."""
    p = argparse.ArgumentParser(prog="collabsim train", description=__doc__.splitlines()[0],
                                add_help=add_help)
    p.add_argument("--learner", default="agent", choices=["agent", "D", "R"])
    p.add_argument("--timesteps", type=int, default=DEFAULT_TIMESTEPS,
                   help=f"PPO training steps (default {DEFAULT_TIMESTEPS:,}: enough to learn "
                        "asking under --knowledge by_profile)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--team", default="DR", choices=["single", "D", "R", "DR"])
    p.add_argument("--structure", default="default")
    p.add_argument("--knowledge", default=DEFAULT_KNOWLEDGE, choices=["everyone", "by_profile"],
                   help="who holds the tasks' decisive facts (tasks.knowledge): by_profile "
                        "(the default; D: data conventions, R: readings; the agent nothing, "
                        "so it must ask), or everyone (the published setting: the agent's "
                        "own brief has every fact and needs no teammate)")
    p.add_argument("--max-turns", type=int, default=20)
    p.add_argument("--eval-seeds", type=int, default=3, help="episodes per held-out task")
    p.add_argument("--real-seeds", type=int, default=1, help="episodes per real task")
    p.add_argument("--agent-mistake-rate", type=float, default=0.0,
                   help="--learner D|R: probability of each of the scripted agent's mistake "
                        "kinds (0: the agent is right by itself and checks matter little)")
    p.add_argument("--real-tasks", type=Path, default=None,
                   help="DiscoveryBench folder with the archaeology tasks (default: the copy "
                        "`collabsim data fetch discoverybench` keeps, else a checkout's "
                        "../shared/data/discoverybench)")
    p.add_argument("--no-real", action="store_true", help="skip the real-task evaluation")
    p.add_argument("--out", type=Path, default=Path("outputs/train_agent"))
    p.add_argument("--tracking", default="none", choices=["none", "wandb"])
    p.add_argument("--wandb-mode", default="offline", choices=["offline", "online"])
    return p


def check_args(args: argparse.Namespace) -> argparse.Namespace:
    """Validate parsed options (one line and exit 2 on a bad one); fills ``real_tasks``."""
    if args.timesteps <= 0:
        _fail(f"--timesteps must be positive, got {args.timesteps}")
    if args.learner != "agent" and args.learner not in args.team:
        _fail(f"--learner {args.learner} is not in --team {args.team}")
    if not 0.0 <= args.agent_mistake_rate <= 1.0:
        _fail(f"--agent-mistake-rate must be in [0, 1], got {args.agent_mistake_rate}")
    if not args.no_real:
        if args.real_tasks is None:
            args.real_tasks = default_real_tasks()
            if args.real_tasks is None:
                _fail("--real-tasks: no DiscoveryBench copy found: run `collabsim data fetch "
                      "discoverybench`, pass --real-tasks PATH, or --no-real")
        if not args.real_tasks.is_dir():
            _fail(f"--real-tasks: no such folder {args.real_tasks} (or pass --no-real)")
    if args.out.exists() and not args.out.is_dir():
        _fail(f"--out: {args.out} is a file, not a folder")
    return args


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options, validated."""
    return check_args(build_parser().parse_args(argv))


def env_kwargs(args: argparse.Namespace, **extra: Any) -> dict[str, Any]:
    """Keyword arguments of the learner's env."""
    kw: dict[str, Any] = dict(team=args.team, structure=args.structure,
                              knowledge=args.knowledge, max_turns=args.max_turns,
                              cell_cache=True, **extra)
    if args.learner != "agent":
        kw["role"] = args.learner
        if args.agent_mistake_rate:
            from collabsim.participants.plan import MISTAKE_KINDS

            rate = args.agent_mistake_rate
            kw["opponent_params"] = {"agent": {"mistakes": dict.fromkeys(MISTAKE_KINDS, rate)}}
    return kw


def make_env(args: argparse.Namespace, **extra: Any) -> Any:
    """The learner's macro env (no gymnasium TimeLimit: the session's own limits end it)."""
    from collabsim.envs import make_collaborator, make_discovery_team

    make = make_discovery_team if args.learner == "agent" else make_collaborator
    return make(interface="macro", **env_kwargs(args, **extra))


def bootstrap_ci(values: np.ndarray, seed: int = 0, n: int = 5000) -> tuple[float, float]:
    """95 % percentile bootstrap CI of the mean."""
    from collabsim.reporting.bootstrap import mean_interval  # late, as the module's others

    return mean_interval(values, np.random.default_rng(seed), n)


def run_episode(env: Any, policy: str, task_id: str, seed: int, model: Any = None,
                rng: np.random.Generator | None = None) -> dict[str, Any]:
    """One evaluation episode of ``policy`` in the learner's seat."""
    from collabsim.experiments.macro_policies import REFERENCE_POLICIES
    from collabsim.participants.scripted import build_scripted

    obs, info = env.reset(seed=seed, options={"task_id": task_id})
    base = env.base
    scripted = None
    reference = REFERENCE_POLICIES[policy]() if policy in REFERENCE_POLICIES else None
    if policy == "scripted":
        seat = base.learner
        profile = next((p for p in base.team.collaborators if p.key == seat), None)
        role = "agent" if seat == base.team.agent else "collaborator"
        scripted = build_scripted(seat, role, profile, seed=info["session_seed"])
    total, steps, done = 0.0, 0, False
    while not done:
        if policy == "scripted":
            text = scripted.decide(base.last_observation)
            _, reward, terminated, truncated, info = base.step(text)
            obs = env.features(base.last_observation)
        else:
            if policy == "ppo":
                action, _ = model.predict(obs, deterministic=True)
            elif reference is not None:
                action = reference.act(obs, info["action_mask"])
            else:
                action = rng.choice(np.flatnonzero(info["action_mask"]))
            obs, reward, terminated, truncated, info = env.step(int(action))
        total += float(reward)
        steps += 1
        done = terminated or truncated
    # the learner's questions about facts, as its last observation (where it ended) shows
    asked = len(env.asks(base.last_observation)) if base.last_observation is not None else 0
    return {"policy": policy, "task_id": task_id, "seed": seed, "return": total,
            "performance": info["performance"], "A_profile": info["metrics"].get("A_profile"),
            "status": info["status"], "steps": steps, "asked": asked}


def evaluate(args: argparse.Namespace, model: Any, task_set: str, n_seeds: int,
             **env_extra: Any) -> list:
    """Episodes of every policy on every task of a set, ``n_seeds`` seeds each."""
    env = make_env(args, **env_extra)
    rng = np.random.default_rng(args.seed + 17)
    rows = []
    tasks = [t.task_id for t in env.base.tasks if t.gold_hypothesis]
    for task_id in tasks:
        for k in range(n_seeds):
            seed = 10_000 + 97 * k
            for policy in policies(args):
                row = run_episode(env, policy, task_id, seed, model, rng)
                rows.append({"task_set": task_set, **row})
    env.close()
    return rows


def policies(args: argparse.Namespace) -> tuple[str, ...]:
    """The evaluated policies of the learner's seat (see module docstring)."""
    base = ("ppo", "random", "scripted")
    return (*base, "ignore", "ask_first") if args.learner == "agent" else base


def policy_legend(args: argparse.Namespace) -> list[str]:
    """One line defining each policy the run evaluates, in :func:`policies` order."""
    from collabsim.experiments.macro_policies import REFERENCE_POLICIES

    summaries = POLICY_SUMMARIES | {n: c.summary for n, c in REFERENCE_POLICIES.items()}
    return [f"  {policy:9s} = {summaries[policy]}" for policy in policies(args)]


def setting_notes(args: argparse.Namespace) -> list[str]:
    """What the knowledge setting (and, under it, the step budget) lets this run show."""
    agent = args.learner == "agent"
    if args.knowledge == "everyone":
        solo = "ignore solves the generated tasks" if agent else "the agent never asks"
        return [f"knowledge=everyone: the agent's own brief holds every fact, so no teammate is "
                f"needed ({solo}): this run does NOT measure collaboration; the default "
                "--knowledge by_profile does"]
    if not agent:
        return ["knowledge=by_profile: D holds the data conventions, R the readings, the agent "
                "nothing: the scripted agent asks at times, and the learner's answers carry the facts"]
    notes = ["knowledge=by_profile: D holds the data conventions, R the readings, the agent "
             "nothing: it must ask, and ppo - ignore is what asking is worth"]
    if args.timesteps < LEARNS_TO_ASK_STEPS:
        notes.append(f"{args.timesteps:,} steps: PPO has been seen to learn asking only from "
                     f"about {LEARNS_TO_ASK_STEPS:,} (default {DEFAULT_TIMESTEPS:,}; "
                     "docs/gym.md)")
    return notes


def summarise(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """Means with 95 % CIs per policy, the share of episodes in which each asked a teammate
    (``asks``), and the paired ppo - random (and ppo - ignore) differences."""
    import pandas as pd

    df = pd.DataFrame(rows)
    out: dict[str, Any] = {"n_episodes": int((df.policy == "ppo").sum())}
    for policy, group in df.groupby("policy", sort=False):
        values = group[key].to_numpy(dtype=float)
        lo, hi = bootstrap_ci(values)
        out[policy] = {"mean": float(values.mean()), "ci95": [lo, hi],
                       "asks": {"episodes": int((group["asked"] > 0).sum()),
                                "of": int(len(group))}}
    wide = df.pivot_table(index=["task_id", "seed"], columns="policy", values=key)
    for other in ("random", "ignore"):
        if other not in wide:
            continue
        diff = (wide["ppo"] - wide[other]).to_numpy(dtype=float)
        lo, hi = bootstrap_ci(diff)
        out[f"ppo_minus_{other}"] = {"mean": float(diff.mean()), "ci95": [lo, hi],
                                     "excludes_zero": bool(lo > 0 or hi < 0)}
    return out


def learning_curve(monitor_csv: Path, png: Path, title: str) -> list[dict[str, float]]:
    """Plot training episode Performance (rolling mean of 50) against timesteps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    df = pd.read_csv(monitor_csv, skiprows=1)
    df["timesteps"] = df["l"].cumsum()
    df["rolling"] = df["performance"].rolling(50, min_periods=1).mean()
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(df["timesteps"], df["performance"], ".", alpha=0.15, label="episode")
    ax.plot(df["timesteps"], df["rolling"], "-", label="rolling mean (50 episodes)")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("judge Performance (train tasks)")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(title)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)
    return df[["timesteps", "performance", "rolling"]].to_dict("records")


def print_report(args: argparse.Namespace, summary: dict[str, Any], seat: str,
                 train_wall: float, train_cpu: float) -> None:
    """Print the training time and, per task set, each policy's figures (see module)."""
    print(f"PPO on {seat}: {args.timesteps} steps in {train_wall:.0f} s wall / "
          f"{train_cpu:.0f} s CPU (this process; sandbox workers not included)")
    for note in setting_notes(args):
        print(note)
    print("policies evaluated in the learner's seat:")
    for line in policy_legend(args):
        print(line)
    sets = [k for k, v in summary.items() if isinstance(v, dict) and "performance" in v]
    for task_set in sets:
        for k, s in summary[task_set].items():
            print(f"\n{task_set} tasks, {k} ({s['n_episodes']} episodes per policy; "
                  f"knowledge={args.knowledge}):")
            for policy in policies(args):
                m, (lo, hi) = s[policy]["mean"], s[policy]["ci95"]
                print(f"  {policy:9s} {m:.3f}  95% CI [{lo:.3f}, {hi:.3f}]")
            for other in ("random", "ignore"):
                if f"ppo_minus_{other}" not in s:
                    continue
                d = s[f"ppo_minus_{other}"]
                verdict = "excludes 0" if d["excludes_zero"] else "does NOT exclude 0"
                print(f"  ppo - {other} (paired) {d['mean']:+.3f}  95% CI "
                      f"[{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}] - {verdict}")
            others = ", ".join(f"{p} {s[p]['asks']['episodes']}" for p in policies(args)[1:])
            asks = s["ppo"]["asks"]
            print(f"  ppo asks a teammate in {asks['episodes']} of {asks['of']} episodes "
                  f"({others})")


def main(argv: list[str] | None = None) -> int:
    """Train, evaluate, plot, report; returns the exit code."""
    return run(parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Train, evaluate, plot and report with validated options (:func:`check_args`)."""
    try:
        import torch
        from stable_baselines3 import PPO
        from stable_baselines3.common.logger import Logger
        from stable_baselines3.common.monitor import Monitor
    except ImportError:
        _fail("needs stable-baselines3 and torch: pip install 'collabsim[rl]'")
    torch.set_num_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    wall, cpu = time.perf_counter(), time.process_time()
    train_env = Monitor(make_env(args, split="train"), str(args.out / "monitor"),
                        info_keywords=("performance",))
    model = PPO("MlpPolicy", train_env, n_steps=1024, batch_size=128, n_epochs=10,
                learning_rate=3e-4, ent_coef=0.01, gamma=0.99, seed=args.seed, verbose=0,
                device="cpu")
    # SB3's default logger makes an empty SB3-<date> folder in the system temp dir per run;
    # everything a run keeps is written under --out
    model.set_logger(Logger(folder=None, output_formats=[]))
    model.learn(total_timesteps=args.timesteps)
    train_env.close()
    model.save(args.out / "model")
    train_wall, train_cpu = time.perf_counter() - wall, time.process_time() - cpu
    seat = "agent" if args.learner == "agent" else f"collaborator {args.learner}"
    curve = learning_curve(args.out / "monitor.monitor.csv", args.out / "learning_curve.png",
                           f"PPO, learner = {seat}, team {args.team}, {args.structure}, "
                           f"knowledge={args.knowledge}")
    rows = evaluate(args, model, "held-out generated", args.eval_seeds, split="test")
    if not args.no_real:
        rows += evaluate(args, model, "real archaeology", args.real_seeds,
                         tasks=str(args.real_tasks))
    import pandas as pd

    pd.DataFrame(rows).to_csv(args.out / "evaluation.csv", index=False)
    summary: dict[str, Any] = {
        "learner": args.learner, "team": args.team, "structure": args.structure,
        "knowledge": args.knowledge, "timesteps": args.timesteps, "seed": args.seed,
        "train_wall_seconds": round(train_wall, 1), "train_cpu_seconds": round(train_cpu, 1),
        "total_wall_seconds": round(time.perf_counter() - wall, 1),
        "total_cpu_seconds": round(time.process_time() - cpu, 1),
    }
    keys = ["performance"] + (["return"] if args.learner != "agent" else [])
    for task_set in dict.fromkeys(r["task_set"] for r in rows):
        part = [r for r in rows if r["task_set"] == task_set]
        summary[task_set] = {k: summarise(part, k) for k in keys}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
    print_report(args, summary, seat, train_wall, train_cpu)
    print(f"\nwrote {args.out}/learning_curve.png, evaluation.csv, summary.json, model.zip")
    if args.tracking == "wandb":
        import wandb

        options = {k: v for k, v in vars(args).items() if k not in ("func", "command")}
        wb = wandb.init(project="collabsim-rl", mode=args.wandb_mode, dir=str(args.out),
                        config=options | {"out": str(args.out),
                                          "real_tasks": str(args.real_tasks)})
        for point in curve:
            wb.log({"train/performance": point["performance"],
                     "train/rolling": point["rolling"]}, step=int(point["timesteps"]))
        wb.summary.update({"summary": summary})
        wb.log({"learning_curve": wandb.Image(str(args.out / "learning_curve.png"))})
        wb.finish()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
