"""Why simulated sessions end with the AI's last output unanswered: figures per structure.

    python benchmarks/bench_last_output.py RUN_STORE

For the sessions with a simulated human (as ``collabsim fidelity``), per structure and in
total: the share whose last AI output is answered (``last_ai_responded``, with its 95 %
Wilson interval; real Kolab: 30/31) and the mean ``ai_response_share``. Each session whose
last output is unanswered is then put in the first matching class, read from its trace (the
graph keeps neither refs nor interrupted actions):

* ``confirmed_in_chat``: a collaborator's completed chat message refs the output and
  confirms the draft (``[check draft=...]`` without an issue tag) - a reaction the
  trace-to-graph conversion labels as no response;
* ``other_landed``: another completed collaborator action refs it (e.g. a second objection
  to the same draft, which counts once);
* ``interrupted``: the only collaborator actions that ref it were cut off by the session's
  end (status ``interrupted``);
* ``no_reaction``: no collaborator action refs it (on the archaeology grid mostly a
  collaborator who took the draft silently - it waited without a message - until the agent
  finished).

It also counts the kinds of AI node in the last outputs (``action_type/status``).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from collabsim.calibration.answered import (
    ai_outputs,
    ai_response_share,
    last_ai_responded,
)
from collabsim.calibration.fit import wilson_interval
from collabsim.calibration.kolab_sample import CalibrationInputError
from collabsim.calibration.simulated import load_simulated_graphs
from collabsim.graphs.from_trace import read_trace
from collabsim.graphs.model import Node, WorkflowGraph

CLASSES = ("confirmed_in_chat", "other_landed", "interrupted", "no_reaction")


def _last_output(g: WorkflowGraph) -> list[Node]:
    position = {n.id: i for i, n in enumerate(g.nodes)}
    return max(
        ai_outputs(g),
        key=lambda o: max((n.end or 0.0, n.start or 0.0, position[n.id]) for n in o),
    )


def why_unanswered(g: WorkflowGraph, last: list[Node]) -> str:
    """The class (module docstring) of a session whose last AI output is unanswered."""
    seqs = {n.extra["seq"] for n in last}
    reactions = [
        e for e in read_trace(g.session.extra["trace_path"])
        if e.actor_type == "human" and seqs & set(e.refs)
    ]  # fmt: skip
    landed = [e for e in reactions if e.status != "interrupted"]
    for e in landed:
        text = str(e.args.get("message", ""))
        if e.is_message and "[check draft=" in text and "[issue kind=" not in text:
            return "confirmed_in_chat"
    if landed:
        return "other_landed"
    return "interrupted" if reactions else "no_reaction"


def main() -> None:
    """Print the figures for one run store."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path, help="run store (or folder) with trace.jsonl files")
    args = parser.parse_args()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graphs = load_simulated_graphs(args.store)
    except CalibrationInputError as err:
        print(f"error: {err}", file=sys.stderr)  # a bad path is a user error: one line, exit 2
        raise SystemExit(2) from None
    rows: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
    kinds: Counter[tuple[str, ...]] = Counter()
    for g in graphs:
        team = g.session.extra.get("team")
        human = str(team) != "single" if team is not None else any(
            n.actor_type == "human" for n in g.nodes)
        if not human or not ai_outputs(g):
            continue
        last = _last_output(g)
        kinds[tuple(sorted({f"{n.extra['action_type']}/{n.extra['status']}" for n in last}))] += 1
        answered = last_ai_responded(g)
        why = "answered" if answered == 1.0 else why_unanswered(g, last)
        row = (answered, ai_response_share(g), why)
        rows[str(g.session.extra.get("structure", "?"))].append(row)
        rows["all"].append(row)
    print("structure            sessions  last answered (95 % CI)       share  " + "  ".join(CLASSES))
    for structure in sorted(rows, key=lambda s: (s == "all", s)):
        r = rows[structure]
        hits, n = int(sum(a for a, _, _ in r)), len(r)
        lo, hi = wilson_interval(hits, n)
        why = Counter(w for _, _, w in r)
        print(
            f"{structure:20s} {n:8d}  {hits:5d}/{n:<5d} = {hits / n:.2f} [{lo:.2f}, {hi:.2f}]"
            f"  {np.mean([s for _, s, _ in r]):.3f}  "
            + "  ".join(f"{why[c]:{len(c)}d}" for c in CLASSES)
        )
    print("real Kolab: 30/31 = 0.97 [0.84, 0.99] last answered, mean share 0.673")
    print("\nkinds of AI node in the last output (sessions):")
    for kind, count in kinds.most_common():
        print(f"  {count:6d}  {' + '.join(kind)}")


if __name__ == "__main__":
    main()
