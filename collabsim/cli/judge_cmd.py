"""``collabsim judge``: score hypotheses of your own against a task root's golds.

``collabsim judge TASKS_ROOT CSV [--out SCORES.csv]`` reads a CSV with the columns
``task_id`` and ``hypothesis`` (one row per hypothesis; other columns are kept as they are)
and scores each row with the judge ``collabsim run`` uses
(:class:`~collabsim.metrics.judge_family.FamilyJudge`: the time-series rules or the
statistical judge, per task) against the gold of its task under ``TASKS_ROOT`` (answer
keys found as :func:`~collabsim.tasks.discoverybench.load_tasks` finds them). Each row gets
``context``, ``variable_f1``, ``relation``, ``Performance`` (their product),
``context_recall``, ``judge`` and ``rationale``. The scores are printed (``task_id``, the
parts and Performance) or, with ``--out``, written to a CSV; then one line with the mean
Performance and the chance baselines of the tasks scored
(:mod:`~collabsim.metrics.baselines`), so an agent of your own is scored the way
DiscoveryBench's eval script scores one, with the judge's chance level beside it.

User errors (exit 2, one line naming the file and the row, nothing written): a root without
tasks, a CSV that cannot be read or lacks a column, a row whose task id is not a task of the
root, a task without a gold hypothesis, an output path that cannot be written.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path
from typing import Any

from collabsim.cli.errors import user_error
from collabsim.core.csvsafe import safe_frame
from collabsim.core.outputs import OutputPathError, atomic_file, check_output_file

REQUIRED = ("task_id", "hypothesis")
SCORE_COLUMNS = ("context", "variable_f1", "relation", "Performance", "context_recall",
                 "judge", "rationale")


class JudgeInputError(ValueError):
    """A CSV row or the task root cannot be scored (the message names file and row)."""


def register(subparsers: Any) -> None:
    """Add the ``judge`` sub-command to the ``collabsim`` parser."""
    parser = subparsers.add_parser(
        "judge",
        help="score a CSV of task_id,hypothesis against a task root's golds",
        description="Score each row's hypothesis against the gold of its task (context, "
        "variable F1, relation, Performance) with collabsim's deterministic judge.",
    )
    parser.add_argument("tasks_root", type=Path,
                        help="task root (DiscoveryBench layout: real/ and/or synth/, "
                             "answer keys in eval/ under or beside it)")
    parser.add_argument("csv", type=Path, help="CSV with the columns task_id,hypothesis")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the scores here as CSV (default: print them)")
    parser.set_defaults(func=run)


def read_rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    """The CSV's rows with their line numbers.

    Raises:
        JudgeInputError: The file cannot be read or lacks ``task_id`` / ``hypothesis``.
    """
    from collabsim.domain.tables import decode_text

    try:
        text = decode_text(path.read_bytes())
    except OSError as err:
        raise JudgeInputError(f"{path}: cannot read ({err.strerror or err})") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or ())]
    if missing:
        raise JudgeInputError(f"{path}: no column {missing[0]!r} in its header (needs "
                              f"{', '.join(REQUIRED)}; has {', '.join(reader.fieldnames or [])})")
    rows = []
    try:
        for row in reader:
            if None in row:
                raise JudgeInputError(f"{path} line {reader.line_num}: more fields than the "
                                      "header names")
            rows.append((reader.line_num, {k: v or "" for k, v in row.items()}))
    except csv.Error as err:
        raise JudgeInputError(f"{path} line {reader.line_num}: {err}") from None
    if not rows:
        raise JudgeInputError(f"{path}: no rows to score below the header")
    return rows


def score_rows(root: Path, path: Path
               ) -> tuple[list[dict[str, Any]], dict[str, dict[str, float]]]:
    """Score every row of the CSV at ``path`` against the golds under ``root``.

    Returns:
        The rows with their scores, and the chance baselines of each task scored.

    Raises:
        JudgeInputError: See the module docstring.
    """
    from collabsim.metrics.baselines import task_baselines
    from collabsim.metrics.judge_family import FamilyJudge
    from collabsim.metrics.outcome import score_to_dict
    from collabsim.tasks.discoverybench import load_tasks

    rows = read_rows(path)
    report = load_tasks(root)
    if not report.tasks:
        why = f" ({report.problems[0].message})" if report.problems else ""
        raise JudgeInputError(f"{root}: no task loads from this task root{why}")
    tasks = {t.task_id: t for t in report.tasks}
    judge = FamilyJudge()
    out: list[dict[str, Any]] = []
    chance: dict[str, dict[str, float]] = {}
    for line, row in rows:
        task_id = row["task_id"].strip()
        task = tasks.get(task_id)
        if task is None:
            raise JudgeInputError(f"{path} line {line}: unknown task id {task_id!r} (not one "
                                  f"of the {len(tasks)} tasks under {root})")
        if not task.gold_hypothesis:
            raise JudgeInputError(f"{path} line {line}: task {task_id} has no gold hypothesis "
                                  f"under {root} (no answer-key row, no true_hypothesis)")
        score = judge.score(row["hypothesis"], task.gold_hypothesis, task)
        out.append({**row, **score_to_dict(score), "rationale": score.rationale})
        if task_id not in chance:
            chance[task_id] = task_baselines(task, tasks.values(), judge)
    return out, chance


def run(args: argparse.Namespace) -> int:
    """Execute ``collabsim judge``; returns the exit code."""
    import pandas as pd

    from collabsim.metrics.baselines import baseline_line

    out = None
    if args.out is not None:
        try:
            # the task root is an input too: its metadata and answer keys are never replaced
            out = check_output_file(args.out, option="--out", inputs=[args.csv, args.tasks_root])
        except OutputPathError as err:
            return user_error("judge", str(err))
    try:
        rows, chance = score_rows(args.tasks_root, args.csv)
    except JudgeInputError as err:
        return user_error("judge", str(err))
    table = pd.DataFrame(rows)
    columns = [c for c in table.columns if c not in SCORE_COLUMNS] + list(SCORE_COLUMNS)
    table = table[columns]
    if out is not None:
        try:
            with atomic_file(out) as tmp:
                safe_frame(table).to_csv(tmp, index=False)
        except OSError as err:
            return user_error("judge", f"--out {out}: cannot write ({err.strerror or err})")
        print(f"wrote {len(table)} scored rows to {out}", file=sys.stderr)
    else:
        shown = table[["task_id", "context", "variable_f1", "relation", "Performance"]]
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print(f"Performance {table['Performance'].mean():.2f} over {len(table)} row(s), "
          f"{table['task_id'].nunique()} task(s)")
    print(baseline_line(chance) or "Chance baselines: – (no task with a gold)")
    return 0
