"""The judges' data, kept out of every sandbox worker's reach whatever the install layout.

collabsim ships judges' data inside the package: the reference workflows of the
DiscoveryBench tasks (``collabsim/data/reference_workflows/``), which name each task's answer.
A worker may read the Python installation (to import libraries), and a regular
(non-editable) install puts the package, data included, inside it, as does a system-wide
or ``/usr/src`` checkout. So the folders :func:`judge_paths` names are taken out of the
worker's read access, derived from where this very package was imported from:

* the audit hook refuses them (:class:`collabsim.sandbox.policy.AuditPolicy`);
* Landlock grants no read rights on them (:func:`carve`): a read root that holds one is
  replaced by read rules on each of its other entries, plus the right to list (not read)
  the folders on the way down, so imports from the rest of the installation still work.

Only the names of the hidden files can be listed through the kernel layer (the audit hook
refuses that too); their contents cannot be read. Without Landlock (Linux < 5.13) the
audit hook is the only layer, as for every other file outside the working directory.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
JUDGE_DATA = ("data",)
"""Folders of the package holding judges' data (relative to the package folder)."""


def judge_paths() -> tuple[str, ...]:
    """Real paths of the judges' data shipped with this installation of collabsim."""
    return tuple(sorted({os.path.realpath(PACKAGE_DIR / name) for name in JUDGE_DATA}))


def inside(path: str, roots: tuple[str, ...]) -> bool:
    """Whether ``path`` equals or lies under one of ``roots`` (all real and absolute)."""
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


@dataclass(frozen=True)
class ReadRules:
    """Read access for Landlock.

    Attributes:
        full: Paths readable with everything beneath them.
        list_only: Folders whose entries may be listed but not read (the way down to a
            hidden folder).
    """

    full: tuple[str, ...]
    list_only: tuple[str, ...] = ()


@functools.lru_cache(maxsize=64)
def _carve_root(root: str, hidden: tuple[str, ...]) -> ReadRules:
    """Read rules for one root (cached: the zygote computes them once for every worker)."""
    within = tuple(h for h in hidden if inside(h, (root,)))
    if not within:
        return ReadRules((root,))
    if root in within:
        return ReadRules(())
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return ReadRules((), (root,))
    full: list[str] = []
    list_only: list[str] = [root]
    for name in names:
        path = os.path.join(root, name)
        real = os.path.realpath(path)
        if inside(real, within):
            continue  # the hidden folder itself, or a link into it
        if os.path.isdir(path) and not os.path.islink(path):
            sub = _carve_root(path, within)
            full += sub.full
            list_only += sub.list_only
        else:
            full.append(path)
    return ReadRules(tuple(full), tuple(list_only))


def carve(roots: tuple[str, ...], hidden: tuple[str, ...]) -> ReadRules:
    """Read rules granting ``roots`` except everything under ``hidden``.

    Args:
        roots: Real, absolute folders (or files) to grant read access to.
        hidden: Real, absolute folders to keep unreadable.

    Returns:
        The rules; roots that hold no hidden folder are kept as they are.
    """
    full: list[str] = []
    list_only: list[str] = []
    for root in roots:
        rules = _carve_root(root, tuple(hidden))
        full += rules.full
        list_only += rules.list_only
    return ReadRules(tuple(dict.fromkeys(full)), tuple(dict.fromkeys(list_only)))


__all__ = ["JUDGE_DATA", "PACKAGE_DIR", "ReadRules", "carve", "inside", "judge_paths"]
