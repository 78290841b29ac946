"""CPU per decision of the scripted agent and a scripted collaborator as a session grows.

Each policy first decides on an observation with ``n`` teammate messages in chat and ``n``
entries in its history (not timed: it reads them then), then on ``--steps`` observations
that each add one message and one entry, timed with the thread's CPU clock. A policy that
re-scans its history costs O(n) per decision; one that keeps its session log up to date
(:mod:`collabsim.participants.session_log`) costs O(new events), the same at every ``n``.

    python benchmarks/bench_decision_cost.py [--steps 200] [--sizes 0 100 1000 3000]
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace
from pathlib import Path

from collabsim.core.observation import Observation
from collabsim.core.records import ChatMessage, HistoryEntry
from collabsim.core.task import ColumnInfo, DatasetInfo, TaskBrief
from collabsim.participants.scripted import ScriptedAgent, ScriptedCollaborator
from collabsim.participants.team import load_profile

BRIEF = TaskBrief(
    task_id="gen_000/0/0", query="When does the count of Dagger first rise?",
    question_type="context", domain="archaeology", domain_knowledge="Negative years are BCE.",
    workflow_tags="",
    datasets=(DatasetInfo(name="finds", description="Artefact counts per period.",
                          columns=(ColumnInfo("CE", "Year (CE)"),
                                   ColumnInfo("Dagger", "Daggers found")),
                          path=Path("finds.csv")),),
)


def per_decision(policy: ScriptedAgent | ScriptedCollaborator, me: str, n: int,
                 steps: int) -> float:
    """Microseconds of CPU per decision after ``n`` events, over ``steps`` decisions."""
    other = "R" if me != "R" else "D"
    base = Observation(me=me, role="agent" if me == "agent" else "collaborator", profile=None,
                       teammates=tuple(x for x in ("agent", "D", "R") if x != me),
                       time=0.0, structure="default", phase="work", task=BRIEF, turn=5,
                       available_actions=("EXECUTE_CODE", "EDITOR_UPDATE", "FINISH",
                                          "WAIT_TEAMMATE_CONTINUE"))
    chat: list[ChatMessage] = []
    history: list[HistoryEntry] = []

    def add(i: int) -> Observation:
        chat.append(ChatMessage(i, float(i), other, f"note {i}"))
        history.append(HistoryEntry(i, float(i), other, "SEND_TEAMMATE_MESSAGE", "ok",
                                    f"note {i}"))
        return replace(base, chat=tuple(chat), history=tuple(history), time=i + 0.5)

    for i in range(n):
        add(i)
    policy.decide(replace(base, chat=tuple(chat), history=tuple(history), time=float(n)))
    total = 0.0
    for i in range(n, n + steps):
        obs = add(i)
        start = time.thread_time()
        policy.decide(obs)
        total += time.thread_time() - start
    return 1e6 * total / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--sizes", type=int, nargs="+", default=[0, 100, 1000, 3000])
    args = parser.parse_args()
    print(f"load(1 min)={os.getloadavg()[0]:.1f}")
    for n in args.sizes:
        agent = per_decision(ScriptedAgent(seed=0), "agent", n, args.steps)
        collab = per_decision(ScriptedCollaborator(load_profile("D"), seed=0), "D", n,
                              args.steps)
        print(f"history {n:5d}: agent {agent:8.1f} us/decision   D {collab:8.1f} us/decision")


if __name__ == "__main__":
    main()
