"""Plots of the Kolab benchmark report (matplotlib, Agg backend).

Row-normalised confusion matrices, rating heat maps with scatter, predicted vs true label
distributions, and topology W against the mean collaboration rating.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from collabsim.kolab.benchmark import BenchmarkResult, ResultRow  # noqa: E402
from collabsim.kolab.dynamics_study import DynamicsStudy  # noqa: E402
from collabsim.kolab.evaluate import LABELS, RATINGS  # noqa: E402
from collabsim.kolab.parallel import default_jobs, fork_map  # noqa: E402


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return "–" if math.isnan(x) else f"{x:.{digits}f}"
    return str(x)



def plot_confusion(row: ResultRow, path: Path) -> Path:
    """Row-normalised confusion matrix (true rows x predicted columns + invalid), counts shown."""
    assert row.evaluation is not None
    matrix = row.evaluation.confusion
    cols = list(LABELS) + ["invalid"]
    if matrix[:, -1].sum() == 0:
        matrix, cols = matrix[:, :-1], list(LABELS)
    totals = matrix.sum(axis=1, keepdims=True)
    share = np.divide(matrix, totals, out=np.zeros(matrix.shape), where=totals > 0)
    fig, ax = plt.subplots(figsize=(4.8, 3.9))
    ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            colour = "white" if share[i, j] > 0.6 else "black"
            ax.text(j, i, f"{matrix[i, j]}\n{share[i, j]:.0%}", ha="center", va="center",
                    color=colour, fontsize=9)  # fmt: skip
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(
        range(len(LABELS)),
        [f"{lab} (n={int(t)})" for lab, t in zip(LABELS, totals[:, 0], strict=True)],
    )
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    runs = f", summed over {row.evaluation.runs} runs" if row.evaluation.runs > 1 else ""
    ax.set_title(
        f"{row.task} {row.predictor} [{row.modality}]\nmacro-F1 "
        f"{row.evaluation.values['macro_f1']:.3f}{runs}",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_ratings(row: ResultRow, path: Path) -> Path:
    """True x predicted (rounded) heat map and a scatter of run-mean predictions."""
    ev = row.evaluation
    assert ev is not None
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8.6, 3.8))
    ax1.imshow(ev.confusion, cmap="Oranges", origin="lower")
    for i in range(5):
        for j in range(5):
            if ev.confusion[i, j]:
                dark = ev.confusion[i, j] > 0.6 * ev.confusion.max()
                ax1.text(j, i, str(ev.confusion[i, j]), ha="center", va="center", fontsize=9,
                         color="white" if dark else "black")  # fmt: skip
    ax1.set_xticks(range(5), [str(r) for r in RATINGS])
    ax1.set_yticks(range(5), [str(r) for r in RATINGS])
    ax1.set_xlabel("predicted (rounded)")
    ax1.set_ylabel("true rating")
    ax1.set_title("counts", fontsize=9)
    y_true = np.asarray(ev.y_true, dtype=float)
    preds = np.array(
        [[np.nan if p is None else float(p) for p in r] for r in ev.y_pred_runs], dtype=float
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all runs invalid -> NaN, not plotted
        mean_pred = np.nanmean(preds, axis=0)
    rng = np.random.default_rng(0)
    jitter = rng.uniform(-0.15, 0.15, size=len(y_true))
    ax2.scatter(y_true + jitter, mean_pred, s=14, alpha=0.6)
    ax2.plot([1, 5], [1, 5], color="grey", lw=0.8, ls="--")
    ax2.set_xlim(0.5, 5.5)
    ax2.set_ylim(0.5, 5.5)
    ax2.set_xlabel("true rating (jittered)")
    ax2.set_ylabel("prediction (mean over runs)")
    rho = ev.values.get("spearman", math.nan)
    ax2.set_title(f"MAE {ev.values['mae']:.3f}, Spearman rho {_fmt(rho)}", fontsize=9)
    fig.suptitle(f"{row.task} {row.predictor} [{row.modality}] (n={ev.n})", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_label_distribution(task: str, rows: Sequence[ResultRow], path: Path) -> Path:
    """Grouped bars: true label shares and each predictor's predicted shares."""
    rows = [r for r in rows if r.evaluation is not None]
    assert rows
    first = rows[0].evaluation
    assert first is not None
    series = [("true", [first.values[f"true_share_{lab}"] for lab in LABELS])]
    for r in rows:
        assert r.evaluation is not None
        series.append(
            (
                f"{r.predictor} [{r.modality}]",
                [r.evaluation.values[f"pred_share_{lab}"] for lab in LABELS],
            )
        )
    x = np.arange(len(LABELS))
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for k, (name, shares) in enumerate(series):
        ax.bar(x + k * width - 0.4 + width / 2, shares, width, label=name,
               color="black" if name == "true" else None)  # fmt: skip
    ax.set_xticks(x, list(LABELS))
    ax.set_ylabel("share of instances")
    ax.set_ylim(0, 1)
    ax.set_title(f"{task}: predicted vs true label distribution", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_dynamics(study: DynamicsStudy, path: Path) -> Path:
    """Topology W vs mean collaboration rating per session."""
    table = study.table
    corr = study.headline
    fig, ax = plt.subplots(figsize=(5.2, 3.9))
    ax.scatter(table["topology_w"].astype(float), table["mean_collaboration"].astype(float), s=22)
    ax.set_xlabel("topology W = branch nodes / edges")
    ax.set_ylabel("mean collaboration rating")
    ax.set_title(
        f"W vs collaboration: rho {_fmt(corr.rho)}, p {_fmt(corr.p)}, n {corr.n}", fontsize=10
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


def write_plots(
    result: BenchmarkResult,
    out_dir: Path,
    study: DynamicsStudy | None = None,
    *,
    jobs: int | None = None,
) -> dict[str, list[Path]]:
    """Draw every figure of the report into ``out_dir``, spread over ``jobs`` processes.

    One confusion matrix per adoption result row and one rating plot per rating row, one
    label distribution per adoption task, and the dynamics plot with a study. The figures
    are independent, so they are drawn in forked processes (all cores by default); the
    files do not depend on the number of jobs.

    Returns:
        Report section -> the figures' paths, in the report's order.
    """
    todo: list[tuple[str, str, Any, Path]] = []
    for row in result.rows:
        ev = row.evaluation
        if ev is None:
            continue
        modality = "none" if row.modality == "-" else row.modality
        name = f"{_slug(row.task)}_{_slug(row.predictor)}_{_slug(modality)}.png"
        if ev.kind == "adoption":
            todo.append(("Confusion matrices", "confusion", row, out_dir / f"confusion_{name}"))
        else:
            todo.append(("Rating predictions", "ratings", row, out_dir / f"ratings_{name}"))
    for task in dict.fromkeys(r.task for r in result.rows):
        rows = [
            r for r in result.rows
            if r.task == task and r.evaluation is not None and r.evaluation.kind == "adoption"
        ]  # fmt: skip
        if rows:
            path = out_dir / f"label_distribution_{_slug(task)}.png"
            todo.append(("Label distributions", "labels", (task, rows), path))
    if study is not None:
        todo.append(("Dynamics", "dynamics", study, out_dir / "dynamics_w_vs_collaboration.png"))
    paths = fork_map(_draw, None, todo, jobs=default_jobs() if jobs is None else jobs)
    out: dict[str, list[Path]] = {}
    for (section, *_), path in zip(todo, paths, strict=True):
        out.setdefault(section, []).append(path)
    return out


def _draw(_state: None, item: tuple[str, str, Any, Path]) -> Path:
    _, kind, what, path = item
    if kind == "confusion":
        return plot_confusion(what, path)
    if kind == "ratings":
        return plot_ratings(what, path)
    if kind == "labels":
        return plot_label_distribution(what[0], what[1], path)
    return plot_dynamics(what, path)
