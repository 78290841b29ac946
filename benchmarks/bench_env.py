"""Environment steps per second: cheap actions (wait, message) and code actions.

Steps ``collabsim/DiscoveryTeam-v1`` (learner = agent, DR team, default structure, the env's
defaults otherwise: one sandbox worker reused across episodes, no cell cache) with one kind of
action repeatedly, resetting when an episode ends as a training loop does (the resets, and the
scripted D's and R's turns and code cells between the learner's steps, are included in the
time), in a single env and in a vector of 4 (sync and async). Columns:

* ``steps/s wall``: steps per second of wall time (depends on the machine's other load);
* ``steps/s CPU``: steps per CPU second of this process;
* ``sandbox ms/step``: CPU of the sandbox's fork server and workers per step (their code
  cells; the env waits for them, so on an idle machine they add to the wall time);
* ``steps/s idle``: steps / (process CPU + sandbox CPU), what the wall rate comes to on an
  idle machine (no other load; the sandbox waits are the only waits).

Each measurement is repeated (``--repeats``, default 3; a fresh env each time) and reported as
the median, with the slowest repeat's wall rate beside it (``wall min``), so one disturbed run
neither hides nor makes the figure. Async workers' CPU is not in the CPU columns (``-``).
Target: >= 1,000 wait/message steps/s in a single DR env (text interface: the full prompt is
rendered each step; macro interface: numeric features instead).

    python benchmarks/bench_env.py [--steps 2000] [--code-steps 100] [--repeats 3]
        [--single-only] [--cell-cache] [--no-reuse]

Wall-time figures depend on the machine's load (printed at the start and the end); report
the CPU columns alongside them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import collabsim.envs
from collabsim.core.actions import format_action
from collabsim.envs.macro import AGENT_MACROS
from collabsim.sandbox import zygote_pid

gym.register_envs(collabsim.envs)
ENV_ID = "collabsim/DiscoveryTeam-v1"
ACTIONS = {
    "wait": "WAIT_TEAMMATE_CONTINUE()",
    "message": format_action("SEND_TEAMMATE_MESSAGE", message="I am looking at the data."),
    "code": format_action("EXECUTE_CODE", code="print(sum(range(1000)))"),
}
MACROS = {"wait": "wait", "message": "ask_check", "code": "inspect_data"}
CACHE = False
REUSE = True
_TICKS = os.sysconf("SC_CLK_TCK")
Row = tuple[float, float, float, float]
"""steps/s wall, steps/s CPU, sandbox ms/step, steps/s idle."""


def _proc_cpu(pid: int, children: bool = False) -> float:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
    except OSError:
        return 0.0
    used = int(fields[11]) + int(fields[12])
    if children:
        used += int(fields[13]) + int(fields[14])
    return used / _TICKS


def _sandbox_cpu() -> float:
    """CPU seconds of this process's fork server and its workers (live and reaped)."""
    zygote = zygote_pid()
    if zygote is None:
        return 0.0
    total = _proc_cpu(zygote, children=True)
    try:
        with open(f"/proc/{zygote}/task/{zygote}/children") as fh:
            total += sum(_proc_cpu(int(pid)) for pid in fh.read().split())
    except OSError:
        pass
    return total


def _single(interface: str, kind: str, steps: int) -> Row:
    env = gym.make(ENV_ID, team="DR", interface=interface, cell_cache=CACHE,
                   reuse_sandbox=REUSE)
    action = ACTIONS[kind] if interface == "text" else AGENT_MACROS.index(MACROS[kind])
    env.reset(seed=0)
    wall, cpu, box = time.perf_counter(), time.process_time(), _sandbox_cpu()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    box = _sandbox_cpu() - box
    env.close()
    return steps / wall, steps / cpu, 1000 * box / steps, steps / (cpu + box)


def _vector(mode: str, interface: str, kind: str, steps: int) -> Row:
    vec = gym.make_vec(ENV_ID, num_envs=4, vectorization_mode=mode, team="DR",
                       interface=interface, cell_cache=CACHE, reuse_sandbox=REUSE)
    one = ACTIONS[kind] if interface == "text" else AGENT_MACROS.index(MACROS[kind])
    actions = tuple([one] * 4) if interface == "text" else np.full(4, one)
    vec.reset(seed=0)
    wall, cpu, box = time.perf_counter(), time.process_time(), _sandbox_cpu()
    for _ in range(steps):
        vec.step(actions)  # autoreset (next-step mode) restarts finished sub-envs
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    box = _sandbox_cpu() - box
    vec.close()
    n = 4 * steps
    if mode == "async":  # sub-envs (and their sandboxes) live in other processes
        return n / wall, float("nan"), float("nan"), float("nan")
    return n / wall, n / cpu, 1000 * box / n, n / (cpu + box)


def _repeated(measure: Callable[[], Row], repeats: int) -> tuple[Row, float]:
    """Median of each column over ``repeats`` measurements, and the lowest wall rate."""
    rows = [measure() for _ in range(repeats)]
    wall, cpu, box, idle = (statistics.median(col) for col in zip(*rows, strict=True))
    return (wall, cpu, box, idle), min(row[0] for row in rows)


def main() -> None:
    """Print the table of steps per second."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="cheap steps per measurement")
    parser.add_argument("--code-steps", type=int, default=100, help="code steps per measurement")
    parser.add_argument("--repeats", type=int, default=3,
                        help="measurements per setting (median reported, slowest wall beside)")
    parser.add_argument("--single-only", action="store_true",
                        help="skip the vectors of 4 (the single-env rows only)")
    parser.add_argument("--cell-cache", action="store_true",
                        help="reuse outputs of self-contained analysis cells (the scripted D's "
                             "recomputation), as training does")
    parser.add_argument("--no-reuse", action="store_true",
                        help="a fresh sandbox worker per episode (reuse_sandbox=False)")
    args = parser.parse_args()
    global CACHE, REUSE
    CACHE, REUSE = args.cell_cache, not args.no_reuse
    repeats = max(1, args.repeats)
    print(f"cores={os.cpu_count()} load(1 min)={os.getloadavg()[0]:.1f} "
          f"reuse_sandbox={REUSE} cell_cache={CACHE} repeats={repeats} (medians)")
    print(f"{'setting':40s} {'steps/s wall':>12s} {'wall min':>8s} {'steps/s CPU':>11s} "
          f"{'sandbox ms/step':>15s} {'steps/s idle':>12s}")

    def show(label: str, measure: Callable[[], Row]) -> None:
        (wall, cpu, box, idle), slowest = _repeated(measure, repeats)
        cells = [f"{wall:12.0f}", f"{slowest:8.0f}"] + [
            f"{v:{w}.{d}f}" if v == v else f"{'-':>{w}s}"
            for v, w, d in ((cpu, 11, 0), (box, 15, 2), (idle, 12, 0))
        ]
        print(f"{label:40s} " + " ".join(cells), flush=True)

    # Start the sandbox's fork server outside the timing (a one-off cost per process).
    _single("text", "wait", 40)
    for interface in ("text", "macro"):
        for kind in ("wait", "message", "code"):
            n = args.code_steps if kind == "code" else args.steps
            show(f"single DR env, {interface}, {kind}",
                 lambda i=interface, k=kind, n=n: _single(i, k, n))
    if not args.single_only:
        for mode in ("sync", "async"):
            for kind in ("wait", "code"):
                n = (args.code_steps if kind == "code" else args.steps) // 4
                show(f"vector of 4 ({mode}), text, {kind}",
                     lambda m=mode, k=kind, n=n: _vector(m, "text", k, n))
    print(f"load(1 min) at the end={os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
