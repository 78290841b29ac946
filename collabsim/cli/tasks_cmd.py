"""``collabsim tasks``: list the tasks (and loading problems) of a task root.

Problems are bad task files and the queries their data cannot answer
(:mod:`collabsim.tasks.datachecks`); those tasks are not listed as tasks.

Without ``--root`` it lists a built-in generated suite (generated once into the cache):
the archaeology-style one, or with ``--suite generated_stats`` the statistical one.
Exit status: 0 when at least one task loads, 1 when none does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from collabsim.core.terminal import printable, printable_json
from collabsim.tasks.discoverybench import TaskLoadReport, load_tasks
from collabsim.tasks.generator import default_suite_root
from collabsim.tasks.stats_generator import STATS_N_TASKS, default_stats_suite_root


def register(subparsers: Any) -> None:
    """Add the ``tasks`` sub-command to the ``collabsim`` parser."""
    parser = subparsers.add_parser(
        "tasks",
        help="list tasks and loading problems of a DiscoveryBench-style root",
        description="List every task (id, dataset, query, gold present) and every problem "
        "(file, field, message). Without --root: the built-in generated suite.",
    )
    parser.add_argument("--root", type=Path, default=None,
                        help="task root holding real/ and/or synth/ (default: generated suite)")
    parser.add_argument("--suite", choices=("generated", "generated_stats"), default="generated",
                        help="the built-in suite listed when --root is not given")
    parser.add_argument("--n-tasks", type=int, default=None,
                        help="size of the generated suite when --root is not given "
                             f"(default: 38, or {STATS_N_TASKS} for generated_stats)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the generated suite when --root is not given")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the command; returns the exit status."""
    if args.root is not None:
        root = args.root
    elif args.suite == "generated_stats":
        root = default_stats_suite_root(STATS_N_TASKS if args.n_tasks is None else args.n_tasks,
                                        args.seed)
    else:
        root = default_suite_root(38 if args.n_tasks is None else args.n_tasks, args.seed)
    report = load_tasks(root)
    if args.json:
        print(printable_json(json.dumps(_as_json(root, report), indent=2,
                                      ensure_ascii=False)))
    else:
        _print_table(root, report)
    return 0 if report.tasks else 1


def _as_json(root: Path, report: TaskLoadReport) -> dict[str, Any]:
    return {
        "root": str(root),
        "tasks": [
            {"task_id": t.task_id, "dataset": t.dataset, "source": t.source, "query": t.query,
             "has_gold": t.gold_hypothesis is not None,
             "has_reference_workflow": t.reference_workflow_path is not None}
            for t in report.tasks
        ],
        "problems": [
            {"path": str(p.path), "field": p.field, "message": p.message, "task_id": p.task_id}
            for p in report.problems
        ],
    }


def _print_table(root: Path, report: TaskLoadReport) -> None:
    out = sys.stdout
    out.write(f"root: {printable(root)}\n")
    out.write(f"{len(report.tasks)} task(s), {len(report.problems)} problem(s)\n")
    if report.tasks:
        ids = [printable(t.task_id) for t in report.tasks]
        datasets = [printable(t.dataset) for t in report.tasks]
        width = max(len(i) for i in ids)
        dwidth = max(len(d) for d in datasets)
        out.write(f"{'task_id':<{width}}  {'dataset':<{dwidth}}  gold  query\n")
        for t, task_id, dataset in zip(report.tasks, ids, datasets, strict=True):
            gold = "yes " if t.gold_hypothesis is not None else "no  "
            out.write(f"{task_id:<{width}}  {dataset:<{dwidth}}  {gold}  {printable(t.query)}\n")
    if report.problems:
        out.write("problems:\n")
        for p in report.problems:
            field = printable(p.field) if p.field is not None else "-"
            task = f"  (task {printable(p.task_id)} not loaded)" if p.task_id else ""
            out.write(f"  {printable(p.path)}  [{field}]  {printable(p.message)}{task}\n")
