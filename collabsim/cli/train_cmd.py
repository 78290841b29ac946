"""``collabsim train``: PPO on the macro-action env, evaluated against chance and scripted play.

The options and the study are :mod:`collabsim.experiments.train_agent` (also runnable as
``python -m collabsim.experiments.train_agent``); it needs the ``[rl]`` extra
(``pip install 'collabsim[rl]'``: stable-baselines3 and a CPU torch).
"""

from __future__ import annotations

import argparse
from typing import Any

DESCRIPTION = (
    "Train PPO on the macro-action env (collabsim/DiscoveryTeam-v1; --learner D|R: "
    "collabsim/Collaborator-v1) over the generated training tasks, then evaluate it on the "
    "held-out tasks and the real DiscoveryBench tasks against a random valid macro (the chance "
    "level), the scripted policy and (agent seat) the teammate-ignoring `ignore` and the "
    "asking `ask_first` policies, with 95% bootstrap CIs; the output defines each. By default "
    "the teammates hold the tasks' facts (--knowledge by_profile), the setting where "
    "collaboration matters; under --knowledge everyone the output says the run does not "
    "measure it. Writes learning_curve.png, "
    "evaluation.csv, summary.json and the model to --out. Needs the [rl] extra: "
    "pip install 'collabsim[rl]'. The same: python -m collabsim.experiments.train_agent."
)


def register(subparsers: Any) -> None:
    """Add the ``train`` sub-command to ``subparsers``."""
    from collabsim.experiments.train_agent import build_parser

    parser = subparsers.add_parser(
        "train",
        parents=[build_parser(add_help=False)],
        help="train an agent (or a simulated collaborator) with PPO and evaluate it "
             "(needs the [rl] extra)",
        description=DESCRIPTION,
    )
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from collabsim.experiments.train_agent import check_args, run

    return run(check_args(args))
