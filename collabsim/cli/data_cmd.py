"""``collabsim data fetch discoverybench [--dest DIR] [--url URL]``: get the real tasks.

Downloads the public DiscoveryBench release archive with a progress bar, verifies it
(layout, answer keys, task counts) and prints the ``tasks.root`` to use. Without ``--dest``
it goes into the cache, where ``tasks=discoverybench`` finds it without a root.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from collabsim.cli.errors import user_error


def register(subparsers: Any) -> None:
    """Add the ``data`` sub-command to ``subparsers``."""
    parser = subparsers.add_parser("data", help="download public data sets (DiscoveryBench)",
                                   description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="data_command", metavar="ACTION")
    fetch = sub.add_parser("fetch", help="download and verify a data set")
    fetch.add_argument("dataset", choices=["discoverybench"])
    fetch.add_argument("--dest", type=Path, default=None,
                       help="install here instead of the cache")
    fetch.add_argument("--url", default=None,
                       help="archive URL (default: the DiscoveryBench GitHub archive, or "
                            "$COLLABSIM_DISCOVERYBENCH_URL)")
    fetch.add_argument("--no-progress", action="store_true", help="no progress bar")
    fetch.set_defaults(func=_fetch)
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])


def _fetch(args: argparse.Namespace) -> int:
    from collabsim.datafetch import FetchError, cache_dir, fetch_discoverybench

    try:
        result = fetch_discoverybench(args.dest, args.url, progress=not args.no_progress)
    except FetchError as err:
        return user_error("data fetch", str(err))
    except OSError as err:
        return user_error("data fetch", f"--dest: cannot write {args.dest}: {err.strerror}")
    counts = ", ".join(f"{n} {src} ({result.with_gold.get(src, 0)} with gold)"
                       for src, n in sorted(result.tasks.items()))
    print(f"Verified {result.url} (sha256 {result.sha256[:16]}…): {counts}"
          + (f"; {result.problems} file(s) skipped, see `collabsim tasks --root`"
             if result.problems else ""))
    if result.root == cache_dir():
        print("tasks=discoverybench now uses this copy when tasks.root is not set.")
    print(f"tasks.root={result.root}")
    return 0
