"""Figures of a sweep report (matplotlib, written as PNG files).

Every figure reads the outputs of :func:`collabsim.reporting.tables.aggregate` (per-variant
mean and standard error over tasks, seeds averaged first) or the sessions table; error bars
are ± 1 SE, and bars without an SE (one task) are drawn without a bar.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from collabsim.reporting.tables import METRIC_LABELS, STRUCTURE_ORDER, TEAM_ORDER  # noqa: E402

TEAM_COLOURS = {"single": "#7f7f7f", "D": "#2f6fb0", "R": "#3a9a5b", "DR": "#8e44ad"}
TEAM_MARKERS = {"single": "o", "D": "s", "R": "^", "DR": "D"}
STRUCTURE_COLOURS = {"single": "#7f7f7f", "default": "#e07b28", "memory": "#c9a227",
                     "preassigned_gates": "#2aa198", "scaffolded": "#2f6fb0"}


def _label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric)


def _ordered(values: Sequence[str], order: Sequence[str]) -> list[str]:
    uniq = list(dict.fromkeys(values))
    return sorted(uniq, key=lambda v: (order.index(v) if v in order else len(order), v))


def _has(agg: pd.DataFrame, metric: str) -> bool:
    col = f"{metric}_mean"
    return col in agg and agg[col].notna().any()


def _save(fig: plt.Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def _grouped_bars(ax: plt.Axes, agg: pd.DataFrame, metric: str) -> None:
    """Bars of ``metric`` grouped by structure on the x axis, one bar per team."""
    present = agg[agg[f"{metric}_mean"].notna()]
    structures = _ordered(present["structure"], STRUCTURE_ORDER)
    teams = _ordered(present["team"], TEAM_ORDER)
    width = 0.8 / max(1, len(teams))
    for j, team in enumerate(teams):
        xs, ys, es = [], [], []
        for i, structure in enumerate(structures):
            row = agg[(agg["structure"] == structure) & (agg["team"] == team)]
            if row.empty or pd.isna(row[f"{metric}_mean"].iloc[0]):
                continue
            xs.append(i - 0.4 + width * (j + 0.5))
            ys.append(float(row[f"{metric}_mean"].iloc[0]))
            se = row[f"{metric}_se"].iloc[0]
            es.append(0.0 if pd.isna(se) else float(se))
        if xs:
            ax.bar(xs, ys, width=width * 0.95, yerr=es, capsize=3, label=team,
                   color=TEAM_COLOURS.get(team), edgecolor="white")
    ax.set_xticks(range(len(structures)), structures)
    ax.set_ylabel(_label(metric))
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def performance_by_structure_team(agg: pd.DataFrame, path: Path) -> Path | None:
    """Bars: Performance per structure (x) and team (colour), ± 1 SE over tasks."""
    if not _has(agg, "Performance"):
        return None
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    _grouped_bars(ax, agg, "Performance")
    ax.set_ylim(0, 1.05)
    ax.set_title("Performance by structure and team (mean ± SE over tasks)")
    ax.legend(title="team", ncols=4, fontsize=8, loc="upper left")
    return _save(fig, path)


def h_init_by_structure(agg: pd.DataFrame, path: Path) -> Path | None:
    """Bars: H_init,norm per structure (x) and team, ± 1 SE; 1 = equal initiative."""
    if not _has(agg, "H_init_norm"):
        return None
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    _grouped_bars(ax, agg, "H_init_norm")
    ax.axhline(1.0, color="#444", lw=0.8, ls=":")
    ax.text(ax.get_xlim()[1], 1.0, "equal initiative ", va="bottom", ha="right", fontsize=8)
    ax.set_ylim(0, 1.25)
    ax.set_title("Initiative entropy H_init,norm by structure (mean ± SE over tasks)")
    ax.legend(title="team", ncols=4, fontsize=8, loc="upper left")
    return _save(fig, path)


def activity(agg: pd.DataFrame, path: Path) -> Path | None:
    """Two panels: W_human (non-message actions by humans) and M_team (messages)."""
    metrics = [m for m in ("W_human", "M_team") if _has(agg, m)]
    if not metrics:
        return None
    fig, axes = plt.subplots(1, len(metrics), figsize=(5.2 * len(metrics), 4.0), squeeze=False)
    for ax, metric in zip(axes[0], metrics, strict=True):
        _grouped_bars(ax, agg, metric)
        ax.set_title(f"{_label(metric)} (mean ± SE)")
    axes[0][0].legend(title="team", fontsize=8)
    return _save(fig, path)


def performance_vs_h_init(sessions: pd.DataFrame, agg: pd.DataFrame, path: Path,
                          seed: int = 0) -> Path | None:
    """Scatter: each session's Performance against its H_init,norm (small jitter so equal
    values stay visible), coloured by structure; crosses mark variant means ± SE."""
    data = sessions[["structure", "team", "Performance", "H_init_norm"]].copy()
    for col in ("Performance", "H_init_norm"):
        data[col] = pd.to_numeric(data[col], errors="coerce")
    data = data.dropna()
    if data.empty:
        return None
    rng = np.random.default_rng(seed)
    fig, ax = plt.subplots(figsize=(6.8, 4.6))
    for structure in _ordered(data["structure"], STRUCTURE_ORDER):
        part = data[data["structure"] == structure]
        ax.scatter(part["H_init_norm"] + rng.uniform(-0.01, 0.01, len(part)),
                   part["Performance"] + rng.uniform(-0.015, 0.015, len(part)),
                   s=14, alpha=0.45, color=STRUCTURE_COLOURS.get(structure), label=structure)
    for _, row in agg.iterrows():
        x, y = row.get("H_init_norm_mean"), row.get("Performance_mean")
        if x is None or y is None or any(map(_isnan, (x, y))):
            continue
        xe, ye = row.get("H_init_norm_se"), row.get("Performance_se")
        ax.errorbar(x, y, xerr=None if _isnan(xe) else xe, yerr=None if _isnan(ye) else ye,
                    fmt=TEAM_MARKERS.get(row["team"], "o"), ms=8, capsize=2, lw=1,
                    color=STRUCTURE_COLOURS.get(row["structure"], "#333"), mec="black",
                    label=f"mean {row['structure']}/{row['team']}")
    ax.set_xlabel("H_init,norm (0 = one member took all initiative, 1 = equal)")
    ax.set_ylabel("Performance")
    ax.set_xlim(-0.03, 1.05)
    ax.set_ylim(-0.05, 1.08)
    ax.grid(alpha=0.3)
    ax.set_title("Performance vs initiative entropy (dots: sessions; markers: variant mean ± SE)",
                 fontsize=10)
    ax.legend(fontsize=7, loc="center left", ncols=2)
    return _save(fig, path)


def _isnan(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def deltas_vs_single(deltas: pd.DataFrame, path: Path, metric: str = "Performance") -> Path | None:
    """Point ranges: each variant's paired mean difference from the single agent with its
    bootstrap 95% interval; the dotted line is no difference."""
    if deltas.empty:
        return None
    fig, ax = plt.subplots(figsize=(6.8, 0.9 + 0.42 * len(deltas)))
    ys = np.arange(len(deltas))[::-1]
    for y, (_, row) in zip(ys, deltas.iterrows(), strict=True):
        colour = TEAM_COLOURS.get(row["team"], "#333")
        ax.plot([row["ci_low"], row["ci_high"]], [y, y], color=colour, lw=2.2)
        ax.plot(row["delta"], y, "o", color=colour)
    ax.axvline(0.0, color="#444", lw=0.9, ls=":")
    ax.set_yticks(ys, [f"{r.structure}/{r.team} (n={r.n_tasks})" for r in deltas.itertuples()])
    ax.set_xlabel(f"Δ {_label(metric)} vs single agent (paired by task; bootstrap 95% CI)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"{_label(metric)}: difference from the single agent")
    return _save(fig, path)
