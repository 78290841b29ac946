"""Resolve the ``tasks`` section of a job configuration into Task records."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from collabsim.tasks.discoverybench import TaskLoadReport, load_tasks
from collabsim.tasks.generator import default_suite_root, generate_suite
from collabsim.tasks.model import Task


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
        spec: The ``tasks`` config section: ``kind`` (``generated`` or ``discoverybench``),
            ``root``, and optional filters ``datasets`` (list of dataset names), ``ids`` (list
            of task ids, in that order) and ``limit`` (first N after filtering). For
            ``generated`` also ``n_tasks`` and ``seed``.

    Returns:
        The selected tasks and the full load report (with any problems found).

    Raises:
        TaskSelectionError: Unknown kind, missing root, unknown ids, or nothing selected.
    """
    kind = spec.get("kind")
    if kind == "generated":
        n_tasks = int(spec.get("n_tasks", 38))
        seed = int(spec.get("seed", 0))
        root_value = spec.get("root")
        if root_value:
            root = Path(root_value).expanduser()
            if not (root / "COLLABSIM_GENERATED.json").is_file():
                generate_suite(root, n_tasks=n_tasks, seed=seed)
        else:
            root = default_suite_root(n_tasks=n_tasks, seed=seed)
    elif kind == "discoverybench":
        root_value = spec.get("root")
        if not root_value or root_value == "???":
            from collabsim.datafetch import FETCH_COMMAND, cached_root

            root_value = cached_root()
            if root_value is None:
                raise TaskSelectionError(
                    "tasks.root is required for tasks=discoverybench when no download is "
                    f"cached: run `{FETCH_COMMAND}` (or set tasks.root=/path/to/discoverybench)"
                )
        root = Path(root_value).expanduser()
        if not root.is_dir():
            raise TaskSelectionError(f"tasks.root: no such folder: {root}")
    else:
        raise TaskSelectionError(f"tasks.kind: unknown kind {kind!r} (generated|discoverybench)")

    report = load_tasks(root)
    tasks = list(report.tasks)
    for task in tasks:
        _check_utf8_name(task, root)
    if not tasks:
        problems = "; ".join(f"{p.path}: {p.message}" for p in report.problems[:3])
        raise TaskSelectionError(
            f"tasks.root: no loadable task under {root}" + (f" ({problems})" if problems else "")
        )
    datasets = spec.get("datasets")
    if datasets:
        wanted = set(datasets)
        tasks = [t for t in tasks if t.dataset in wanted]
        if not tasks:
            raise TaskSelectionError(f"tasks.datasets: no task of {sorted(wanted)} under {root}")
    ids = spec.get("ids")
    if ids:
        by_id = {t.task_id: t for t in tasks}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise TaskSelectionError(f"tasks.ids: not found under {root}: {missing}")
        tasks = [by_id[i] for i in ids]
    limit = spec.get("limit")
    if limit is not None:
        if int(limit) < 1:
            raise TaskSelectionError(f"tasks.limit: must be at least 1, got {limit}")
        tasks = tasks[: int(limit)]
    return tasks, report
