"""Write a fidelity report: report.md, sessions.csv and one PNG per metric.

Each plot overlays the empirical distribution functions (ECDFs) of the real and the
simulated values of one metric, with the sample sizes, the KS statistic and the Wasserstein
distance in the title; a binary (0/1) metric is drawn as the two shares of sessions with
value 1, each with its 95 % Wilson interval. ``fidelity_overview.png`` puts all metrics on
one page. Files are written into a staging folder beside the output folder and moved into
place at the end, so a failure leaves nothing half-written.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from collabsim.calibration.fidelity import (
    BINARY_METRICS,
    EDGE_KINDS,
    FIDELITY_METRICS,
    Fidelity,
    MetricComparison,
    ShareComparison,
    share_comparison,
)
from collabsim.calibration.staging import StagedOutput
from collabsim.core.csvsafe import safe_frame

REAL_COLOUR = "#1f77b4"
SIM_COLOUR = "#d62728"


def _fmt(x: float, digits: int = 3) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def _p(p: float) -> str:
    return "p n/a" if math.isnan(p) else "p<0.001" if p < 0.001 else f"p={p:.3f}"


def _summary(values: np.ndarray, digits: int) -> str:
    if not len(values):
        return "-"
    q1, med, q3 = np.quantile(values, [0.25, 0.5, 0.75])
    return f"{med:.{digits}f} [{q1:.{digits}f}, {q3:.{digits}f}]"


def _digits(metric: str) -> int:
    return 0 if metric.startswith("response_time") else 3


def _share_text(share: float, hits: int, n: int, ci: tuple[float, float]) -> str:
    if not n:
        return "-"
    return f"{hits}/{n} = {share:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"


def share_sentence(comp: MetricComparison) -> str:
    """'real 30/31 = 0.97 [0.84, 0.99] vs simulated k/n = ...' for a binary metric."""
    s = share_comparison(comp)
    return (
        f"real {_share_text(s.real_share, s.real_hits, s.real_n, s.real_ci)} vs simulated "
        f"{_share_text(s.sim_share, s.sim_hits, s.sim_n, s.sim_ci)}"
    )


def _draw_shares(ax: Any, comp: MetricComparison, compact: bool) -> None:
    s: ShareComparison = share_comparison(comp)
    bars = (
        ("real (Kolab)", s.real_share, s.real_ci, s.real_hits, s.real_n, REAL_COLOUR),
        ("simulated", s.sim_share, s.sim_ci, s.sim_hits, s.sim_n, SIM_COLOUR),
    )
    for x, (_name, share, ci, hits, n, colour) in enumerate(bars):
        if not n:
            ax.text(x, 0.5, "no values", ha="center", color=colour, fontsize=8 if compact else 10)
            continue
        ax.bar(x, share, width=0.55, color=colour, alpha=0.75)
        ax.errorbar(x, share, yerr=[[share - ci[0]], [ci[1] - share]], color="black", capsize=6)
        ax.text(
            x,
            min(ci[1] + 0.03, 1.02),
            f"{hits}/{n} = {share:.2f}",
            ha="center",
            va="bottom",
            fontsize=7 if compact else 9,
        )
    ax.set_xticks([0, 1], [b[0] for b in bars], fontsize=8 if compact else 10)
    ax.set_xlim(-0.6, 1.6)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("share of sessions (95 % Wilson CI)", fontsize=8 if compact else 10)
    if compact:  # the overview names each panel's metric on its x axis
        ax.set_xlabel(comp.label, fontsize=8)
    stats_text = (
        f"KS D={_fmt(comp.ks_stat, 2)} ({_p(comp.ks_p)}), W={_fmt(comp.wasserstein)} "
        f"(chance {_fmt(comp.wasserstein_null95)})"
    )
    ax.set_title(
        stats_text if compact else f"{comp.label}\n{stats_text}", fontsize=7 if compact else 10
    )
    ax.grid(alpha=0.3, axis="y")


def _draw(ax: Any, comp: MetricComparison, *, compact: bool = False) -> None:
    if comp.metric in BINARY_METRICS:
        _draw_shares(ax, comp, compact)
        return
    for values, colour, name in (
        (comp.real, REAL_COLOUR, "real (Kolab)"),
        (comp.sim, SIM_COLOUR, "simulated"),
    ):
        if len(values):
            x = np.sort(values)
            y = np.arange(1, len(x) + 1) / len(x)
            ax.step(
                np.concatenate([[x[0]], x]),
                np.concatenate([[0.0], y]),
                where="post",
                color=colour,
                lw=1.8,
                label=f"{name}, n={len(x)}",
            )
            ax.plot(x, np.full(len(x), -0.04), "|", color=colour, ms=8, alpha=0.6)
    if not len(comp.sim):
        ax.text(
            0.5,
            0.5,
            f"no simulated values\n({comp.sim_undefined} sessions undefined)",
            transform=ax.transAxes,
            ha="center",
            va="center",
            color=SIM_COLOUR,
            fontsize=8 if compact else 10,
        )
    ax.set_ylim(-0.08, 1.05)
    ax.set_ylabel("share of sessions ≤ x", fontsize=8 if compact else 10)
    ax.set_xlabel(comp.label, fontsize=8 if compact else 10)
    stats_text = (
        f"KS D={_fmt(comp.ks_stat, 2)} ({_p(comp.ks_p)}), "
        f"W={_fmt(comp.wasserstein, _digits(comp.metric) or 1)} "
        f"(chance {_fmt(comp.wasserstein_null95, _digits(comp.metric) or 1)})"
    )
    ax.set_title(
        stats_text if compact else f"{comp.label}\n{stats_text}", fontsize=7 if compact else 10
    )
    ax.legend(fontsize=7 if compact else 9, loc="best", framealpha=0.85)
    ax.grid(alpha=0.3)


def plot_metric(comp: MetricComparison, path: Path) -> None:
    """One metric's real vs simulated ECDFs as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    _draw(ax, comp)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_overview(comps: Sequence[MetricComparison], path: Path) -> None:
    """All metrics on one page (2 columns)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = math.ceil(len(comps) / 2)
    fig, axes = plt.subplots(rows, 2, figsize=(11, 3.2 * rows))
    flat = np.atleast_1d(axes).ravel()
    for ax, comp in zip(flat, comps, strict=False):
        _draw(ax, comp, compact=True)
    for ax in flat[len(comps) :]:
        ax.axis("off")
    fig.suptitle(
        "Real (Kolab) vs simulated sessions: empirical distribution functions "
        "(binary metrics: shares)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _disjoint(s: ShareComparison) -> bool:
    (rl, rh), (sl, sh) = s.real_ci, s.sim_ci
    if any(math.isnan(x) for x in (rl, rh, sl, sh)):
        return False
    return rh < sl or sh < rl


def _edge_share(counts: Mapping[str, int], kind: str) -> str:
    total = sum(counts.values())
    return f"{counts.get(kind, 0)}/{total} = " + (
        f"{100 * counts.get(kind, 0) / total:.1f} %" if total else "n/a")


def report_markdown(fid: Fidelity, sim_dir: str, kolab: str) -> str:
    """The fidelity report text."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in fid.sim_rows:
        groups.setdefault((row["team"], row["structure"]), []).append(row)
    group_text = ", ".join(f"{t}/{s or '?'}: {len(r)}" for (t, s), r in sorted(groups.items()))
    lines = [
        "# Fidelity: simulated vs real (Kolab) sessions",
        "",
        f"Simulated: `{sim_dir}` - {len(fid.sim_rows)} sessions (team/structure: {group_text})"
        + (
            f"; {fid.sim_without_humans} sessions without a simulated human (single agent) "
            "left out."
            if fid.sim_without_humans
            else "."
        ),
        f"Real: `{kolab}` - {len(fid.real_rows)} sessions.",
        "",
        "Per metric: median [interquartile range] of the per-session values, the number of "
        "sessions where the metric is defined (undefined in brackets), the two-sample "
        "Kolmogorov-Smirnov statistic D with its p-value, and the Wasserstein distance W with "
        "its chance level (95 % quantile of W between random splits of the pooled values: "
        "W above it means the difference is larger than sampling noise). The reading is 'differs' when "
        "KS p < 0.05 or W is above its chance level. Simulated human "
        "events merge all simulated collaborators (D and R) into one stream, as the dynamics "
        "metrics do.",
        "",
        "| metric | real: median [IQR] (binary: share) | n (undef.) | "
        "simulated: median [IQR] (binary: share) | n (undef.) | "
        "KS D (p) | W (chance) | reading | plot |",
        "|---|---|---:|---|---:|---|---|---|---|",
    ]
    for c in fid.comparisons:
        d = _digits(c.metric)
        real_text, sim_text = _summary(c.real, d), _summary(c.sim, d)
        if c.metric in BINARY_METRICS:
            s = share_comparison(c)
            real_text = _share_text(s.real_share, s.real_hits, s.real_n, s.real_ci)
            sim_text = _share_text(s.sim_share, s.sim_hits, s.sim_n, s.sim_ci)
        lines.append(
            f"| {c.label} | {real_text} | {len(c.real)} ({c.real_undefined}) | "
            f"{sim_text} | {len(c.sim)} ({c.sim_undefined}) | "
            f"{_fmt(c.ks_stat, 2)} ({_p(c.ks_p)}) | "
            f"{_fmt(c.wasserstein, d or 1)} ({_fmt(c.wasserstein_null95, d or 1)}) | "
            f"{c.verdict} | [png](fidelity_{c.metric}.png) |"
        )
    a = fid.adopt
    if a.within is None:
        adopt_line = (
            "Simulated adopt share: not measurable - the simulated sessions contain no "
            "adopt/modify/reject responses (responses arise from gate decisions and "
            "collaborators' edits of the agent's hypothesis). Real: "
            f"{_fmt(a.real_pooled)} pooled, per-participant range "
            f"{_fmt(a.real_min, 2)} to {_fmt(a.real_max, 2)}."
        )
    else:
        adopt_line = (
            f"Simulated adopt share: {a.sim_share:.3f} ({a.sim_adopt}/{a.sim_total} responses, "
            f"all simulated sessions pooled); real: {a.real_pooled:.3f} pooled, per-participant "
            f"range {a.real_min:.2f} to {a.real_max:.2f}. The simulated share is "
            + ("within the real range." if a.within else "OUTSIDE the real range.")
        )
    edges_line = "Edges by the actor types of their ends (pooled): " + "; ".join(
        f"{side} " + ", ".join(f"{k} {_edge_share(counts, k)}" for k in EDGE_KINDS)
        for side, counts in (("real", fid.real_edges), ("simulated", fid.sim_edges)))
    differs = [c.label for c in fid.comparisons if c.verdict == "differs"]
    missing = [c.label for c in fid.comparisons if c.verdict.startswith("not measurable")]
    close = [c.label for c in fid.comparisons if c.verdict == "no detectable difference"]
    lines += [""]
    for c in fid.comparisons:
        if c.metric in BINARY_METRICS:
            lines.append(
                f"The metric *{c.label}* is binary, so its row shows, instead of the median, "
                "the share of sessions with value 1 (k/n = share [95 % Wilson interval]): "
                f"{share_sentence(c)}. The intervals "
                + (
                    "do not overlap."
                    if _disjoint(share_comparison(c))
                    else "overlap (KS and W read the same two shares)."
                )
            )
    lines += [
        "",
        "AI outputs (for the answered share and the last output): every AI node of a Kolab "
        "graph; in a simulated graph the agent's nodes except an ungated submission (FINISH) "
        "and its assent to a memory entry, with a gated request and its approved outcome as "
        "one output and a draft's chat announcement belonging to the draft. An output is "
        "answered when a response (adopt / modify / reject) names it; simulated responses "
        "come from gate decisions, edits of the agent's draft, chat checks of a draft "
        "(objections, confirmations) and collaborators' comments naming an output "
        "(`[re=...]`: code cells, messages, memory entries).",
        "",
        adopt_line,
        "",
        edges_line,
        "",
        "## Summary",
        "",
        f"- Differs from the real data ({len(differs)}): " + ("; ".join(differs) or "none") + ".",
        f"- Not measurable on one side ({len(missing)}): " + ("; ".join(missing) or "none") + ".",
        f"- No detectable difference ({len(close)}): " + ("; ".join(close) or "none") + ".",
        "",
        "No detectable difference is not agreement: with few sessions the tests have little "
        "power, so read it together with the plots.",
        "",
    ]
    if len(groups) > 1:
        lines += [
            "## Simulated means by team and structure",
            "",
            "| team | structure | sessions | " + " | ".join(FIDELITY_METRICS) + " |",
            "|---|---|---:|" + "---:|" * len(FIDELITY_METRICS),
        ]
        for (team, structure), rows in sorted(groups.items()):
            means = []
            for m in FIDELITY_METRICS:
                vals = np.array([r[m] for r in rows], dtype=float)
                vals = vals[~np.isnan(vals)]
                means.append(_fmt(float(vals.mean()), _digits(m) or 1) if len(vals) else "n/a")
            lines.append(f"| {team} | {structure} | {len(rows)} | " + " | ".join(means) + " |")
        lines.append("")
    return "\n".join(lines)


def write_fidelity_report(
    fid: Fidelity, out_dir: str | Path, *, sim_dir: str, kolab: str
) -> list[Path]:
    """Write report.md, sessions.csv, fidelity_overview.png and one PNG per metric.

    Returns:
        The written paths.
    """
    import pandas as pd

    out = Path(out_dir)
    with StagedOutput(out) as staged:
        names = []
        for comp in fid.comparisons:
            name = f"fidelity_{comp.metric}.png"
            plot_metric(comp, staged.dir / name)
            names.append(name)
        plot_overview(fid.comparisons, staged.dir / "fidelity_overview.png")
        names.append("fidelity_overview.png")
        rows = [{"source": "real", **r} for r in fid.real_rows] + [
            {"source": "simulated", **r} for r in fid.sim_rows
        ]
        cols = ["source", "session_id", "team", "structure", *FIDELITY_METRICS]
        safe_frame(pd.DataFrame(rows).reindex(columns=cols)).to_csv(staged.dir / "sessions.csv", index=False)
        names.append("sessions.csv")
        (staged.dir / "report.md").write_text(report_markdown(fid, sim_dir, kolab), encoding="utf-8")
        names.append("report.md")
        return staged.publish(names)
