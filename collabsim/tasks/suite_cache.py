"""Built-in generated suites on disk: their files, and one cached folder per generator code.

:func:`write_suite` writes a suite's files in the DiscoveryBench layout (a folder per task
with its table and ``metadata_0.json``, the reference workflows, the answer key and the
marker file) for both generators; the generators only build the tasks.

Both generators (:mod:`collabsim.tasks.generator`, the archaeology-style suite, and
:mod:`collabsim.tasks.stats_generator`, the statistical suite) keep their default suite under
``$COLLABSIM_CACHE_DIR`` (default ``~/.cache/collabsim``), in a folder named by the generator
version, a fingerprint of the code that writes it (:func:`code_fingerprint`), the number of
tasks and the seed: a suite cached by other generator code is never reused.
:func:`cached_suite` generates a missing suite into a temporary sibling folder and renames it
into place, so a suite is either complete or absent, also with concurrent runs.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The file every complete generated suite holds (written last by the generators).
MARKER_NAME = "COLLABSIM_GENERATED.json"


@dataclass(frozen=True)
class SuiteTask:
    """One generated task as written to disk.

    Attributes:
        dataset: The task's folder name (``gen_000``, ``stats_000``).
        data_file: The table's file name inside that folder.
        csv_text: The table.
        metadata: ``metadata_0.json`` (what participants may read).
        reference: The reference workflow (judges and metrics only).
        gold: The gold hypothesis (the answer key; judges only).
    """

    dataset: str
    data_file: str
    csv_text: str
    metadata: Mapping[str, Any]
    reference: Mapping[str, Any]
    gold: str


def write_json(path: Path, data: Any) -> None:
    """A JSON file as the generators write it (indented, UTF-8, newline-terminated)."""
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_suite(root: Path, tasks: Iterable[SuiteTask], layout: tuple[str, ...],
                answer_key: str, marker: Mapping[str, Any]) -> Path:
    """Write a suite: each task under ``root/<layout...>/<dataset>/``, its reference workflow
    under ``reference_workflows/<dataset>/0/0.json``, the golds in ``eval/<answer_key>``
    and, last, the marker file (a suite without it is incomplete).

    Returns:
        ``root``.
    """
    root = Path(root)
    key_rows: list[tuple[str, int, int, str]] = []
    for task in tasks:
        folder = root.joinpath(*layout, task.dataset)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / task.data_file).write_text(task.csv_text, encoding="utf-8", newline="")
        write_json(folder / "metadata_0.json", task.metadata)
        ref_dir = root / "reference_workflows" / task.dataset / "0"
        ref_dir.mkdir(parents=True, exist_ok=True)
        write_json(ref_dir / "0.json", task.reference)
        key_rows.append((task.dataset, 0, 0, task.gold))
    (root / "eval").mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["dataset", "metadataid", "query_id", "gold_hypo"])
    writer.writerows(key_rows)
    (root / "eval" / answer_key).write_text(buffer.getvalue(), encoding="utf-8")
    write_json(root / MARKER_NAME, marker)
    return root


def code_fingerprint(sources: Iterable[Path]) -> str:
    """The first 10 hex digits of the SHA-256 over the files' names and contents, in order."""
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:10]


def cache_dir() -> Path:
    """``$COLLABSIM_CACHE_DIR``, or ``~/.cache/collabsim``."""
    return Path(os.environ.get("COLLABSIM_CACHE_DIR") or Path.home() / ".cache" / "collabsim")


def cached_suite(kind: str, name: str, generate: Callable[[Path], object]) -> Path:
    """The cached suite ``<cache>/<kind>/<name>``, generated once (atomically) when absent.

    Args:
        kind: The cache's subfolder (``generated``, ``generated_stats``).
        name: The suite's folder name (version, code fingerprint, size and seed).
        generate: Writes a complete suite (its marker file included) into an empty folder.
    """
    target = cache_dir() / kind / name
    if (target / MARKER_NAME).is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        generate(tmp)
        try:
            os.rename(tmp, target)
        except OSError:
            if not (target / MARKER_NAME).is_file():
                shutil.rmtree(target, ignore_errors=True)
                os.rename(tmp, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target
