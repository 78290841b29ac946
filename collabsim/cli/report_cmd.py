"""``collabsim report PATH... [--out DIR]``: one report over jobs, sweeps and result stores.

PATH may be a job folder (``outputs/<date>/<time>``), a multirun folder, a result store
(``run.store``), or any folder above them (searched recursively). Sessions are counted once
per session key. Writes report.md, report.html, CSV and LaTeX tables, figures (PNG and PDF)
and one HTML view per session into DIR (default ``report``).

Variants are structure × team × every setting that differs between the sessions; they are
never pooled. Paired differences (same task and seed, bootstrap 95% CIs) compare every
structure with ``default`` and every team with the single agent where those ran;
``--baseline structure=memory`` (repeatable) chooses the reference(s) instead, e.g.
``--baseline team=single`` or ``--baseline policy.agent.deference=0.5``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from collabsim.cli.errors import user_error
from collabsim.core.outputs import OutputPathError, StagedOutput, check_output_dir
from collabsim.experiment.sweep_report import REPORT_NAMES

# What `collabsim report` writes: a folder holding only these is a previous report.


def register(subparsers: Any) -> None:
    """Add the ``report`` sub-command to ``subparsers``."""
    parser = subparsers.add_parser(
        "report",
        help="combine job folders, sweeps and result stores into one report with figures",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="+", type=Path, help="job, multirun or store folders")
    parser.add_argument("--out", default="report",
                        help="output folder (default: ./report)")
    parser.add_argument("--tasks-root", action="append", type=Path, default=[],
                        help="task root for sessions found only in a store (repeatable)")
    parser.add_argument("--baseline", action="append", default=None, metavar="KEY=VALUE",
                        help="reference of the paired differences, e.g. structure=default or "
                        "team=single (repeatable; default: both where present)")
    parser.add_argument("--no-views", action="store_true",
                        help="do not write one HTML page per session")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from collabsim.experiment.collect import ReportInputError
    from collabsim.experiment.sweep_report import build_report
    from collabsim.reporting.paired import BaselineError, parse_baseline
    from collabsim.viewer import write_view

    try:
        baselines = None if args.baseline is None else [parse_baseline(b) for b in args.baseline]
        out = check_output_dir(args.out, option="--out", inputs=args.paths, own_names=REPORT_NAMES)
    except (OutputPathError, BaselineError) as err:
        return user_error("report", str(err))
    try:
        # Written beside --out first and moved in at the end: a failure leaves it as it was.
        with StagedOutput(out) as staged:
            report = build_report(args.paths, staged.dir, tasks_roots=args.tasks_root,
                                  views=None if args.no_views else write_view,
                                  baselines=baselines)
            staged.publish()
    except (ReportInputError, BaselineError) as err:
        return user_error("report", str(err))
    except OSError as err:
        return user_error("report", f"--out: cannot write {args.out}: {err.strerror}")
    if report.warning:
        print(report.warning)
    for note in report.notes:
        print(f"note: {note}")
    print(f"{len(report.sessions)} sessions, {len(report.aggregate)} variants, "
          f"{len(report.figures)} figures, {report.views} session views -> "
          f"{out / 'report.md'}")
    return 0
