"""``collabsim data fetch discoverybench`` against a loopback server (127.0.0.1 only).

The served archive is built from ``../shared/data/discoverybench`` in the layout of the
GitHub archive of the DiscoveryBench repository (``<top>/discoverybench/real/…`` and
``<top>/eval/answer_key_real.csv``).
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import tarfile
import threading
from pathlib import Path

import pytest

from collabsim.datafetch import MARKER, FetchError, fetch_discoverybench
from collabsim.tasks.discoverybench import load_tasks


@pytest.fixture(scope="module")
def server(tmp_path_factory, discoverybench_root):
    """Serve ``main.tar.gz`` (a good release) and ``broken.tar.gz`` (no answer keys)."""
    folder = tmp_path_factory.mktemp("served")
    top = "discoverybench-main"
    with tarfile.open(folder / "main.tar.gz", "w:gz") as tar:
        tar.add(discoverybench_root / "real", f"{top}/discoverybench/real")
        tar.add(discoverybench_root / "eval", f"{top}/eval")
        tar.add(discoverybench_root / "LICENSE", f"{top}/LICENSE")
    with tarfile.open(folder / "broken.tar.gz", "w:gz") as tar:
        tar.add(discoverybench_root / "real", f"{top}/discoverybench/real")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def collabsim(*args: str, cwd: Path, env: dict) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "collabsim.cli.main", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_fetch_verifies_and_installs_the_release(server, tmp_path, discoverybench_root):
    result = fetch_discoverybench(tmp_path / "db", f"{server}/main.tar.gz", progress=False)
    expected = load_tasks(discoverybench_root)
    assert result.root == tmp_path / "db"
    assert sum(result.tasks.values()) == len(expected.tasks) > 0
    assert sum(result.with_gold.values()) == sum(1 for t in expected.tasks if t.gold_hypothesis)
    assert (tmp_path / "db" / MARKER).is_file() and (tmp_path / "db" / "LICENSE").is_file()
    loaded = load_tasks(result.root)
    assert [t.task_id for t in loaded.tasks] == [t.task_id for t in expected.tasks]
    assert [p.name for p in tmp_path.iterdir()] == ["db"]  # no temporary files left


def test_a_bad_archive_leaves_the_old_copy_alone(server, tmp_path):
    fetch_discoverybench(tmp_path / "db", f"{server}/main.tar.gz", progress=False)
    with pytest.raises(FetchError, match="answer_key_real.csv"):
        fetch_discoverybench(tmp_path / "db", f"{server}/broken.tar.gz", progress=False)
    with pytest.raises(FetchError, match="download"):
        fetch_discoverybench(tmp_path / "db", f"{server}/missing.tar.gz", progress=False)
    assert (tmp_path / "db" / MARKER).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db"]


def test_command_fills_the_cache_and_run_uses_it(server, tmp_path):
    env = {**os.environ, "COLLABSIM_CACHE_DIR": str(tmp_path / "cache")}
    run_args = ["run", "tasks=discoverybench", "tasks.limit=1", "team=single",
                "run.progress=false"]
    before = collabsim(*run_args, f"hydra.run.dir={tmp_path / 'j0'}", cwd=tmp_path, env=env)
    assert before.returncode != 0
    assert "collabsim data fetch discoverybench" in before.stderr

    proc = collabsim("data", "fetch", "discoverybench", "--url", f"{server}/main.tar.gz",
                     cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    root = tmp_path / "cache" / "discoverybench"
    assert f"tasks.root={root}" in proc.stdout
    assert "B/s" in proc.stderr or "100%" in proc.stderr  # the tqdm progress bar

    after = collabsim(*run_args, f"hydra.run.dir={tmp_path / 'j1'}", cwd=tmp_path, env=env)
    assert after.returncode == 0, after.stderr[-2000:]
    assert "archaeology/" in (tmp_path / "j1" / "sessions.csv").read_text()


def test_command_errors_are_one_line_exit_2(server, tmp_path):
    proc = collabsim("data", "fetch", "discoverybench", "--dest", str(tmp_path / "db"),
                     "--url", f"{server}/broken.tar.gz", cwd=tmp_path, env=dict(os.environ))
    assert proc.returncode == 2
    assert "answer_key_real.csv" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "db").exists()
