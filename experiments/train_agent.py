"""Train a policy with PPO on the macro-action env (a checkout's entry point).

The study ships with the package: ``collabsim train ...`` or
``python -m collabsim.experiments.train_agent ...`` (see that module); this file only runs it,
so ``python experiments/train_agent.py --timesteps 20000`` keeps working in a checkout.
"""

from collabsim.experiments.train_agent import main

if __name__ == "__main__":
    raise SystemExit(main())
