"""Size and speed of a ``collabsim view`` page of many sessions.

    python benchmarks/bench_view_page.py FOLDER_OR_FILE [--out page.html]

Writes the page of every session behind FOLDER_OR_FILE (a sweep, job folder, store or the
Kolab explorer file), then opens it in headless Chromium and prints: sessions, nodes,
transcript entries, page size (MB), the time to build and write it, the in-page time until
the first session is drawn (``performance.now()`` when the script finished), and the time
to pick the last session in the picker (its JSON parsed and drawn). Chromium is required.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from collabsim.viewer import load_view_sessions, write_page

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--virtual-time-budget=20000", "--window-size=1400,900"]
PICK_LAST = """<script>
(function () {
  var items = document.querySelectorAll("#picker-list li.pick");
  items[items.length - 1].dispatchEvent(new MouseEvent("click", {bubbles: true}));
})();
</script>"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("no chromium on PATH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "page.html"
        began = time.perf_counter()
        sessions = load_view_sessions(args.path)
        write_page(sessions, out, "benchmark")
        build_s = time.perf_counter() - began
        probe = Path(tmp) / "probe.html"
        probe.write_text(out.read_text(encoding="utf-8").replace("</body>", PICK_LAST + "</body>"),
                         encoding="utf-8")
        began = time.perf_counter()
        proc = subprocess.run([browser, *FLAGS, f"--user-data-dir={tmp}/profile", "--dump-dom",
                               probe.as_uri()], capture_output=True, text=True, timeout=600)
        browser_s = time.perf_counter() - began
        first = re.search(r'data-view-ms="(\d+)"', proc.stdout)
        pick = re.search(r'data-pick-ms="(\d+)"', proc.stdout)
        nodes = sum(s.index["nodes"] for s in sessions)
        entries = sum(len(s.payload["transcript"]) for s in sessions)
        print(f"sessions {len(sessions)}  nodes {nodes}  transcript entries {entries}")
        print(f"page {out.stat().st_size / 1e6:.2f} MB, built and written in {build_s:.1f} s")
        print(f"chromium: first session drawn at {first.group(1) if first else '?'} ms after "
              f"navigation start; picking the last session took {pick.group(1) if pick else '?'} "
              f"ms; whole headless run {browser_s:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
