"""Resolve the ``tasks`` section of a job configuration into Task records."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from collabsim.tasks.discoverybench import TaskLoadReport, load_tasks
from collabsim.tasks.generator import (
    GENERATOR_VERSION,
    default_suite_root,
    generate_suite,
)
from collabsim.tasks.model import Task
from collabsim.tasks.stats_generator import (
    STATS_GENERATOR,
    STATS_GENERATOR_VERSION,
    STATS_N_TASKS,
    default_stats_suite_root,
    generate_stats_suite,
)
from collabsim.tasks.suite_cache import MARKER_NAME

# What a generated kind writes: (generator name in the marker, version, default size,
# default cached root, writer).
_GENERATED_KINDS: dict[str, tuple[str, str, int, Callable[..., Path], Callable[..., Path]]] = {
    "generated": ("collabsim.tasks.generator", GENERATOR_VERSION, 38, default_suite_root,
                  generate_suite),
    "generated_stats": (STATS_GENERATOR, STATS_GENERATOR_VERSION, STATS_N_TASKS,
                        default_stats_suite_root, generate_stats_suite),
}


class TaskSelectionError(ValueError):
    """The ``tasks`` configuration selects nothing or names something that does not exist."""


def _check_utf8_name(task: Task, root: Path) -> None:
    # Task ids and file names go into folder names, JSON records and tables, all UTF-8.
    for name in (task.task_id, *(str(d.path) for d in task.datasets)):
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            shown = name.encode("utf-8", "backslashreplace").decode("utf-8")
            raise TaskSelectionError(
                f"tasks.root: a dataset folder or file name under {root} is not valid UTF-8 "
                f"({shown}); rename it"
            ) from None


def resolve_tasks(spec: Mapping[str, Any]) -> tuple[list[Task], TaskLoadReport]:
    """Load the tasks a job runs.

    Args:
        spec: The ``tasks`` config section: ``kind`` (``generated``, ``generated_stats`` or
            ``discoverybench``), ``root``, and optional filters ``datasets`` (list of dataset
            names), ``ids`` (list of task ids, in that order) and ``limit`` (first N after
            filtering). For the generated kinds also ``n_tasks`` and ``seed``.

    Returns:
        The selected tasks and the full load report (with any problems found).

    Raises:
        TaskSelectionError: Unknown kind, missing root, unknown ids, or nothing selected.
    """
    root = _task_root(spec)
    report = load_tasks(root)
    tasks = list(report.tasks)
    for task in tasks:
        _check_utf8_name(task, root)
    if not tasks:
        problems = "; ".join(f"{p.path}{f' ({p.field})' if p.field else ''}: {p.message}"
                             for p in report.problems[:3])
        raise TaskSelectionError(
            f"tasks.root: no loadable task under {root}" + (f" ({problems})" if problems else "")
        )
    tasks = _of_datasets(tasks, spec.get("datasets"), root)
    tasks = _of_ids(tasks, spec.get("ids"), root)
    return _limited(tasks, spec.get("limit")), report


def _task_root(spec: Mapping[str, Any]) -> Path:
    """The folder the tasks of ``spec`` load from (a generated suite is written first).

    Raises:
        TaskSelectionError: Unknown kind, or no DiscoveryBench folder.
    """
    kind = spec.get("kind")
    if kind in _GENERATED_KINDS:
        return _generated_root(spec, str(kind))
    if kind == "discoverybench":
        return _discoverybench_root(spec.get("root"))
    raise TaskSelectionError(
        f"tasks.kind: unknown kind {kind!r} (generated|generated_stats|discoverybench)")


def _generated_root(spec: Mapping[str, Any], kind: str = "generated") -> Path:
    """A generated suite's folder: ``root`` (generated there when missing) or the default."""
    generator, version, default_n, default_root, write = _GENERATED_KINDS[kind]
    n_tasks = int(spec.get("n_tasks", default_n))
    seed = int(spec.get("seed", 0))
    root_value = spec.get("root")
    if not root_value:
        return default_root(n_tasks=n_tasks, seed=seed)
    root = Path(root_value).expanduser()
    marker = root / MARKER_NAME
    if marker.is_file():
        _check_suite_settings(marker, n_tasks, seed, kind)
        return root
    # never write a suite among a user's files (or over a file): only into a new or empty folder
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise TaskSelectionError(
            f"tasks.root: {root} is not an empty folder and holds no generated suite "
            f"(no {MARKER_NAME}); give a new or empty folder for tasks={kind}")
    write(root, n_tasks=n_tasks, seed=seed)
    return root


def _check_suite_settings(marker: Path, n_tasks: int, seed: int,
                          kind: str = "generated") -> None:
    """Raise unless the suite behind ``marker`` was generated with these settings by this
    generator and version (a suite of other settings, or the other generator's suite, is
    never reused silently)."""
    generator, version = _GENERATED_KINDS[kind][:2]
    try:
        made = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise TaskSelectionError(f"tasks.root: cannot read {marker}: {err}") from None
    made = made if isinstance(made, dict) else {}
    if made.get("generator", generator) != generator:
        raise TaskSelectionError(
            f"tasks.root: {marker.parent} holds a suite of {made.get('generator')}, not of "
            f"{generator} (tasks={kind}); use another folder")
    want = {"generator_version": version, "n_tasks": n_tasks, "seed": seed}
    have = {key: made.get(key) for key in want}
    if have != want:
        shown = ", ".join(f"{k}={v}" for k, v in have.items())
        raise TaskSelectionError(
            f"tasks.root: {marker.parent} holds a generated suite with {shown}, not "
            f"n_tasks={n_tasks}, seed={seed} (generator {version}); use another "
            "folder or those settings")


def _discoverybench_root(root_value: Any) -> Path:
    """The DiscoveryBench folder: ``root``, or the cached download when it is unset.

    Raises:
        TaskSelectionError: Nothing set and nothing cached, or no such folder.
    """
    from collabsim.datafetch import NoDiscoveryBenchRoot, discoverybench_root

    try:
        root = Path(discoverybench_root(root_value)).expanduser()
    except NoDiscoveryBenchRoot as err:
        raise TaskSelectionError(f"tasks.root {err}") from None
    if not root.is_dir():
        raise TaskSelectionError(f"tasks.root: no such folder: {root}")
    return root


def _of_datasets(tasks: list[Task], datasets: Any, root: Path) -> list[Task]:
    """The tasks of the named datasets (all when none are named)."""
    if not datasets:
        return tasks
    wanted = set(datasets)
    tasks = [t for t in tasks if t.dataset in wanted]
    if not tasks:
        raise TaskSelectionError(f"tasks.datasets: no task of {sorted(wanted)} under {root}")
    return tasks


def _of_ids(tasks: list[Task], ids: Any, root: Path) -> list[Task]:
    """The tasks with the given ids, in that order (all when none are given)."""
    if not ids:
        return tasks
    by_id = {t.task_id: t for t in tasks}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise TaskSelectionError(f"tasks.ids: not found under {root}: {missing}")
    return [by_id[i] for i in ids]


def _limited(tasks: list[Task], limit: Any) -> list[Task]:
    """The first ``limit`` tasks (all when it is None)."""
    if limit is None:
        return tasks
    if int(limit) < 1:
        raise TaskSelectionError(f"tasks.limit: must be at least 1, got {limit}")
    return tasks[: int(limit)]


def suite_label(spec: Mapping[str, Any] | None) -> str:
    """The name of the task suite a ``tasks`` section selects, for report rows.

    Two jobs share a label only when they draw from the same suite: the kind, and its root
    when one is given, else (generated kinds) the size and seed that define the cached suite.
    Filters (``limit``, ``ids``, ``datasets``) are not part of it: they pick tasks of a suite,
    and tasks are the units a row averages over (its task count says how many).

    Args:
        spec: A job's ``tasks`` section, or None when unknown.
    """
    if not spec:
        return "unknown"
    kind = str(spec.get("kind") or "unknown")
    root = spec.get("root")
    if root:
        return f"{kind}:{Path(str(root)).expanduser()}"
    if kind in _GENERATED_KINDS:
        default_n = _GENERATED_KINDS[kind][2]
        return f"{kind}(n_tasks={spec.get('n_tasks', default_n)},seed={spec.get('seed', 0)})"
    return kind
