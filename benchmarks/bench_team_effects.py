"""Print how much the simulated collaborators change outcomes in a finished run.

Usage::

    python benchmarks/bench_team_effects.py RUN_DIR CLEAN_DIR

``RUN_DIR``: a ``collabsim run`` output folder whose ``sessions.csv`` has the single agent and
team variants and whose traces are under it or under ``STORE`` (``--store``). ``CLEAN_DIR``: a
run of the single agent with every agent mistake off on the same tasks and seeds (the
mistake-free answer). Prints the share of (task, seed, variant) pairs whose submitted
hypothesis differs from the single agent's, and the share of collaborators' objections that
were raised against the mistake-free draft (wrong objections), per structure.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pandas as pd

_DRAFT = re.compile(r'Draft: "(.*)" \(computed.*\[draft=(\w+)\]', re.S)
_CHECK = re.compile(r"\[check draft=(\w+)\]")


def differing(sessions: pd.DataFrame) -> pd.Series:
    """Per team session: does its hypothesis differ from the single agent's (same task, seed)?"""
    single = sessions[sessions.team == "single"].set_index(["task_id", "seed"]).hypothesis
    team = sessions[sessions.team != "single"]
    return pd.Series([str(h) != str(single.get((t, s))) for t, s, h in
                      zip(team.task_id, team.seed, team.hypothesis, strict=True)],
                     index=team.index)


def objections(traces: Path, clean: pd.Series) -> pd.DataFrame:
    """One row per collaborator objection: structure, sender, and whether it was wrong."""
    rows = []
    for trace in traces.rglob("trace.jsonl"):
        events = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
        start = events[0]["args"]
        drafts: dict[str, str] = {}
        for event in events:
            if event.get("action_type") != "SEND_TEAMMATE_MESSAGE":
                continue
            message = (event.get("args") or {}).get("message", "")
            if event.get("actor") == "agent" and (m := _DRAFT.search(message)):
                drafts[m.group(2)] = m.group(1)
            elif event.get("actor") != "agent" and "[issue" in message:
                fp = _CHECK.search(message)
                draft = drafts.get(fp.group(1)) if fp else None
                truth = clean.get((start["task_id"], start["seed"]))
                rows.append({"structure": start["structure"], "who": event["actor"],
                             "wrong": draft is not None and draft.strip() == str(truth).strip()})
    return pd.DataFrame(rows, columns=["structure", "who", "wrong"])


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("clean_dir", type=Path)
    parser.add_argument("--store", type=Path, default=None)
    args = parser.parse_args()
    sessions = pd.read_csv(args.run_dir / "sessions.csv")
    diff = differing(sessions)
    print(f"team hypothesis differs from the single agent's: {int(diff.sum())} of {len(diff)} "
          f"(task, seed, variant) pairs = {diff.mean():.3f}")
    clean = pd.read_csv(args.clean_dir / "sessions.csv").set_index(["task_id", "seed"]).hypothesis
    table = objections(args.store or args.run_dir, clean)
    print(f"objections: {len(table)}, wrong (against the mistake-free draft): "
          f"{int(table.wrong.sum())} = {table.wrong.mean():.3f}")
    print(table.groupby("structure").wrong.agg(["sum", "count", "mean"]).round(3).to_string())


if __name__ == "__main__":
    main()
