"""Figures of a sweep report (matplotlib; every figure is written as PNG at 200 dpi and PDF).

Every figure reads the outputs of :func:`collabsim.reporting.tables.aggregate` (per-variant
mean and standard error over tasks, seeds averaged first), the sessions table or the paired
differences of :mod:`collabsim.reporting.paired`. Error bars are ± 1 SE (bars without an SE,
one task, are drawn without one); line plots shade the 95% interval mean ± t·SE. Measures
bounded by [0, 1] (Performance, H_init,norm) get exactly that axis, with error bars clipped
to it. A variant is ``structure/team`` plus the swept settings (``variants``: the setting
columns of :class:`collabsim.reporting.variants.Variants`); the single agent's level is a
dashed reference line wherever there is one single-agent variant.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import stats  # noqa: E402

from collabsim.reporting.tables import METRIC_LABELS, STRUCTURE_ORDER, TEAM_ORDER  # noqa: E402
from collabsim.reporting.variants import short_names, variant_label  # noqa: E402

DPI = 200
FORMATS = ("png", "pdf")
BOUNDED = frozenset({"Performance", "H_init_norm", "H_init_work"})
TEAM_COLOURS = {"single": "#7f7f7f", "D": "#2f6fb0", "R": "#3a9a5b", "DR": "#8e44ad"}
TEAM_MARKERS = {"single": "o", "D": "s", "R": "^", "DR": "D"}
STRUCTURE_COLOURS = {"single": "#7f7f7f", "default": "#e07b28", "memory": "#c9a227",
                     "preassigned_gates": "#2aa198", "scaffolded": "#2f6fb0"}
REFERENCE_STYLE = {"color": "#555555", "lw": 1.1, "ls": "--", "zorder": 1}


def _label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric)


def _ordered(values: Sequence[str], order: Sequence[str]) -> list[str]:
    uniq = list(dict.fromkeys(values))
    return sorted(uniq, key=lambda v: (order.index(v) if v in order else len(order), str(v)))


def _has(agg: pd.DataFrame, metric: str) -> bool:
    col = f"{metric}_mean"
    return col in agg and agg[col].notna().any()


def _isnan(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _save(fig: plt.Figure, path: Path) -> Path:
    """Write ``path`` (PNG, 200 dpi) and the same figure as PDF beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # long legends: bbox_inches="tight" makes room
        fig.tight_layout()
    for fmt in FORMATS:
        fig.savefig(path.with_suffix(f".{fmt}"), dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path.with_suffix(".png")


def save_figure(fig: plt.Figure, path: Path) -> Path:
    """Write a report figure as every report does (PNG at 200 dpi and a PDF beside it);
    for figures drawn outside this module (:mod:`collabsim.reporting.ablation`)."""
    return _save(fig, path)


def _bound(ax: plt.Axes, metric: str, axis: str = "y") -> None:
    if metric in BOUNDED:
        (ax.set_ylim if axis == "y" else ax.set_xlim)(0.0, 1.0)


def _clipped_err(mean: float, se: float, metric: str) -> tuple[float, float]:
    se = 0.0 if _isnan(se) else float(se)
    if metric not in BOUNDED:
        return se, se
    return min(se, max(mean, 0.0)), min(se, max(1.0 - mean, 0.0))


def single_reference(agg: pd.DataFrame, metric: str) -> float | None:
    """The single agent's mean ``metric`` when exactly one single-agent variant is present."""
    single = agg[agg["team"] == "single"]
    if len(single) != 1 or not _has(single, metric):
        return None
    return float(single[f"{metric}_mean"].iloc[0])


def _reference_line(ax: plt.Axes, level: float | None) -> None:
    """A dashed horizontal line at the single agent's level, labelled inside the plot (below
    the line when it is near the top, where the frame would hide it)."""
    if level is None:
        return
    ax.axhline(level, **REFERENCE_STYLE, label="single agent")
    near_top = level > 0.9 * ax.get_ylim()[1]
    ax.annotate(f"single agent {level:.2f}", xy=(1.0, level), xycoords=("axes fraction", "data"),
                xytext=(-4, -3 if near_top else 3), textcoords="offset points", ha="right",
                va="top" if near_top else "bottom", fontsize=8, color=REFERENCE_STYLE["color"])


def _series(agg: pd.DataFrame, variants: Sequence[str]) -> list[tuple[str, pd.DataFrame]]:
    """Bar series: one per team (and setting values), in team order."""
    out = []
    for team in _ordered(agg["team"], TEAM_ORDER):
        part = agg[agg["team"] == team]
        if not variants:
            out.append((team, part))
            continue
        for _, group in part.groupby(list(variants), sort=True, dropna=False):
            label = f"{team} " + variant_label(group.iloc[0], variants, with_identity=False)
            out.append((label, group))
    return out


def _grouped_bars(ax: plt.Axes, agg: pd.DataFrame, metric: str,
                  variants: Sequence[str] = ()) -> None:
    """Bars of ``metric`` grouped by structure on the x axis, one bar per series."""
    present = agg[agg[f"{metric}_mean"].notna()]
    structures = _ordered(present["structure"], STRUCTURE_ORDER)
    series = _series(present, variants)
    # bars of the series a structure has are centred on it (the single agent's one bar too)
    slots = {s: [j for j, (_, part) in enumerate(series) if (part["structure"] == s).any()]
             for s in structures}
    width = 0.8 / max(1, max(len(v) for v in slots.values()))
    cmap = plt.get_cmap("tab10")
    for j, (label, part) in enumerate(series):
        xs, ys, lo, hi = [], [], [], []
        for i, structure in enumerate(structures):
            row = part[part["structure"] == structure]
            if row.empty:
                continue
            mean = float(row[f"{metric}_mean"].iloc[0])
            low, high = _clipped_err(mean, row[f"{metric}_se"].iloc[0], metric)
            slot, k = slots[structure].index(j), len(slots[structure])
            xs.append(i - width * k / 2 + width * (slot + 0.5))
            ys.append(mean)
            lo.append(low)
            hi.append(high)
        team = str(part["team"].iloc[0])
        colour = TEAM_COLOURS.get(team) if not variants else cmap(j % 10)
        if xs:
            ax.bar(xs, ys, width=width * 0.95, yerr=[lo, hi], capsize=3, label=label,
                   color=colour, edgecolor="white")
    ax.set_xticks(range(len(structures)), structures)
    ax.set_ylabel(_label(metric))
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    _bound(ax, metric)


def _legend_outside(ax: plt.Axes, title: str | None = None) -> None:
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(title=title, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  frameon=False)


def performance_by_structure_team(agg: pd.DataFrame, path: Path,
                                  variants: Sequence[str] = ()) -> Path | None:
    """Bars: Performance per structure (x) and team (colour), ± 1 SE over tasks; the single
    agent's level as a dashed reference line."""
    if not _has(agg, "Performance"):
        return None
    fig, ax = plt.subplots(figsize=(8.0, 4.2))
    _grouped_bars(ax, agg, "Performance", variants)
    _reference_line(ax, single_reference(agg, "Performance"))
    ax.set_title("Performance by structure and team (mean ± SE over tasks)")
    _legend_outside(ax, "team" if not variants else "team, setting")
    return _save(fig, path)


def h_init_by_structure(agg: pd.DataFrame, path: Path,
                        variants: Sequence[str] = ()) -> Path | None:
    """Bars: H_init,norm per structure (x) and team, ± 1 SE; 1 = equal initiative. A second
    panel shows it over the work phase only (``H_init_work``) where the table has it."""
    metrics = [m for m in ("H_init_norm", "H_init_work") if _has(agg, m)]
    if "H_init_norm" not in metrics:
        return None
    fig, axes = plt.subplots(1, len(metrics), figsize=(8.0 if len(metrics) == 1 else 14.0, 4.2),
                             squeeze=False)
    for ax, metric in zip(axes[0], metrics, strict=True):
        _grouped_bars(ax, agg, metric, variants)
        ax.set_title(f"{_label(metric)} by structure" if len(metrics) > 1 else
                     "Initiative entropy H_init,norm by structure (mean ± SE over tasks; "
                     "1 = equal initiative)", fontsize=10)
    if len(metrics) > 1:
        fig.suptitle("Initiative entropy (mean ± SE over tasks; 1 = equal initiative): all "
                     "events and the work phase only", fontsize=10)
    _legend_outside(axes[0][-1], "team" if not variants else "team, setting")
    return _save(fig, path)


def activity(agg: pd.DataFrame, path: Path, variants: Sequence[str] = ()) -> Path | None:
    """Two panels: W_human (non-message actions by humans) and M_team (messages)."""
    metrics = [m for m in ("W_human", "M_team") if _has(agg, m)]
    if not metrics:
        return None
    fig, axes = plt.subplots(1, len(metrics), figsize=(5.2 * len(metrics), 4.0), squeeze=False)
    for ax, metric in zip(axes[0], metrics, strict=True):
        _grouped_bars(ax, agg, metric, variants)
        ax.set_ylim(bottom=0)
        ax.set_title(f"{_label(metric)} (mean ± SE)")
    _legend_outside(axes[0][-1], "team" if not variants else "team, setting")
    return _save(fig, path)


def performance_vs_h_init(sessions: pd.DataFrame, agg: pd.DataFrame, path: Path,
                          variants: Sequence[str] = (), seed: int = 0) -> Path | None:
    """Scatter: each session's Performance against its H_init,norm (small jitter so equal
    values stay visible), coloured by structure; large markers are variant means ± SE."""
    data = sessions[["structure", "team", "Performance", "H_init_norm"]].copy()
    for col in ("Performance", "H_init_norm"):
        data[col] = pd.to_numeric(data[col], errors="coerce")
    data = data.dropna()
    if data.empty:
        return None
    rng = np.random.default_rng(seed)
    fig, ax = plt.subplots(figsize=(8.0, 4.6))
    for structure in _ordered(data["structure"], STRUCTURE_ORDER):
        part = data[data["structure"] == structure]
        ax.scatter(np.clip(part["H_init_norm"] + rng.uniform(-0.01, 0.01, len(part)), 0, 1),
                   np.clip(part["Performance"] + rng.uniform(-0.015, 0.015, len(part)), 0, 1),
                   s=14, alpha=0.45, color=STRUCTURE_COLOURS.get(structure), label=structure,
                   clip_on=False)
    for _, row in agg.iterrows():
        x, y = row.get("H_init_norm_mean"), row.get("Performance_mean")
        if _isnan(x) or _isnan(y):
            continue
        xe, ye = row.get("H_init_norm_se"), row.get("Performance_se")
        ax.errorbar(x, y, xerr=None if _isnan(xe) else [[v] for v in _clipped_err(x, xe, "H_init_norm")],
                    yerr=None if _isnan(ye) else [[v] for v in _clipped_err(y, ye, "Performance")],
                    fmt=TEAM_MARKERS.get(row["team"], "o"), ms=8, capsize=2, lw=1,
                    color=STRUCTURE_COLOURS.get(row["structure"], "#333"), mec="black",
                    label="mean " + variant_label(row, variants), clip_on=False)
    ax.set_xlabel("H_init,norm (0 = one member took all initiative, 1 = equal)")
    ax.set_ylabel("Performance")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.grid(alpha=0.3)
    ax.set_title("Performance vs initiative entropy (dots: sessions; markers: variant mean ± SE)",
                 fontsize=10)
    _legend_outside(ax)
    return _save(fig, path)


def _t_interval(mean: float, se: float, n: int) -> tuple[float, float]:
    if _isnan(se) or n < 2:
        return mean, mean
    half = float(stats.t.ppf(0.975, n - 1)) * float(se)
    return mean - half, mean + half


MAX_LINE_GROUPS = 6


def metric_vs_setting(agg: pd.DataFrame, setting: str, variants: Sequence[str], path: Path,
                      metric: str = "Performance") -> Path | None:
    """``metric`` against a numeric swept setting with 95% intervals (mean ± t·SE over tasks).

    One line (with a shaded interval) per structure/team and value of the other swept
    settings, when those take few values (a grid sweep). When another setting takes many
    values (Optuna trials sample every parameter anew) lines would join unrelated trials:
    every variant is then one point with its interval, coloured by structure/team. The
    single agent, when it did not vary with the setting, is a dashed reference line.
    """
    if not _has(agg, metric) or setting not in agg:
        return None
    data = agg[agg[f"{metric}_mean"].notna()].copy()
    if data[setting].nunique() < 2:
        return None
    others = [c for c in variants if c != setting]
    grouped = [c for c in others if data[c].nunique() <= MAX_LINE_GROUPS]
    n_lines = data.groupby(["structure", "team", *grouped], dropna=False).ngroups
    # lines need points: trials sampling every parameter anew leave one point per line
    scattered = len(grouped) < len(others) or n_lines * 2 > len(data)
    fig, ax = plt.subplots(figsize=(8.0, 4.4))
    keys = ["structure", "team", *([] if scattered else grouped)]
    cmap = plt.get_cmap("tab10")
    reference = None
    for j, (_, line) in enumerate(data.groupby(keys, sort=False, dropna=False)):
        line = line.sort_values(setting)
        first = line.iloc[0]
        if first["team"] == "single" and len(line) == 1:
            reference = float(first[f"{metric}_mean"])
            continue
        xs = line[setting].astype(float).to_numpy()
        ys = line[f"{metric}_mean"].to_numpy(dtype=float)
        bands = [_t_interval(m, s, int(n)) for m, s, n in
                 zip(ys, line[f"{metric}_se"], line[f"{metric}_n"], strict=True)]
        low = np.array([b[0] for b in bands])
        high = np.array([b[1] for b in bands])
        if metric in BOUNDED:
            low, high = np.clip(low, 0, 1), np.clip(high, 0, 1)
        colour = cmap(j % 10)
        label = variant_label(first, [] if scattered else grouped)
        if scattered:
            ax.errorbar(xs, ys, yerr=[ys - low, high - ys], fmt="o", color=colour, ms=5,
                        capsize=2, lw=1, label=label, clip_on=False)
        else:
            ax.plot(xs, ys, "-o", color=colour, ms=4, label=label, clip_on=False)
            ax.fill_between(xs, low, high, color=colour, alpha=0.18, lw=0)
    _bound(ax, metric)
    _reference_line(ax, reference)
    ax.set_xlabel(setting)
    ax.set_ylabel(_label(metric))
    ax.grid(alpha=0.3)
    what = ("points: variants, other settings differ; bars: 95% CI" if scattered
            else "mean over tasks; band: 95% CI")
    ax.set_title(f"{_label(metric)} against {short_names([setting])[setting]} ({what})",
                 fontsize=10)
    _legend_outside(ax)
    return _save(fig, path)


def paired_differences(deltas: pd.DataFrame, variants: Sequence[str], path: Path,
                       metric: str = "Performance") -> Path | None:
    """Point ranges: each variant's mean paired difference from its reference (same task and
    seed) with the bootstrap 95% interval, coloured by team; the dotted line is no
    difference. One panel per reference (``structure=default``, single agent, ...)."""
    if deltas.empty:
        return None
    references = list(dict.fromkeys(deltas["reference"]))
    heights = [len(deltas[deltas["reference"] == r]) for r in references]
    fig, axes = plt.subplots(len(references), 1, squeeze=False, sharex=True,
                             figsize=(8.0, 1.1 + 0.42 * sum(heights) + 0.5 * len(references)),
                             gridspec_kw={"height_ratios": heights})
    low = min(0.0, float(deltas["ci_low"].min()))
    high = max(0.0, float(deltas["ci_high"].max()))
    pad = 0.05 * max(high - low, 0.1)
    for ax, reference in zip(axes[:, 0], references, strict=True):
        part = deltas[deltas["reference"] == reference]
        part = part.assign(_s=[STRUCTURE_ORDER.index(s) if s in STRUCTURE_ORDER else 99
                               for s in part["structure"]],
                           _t=[TEAM_ORDER.index(t) if t in TEAM_ORDER else 99
                               for t in part["team"]])
        part = part.sort_values(["_s", "_t", *variants], kind="stable")
        ys = np.arange(len(part))[::-1]
        for y, (_, row) in zip(ys, part.iterrows(), strict=True):
            colour = TEAM_COLOURS.get(row["team"], "#333")
            ax.plot([row["ci_low"], row["ci_high"]], [y, y], color=colour, lw=2.2)
            ax.plot(row["delta"], y, "o", color=colour)
        ax.axvline(0.0, color="#444", lw=0.9, ls=":")
        ax.set_yticks(ys, [f"{variant_label(r, variants)} (n={int(r['n_tasks'])})"
                           for _, r in part.iterrows()])
        ax.set_ylim(-0.6, len(part) - 0.4)
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(f"{_label(metric)}: variant − {reference} (paired by task and seed)",
                     fontsize=10)
    ax = axes[-1, 0]
    ax.set_xlim(max(-1.0, low - pad), min(1.0, high + pad))
    ax.set_xlabel(f"Δ {_label(metric)} (mean over tasks; bootstrap 95% CI)")
    return _save(fig, path)
