"""The expertise map: where does a team beat the single agent, and which structure gains most?

``collabsim run experiment=expertise_map`` is a Hydra multirun with one job per (knowledge
split, collaborators' in-area error): ``tasks.knowledge`` ∈ {everyone, by_profile} ×
``expertise=in_area_<e>`` (both collaborators' ``error_in_area`` = e) over every team and
structure and the single agent, seeds 0-2. At the end of the sweep
(:class:`collabsim.cli.expertise_map_callback.ExpertiseMapCallback`, or
``python -m collabsim.reporting.expertise_map SWEEP_DIR``) this module writes at the sweep root:

- ``expertise_map.csv``: per (knowledge, error, team, structure) cell the paired Performance
  difference from the single agent of the same job (same task and seed;
  :func:`collabsim.reporting.paired.paired_differences`: mean over tasks of the per-task mean
  over seeds, 95 % percentile-bootstrap interval over tasks) and the collaborators'
  objections with the share that was wrong (:mod:`collabsim.metrics.objections`) with a 95 %
  Wilson interval;
- ``expertise_map.png`` / ``.pdf``: top rows the Performance difference per structure (one
  panel per knowledge split and structure, x = in-area error, one line per team, 95 % CIs,
  a zero line), bottom rows the share of wrong objections;
- ``expertise_map.txt``: the statements :func:`statements` derives from the table (where
  teams help and hurt, with their intervals; which structure gains most where).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from collabsim.core.csvsafe import safe_frame
from collabsim.core.outputs import atomic_write_text
from collabsim.reporting.paired import paired_differences

KNOWLEDGE_ORDER = ("everyone", "by_profile")
STRUCTURES = ("default", "memory", "preassigned_gates", "scaffolded")
TEAMS = ("D", "R", "DR")
COLUMNS = ["knowledge", "error", "team", "structure", "n_tasks", "n_pairs", "single",
           "team_performance", "delta", "ci_low", "ci_high", "objections", "objections_wrong",
           "wrong_share", "wrong_low", "wrong_high"]


class ExpertiseMapError(ValueError):
    """The sweep folder holds no usable expertise-map jobs."""


def _job_point(job: Path) -> tuple[str, float] | None:
    """(knowledge split, collaborators' in-area error) of one job, from its composed config."""
    config = job / ".hydra" / "config.yaml"
    if not config.is_file() or not (job / "sessions.csv").is_file():
        return None
    cfg: dict[str, Any] = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    knowledge = (cfg.get("tasks") or {}).get("knowledge", "everyone")
    if not isinstance(knowledge, str):
        knowledge = "custom"
    profiles = (cfg.get("team") or {}).get("profiles") or {}
    errors = {float(p["params"]["error_in_area"]) for p in profiles.values()
              if isinstance(p, dict) and "error_in_area" in (p.get("params") or {})}
    if len(errors) != 1:
        return None  # not a job of the map: the collaborators' in-area error is not set once
    return knowledge, errors.pop()


def collect(sweep_dir: Path) -> pd.DataFrame:
    """Every session of the map's jobs, with ``knowledge`` and ``error`` columns.

    Raises:
        ExpertiseMapError: No job folder with a knowledge split, an in-area error and sessions.
    """
    frames = []
    for job in sorted(p.parent.parent for p in Path(sweep_dir).glob("*/.hydra/config.yaml")):
        point = _job_point(job)
        if point is None:
            continue
        table = pd.read_csv(job / "sessions.csv")
        table.insert(0, "error", point[1])
        table.insert(0, "knowledge", point[0])
        frames.append(table)
    if not frames:
        raise ExpertiseMapError(
            f"{sweep_dir}: no expertise-map jobs (job folders whose config sets both "
            "collaborators' error_in_area, with a sessions.csv)")
    return pd.concat(frames, ignore_index=True)


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion (NaN, NaN without trials).

    ``(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)`` with ``p = successes / n``.
    """
    if trials <= 0:
        return math.nan, math.nan
    p = successes / trials
    centre = p + z * z / (2 * trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    denom = 1 + z * z / trials
    return (centre - half) / denom, (centre + half) / denom


def table(sessions: pd.DataFrame, n_boot: int = 2000) -> pd.DataFrame:
    """The map: one row per (knowledge, error, team, structure) cell (see module docstring).

    Each cell's bootstrap is seeded on its own (only its sessions and its single agent's), so
    a cell's interval is the same whichever other cells ran beside it.
    """
    by = ["knowledge", "error", "structure", "team"]
    rows = []
    for (knowledge, error), job in sessions.groupby(["knowledge", "error"], sort=False):
        single = job[job["team"] == "single"]
        for (structure, team), cell in job[job["team"] != "single"].groupby(
                ["structure", "team"], sort=False):
            deltas = paired_differences(pd.concat([single, cell]), by,
                                        {"team": "single", "structure": "single"},
                                        n_boot=n_boot)
            if deltas.empty:
                continue
            d = deltas.iloc[0]
            judged = cell.dropna(subset=["objections", "objections_wrong"])
            n_obj = int(judged["objections"].sum())
            n_wrong = int(judged["objections_wrong"].sum())
            low, high = wilson(n_wrong, n_obj)
            rows.append([knowledge, float(error), team, structure, int(d["n_tasks"]),
                         int(d["n_pairs"]), d["baseline"], d["variant"], d["delta"],
                         d["ci_low"], d["ci_high"], n_obj, n_wrong,
                         n_wrong / n_obj if n_obj else math.nan, low, high])
    out = pd.DataFrame(rows, columns=COLUMNS)
    order = {k: i for i, k in enumerate(KNOWLEDGE_ORDER)}
    out["_k"] = out["knowledge"].map(lambda k: order.get(k, len(order)))
    out["_s"] = out["structure"].map(lambda s: STRUCTURES.index(s) if s in STRUCTURES else 9)
    out["_t"] = out["team"].map(lambda t: TEAMS.index(t) if t in TEAMS else 9)
    out = out.sort_values(["_k", "error", "_t", "_s"]).drop(columns=["_k", "_s", "_t"])
    return out.reset_index(drop=True)


def trend(errors: pd.Series, wrong: pd.Series, total: pd.Series
          ) -> tuple[float, float, float] | None:
    """Cochran-Armitage trend of the share of wrong objections in the in-area error.

    With ``n_i`` objections, ``w_i`` of them wrong, at error ``x_i``: pooled share
    ``p = Σw / Σn``, ``x̄ = Σ n x / Σ n``, slope ``b = Σ n (x - x̄)(w/n - p) / Σ n (x - x̄)²``
    (change of the share per unit of error), standard error
    ``sqrt(p (1 - p) / Σ n (x - x̄)²)``.

    Returns:
        ``(slope, ci_low, ci_high)`` with the 95 % Wald interval ``b ± 1.96 SE``; None
        with fewer than two error levels holding objections or no variation.
    """
    keep = total > 0
    x, w, n = (errors[keep].astype(float), wrong[keep].astype(float),
               total[keep].astype(float))
    if len(x) < 2:
        return None
    p = w.sum() / n.sum()
    xbar = (n * x).sum() / n.sum()
    sxx = (n * (x - xbar) ** 2).sum()
    if sxx <= 0 or p in (0.0, 1.0):
        return None
    slope = float((n * (x - xbar) * (w / n - p)).sum() / sxx)
    se = math.sqrt(p * (1 - p) / sxx)
    return slope, slope - 1.959964 * se, slope + 1.959964 * se


def _cell(row: pd.Series) -> str:
    return (f"{row['team']} {row['structure']} (error {row['error']:.2f}): "
            f"{row['delta']:+.3f} [{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]")


def statements(cells: pd.DataFrame) -> list[str]:
    """Plain statements read off the map, per knowledge split.

    For each split: the cells whose 95 % interval lies above 0 (teams help) and below 0
    (teams hurt), each with its difference and interval; per error level, the structure with
    the largest mean difference for each team; and, per team and structure, the share of
    wrong objections at each error level, whether it is monotone (non-decreasing in the
    error: it falls as the error falls) and its :func:`trend` with a 95 % interval (a cell
    with objections at fewer than two levels says so).
    """
    lines: list[str] = []
    for knowledge in [k for k in KNOWLEDGE_ORDER if k in set(cells["knowledge"])]:
        part = cells[cells["knowledge"] == knowledge]
        helps = part[part["ci_low"] > 0]
        hurts = part[part["ci_high"] < 0]
        lines.append(f"knowledge={knowledge}: teams beat the single agent (95 % CI above 0) in "
                     f"{len(helps)} of {len(part)} cells; they do worse (CI below 0) in "
                     f"{len(hurts)}.")
        lines += [f"  helps: {_cell(r)}" for _, r in helps.iterrows()]
        lines += [f"  hurts: {_cell(r)}" for _, r in hurts.iterrows()]
        for (error, team), group in part.groupby(["error", "team"], sort=True):
            best = group.loc[group["delta"].idxmax()]
            lines.append(f"  best structure for {team} at error {error:.2f}: "
                         f"{best['structure']} ({best['delta']:+.3f})")
        for (team, structure), group in part.groupby(["team", "structure"], sort=True):
            group = group.sort_values("error")
            shares = group.dropna(subset=["wrong_share"])["wrong_share"]
            if len(shares) < 2:  # no share to compare: said, not left out
                held = ("no objections at any error level" if shares.empty else
                        f"objections at one error level only ({shares.iloc[0]:.2f} wrong)")
                lines.append(f"  wrong objections {team} {structure} by error: {held}")
                continue
            monotone = bool((shares.diff().dropna() >= -1e-12).all())
            line = (f"  wrong objections {team} {structure} by error: "
                    + " ".join(f"{s:.2f}" for s in shares)
                    + ("; monotone" if monotone else "; not monotone"))
            slope = trend(group["error"], group["objections_wrong"], group["objections"])
            if slope is not None:
                b, low, high = slope
                verdict = ("rises with the error" if low > 0 else
                           "falls with the error" if high < 0 else "no clear trend")
                line += f"; trend {b:+.2f} per unit error [{low:+.2f}, {high:+.2f}]: {verdict}"
            lines.append(line)
    return lines


def _draw_teams(top: Any, bottom: Any, part: pd.DataFrame, step: float) -> None:
    """One structure and split: each team's difference (``top``) and wrong share (``bottom``)
    by error, offset by ``step`` so that intervals do not hide each other."""
    from collabsim.reporting.figures import TEAM_COLOURS, TEAM_MARKERS

    silent = [t for t in TEAMS if t in set(part["team"])
              and part.loc[part["team"] == t, "wrong_share"].isna().all()]
    if silent:  # a team missing from the share panel is said to have no objections
        bottom.text(0.98, 0.04, f"no objections: {', '.join(silent)}", ha="right",
                    va="bottom", fontsize=7, color="#555555", transform=bottom.transAxes)
    for i, team in enumerate(TEAMS):
        line = part[part["team"] == team].sort_values("error")
        if line.empty:
            continue
        style = {"color": TEAM_COLOURS.get(team), "marker": TEAM_MARKERS.get(team),
                 "ms": 4, "capsize": 2, "lw": 1.2, "label": team}
        # (an interval's end can round past its estimate: 0 - 1e-17)
        top.errorbar(line["error"] + (i - 1) * step, line["delta"], yerr=[
            (line["delta"] - line["ci_low"]).clip(lower=0),
            (line["ci_high"] - line["delta"]).clip(lower=0)], **style)
        shares = line.dropna(subset=["wrong_share"])
        bottom.errorbar(shares["error"] + (i - 1) * step, shares["wrong_share"], yerr=[
            (shares["wrong_share"] - shares["wrong_low"]).clip(lower=0),
            (shares["wrong_high"] - shares["wrong_share"]).clip(lower=0)], **style)


def plot(cells: pd.DataFrame, path: Path) -> Path:
    """Write the map's figure (see module docstring) as PNG (200 dpi) and PDF."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    splits = [k for k in KNOWLEDGE_ORDER if k in set(cells["knowledge"])]
    structures = [s for s in STRUCTURES if s in set(cells["structure"])]
    n_rows = 2 * len(splits)
    fig, axes = plt.subplots(n_rows, len(structures), figsize=(3.4 * len(structures),
                             2.7 * n_rows), squeeze=False, sharex=True)
    errors = sorted(set(cells["error"]))
    step = 0.008 * ((max(errors) - min(errors)) or 1.0)
    for r, knowledge in enumerate(splits):
        for c, structure in enumerate(structures):
            part = cells[(cells["knowledge"] == knowledge) & (cells["structure"] == structure)]
            top, bottom = axes[r][c], axes[len(splits) + r][c]
            _draw_teams(top, bottom, part, step)
            top.axhline(0.0, color="#555555", lw=1.0, ls="--", zorder=1)
            top.set_title(f"{structure} · {knowledge}", fontsize=9)
            bottom.set_title(f"{structure} · {knowledge}", fontsize=9)
            bottom.set_ylim(0.0, 1.0)
            for ax in (top, bottom):
                ax.grid(alpha=0.3)
                ax.tick_params(labelsize=8)
            if c == 0:
                top.set_ylabel("Performance − single\n(95 % paired CI)", fontsize=8)
                bottom.set_ylabel("wrong objections\n(share, 95 % CI)", fontsize=8)
    # one scale for every difference panel, so that panels compare at a glance
    low, high = float(cells["ci_low"].min()), float(cells["ci_high"].max())
    pad = 0.05 * ((high - low) or 1.0)
    for row in axes[: len(splits)]:
        for ax in row:
            ax.set_ylim(min(low, 0.0) - pad, max(high, 0.0) + pad)
    for ax in axes[-1]:
        ax.set_xlabel("collaborators' in-area error", fontsize=8)
    axes[0][-1].legend(loc="best", fontsize=7, title="team", title_fontsize=7)
    fig.suptitle("Expertise map: team vs single agent, and how often objections were wrong",
                 fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=200)
    fig.savefig(path.with_suffix(".pdf"))
    plt.close(fig)
    return path


def write(sweep_dir: Path) -> tuple[Path, Path, Path]:
    """Write ``expertise_map.csv``, ``.png`` (and ``.pdf``) and ``.txt`` at the sweep root."""
    sweep_dir = Path(sweep_dir)
    cells = table(collect(sweep_dir))
    if cells.empty:  # checked before anything is written: no half-written map
        raise ExpertiseMapError(
            f"{sweep_dir}: no team has a single-agent session to be compared with (the map "
            "pairs each team with team=single on the same tasks and seeds: run it with "
            "team=all)")
    csv = sweep_dir / "expertise_map.csv"
    atomic_write_text(csv, safe_frame(cells).to_csv(index=False))
    txt = atomic_write_text(sweep_dir / "expertise_map.txt", "\n".join(statements(cells)) + "\n")
    return csv, plot(cells, sweep_dir / "expertise_map.png"), txt


def main(argv: list[str] | None = None) -> int:
    """``python -m collabsim.reporting.expertise_map SWEEP_DIR``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m collabsim.reporting.expertise_map SWEEP_DIR", file=sys.stderr)
        return 2
    try:
        csv, png, txt = write(Path(args[0]))
    except (ExpertiseMapError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {csv}, {png} and {txt}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
