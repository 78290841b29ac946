"""The cache of built-in generated suites: one folder per generator code, size and seed.

Both generators (:mod:`collabsim.tasks.generator`, the archaeology-style suite, and
:mod:`collabsim.tasks.stats_generator`, the statistical suite) keep their default suite under
``$COLLABSIM_CACHE_DIR`` (default ``~/.cache/collabsim``), in a folder named by the generator
version, a fingerprint of the code that writes it (:func:`code_fingerprint`), the number of
tasks and the seed: a suite cached by other generator code is never reused.
:func:`cached_suite` generates a missing suite into a temporary sibling folder and renames it
into place, so a suite is either complete or absent, also with concurrent runs.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

#: The file every complete generated suite holds (written last by the generators).
MARKER_NAME = "COLLABSIM_GENERATED.json"


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
