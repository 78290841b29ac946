"""Objections of the scripted collaborators on statistical drafts: how many, and how many right.

Reads a run folder (``collabsim run ... hydra.run.dir=<out>`` on statistical tasks) and prints,
per raiser and issue kind, how many issues D and R raised and how many were right:

* a plan issue (``fix=target:...``, ``predictors``, ``controls``, ``filters``, ``analysis``)
  is right when its fix gives the part as the mistake-free reading of the task gives it
  (the query read with every fact of the task, :func:`read_stat_brief`);
* a statement issue (``direction_misread``, ``significance_ignored``, no fix) is counted
  right when the agent drew that mistake in the session (an approximation: a drawn wording
  mistake shows only where the result has a direction / significance to state).

Usage::

    python benchmarks/bench_stat_objections.py <run dir> --root <tasks.root>
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import re
from pathlib import Path

from collabsim.core.tags import parse_issues
from collabsim.domain.stats.model import parse_filters
from collabsim.participants.scripted_params import AgentParams
from collabsim.participants.stat_facts import normalize_filters
from collabsim.participants.stats_reading import is_statistical, read_stat_brief
from collabsim.tasks.discoverybench import load_tasks

_ISSUE = re.compile(r"\[issue kind=\w+[^\]]*\]")


def _same(key: str, value: str, right: dict[str, str]) -> bool:
    if key in ("predictors", "controls"):
        return set(value.split("+")) - {"none", ""} == set(right[key].split("+")) - {"none", ""}
    if key == "filters":
        try:
            return set(parse_filters(normalize_filters(value))) == set(
                parse_filters(right[key]))
        except ValueError:
            return False
    return value == right[key]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--root", type=Path, required=True, help="the run's tasks.root")
    args = parser.parse_args()
    tasks = {t.task_id: t for t in load_tasks(args.root).tasks}
    mistakes = AgentParams().mistakes
    raised: collections.Counter[tuple[str, str]] = collections.Counter()
    right: collections.Counter[tuple[str, str]] = collections.Counter()
    sessions = statistical = with_issue = 0
    for trace in sorted(args.run.glob("sessions/*/trace.jsonl")):
        events = [json.loads(line) for line in trace.read_text().splitlines()]
        start = events[0]["args"]
        task = tasks.get(start["task_id"])
        sessions += 1
        if task is None or not is_statistical(task.brief()):
            continue
        statistical += 1
        truth = read_stat_brief(task.brief())[1].fix()
        drawn = mistakes.draw_stats(start["seed"], start["task_id"])
        had = False
        for e in events:
            if e["actor"] not in ("D", "R") or e["action_type"] not in (
                    "SEND_TEAMMATE_MESSAGE", "REJECT"):
                continue
            text = e["args"].get("message") or e["args"].get("reason") or ""
            for kind, fix in parse_issues(text):
                had = True
                raised[(e["actor"], kind)] += 1
                ok = (all(_same(k, v, truth) for k, v in fix.items() if k in truth)
                      if fix else kind in drawn)
                right[(e["actor"], kind)] += ok
        with_issue += had
    print(f"{args.run}: {sessions} sessions, {statistical} statistical, "
          f"{with_issue} with an issue")
    print(f"{'raiser':<6} {'kind':<22} {'raised':>6} {'right':>6} {'share':>6}")
    for key in sorted(raised):
        n, ok = raised[key], right[key]
        print(f"{key[0]:<6} {key[1]:<22} {n:>6} {ok:>6} {ok / n:>6.2f}")
    total, ok = sum(raised.values()), sum(right.values())
    if total:
        print(f"{'all':<29} {total:>6} {ok:>6} {ok / total:>6.2f}")
    rows = list(csv.DictReader((args.run / "sessions.csv").open()))
    print("statuses:", dict(collections.Counter(r["status"] for r in rows)))


if __name__ == "__main__":
    main()
