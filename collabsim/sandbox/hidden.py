"""What a sandbox worker may never read, whatever the install layout: collabsim itself.

A worker may read the Python installation (to import libraries), and a regular
(non-editable) install puts collabsim inside it, as does a system-wide or ``/usr/src``
checkout. Two things in the package give a task's answer away:

* the judges' data: the reference workflows of the DiscoveryBench tasks
  (``collabsim/data/reference_workflows/``), which name each task's answer;
* the code that builds golds: the task generator (``collabsim.tasks.generator`` and its
  helpers) regenerates any generated task, gold hypothesis and reference workflow included,
  from its seed. Refusing only its import would not do: a cell that can read the source
  can ``exec`` it, or copy the algorithm.

So the whole package folder is taken out of the worker's read access (:func:`judge_paths`),
source, byte code and data alike. The worker needs none of it: the fork server imports the
few collabsim modules a worker runs (the sandbox's own code, the analysis helpers and the
statistical runtime, :mod:`collabsim.sandbox.zygote`) before it forks, and nothing that
builds a gold is among them. This is the view an editable install always had (the checkout
lies outside every read root), so both layouts give cells the same view and the same output.

* the audit hook refuses the folders (:class:`collabsim.sandbox.policy.AuditPolicy`);
* Landlock grants no read rights on them (:func:`carve`): a read root that holds one is
  replaced by read rules on each of its other entries, plus the right to list (not read)
  the folders on the way down, so imports from the rest of the installation still work.
  A Landlock rule follows symbolic links (it is opened by path), so the carve works on real
  paths: a link to a folder that holds a hidden one (a venv's ``lib64 -> lib``, Debian's
  ``/lib -> usr/lib``) is carved like that folder, never granted whole.

Only the names of the hidden files can be listed through the kernel layer (the audit hook
refuses that too); their contents cannot be read. Without Landlock (Linux < 5.13) the
audit hook is the only layer, as for every other file outside the working directory.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
PACKAGE_NAME = PACKAGE_DIR.name


def judge_paths() -> tuple[str, ...]:
    """Real paths of the collabsim package folders a worker must not read.

    The folder this very package was imported from, plus any other installed copy on the
    import path (a venv with system site-packages may see a second one).
    """
    found = {os.path.realpath(PACKAGE_DIR)}
    for entry in sys.path:
        candidate = os.path.join(entry, PACKAGE_NAME)
        # relative entries ("" of ``python -c``) name the working directory: task files
        if os.path.isabs(entry) and os.path.isfile(os.path.join(candidate, "__init__.py")):
            found.add(os.path.realpath(candidate))
    return tuple(sorted(found))


def inside(path: str, roots: tuple[str, ...]) -> bool:
    """Whether ``path`` equals or lies under one of ``roots`` (all real and absolute)."""
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _holds(path: str, hidden: tuple[str, ...]) -> bool:
    """Whether folder ``path`` (real) lies above one of ``hidden``."""
    return any(inside(h, (path,)) for h in hidden)


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
    """Read rules for one real root (cached: the zygote computes them once for every worker).

    Every entry of a folder on the way down is judged by its real path, the path the
    Landlock rule will grant: inside a hidden folder it is dropped, above one it is carved in
    turn (once: a link back up cannot loop), anything else is granted whole.
    """
    full: list[str] = []
    list_only: list[str] = []
    seen: set[str] = set()
    stack = [root]
    while stack:
        path = stack.pop()
        if path in seen or inside(path, hidden):
            continue
        seen.add(path)
        if not _holds(path, hidden):
            full.append(path)
            continue
        list_only.append(path)
        try:
            names = sorted(os.listdir(path), reverse=True)  # popped in name order
        except OSError:
            continue
        stack += [os.path.realpath(os.path.join(path, name)) for name in names]
    return ReadRules(tuple(full), tuple(list_only))


def carve(roots: tuple[str, ...], hidden: tuple[str, ...]) -> ReadRules:
    """Read rules granting ``roots`` except everything under ``hidden``.

    Args:
        roots: Absolute folders (or files) to grant read access to; symbolic links in them
            (or among them) are resolved first.
        hidden: Real, absolute folders to keep unreadable.

    Returns:
        The rules, all real paths; roots that hold no hidden folder are kept as they are.
    """
    full: list[str] = []
    list_only: list[str] = []
    for root in roots:
        rules = _carve_root(os.path.realpath(root), tuple(hidden))
        full += rules.full
        list_only += rules.list_only
    return ReadRules(tuple(dict.fromkeys(full)), tuple(dict.fromkeys(list_only)))


__all__ = ["PACKAGE_DIR", "ReadRules", "carve", "inside", "judge_paths"]
