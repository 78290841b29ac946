"""The coordination ablation: how the team effects move when a coordination cost or a
structural remedy is switched off (``experiment=coordination_ablation``, docs/reports.md).

Each session has an **ablation option**: the ``coordination`` config group option its job
chose (``no_loafing``, ``default``, ...; the variant column Hydra's choices give), or, for
sessions found only in a store, the coordination settings that differ from
:class:`~collabsim.core.coordination.CoordinationSpec` (``loafing=0``; ``default`` when none
does). For every option and team two paired differences in Performance are taken, with the one
implementation of :func:`collabsim.reporting.paired.paired_differences` (sessions of the same
task and seed, seeds averaged within a task, mean over tasks, percentile-bootstrap 95 %
interval over tasks):

* **process loss** ``default − single``: the team under ``default`` minus the single agent of
  the same option;
* **scaffolding gain** ``scaffolded − default``: the team under ``scaffolded`` minus the same
  team under ``default`` of the same option.

The section appears when the sessions differ in their coordination settings.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from collabsim.reporting.paired import DELTA_COLUMNS, all_paired_differences
from collabsim.reporting.tables import TEAM_ORDER
from collabsim.reporting.variants import SETTINGS_COLUMN, Variants, display

OPTION_COLUMN = "coordination"
"""The config group whose option names a session's ablation point (Hydra's choice)."""
DEFAULT_OPTION = "default"
#: The team compositions an ablation compares (every team but the single agent).
TEAMS: tuple[str, ...] = tuple(t for t in TEAM_ORDER if t != "single")

ABLATION_COLUMN = "ablation"
"""The working column holding each session's ablation option."""
DIFFERENCES: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("default - single", "default", {"team": "single", "structure": "single"}),
    ("scaffolded - default", "scaffolded", {"structure": "default"}),
)
"""(name, structure of the variant, baseline of :mod:`collabsim.reporting.paired`)."""
TABLE_COLUMNS = [ABLATION_COLUMN, "team", "difference", *DELTA_COLUMNS, "excludes_zero"]


def settings_label(settings_json: str) -> str:
    """The ablation option of a session from its outcome settings (canonical JSON): the
    coordination settings that differ from the spec's defaults, ``k=v`` joined by ``, ``
    (``default`` when none does)."""
    settings = json.loads(settings_json) if settings_json else {}
    changed = settings.get("coordination") or {}
    if not changed:
        return DEFAULT_OPTION
    return ", ".join(f"{k}={display(v)}" for k, v in sorted(changed.items()))


def ablation_options(sessions: pd.DataFrame, variants: Variants) -> pd.Series:
    """Every session's ablation option (module docstring), as text.

    Args:
        sessions: The report's sessions table, with :data:`SETTINGS_COLUMN` still in it.
        variants: Its variant key (:func:`collabsim.reporting.variants.derive_variants`).
    """
    if OPTION_COLUMN in variants.columns:
        return sessions[OPTION_COLUMN].astype(str)
    raw = sessions.get(SETTINGS_COLUMN, pd.Series([""] * len(sessions), index=sessions.index))
    return pd.Series([settings_label(s if isinstance(s, str) else "") for s in raw],
                     index=sessions.index, dtype=object)


def _is_coordination(column: str) -> bool:
    return column == OPTION_COLUMN or column.startswith(OPTION_COLUMN + ".")


def other_columns(variants: Variants) -> list[str]:
    """The variant columns besides structure, team and the coordination settings (a task
    suite, another swept setting): the ablation table keeps them apart."""
    return [c for c in variants.columns if not _is_coordination(c)]


def option_order(options: Sequence[str]) -> list[str]:
    """``default`` first, then the other options alphabetically."""
    uniq = sorted(set(options))
    return ([DEFAULT_OPTION] if DEFAULT_OPTION in uniq else []) + [
        o for o in uniq if o != DEFAULT_OPTION]


def ablation_table(sessions: pd.DataFrame, variants: Variants,
                   options: pd.Series) -> pd.DataFrame:
    """Both differences (:data:`DIFFERENCES`) per ablation option and team.

    Args:
        sessions: The report's sessions table (``task_id``, ``seed``, ``structure``,
            ``team``, ``status``, ``Performance`` and the variant columns).
        variants: Its variant key.
        options: Every session's ablation option (:func:`ablation_options`).

    Returns:
        One row per (option, other variant columns, team, difference): :data:`TABLE_COLUMNS`
        with the other variant columns after ``ablation``; ``excludes_zero`` says whether the
        95 % interval excludes 0. Empty when the sessions share one option.
    """
    others = other_columns(variants)
    columns = [ABLATION_COLUMN, *others, *TABLE_COLUMNS[1:]]
    if options.nunique() < 2:
        return pd.DataFrame(columns=columns)
    data = sessions.assign(**{ABLATION_COLUMN: options})
    by = ["structure", "team", ABLATION_COLUMN, *others]
    frames = []
    for name, structure, baseline in DIFFERENCES:
        deltas = all_paired_differences(data, by, [baseline])
        part = deltas[deltas["structure"] == structure]
        frames.append(part.assign(difference=name))
    table = pd.concat(frames, ignore_index=True)
    if table.empty:
        return pd.DataFrame(columns=columns)
    table["excludes_zero"] = (table["ci_low"] > 0) | (table["ci_high"] < 0)
    order = {o: i for i, o in enumerate(option_order(list(options)))}
    teams = TEAMS
    table = table.assign(
        _o=table[ABLATION_COLUMN].map(order),
        _d=table["difference"].map({n: i for i, (n, _, _) in enumerate(DIFFERENCES)}),
        _t=[teams.index(t) if t in teams else len(teams) for t in table["team"]])
    table = table.sort_values(["_d", "_o", *others, "_t"], kind="stable")
    return table[columns].reset_index(drop=True)


def _cell(row: pd.Series | None) -> str:
    if row is None:
        return "–"
    mark = " *" if row["excludes_zero"] else ""
    return (f"{row['delta']:+.3f} [{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]{mark} "
            f"(n={int(row['n_tasks'])})")


def table_rows(table: pd.DataFrame, others: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the printed table: one row per option and team, one column per
    difference (``Δ [95 % interval] (n=tasks)``, ``*`` when the interval excludes 0)."""
    names = [n for n, _, _ in DIFFERENCES]
    header = ["option", *others, "team", *names]
    keys = list(dict.fromkeys(
        tuple(r[c] for c in (ABLATION_COLUMN, *others, "team")) for _, r in table.iterrows()))
    order = {o: i for i, o in enumerate(option_order(list(table[ABLATION_COLUMN])))}
    teams = TEAMS
    keys.sort(key=lambda k: (order[k[0]], tuple(map(str, k[1:-1])),
                             teams.index(k[-1]) if k[-1] in teams else len(teams)))
    rows = []
    for key in keys:
        match = table
        for c, v in zip((ABLATION_COLUMN, *others, "team"), key, strict=True):
            match = match[match[c] == v]
        cells = []
        for name in names:
            hit = match[match["difference"] == name]
            cells.append(_cell(hit.iloc[0] if len(hit) else None))
        rows.append([*map(str, key), *cells])
    return header, rows


def summary_sentence(table: pd.DataFrame) -> str:
    """How many of the differences have an interval that excludes 0, per difference."""
    parts = []
    for name, _, _ in DIFFERENCES:
        part = table[table["difference"] == name]
        if len(part):
            parts.append(f"{name}: {int(part['excludes_zero'].sum())} of {len(part)}")
        else:
            parts.append(f"{name}: not in these results")
    return "Intervals that exclude 0 (marked *): " + "; ".join(parts) + "."


def ablation_figure(table: pd.DataFrame, path: Path) -> Path | None:
    """Dots (mean paired difference) with 95 % interval lines per ablation option, one
    colour per team, one panel per difference; the dotted line is no difference.

    Returns:
        The PNG written (a PDF beside it), or None for an empty table.
    """
    if table.empty:
        return None
    import matplotlib.pyplot as plt

    from collabsim.reporting.figures import TEAM_COLOURS, TEAM_MARKERS, save_figure

    names = [n for n, _, _ in DIFFERENCES if (table["difference"] == n).any()]
    options = option_order(list(table[ABLATION_COLUMN]))
    teams = [t for t in TEAMS if (table["team"] == t).any()]
    teams += sorted(set(table["team"]) - set(teams))
    width = 0.7 / max(1, len(teams))
    fig, axes = plt.subplots(1, len(names), squeeze=False, sharey=True,
                             figsize=(4.2 * len(names) + 1.6, 0.9 + 0.45 * len(options)))
    low = min(0.0, float(table["ci_low"].min()))
    high = max(0.0, float(table["ci_high"].max()))
    pad = 0.05 * max(high - low, 0.1)
    ys = np.arange(len(options))[::-1]
    y_of = dict(zip(options, ys, strict=True))
    for ax, name in zip(axes[0], names, strict=True):
        part = table[table["difference"] == name]
        for i, team in enumerate(teams):
            rows = part[part["team"] == team]
            offset = ((len(teams) - 1) / 2 - i) * width  # first team on top, as in the legend
            y = [y_of[o] + offset for o in rows[ABLATION_COLUMN]]
            colour = TEAM_COLOURS.get(team, "#333")
            ax.hlines(y, rows["ci_low"], rows["ci_high"], color=colour, lw=2.0)
            ax.plot(rows["delta"], y, TEAM_MARKERS.get(team, "o"), color=colour,
                    label=team, ms=5)
        ax.axvline(0.0, color="#444", lw=0.9, ls=":")
        ax.set_xlim(max(-1.0, low - pad), min(1.0, high + pad))
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(f"Performance: {name}", fontsize=10)
        ax.set_xlabel("Δ Performance (mean over tasks; bootstrap 95% CI)", fontsize=9)
    axes[0, 0].set_yticks(ys, options)
    axes[0, 0].set_ylim(-0.6, len(options) - 0.4)
    axes[0, -1].legend(title="team", loc="center left", bbox_to_anchor=(1.02, 0.5),
                       fontsize=8, frameon=False)
    return save_figure(fig, path)
