"""Open a viewer page in a real headless Chromium (from the OS packages).

The browser is required where it is used: a missing binary fails the test (install it with
``apt-get install -y chromium``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--window-size=1400,900",
]


def chromium() -> str:
    """The Chromium binary on PATH."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise FileNotFoundError("no Chromium on PATH: apt-get install -y chromium")


def open_in_browser(page: Path, profile: Path, fragment: str = "") -> tuple[str, list[str]]:
    """Load ``page``; return the DOM after scripts ran and the console messages."""
    proc = subprocess.run(
        [chromium(), *FLAGS, f"--user-data-dir={profile}", "--dump-dom",
         page.as_uri() + fragment],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = re.findall(r':CONSOLE[^\]]*\] "(.*?)", source:', proc.stderr)
    return proc.stdout, console


def screenshot(page: Path, png: Path, profile: Path, size: str = "1400,1800") -> Path:
    """Save a screenshot of ``page`` as ``png`` (what a person sees on opening it)."""
    flags = [f for f in FLAGS if not f.startswith("--window-size")]
    proc = subprocess.run(
        [chromium(), *flags, f"--window-size={size}", f"--user-data-dir={profile}",
         f"--screenshot={png}", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0 and png.is_file(), proc.stderr[-2000:]
    return png
