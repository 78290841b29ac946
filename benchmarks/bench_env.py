"""Environment steps per second: cheap actions (wait, message) and code actions.

Steps ``collabsim/DiscoveryTeam-v0`` (learner = agent, DR team, default structure) with one
kind of action repeatedly, resetting when an episode ends (resets are included in the time),
in a single env and in a vector of 4 (sync and async), and prints steps/s of wall time and of
this process's CPU time. Async workers' CPU time is not in the CPU column. Target: >= 1,000
wait/message steps/s in a single DR env (text interface renders the full prompt each step;
the macro interface computes features instead).

    python benchmarks/bench_env.py [--steps 2000] [--code-steps 100]

Wall-time figures depend on the machine's load; report the CPU column alongside them.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import collabsim_envs
from collabsim.core.actions import format_action
from collabsim_envs.macro import AGENT_MACROS

gym.register_envs(collabsim_envs)
ENV_ID = "collabsim/DiscoveryTeam-v0"
ACTIONS = {
    "wait": "WAIT_TEAMMATE_CONTINUE()",
    "message": format_action("SEND_TEAMMATE_MESSAGE", message="I am looking at the data."),
    "code": format_action("EXECUTE_CODE", code="print(sum(range(1000)))"),
}
CACHE = False
MACROS = {"wait": "wait", "message": "ask_check", "code": "inspect_data"}


def _single(interface: str, kind: str, steps: int) -> tuple[float, float]:
    env = gym.make(ENV_ID, team="DR", interface=interface, cell_cache=CACHE)
    action = ACTIONS[kind] if interface == "text" else AGENT_MACROS.index(MACROS[kind])
    env.reset(seed=0)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    env.close()
    return steps / wall, steps / cpu


def _vector(mode: str, interface: str, kind: str, steps: int) -> tuple[float, float]:
    vec = gym.make_vec(ENV_ID, num_envs=4, vectorization_mode=mode, team="DR",
                       interface=interface, cell_cache=CACHE)
    one = ACTIONS[kind] if interface == "text" else AGENT_MACROS.index(MACROS[kind])
    actions = tuple([one] * 4) if interface == "text" else np.full(4, one)
    vec.reset(seed=0)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        vec.step(actions)  # autoreset (next-step mode) restarts finished sub-envs
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    vec.close()
    return 4 * steps / wall, 4 * steps / cpu


def main() -> None:
    """Print the table of steps per second."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="cheap steps per measurement")
    parser.add_argument("--code-steps", type=int, default=100, help="code steps per measurement")
    parser.add_argument("--cell-cache", action="store_true",
                        help="reuse outputs of self-contained analysis cells (the scripted D's "
                             "recomputation), as training does")
    args = parser.parse_args()
    global CACHE
    CACHE = args.cell_cache
    print(f"{'setting':44s} {'steps/s wall':>13s} {'steps/s CPU':>12s}")
    for interface in ("text", "macro"):
        for kind in ("wait", "message", "code"):
            n = args.code_steps if kind == "code" else args.steps
            wall, cpu = _single(interface, kind, n)
            print(f"{f'single DR env, {interface}, {kind}':44s} {wall:13.0f} {cpu:12.0f}")
    for mode in ("sync", "async"):
        for kind in ("wait", "code"):
            n = (args.code_steps if kind == "code" else args.steps) // 4
            wall, cpu = _vector(mode, "text", kind, n)
            print(f"{f'vector of 4 ({mode}), text, {kind}':44s} {wall:13.0f} {cpu:12.0f}")


if __name__ == "__main__":
    main()
