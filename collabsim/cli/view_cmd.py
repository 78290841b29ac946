"""``collabsim view TRACE_OR_GRAPH --out session.html``: one self-contained session page.

TRACE_OR_GRAPH is a simulated trace (``trace.jsonl``), a session folder, a Kolab graph JSON
file, a node-link JSON file, or the Kolab explorer dataset with ``--session p1|s1``. The page
has no external references: open it in any browser, offline.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path
from typing import Any

from collabsim.cli.errors import user_error
from collabsim.core.outputs import OutputPathError, atomic_file, check_output_file


def register(subparsers: Any) -> None:
    """Add the ``view`` sub-command to ``subparsers``."""
    parser = subparsers.add_parser(
        "view",
        help="draw a session (trace or workflow graph) as one self-contained HTML timeline",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", type=Path, help="trace .jsonl, session folder, or graph JSON")
    parser.add_argument("--out", type=Path, default=Path("session.html"),
                        help="HTML file to write (default: session.html)")
    parser.add_argument("--session", default=None,
                        help="session id in an explorer file, e.g. 'p1|s1' or 'p1|session1'")
    parser.add_argument("--title", default=None, help="page title (default: the session id)")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from collabsim.graphs.from_trace import TraceFormatError
    from collabsim.graphs.kolab_common import KolabFormatError
    from collabsim.viewer import GraphSourceError, load_graph, write_view

    inputs = [args.path, *([args.path / "trace.jsonl"] if args.path.is_dir() else [])]
    try:
        out = check_output_file(args.out, option="--out", inputs=inputs)
    except OutputPathError as err:
        return user_error("view", str(err))
    try:
        with warnings.catch_warnings():
            # data quirks are listed in graph.warnings; the page is still drawn
            warnings.simplefilter("ignore")
            graph = load_graph(args.path, args.session)
    except (GraphSourceError, TraceFormatError, KolabFormatError) as err:
        return user_error("view", str(err))
    try:
        with atomic_file(out) as tmp:
            write_view(graph, tmp, args.title)
    except OSError as err:
        return user_error("view", f"--out: cannot write {args.out}: {err.strerror}")
    print(f"{graph.session.session_id}: {len(graph)} nodes, {len(graph.edges)} edges -> {out}")
    return 0
