"""Edge-convention figures of workflow graphs: simulated sessions next to the real Kolab ones.

    python benchmarks/bench_graph_edges.py RUN_STORE [--kolab PATH (default: ../shared/data/kolab beside the repository)]

Per side (sessions with a human node only, like ``collabsim fidelity``), over non-loop edges
with timed ends, nodes ranked by start time (ties: graph order):

* ``next_in_time``: share of edges (u, v) where v is the node right after u;
* ``own_lane_skip``: share of edges between two nodes of one participant with another
  participant's node ranked between them;
* ``overlap``: share of nodes that start while another node is running;

and the per-session medians/means of the dynamics the edges drive (crossing share, branches,
merges, density, edges) plus retention, which does not depend on edges.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from collabsim.calibration.kolab_sample import CalibrationInputError
from collabsim.calibration.simulated import load_simulated_graphs
from collabsim.graphs.explorer_io import load_explorer
from collabsim.graphs.kolab_common import KolabFormatError
from collabsim.graphs.model import WorkflowGraph
from collabsim.metrics.dynamics import dynamics_row

DEFAULT_KOLAB = Path(__file__).resolve().parents[2] / "shared/data/kolab/explorer_sessions.json"
_DYNAMICS = ("h_cross", "branch", "merge", "loop", "density_w", "edges_total",
             "retention_strict", "retention_broad")


def edge_figures(graphs: Sequence[WorkflowGraph]) -> dict[str, float]:
    """The figures of the module docstring over ``graphs``."""
    edges = nxt = skip = nodes_total = overlap = 0
    rows = []
    for g in graphs:
        if not any(n.actor_type == "human" for n in g.nodes):
            continue
        timed = [n for n in g.nodes if n.start is not None and n.end is not None]
        ranked = sorted(range(len(timed)), key=lambda i: (timed[i].start, i))
        rank = {timed[i].id: r for r, i in enumerate(ranked)}
        in_order = [timed[i] for i in ranked]
        for e in g.edges:
            if e.type == "loop" or e.source not in rank or e.target not in rank:
                continue
            edges += 1
            ru, rv = rank[e.source], rank[e.target]
            actor = g.node(e.source).actor
            if rv == ru + 1:
                nxt += 1
            elif rv > ru + 1 and actor == g.node(e.target).actor and any(
                    n.actor != actor for n in in_order[ru + 1:rv]):
                skip += 1
        for v in timed:
            nodes_total += 1
            overlap += any(u is not v and u.start <= v.start < u.end for u in timed)  # type: ignore[operator]
        rows.append(dynamics_row(g))
    table = pd.DataFrame(rows)
    out = {"sessions": float(len(table)), "next_in_time": nxt / edges,
           "own_lane_skip": skip / edges, "overlap": overlap / nodes_total}
    for col in _DYNAMICS:
        out[f"{col} median"] = float(table[col].median())
        out[f"{col} mean"] = float(table[col].mean())
    return out


def main() -> None:
    """Print the figures for a run store and the Kolab file side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path, help="run store (or folder) with trace.jsonl files")
    parser.add_argument("--kolab", type=Path, default=DEFAULT_KOLAB)
    args = parser.parse_args()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = edge_figures(load_simulated_graphs(args.store))
            real = edge_figures(load_explorer(args.kolab))
    except (CalibrationInputError, KolabFormatError) as err:
        print(f"error: {err}", file=sys.stderr)  # a bad path is a user error: one line, exit 2
        raise SystemExit(2) from None
    print(f"{'figure':24s} {'simulated':>10s} {'real':>10s}")
    for key in sim:
        print(f"{key:24s} {sim[key]:10.3f} {real[key]:10.3f}")


if __name__ == "__main__":
    main()
