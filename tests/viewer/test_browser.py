"""The session page in a real headless Chromium (installed from the OS packages).

The page must run without console errors and draw one ``g.node`` per graph node. The
browser is required: a missing binary fails the test (install it with
``apt-get install -y chromium``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from collabsim.viewer import load_graph, write_view

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise FileNotFoundError("no Chromium on PATH: apt-get install -y chromium")


def open_in_browser(page: Path, profile: Path) -> tuple[str, list[str]]:
    """Load ``page``; return the DOM after scripts ran and the console messages."""
    proc = subprocess.run(
        [chromium(), *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = re.findall(r':CONSOLE[^\]]*\] "(.*?)", source:', proc.stderr)
    return proc.stdout, console


def assert_drawn(page: Path, profile: Path, n_nodes: int) -> None:
    dom, console = open_in_browser(page, profile)
    errors = [m for m in console if not m.startswith("collabsim-view:")]
    assert not errors, errors
    assert f"collabsim-view: drew {n_nodes} of {n_nodes} nodes" in console
    assert 'data-view-status="ok"' in dom
    assert len(re.findall(r'<g class="node ', dom)) == n_nodes
    assert f'data-drawn-nodes="{n_nodes}"' in dom


def test_simulated_dr_scaffolded_session_is_drawn(dr_scaffolded_session, tmp_path):
    graph = load_graph(dr_scaffolded_session)
    assert any(n.extra.get("status") == "pending" for n in graph.nodes)  # a gate request
    page = write_view(graph, tmp_path / "sim.html")
    assert_drawn(page, tmp_path / "profile", len(graph))


@pytest.mark.parametrize("session", ["p1|s1", "p12|session2", "p13|s1"])  # p13: overlaps
def test_kolab_session_is_drawn(kolab_sessions_path, tmp_path, session):
    graph = load_graph(kolab_sessions_path, session)
    page = write_view(graph, tmp_path / "kolab.html")
    assert_drawn(page, tmp_path / "profile", len(graph))


def test_a_script_error_would_be_caught(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text("<html><body><script>undefinedFunction();</script></body></html>")
    _, console = open_in_browser(page, tmp_path / "profile")
    assert any("Uncaught ReferenceError" in m for m in console)
