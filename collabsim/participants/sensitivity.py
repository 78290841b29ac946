"""Sensitivity of team Performance to one behavioural parameter at a time.

``collabsim run experiment=sensitivity tasks.root=…`` is a Hydra multirun with one job per
point of ``configs/sensitivity/`` (``d_error_<x>``: D's own error rate,
``deference_<x>``: the agent's deference, ``patience_<x>``: the agent's patience for
teammates' checks). At the end of the sweep the Hydra callback
:class:`collabsim.cli.sensitivity_callback.SensitivityPlotCallback` reads every job's
``sessions.csv`` and writes, at the sweep root, ``sensitivity.csv`` (Performance mean and SE
over tasks, seeds averaged first, per parameter value, structure and team) and
``sensitivity.png`` (one panel per parameter, one line per structure/team, ± 1 SE). The same
is available as ``python -m collabsim.participants.sensitivity SWEEP_DIR``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

from collabsim.core.csvsafe import safe_frame

_POINT_RE = re.compile(r"sensitivity=([a-z_]+?)_(\d+(?:\.\d+)?)\s*$", re.MULTILINE)
LABELS: dict[str, str] = {
    "d_error": "D's own error rate (in and outside its area)",
    "deference": "agent deference to non-binding objections",
    "patience": "agent patience for teammates' checks (virtual s)",
}


class SensitivityError(ValueError):
    """The sweep folder holds no sensitivity jobs."""


def collect(sweep_dir: Path) -> pd.DataFrame:
    """Performance per (parameter, value, structure, team) over the jobs of a sweep.

    Raises:
        SensitivityError: No job folder with a ``+sensitivity=…`` override and sessions.
    """
    rows: list[pd.DataFrame] = []
    for overrides in sorted(Path(sweep_dir).glob("*/.hydra/overrides.yaml")):
        match = _POINT_RE.search(overrides.read_text(encoding="utf-8"))
        sessions = overrides.parent.parent / "sessions.csv"
        if match is None or not sessions.exists():
            continue
        table = pd.read_csv(sessions)
        per_task = table.groupby(["structure", "team", "task_id"])["Performance"].mean()
        cells = per_task.groupby(["structure", "team"]).agg(["mean", "sem", "count"])
        cells = cells.reset_index().rename(columns={"count": "tasks", "sem": "se"})
        cells.insert(0, "value", float(match.group(2)))
        cells.insert(0, "parameter", match.group(1))
        rows.append(cells)
    if not rows:
        raise SensitivityError(f"{sweep_dir}: no sensitivity jobs (+sensitivity=… with sessions)")
    out = pd.concat(rows, ignore_index=True)
    return out.sort_values(["parameter", "structure", "team", "value"]).reset_index(drop=True)


def plot(table: pd.DataFrame, path: Path) -> Path:
    """Write the sensitivity figure (one panel per parameter) to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    params = list(dict.fromkeys(table["parameter"]))
    fig, axes = plt.subplots(1, len(params), figsize=(5.5 * len(params), 4.2), squeeze=False,
                             sharey=True)
    for ax, param in zip(axes[0], params, strict=True):
        sub = table[table["parameter"] == param]
        groups = list(sub.groupby(["structure", "team"]))
        # small horizontal offsets keep coinciding lines and error bars apart
        step = 0.012 * float(sub["value"].max() - sub["value"].min() or 1.0)
        for i, ((structure, team), line) in enumerate(groups):
            label = "single agent" if team == "single" else f"{team} {structure}"
            shift = (i - (len(groups) - 1) / 2) * step
            ax.errorbar(line["value"] + shift, line["mean"], yerr=line["se"].fillna(0.0), marker="o",
                        capsize=3, label=label, linestyle="--" if team == "single" else "-")
        ax.set_xlabel(LABELS.get(param, param))
        ax.set_title(f"Performance vs {param}")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("Performance (mean over tasks ± 1 SE)")
    axes[0][0].set_ylim(0.0, 1.0)  # Performance is bounded by [0, 1]
    axes[0][-1].legend(loc="best", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=200)
    fig.savefig(path.with_suffix(".pdf"))
    plt.close(fig)
    return path


def write(sweep_dir: Path) -> tuple[Path, Path]:
    """Write ``sensitivity.csv`` and ``sensitivity.png`` at the sweep root."""
    sweep_dir = Path(sweep_dir)
    table = collect(sweep_dir)
    csv = sweep_dir / "sensitivity.csv"
    safe_frame(table).to_csv(csv, index=False)
    return csv, plot(table, sweep_dir / "sensitivity.png")


def main(argv: list[str] | None = None) -> int:
    """``python -m collabsim.participants.sensitivity SWEEP_DIR``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m collabsim.participants.sensitivity SWEEP_DIR", file=sys.stderr)
        return 2
    try:
        csv, png = write(Path(args[0]))
    except (SensitivityError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {csv} and {png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
