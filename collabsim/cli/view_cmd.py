"""``collabsim view PATH --out page.html``: one self-contained page of one or many sessions.

PATH is a simulated trace (``trace.jsonl``) or session folder (one session); a job folder, a
sweep (multirun) folder or a result store (every session in it, with a picker filtered by
team, structure and outcome); a Kolab graph JSON or node-link JSON file; or the Kolab
explorer dataset (all 31 sessions, or one with ``--session p1|s1``).

Each session shows the task question, team, structure, the submitted hypothesis,
Performance and the judge's factors, its timeline and, beside it, the chronological
transcript (click a node to find its entry, an entry to find its node). The gold hypothesis
is left out unless ``--show-gold`` is given. The page has no external references: open it in
any browser, offline.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from collabsim.cli.errors import user_error
from collabsim.core.outputs import OutputPathError, atomic_file, check_output_file


def register(subparsers: Any) -> None:
    """Add the ``view`` sub-command to ``subparsers``."""
    parser = subparsers.add_parser(
        "view",
        help="draw sessions (a trace, a sweep, a store or Kolab graphs) as one self-contained "
             "HTML page",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", type=Path,
                        help="trace .jsonl, session / job / sweep / store folder, or graph JSON")
    parser.add_argument("--out", type=Path, default=Path("session.html"),
                        help="HTML file to write (default: session.html)")
    parser.add_argument("--session", default=None,
                        help="one session of an explorer file, e.g. 'p1|s1' or 'p1|session1' "
                             "(default: all of them)")
    parser.add_argument("--title", default=None,
                        help="page title (default: the session id, or the folder's name)")
    parser.add_argument("--show-gold", action="store_true",
                        help="show each task's gold hypothesis in the header (left out by "
                             "default)")
    parser.add_argument("--tasks-root", action="append", default=[], type=Path,
                        help="task root to find stored sessions' tasks in (repeatable)")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from collabsim.graphs.from_trace import TraceFormatError
    from collabsim.graphs.kolab_common import KolabFormatError
    from collabsim.viewer import GraphSourceError, load_view_sessions, write_page

    inputs = [args.path, *([args.path / "trace.jsonl"] if args.path.is_dir() else [])]
    try:
        out = check_output_file(args.out, option="--out", inputs=inputs)
    except OutputPathError as err:
        return user_error("view", str(err))
    try:
        sessions = load_view_sessions(args.path, args.session, show_gold=args.show_gold,
                                      tasks_roots=args.tasks_root)
    except (GraphSourceError, TraceFormatError, KolabFormatError) as err:
        return user_error("view", str(err))
    if not sessions:
        return user_error("view", f"{args.path}: no session to show")
    if args.title:
        title = args.title
    elif len(sessions) == 1:
        title = f"Session {sessions[0].index['id']}"
    else:
        title = f"{len(sessions)} sessions \u00b7 {args.path.resolve().name}"
    try:
        with atomic_file(out) as tmp:
            write_page(sessions, tmp, title)
    except OSError as err:
        return user_error("view", f"--out: cannot write {args.out}: {err.strerror}")
    nodes = sum(s.index["nodes"] for s in sessions)
    print(f"{len(sessions)} session(s), {nodes} nodes -> {out}")
    return 0
