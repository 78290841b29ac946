"""Asking on statistical tasks: does the scripted agent get the decisive fact from its team?

On a generated statistical suite (one decisive fact per task,
``collabsim.tasks.stats_generator``) under ``tasks.knowledge=by_profile`` the agent does not
hold the fact. For each task and seed this runs the single agent and the DR team (default
structure) and prints how often the agent's final plan (its last ``compute-stats`` cell)
has the decisive part as the task's facts give it, and how many sessions had an ask.

Usage::

    python benchmarks/bench_stat_asking.py <suite root> [--seeds 3] [--ask 0.32]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from collabsim.core.knowledge import BY_PROFILE
from collabsim.domain.stats.cell import STATS_MARK, plan_of_cell
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.stats_reading import read_stat_brief
from collabsim.participants.team import team_from_dict
from collabsim.session.config import SessionConfig
from collabsim.session.engine import run_session_sync
from collabsim.session.structures import builtin_structure
from collabsim.tasks.discoverybench import load_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--ask", type=float, default=0.32, help="policy.agent.ask_propensity")
    args = parser.parse_args()
    tasks = [t for t in load_tasks(args.root).tasks if t.facts]
    counts = {team: [0, 0, 0] for team in ("single", "DR")}  # right, sessions, with an ask
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seeds):
            for task in tasks:
                topic = task.facts[0].topic
                truth = read_stat_brief(task.brief())[1].fix().get(topic)
                for team in counts:
                    agent = ScriptedAgent(seed=seed, params={"ask_propensity": args.ask})
                    members: dict[str, object] = {"agent": agent}
                    if team == "single":
                        config = SessionConfig(task=task, structure=builtin_structure("single"),
                                               seed=seed, knowledge=BY_PROFILE)
                    else:
                        roster = team_from_dict(team)
                        for profile in roster.collaborators:
                            members[profile.key] = ScriptedCollaborator(profile, seed=seed)
                        config = SessionConfig(task=task, team=roster, seed=seed,
                                               structure=builtin_structure("default"),
                                               knowledge=BY_PROFILE)
                    trace = Path(tmp) / f"{task.dataset}-{team}-{seed}.jsonl"
                    run_session_sync(config, members, trace)  # type: ignore[arg-type]
                    events = [json.loads(line) for line in trace.read_text().splitlines()]
                    cells = [e["args"]["code"] for e in events if e["actor"] == "agent"
                             and e["action_type"] == "EXECUTE_CODE"
                             and e["args"]["code"].startswith(STATS_MARK)]
                    plan = plan_of_cell(cells[-1]) if cells else None
                    counts[team][0] += plan is not None and plan.fix().get(topic) == truth
                    counts[team][1] += 1
                    counts[team][2] += any(
                        "[ask topic=" in str(e["args"].get("message", "")) for e in events
                        if e["actor"] == "agent")
    for team, (right, n, asked) in counts.items():
        print(f"{team:<6} decisive part right {right}/{n} ({right / max(n, 1):.2f}); "
              f"sessions with an ask {asked}")


if __name__ == "__main__":
    main()
