"""``collabsim data fetch discoverybench`` against a loopback server (127.0.0.1 only).

The served archive is built from ``../shared/data/discoverybench`` in the layout of the
GitHub archive of the DiscoveryBench repository (``<top>/discoverybench/real/…`` and
``<top>/eval/answer_key_real.csv``). That subset is not the whole pinned release, so tests of
the install itself fetch it ``--unpinned`` (``pins=None``) or with pins made for it; the
packaged pins are checked against the subset's files, which are part of the release.
The commands run in the test process (``collabsim_cli``: exit code and file-descriptor output
as a shell sees them).
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import re
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
    # the answer key edited (one gold hypothesis changed)
    tampered = tmp_path_factory.mktemp("tampered")
    key = (discoverybench_root / "eval" / "answer_key_real.csv").read_text(encoding="utf-8")
    (tampered / "answer_key_real.csv").write_text(
        key.replace("axes become quantitatively most frequent", "daggers dominate"),
        encoding="utf-8")
    with tarfile.open(folder / "tampered.tar.gz", "w:gz") as tar:
        tar.add(discoverybench_root / "real", f"{top}/discoverybench/real")
        tar.add(tampered / "answer_key_real.csv", f"{top}/eval/answer_key_real.csv")
    # a one-task release: metadata_0 and its data files only
    arch = discoverybench_root / "real" / "test" / "archaeology"
    with tarfile.open(folder / "onetask.tar.gz", "w:gz") as tar:
        for item in arch.iterdir():
            if item.suffix == ".csv" or item.name == "metadata_0.json":
                tar.add(item, f"{top}/discoverybench/real/test/archaeology/{item.name}")
        tar.add(discoverybench_root / "eval", f"{top}/eval")
    # a bomb: the release plus 64 MB of zeros that compress to ~64 KB
    with tarfile.open(folder / "bomb.tar.gz", "w:gz") as tar:
        tar.add(discoverybench_root / "real", f"{top}/discoverybench/real")
        tar.add(discoverybench_root / "eval", f"{top}/eval")
        zeros = tarfile.TarInfo(f"{top}/discoverybench/real/test/archaeology/zeros.csv")
        zeros.size = 64 << 20
        tar.addfile(zeros, _Zeros(zeros.size))
    handler = functools.partial(_QuietHandler, directory=str(folder))
    httpd = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files without a request log on stderr: the commands under test run in this
    process, and their stderr is what the tests read."""

    def log_message(self, format: str, *args: object) -> None:
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    """A loopback server that does not print a client's dropped connection on stderr."""

    def handle_error(self, request: object, client_address: object) -> None:
        pass


class _Zeros:
    """A file object of ``size`` zero bytes (without holding them in memory)."""

    def __init__(self, size: int) -> None:
        self.left = size

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        self.left -= n
        return bytes(n)


def subset_pins(root: Path) -> dict[str, str]:
    """Pins (installed path -> SHA-256) of the shared subset, as if it were the release."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for part in ("real", "eval") for p in sorted((root / part).rglob("*")) if p.is_file()}


def test_fetch_verifies_and_installs_the_release(server, tmp_path, discoverybench_root):
    result = fetch_discoverybench(tmp_path / "db", f"{server}/main.tar.gz", progress=False,
                                  pins=None)
    expected = load_tasks(discoverybench_root)
    assert result.root == tmp_path / "db"
    assert sum(result.tasks.values()) == len(expected.tasks) > 0
    assert sum(result.with_gold.values()) == sum(1 for t in expected.tasks if t.gold_hypothesis)
    assert (tmp_path / "db" / MARKER).is_file() and (tmp_path / "db" / "LICENSE").is_file()
    loaded = load_tasks(result.root)
    assert [t.task_id for t in loaded.tasks] == [t.task_id for t in expected.tasks]
    assert [p.name for p in tmp_path.iterdir()] == ["db"]  # no temporary files left


def test_a_bad_archive_leaves_the_old_copy_alone(server, tmp_path):
    fetch_discoverybench(tmp_path / "db", f"{server}/main.tar.gz", progress=False, pins=None)
    with pytest.raises(FetchError, match="answer_key_real.csv"):
        fetch_discoverybench(tmp_path / "db", f"{server}/broken.tar.gz", progress=False,
                             pins=None)
    with pytest.raises(FetchError, match="download"):
        fetch_discoverybench(tmp_path / "db", f"{server}/missing.tar.gz", progress=False,
                             pins=None)
    assert (tmp_path / "db" / MARKER).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db"]


def test_command_fills_the_cache_and_run_uses_it(server, tmp_path, collabsim_cli, monkeypatch):
    monkeypatch.setenv("COLLABSIM_CACHE_DIR", str(tmp_path / "cache"))
    run_args = ["run", "tasks=discoverybench", "tasks.limit=1", "team=single",
                "run.progress=false"]
    before = collabsim_cli(*run_args, f"hydra.run.dir={tmp_path / 'j0'}", cwd=tmp_path)
    assert before.returncode != 0
    assert "collabsim data fetch discoverybench" in before.stderr

    proc = collabsim_cli("data", "fetch", "discoverybench", "--url", f"{server}/main.tar.gz",
                         "--unpinned", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    root = tmp_path / "cache" / "discoverybench"
    assert f"tasks.root={root}" in proc.stdout
    assert "B/s" in proc.stderr or "100%" in proc.stderr  # the tqdm progress bar

    after = collabsim_cli(*run_args, f"hydra.run.dir={tmp_path / 'j1'}", cwd=tmp_path)
    assert after.returncode == 0, after.stderr[-2000:]
    assert "archaeology/" in (tmp_path / "j1" / "sessions.csv").read_text()


def test_command_errors_are_one_line_exit_2(server, tmp_path, collabsim_cli):
    proc = collabsim_cli("data", "fetch", "discoverybench", "--dest", str(tmp_path / "db"),
                         "--url", f"{server}/broken.tar.gz", "--unpinned", cwd=tmp_path)
    assert proc.returncode == 2
    assert "answer_key_real.csv" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "db").exists()


# ------------------------------------------------------------------ issue 23, items 1 and 12


def test_dest_holding_other_files_is_refused_and_kept(server, tmp_path, collabsim_cli):
    """Item 1: ``--dest mydata`` with ``mydata/other/results.csv`` used to lose the file."""
    dest = tmp_path / "mydata"
    (dest / "other").mkdir(parents=True)
    (dest / "other" / "results.csv").write_text("precious", encoding="utf-8")
    proc = collabsim_cli("data", "fetch", "discoverybench", "--dest", str(dest), "--url",
                         f"{server}/main.tar.gz", "--no-progress", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert str(dest) in proc.stderr and "Verified" not in proc.stdout
    assert (dest / "other" / "results.csv").read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mydata"]  # no work folder left


def test_an_earlier_download_is_replaced_but_not_if_the_user_added_files(server, tmp_path):
    dest = tmp_path / "db"
    url = f"{server}/main.tar.gz"
    fetch_discoverybench(dest, url, progress=False, pins=None)
    fetch_discoverybench(dest, url, progress=False, pins=None)  # a refresh is fine
    (dest / "my_notes.md").write_text("mine", encoding="utf-8")
    with pytest.raises(FetchError, match="my_notes.md"):
        fetch_discoverybench(dest, url, progress=False, pins=None)
    assert (dest / "my_notes.md").read_text(encoding="utf-8") == "mine"
    assert (dest / MARKER).is_file()


@pytest.mark.parametrize(("archive", "needle"), [
    ("tampered.tar.gz", "1 pinned file(s) differ (e.g. eval/answer_key_real.csv)"),
    ("onetask.tar.gz", "pinned file(s) missing"),
])
def test_a_tampered_or_partial_release_fails_the_pins(server, tmp_path, discoverybench_root,
                                                      archive, needle):
    """Item 12: a tampered answer key and a one-task archive were "Verified"."""
    pins = subset_pins(discoverybench_root)
    fetch_discoverybench(tmp_path / "ok", f"{server}/main.tar.gz", progress=False, pins=pins)
    with pytest.raises(FetchError, match=re.escape(needle)):
        fetch_discoverybench(tmp_path / "db", f"{server}/{archive}", progress=False, pins=pins)
    assert not (tmp_path / "db").exists()


def test_the_default_fetch_checks_the_packaged_pins(server, tmp_path, collabsim_cli):
    """Without --unpinned, an archive that is not the pinned release is refused."""
    proc = collabsim_cli("data", "fetch", "discoverybench", "--dest", str(tmp_path / "db"),
                         "--url", f"{server}/main.tar.gz", "--no-progress", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "pinned DiscoveryBench release" in proc.stderr and "missing" in proc.stderr
    assert not (tmp_path / "db").exists()


def test_archive_checksum_is_checked_when_given(server, tmp_path):
    with pytest.raises(FetchError, match="SHA-256"):
        fetch_discoverybench(tmp_path / "db", f"{server}/main.tar.gz", progress=False,
                             pins=None, archive_sha256="0" * 64)
    assert not (tmp_path / "db").exists()


def test_an_archive_bomb_stops_at_the_size_cap(server, tmp_path):
    """Item 12: a small archive expanding far past the cap is refused while unpacking."""
    cap = 16 << 20
    with pytest.raises(FetchError, match="expands past"):
        fetch_discoverybench(tmp_path / "db", f"{server}/bomb.tar.gz", progress=False,
                             pins=None, max_expanded_bytes=cap)
    assert not (tmp_path / "db").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # the work folder is gone
    with pytest.raises(FetchError, match="entries"):
        fetch_discoverybench(tmp_path / "db", f"{server}/main.tar.gz", progress=False,
                             pins=None, max_members=10)


def test_packaged_pins_cover_the_pinned_commit_and_match_the_shared_files(discoverybench_root):
    """The pins are those of commit PINNED_COMMIT; every release file in the shared subset
    (metadata and data files) has exactly its pinned SHA-256."""
    from collabsim.datafetch import DEFAULT_URL, MAX_EXPANDED_BYTES, PINNED_COMMIT, load_pins

    commit, pins = load_pins()
    assert commit == PINNED_COMMIT and PINNED_COMMIT in DEFAULT_URL
    assert len(pins) > 1000 and "eval/answer_key_real.csv" in pins
    shared = {k: v for k, v in subset_pins(discoverybench_root).items()
              if k.startswith("real/")}
    assert len(shared) > 40
    assert {k: pins.get(k) for k in shared} == shared
    assert MAX_EXPANDED_BYTES <= 1 << 30
