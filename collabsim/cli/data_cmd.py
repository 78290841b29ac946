"""``collabsim data fetch discoverybench [--dest DIR] [--url URL]``: get the real tasks.

Downloads the public DiscoveryBench release archive (a pinned commit) with a progress bar,
verifies it (SHA-256 of every file against the pins, layout, answer keys, task counts; the
unpacked size is capped) and prints the ``tasks.root`` to use. Without ``--dest`` it goes
into the cache, where ``tasks=discoverybench`` finds it without a root. ``--dest`` must be a
new or empty folder or an earlier download: a folder holding other files is refused.
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
    fetch.add_argument("--dest", default=None,
                       help="install here instead of the cache (a new or empty folder, or an "
                            "earlier download)")
    fetch.add_argument("--url", default=None,
                       help="archive URL (default: the DiscoveryBench GitHub archive, or "
                            "$COLLABSIM_DISCOVERYBENCH_URL)")
    fetch.add_argument("--sha256", default=None,
                       help="expected SHA-256 of the archive itself (checked when given)")
    fetch.add_argument("--unpinned", action="store_true",
                       help="skip the per-file SHA-256 pins (another commit or a private copy)")
    fetch.add_argument("--no-progress", action="store_true", help="no progress bar")
    fetch.set_defaults(func=_fetch)
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])


def _fetch(args: argparse.Namespace) -> int:
    from collabsim.datafetch import FetchError, cache_dir, fetch_discoverybench

    if args.dest is not None and not args.dest.strip():
        return user_error("data fetch", "--dest: the path is empty")
    try:
        result = fetch_discoverybench(
            Path(args.dest) if args.dest is not None else None, args.url,
            progress=not args.no_progress, pins=None if args.unpinned else "packaged",
            archive_sha256=args.sha256)
    except FetchError as err:
        return user_error("data fetch", str(err))
    except OSError as err:
        return user_error("data fetch", f"--dest: cannot write {args.dest}: {err.strerror}")
    counts = ", ".join(f"{n} {src} ({result.with_gold.get(src, 0)} with gold)"
                       for src, n in sorted(result.tasks.items()))
    pinned = (f"all files match the pins of commit {result.pinned[:12]}" if result.pinned
              else "UNPINNED: files not checked against the pinned release")
    print(f"Verified {result.url} (sha256 {result.sha256[:16]}…; {pinned}): {counts}"
          + (f"; {result.problems} file(s) skipped, see `collabsim tasks --root`"
             if result.problems else ""))
    if result.root == cache_dir():
        print("tasks=discoverybench now uses this copy when tasks.root is not set.")
    print(f"tasks.root={result.root}")
    return 0
