"""Download, verify and cache the public DiscoveryBench release.

The release is the GitHub archive of the DiscoveryBench repository at a pinned commit
(:data:`PINNED_COMMIT`, ``DEFAULT_URL``; set another URL with ``--url`` or
``$COLLABSIM_DISCOVERYBENCH_URL``, e.g. a mirror). The archive holds
``<top>/discoverybench/{real,synth}/…`` and ``<top>/eval/answer_key_*.csv``; it is unpacked
into the layout collabsim's loader reads::

    <dest>/real/{train,test}/<dataset>/metadata_<n>.json + data files
    <dest>/synth/…                                          (when the archive has it)
    <dest>/eval/answer_key_real.csv, answer_key_synth.csv
    <dest>/COLLABSIM_FETCHED.json                           (source, checksums, counts)

Integrity: every installed file under ``real/``, ``synth/`` and ``eval/`` must match the
SHA-256 pinned for the commit in ``discoverybench_pins.json`` (1,465 files), none may be
missing and none added; ``--sha256`` additionally pins the archive itself. Unpacking stops
at :data:`MAX_EXPANDED_BYTES` / :data:`MAX_MEMBERS` (an archive bomb never fills the disk).
``--unpinned`` (another commit or a private copy) skips the per-file pins and says so.

The copy is verified (pins, layout, answer keys, task counts) before it replaces an older
collabsim download, so an interrupted or bad download never leaves a half-written task root
behind. ``--dest`` must be new, empty, or an earlier download holding nothing else: a folder
with other files is refused, never replaced.
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
from typing import Literal

MARKER = MARKER_NAME = "COLLABSIM_FETCHED.json"
PINS_FILE = Path(__file__).with_name("discoverybench_pins.json")
PINNED_COMMIT = "c31fcf011e070f021a5f5b906896d0821f6880e8"
"""The DiscoveryBench commit whose files ``discoverybench_pins.json`` pins (2025-06-08)."""
DEFAULT_URL = f"https://github.com/allenai/discoverybench/archive/{PINNED_COMMIT}.tar.gz"
MAX_EXPANDED_BYTES = 1 << 30
"""Cap on the unpacked size of an archive (1 GiB; the pinned release unpacks to ~57 MB)."""
MAX_MEMBERS = 50_000
"""Cap on the number of entries of an archive (the pinned release has ~1,500)."""
INSTALLED_NAMES = frozenset({"real", "synth", "eval", "LICENSE", "README.md", MARKER_NAME})
"""What a download puts into ``dest``: a folder holding anything else is the user's."""
URL_ENV = "COLLABSIM_DISCOVERYBENCH_URL"
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
        pinned: The commit whose per-file SHA-256 pins the copy matched, or None
            (``--unpinned``).
    """

    root: Path
    url: str
    sha256: str
    tasks: dict[str, int] = field(default_factory=dict)
    with_gold: dict[str, int] = field(default_factory=dict)
    problems: int = 0
    pinned: str | None = None


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


class NoDiscoveryBenchRoot(ValueError):
    """``tasks=discoverybench`` without ``tasks.root`` and without a cached download."""


def discoverybench_root(root_value: object) -> str:
    """``tasks.root`` as given, or the cached download when it is unset (empty or ``???``).

    Raises:
        NoDiscoveryBenchRoot: Unset and nothing cached; the message starts with
            ``is required`` (the caller names the setting).
    """
    if root_value and root_value != "???":
        return str(root_value)
    cached = cached_root()
    if cached is None:
        raise NoDiscoveryBenchRoot(
            "is required for tasks=discoverybench when no download is cached: run "
            f"`{FETCH_COMMAND}` (or set tasks.root=/path/to/discoverybench)")
    return str(cached)


def _download(url: str, target: Path, progress: bool, max_bytes: int) -> str:
    from tqdm import tqdm

    digest = hashlib.sha256()
    size = 0
    try:
        with urllib.request.urlopen(url, timeout=60) as response, target.open("wb") as out:
            total = int(response.headers.get("Content-Length") or 0) or None
            with tqdm(total=total, unit="B", unit_scale=True, desc="DiscoveryBench",
                      disable=not progress) as bar:
                while chunk := response.read(1 << 16):
                    size += len(chunk)
                    if size > max_bytes:
                        raise FetchError(f"{url}: archive larger than {max_bytes:,} bytes")
                    out.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise FetchError(f"download of {url} failed: {getattr(err, 'reason', err)}") from err
    return digest.hexdigest()


def load_pins(path: Path = PINS_FILE) -> tuple[str, dict[str, str]]:
    """``(commit, {installed relative path: sha256})`` of the pinned release."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return str(data["commit"]), {str(k): str(v) for k, v in data["files"].items()}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def verify_pins(root: Path, pins: dict[str, str]) -> None:
    """Check every file under ``root``'s ``real/``, ``synth/`` and ``eval/`` against ``pins``.

    Raises:
        FetchError: Naming how many pinned files are missing, differ or were added, and one
            example of each.
    """
    found = {
        p.relative_to(root).as_posix(): p
        for part in ("real", "synth", "eval")
        if (root / part).is_dir()
        for p in sorted((root / part).rglob("*"))
        if not p.is_dir()
    }
    missing = sorted(set(pins) - set(found))
    added = sorted(set(found) - set(pins))
    changed = sorted(k for k in set(pins) & set(found) if _sha256(found[k]) != pins[k])
    faults = [f"{len(v)} {what} (e.g. {v[0]})" for what, v in (
        ("pinned file(s) differ", changed), ("pinned file(s) missing", missing),
        ("file(s) not in the release", added)) if v]
    if faults:
        raise FetchError("does not match the pinned DiscoveryBench release: " + "; ".join(faults)
                         + " (use --unpinned for another commit)")


def _unpack(archive: Path, target: Path, max_bytes: int, max_members: int) -> None:
    """Unpack ``archive`` into ``target`` entry by entry, stopping at the size caps."""
    total = members = 0
    target.mkdir()
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:
                members += 1
                total += max(member.size, 0)
                if members > max_members or total > max_bytes:
                    raise FetchError(
                        f"archive expands past {max_bytes:,} bytes / {max_members:,} entries; "
                        "refused (not a DiscoveryBench release)")
                if member.issparse():
                    raise FetchError(f"archive entry {member.name} is a sparse file; refused")
                tar.extract(member, target, filter="data")
    except (tarfile.TarError, OSError, EOFError) as err:
        raise FetchError(f"not a readable .tar.gz archive ({err})") from err


def check_dest(dest: Path) -> None:
    """Refuse a ``dest`` whose replacement could destroy the user's files.

    Allowed: a new path, an empty folder, or an earlier download (it holds
    ``COLLABSIM_FETCHED.json`` and nothing but what a download installs).

    Raises:
        FetchError: One line naming ``dest`` and what is in the way.
    """
    from collabsim.core.outputs import OutputPathError, check_output_dir

    try:
        check_output_dir(dest, option="--dest", own_names=tuple(INSTALLED_NAMES))
    except OutputPathError as err:
        raise FetchError(str(err)) from None
    if not dest.is_dir():
        return
    entries = {e.name for e in os.scandir(dest)}
    if entries and MARKER not in entries:
        raise FetchError(
            f"--dest {dest}: folder holds files that are not a collabsim download (e.g. "
            f"{sorted(entries)[0]}); choose a new or empty folder")
    extra = sorted(entries - INSTALLED_NAMES)
    if extra:
        raise FetchError(
            f"--dest {dest}: an earlier download, but it also holds {extra[0]}"
            f"{f' and {len(extra) - 1} more' if len(extra) > 1 else ''}, which a new download "
            "would remove; move them out or choose another folder")


def _find_release(unpacked: Path) -> tuple[Path, Path]:
    """``(data folder holding real/, folder holding the answer keys)`` inside the archive."""
    from collabsim.tasks.discoverybench import answer_key_path  # late: the loader is heavy

    for real in sorted(unpacked.rglob("real")):
        if not real.is_dir():
            continue
        data = real.parent
        key = answer_key_path(data, "answer_key_real.csv")  # the loader's own rule
        if key.is_file():
            return data, key.parent
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


def _download_unpacked(
    url: str,
    work: Path,
    progress: bool,
    archive_sha256: str | None,
    max_expanded_bytes: int,
    max_members: int,
) -> tuple[str, Path]:
    """Download the archive into ``work``, check its SHA-256 and unpack it (archive removed).

    Returns:
        The archive's SHA-256 and the folder it was unpacked into.

    Raises:
        FetchError: Download, checksum, unpacking or size caps failed.
    """
    archive = work / "release.tar.gz"
    sha256 = _download(url, archive, progress, max_expanded_bytes)
    if archive_sha256 and sha256 != archive_sha256.strip().lower():
        raise FetchError(f"{url}: archive SHA-256 {sha256} is not the expected "
                         f"{archive_sha256}")
    unpacked = work / "unpacked"
    try:
        _unpack(archive, unpacked, max_expanded_bytes, max_members)
    except FetchError as err:
        raise FetchError(f"{url}: {err}") from None
    archive.unlink()
    return sha256, unpacked


def _stage(data: Path, keys: Path, staged: Path) -> Path:
    """Move the release into the installed layout at ``staged``; return ``staged``.

    ``real/`` and ``synth/`` from the data folder, the answer keys into ``eval/``, and the
    release's LICENSE and README.md (from the data folder or the one above it).
    """
    staged.mkdir()
    for part in ("real", "synth"):
        if (data / part).is_dir():
            shutil.move(str(data / part), staged / part)
    staged_eval = staged / "eval"
    staged_eval.mkdir()
    for key in ("answer_key_real.csv", "answer_key_synth.csv"):
        if (keys / key).is_file():
            shutil.move(str(keys / key), staged_eval / key)
    for extra in ("LICENSE", "README.md"):
        for base in (data, data.parent):
            if (base / extra).is_file() and not (staged / extra).exists():
                shutil.copy2(base / extra, staged / extra)
    return staged


def fetch_discoverybench(
    dest: Path | None = None,
    url: str | None = None,
    *,
    progress: bool = True,
    pins: dict[str, str] | None | Literal["packaged"] = "packaged",
    archive_sha256: str | None = None,
    max_expanded_bytes: int = MAX_EXPANDED_BYTES,
    max_members: int = MAX_MEMBERS,
) -> FetchResult:
    """Download the DiscoveryBench release, verify it and install it at ``dest``.

    Args:
        dest: Target folder (default :func:`cache_dir`); new, empty or an earlier download,
            replaced only after verification (see :func:`check_dest`).
        url: Archive URL (default ``$COLLABSIM_DISCOVERYBENCH_URL`` or :data:`DEFAULT_URL`).
        progress: Show a progress bar.
        pins: Installed path -> SHA-256 every file must match (default: the packaged pins of
            :data:`PINNED_COMMIT`); None skips the per-file check (``--unpinned``).
        archive_sha256: Expected SHA-256 of the archive itself (optional).
        max_expanded_bytes: Cap on the unpacked size.
        max_members: Cap on the number of archive entries.

    Raises:
        FetchError: Unsafe ``dest``, download, unpacking, size caps, pins or verification
            failed (``dest`` is untouched).
    """
    dest = Path(dest).expanduser() if dest is not None else cache_dir()
    url = url or os.environ.get(URL_ENV) or DEFAULT_URL
    commit: str | None = None
    if pins == "packaged":
        commit, pins = load_pins()
    check_dest(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{dest.name}.fetch-", dir=dest.parent))
    try:
        sha256, unpacked = _download_unpacked(
            url, work, progress, archive_sha256, max_expanded_bytes, max_members
        )
        staged = _stage(*_find_release(unpacked), work / "root")
        if pins is not None:
            try:
                verify_pins(staged, pins)
            except FetchError as err:
                raise FetchError(f"{url}: {err}") from None
        tasks, gold, problems = verify_release(staged)
        result = FetchResult(dest, url, sha256, tasks, gold, problems, commit)
        (staged / MARKER).write_text(json.dumps(
            {"url": url, "sha256": sha256, "pinned_commit": commit,
             "pinned_files": len(pins) if pins is not None else 0, "tasks": tasks,
             "with_gold": gold, "problems": problems}, indent=2), encoding="utf-8")
        check_dest(dest)  # again: something may have appeared there while downloading
        old = work / "previous"
        if dest.exists():
            dest.rename(old)
        staged.rename(dest)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)
