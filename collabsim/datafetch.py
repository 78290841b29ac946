"""Download, verify and cache the public DiscoveryBench release.

The release is the GitHub archive of the DiscoveryBench repository (``DEFAULT_URL``; set
another with ``--url`` or ``$COLLABSIM_DISCOVERYBENCH_URL``, e.g. a mirror or a pinned
commit's archive). The archive holds ``<top>/discoverybench/{real,synth}/…`` and
``<top>/eval/answer_key_*.csv``; it is unpacked into the layout collabsim's loader reads::

    <dest>/real/{train,test}/<dataset>/metadata_<n>.json + data files
    <dest>/synth/…                                          (when the archive has it)
    <dest>/eval/answer_key_real.csv, answer_key_synth.csv
    <dest>/COLLABSIM_FETCHED.json                           (source, checksum, counts)

and verified (layout, answer keys, task counts) before it replaces an older copy, so an
interrupted or bad download never leaves a half-written task root behind.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_URL = "https://github.com/allenai/discoverybench/archive/refs/heads/main.tar.gz"
URL_ENV = "COLLABSIM_DISCOVERYBENCH_URL"
MARKER = "COLLABSIM_FETCHED.json"
ANSWER_KEY_COLUMNS = ("dataset", "metadataid", "query_id", "gold_hypo")
FETCH_COMMAND = "collabsim data fetch discoverybench"


class FetchError(RuntimeError):
    """The download failed or the archive is not a usable DiscoveryBench release."""


@dataclass(frozen=True)
class FetchResult:
    """A verified DiscoveryBench copy.

    Attributes:
        root: The folder to pass as ``tasks.root``.
        url: Where it came from.
        sha256: Checksum of the downloaded archive.
        tasks: Tasks loaded, per source (``discoverybench-real``, ``discoverybench-synth``).
        with_gold: Tasks that have an answer-key gold hypothesis, per source.
        problems: Files the loader could not read (kept as warnings, not failures).
    """

    root: Path
    url: str
    sha256: str
    tasks: dict[str, int] = field(default_factory=dict)
    with_gold: dict[str, int] = field(default_factory=dict)
    problems: int = 0


def cache_dir() -> Path:
    """Where downloads are kept: ``$COLLABSIM_CACHE_DIR/discoverybench`` (default
    ``~/.cache/collabsim/discoverybench``)."""
    base = Path(os.environ.get("COLLABSIM_CACHE_DIR") or Path.home() / ".cache" / "collabsim")
    return base / "discoverybench"


def cached_root() -> Path | None:
    """The cached, verified copy, or None when ``collabsim data fetch discoverybench`` has not
    been run."""
    root = cache_dir()
    return root if (root / MARKER).is_file() else None


def _download(url: str, target: Path, progress: bool) -> str:
    from tqdm import tqdm

    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=60) as response, target.open("wb") as out:
            total = int(response.headers.get("Content-Length") or 0) or None
            with tqdm(total=total, unit="B", unit_scale=True, desc="DiscoveryBench",
                      disable=not progress) as bar:
                while chunk := response.read(1 << 16):
                    out.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise FetchError(f"download of {url} failed: {getattr(err, 'reason', err)}") from err
    return digest.hexdigest()


def _find_release(unpacked: Path) -> tuple[Path, Path]:
    """``(data folder holding real/, folder holding the answer keys)`` inside the archive."""
    for real in sorted(unpacked.rglob("real")):
        if not real.is_dir():
            continue
        data = real.parent
        for candidate in (data / "eval", data.parent / "eval"):
            if (candidate / "answer_key_real.csv").is_file():
                return data, candidate
    raise FetchError("archive has no DiscoveryBench layout (a real/ folder and "
                     "eval/answer_key_real.csv)")


def _check_answer_key(path: Path) -> int:
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in ANSWER_KEY_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise FetchError(f"{path.name}: missing columns {missing}")
            return sum(1 for _ in reader)
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise FetchError(f"{path.name}: unreadable answer key ({err})") from err


def verify_release(root: Path) -> tuple[dict[str, int], dict[str, int], int]:
    """Check a task root's layout, answer keys and task counts.

    Returns:
        Tasks per source, tasks with a gold per source, and the number of load problems.

    Raises:
        FetchError: Naming what is missing or inconsistent.
    """
    from collabsim.tasks.discoverybench import load_tasks

    if not any((root / "real").glob("*/*/metadata_*.json")):
        raise FetchError(f"{root}: no real/<split>/<dataset>/metadata_<n>.json files")
    key_rows = _check_answer_key(root / "eval" / "answer_key_real.csv")
    if key_rows == 0:
        raise FetchError("answer_key_real.csv has no rows")
    if (root / "synth").is_dir():
        _check_answer_key(root / "eval" / "answer_key_synth.csv")
    report = load_tasks(root)
    tasks = Counter(str(t.source) for t in report.tasks)
    gold = Counter(str(t.source) for t in report.tasks if t.gold_hypothesis)
    if not report.tasks:
        raise FetchError(f"{root}: no task could be loaded ({len(report.problems)} problem(s))")
    if not gold:
        raise FetchError(f"{root}: no task matches a row of the answer keys")
    return dict(tasks), dict(gold), len(report.problems)


def fetch_discoverybench(
    dest: Path | None = None, url: str | None = None, *, progress: bool = True
) -> FetchResult:
    """Download the DiscoveryBench release, verify it and install it at ``dest``.

    Args:
        dest: Target folder (default :func:`cache_dir`); replaced only after verification.
        url: Archive URL (default ``$COLLABSIM_DISCOVERYBENCH_URL`` or :data:`DEFAULT_URL`).
        progress: Show a progress bar.

    Raises:
        FetchError: Download, unpacking or verification failed (``dest`` is untouched).
    """
    dest = Path(dest).expanduser() if dest is not None else cache_dir()
    url = url or os.environ.get(URL_ENV) or DEFAULT_URL
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{dest.name}.fetch-", dir=dest.parent))
    try:
        archive = work / "release.tar.gz"
        sha256 = _download(url, archive, progress)
        unpacked = work / "unpacked"
        try:
            with tarfile.open(archive) as tar:
                tar.extractall(unpacked, filter="data")
        except (tarfile.TarError, OSError, EOFError) as err:
            raise FetchError(f"{url}: not a readable .tar.gz archive ({err})") from err
        data, keys = _find_release(unpacked)
        staged = work / "root"
        staged.mkdir()
        for part in ("real", "synth"):
            if (data / part).is_dir():
                shutil.move(str(data / part), staged / part)
        shutil.move(str(keys), staged / "eval")
        for extra in ("LICENSE", "README.md"):
            for base in (data, data.parent):
                if (base / extra).is_file() and not (staged / extra).exists():
                    shutil.copy2(base / extra, staged / extra)
        tasks, gold, problems = verify_release(staged)
        result = FetchResult(dest, url, sha256, tasks, gold, problems)
        (staged / MARKER).write_text(json.dumps(
            {"url": url, "sha256": sha256, "tasks": tasks, "with_gold": gold,
             "problems": problems}, indent=2), encoding="utf-8")
        old = work / "previous"
        if dest.exists():
            dest.rename(old)
        staged.rename(dest)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)
