"""``collabsim report``: one report over any mix of job folders, sweeps and result stores.

Writes into the output folder:

* ``report.md`` and ``report.html`` (the same content; the HTML embeds the figures);
* ``report_sessions.csv`` (one row per session key, with a ``view`` link per session),
  ``report_aggregate.csv`` / ``.tex`` (the paper-style ``mean (SE)`` table from
  :mod:`collabsim.reporting.tables`) and ``report_deltas.csv`` / ``.tex``;
* ``figures/*.png`` and ``views/<session>.html`` (one session page per stored trace).

Deltas against the single agent are paired by task: for every task both the variant and the
single agent ran, the difference of their seed-averaged values; the mean difference gets a
percentile bootstrap 95% interval over tasks (seeded, so reruns print the same interval).
"""

from __future__ import annotations

import base64
import html
import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from collabsim.experiment.collect import collect_sessions
from collabsim.reporting import figures
from collabsim.reporting.tables import aggregate, format_table

FIGURE_CAPTIONS: dict[str, str] = {
    "performance_by_structure_team": "Performance by structure and team (bars: mean over tasks "
    "after averaging seeds; error bars ± 1 SE).",
    "h_init_by_structure": "Normalised initiative entropy H_init,norm by structure and team "
    "(1 = every member took the same share of initiative).",
    "activity": "Activity: W_human (non-message actions by simulated humans) and M_team "
    "(messages by all members).",
    "performance_vs_h_init": "Performance against H_init,norm: one dot per session (small "
    "jitter), coloured by structure; large markers (shape = team) are variant means ± SE.",
    "deltas_vs_single": "Difference in Performance from the single agent, paired by task, "
    "with bootstrap 95% intervals.",
}
MAX_SESSION_ROWS_MD = 300


@dataclass
class SweepReport:
    """What :func:`build_report` wrote."""

    out_dir: Path
    sessions: pd.DataFrame
    aggregate: pd.DataFrame
    deltas: pd.DataFrame
    figures: dict[str, Path] = field(default_factory=dict)
    views: int = 0
    notes: list[str] = field(default_factory=list)


def paired_deltas(
    sessions: pd.DataFrame,
    metric: str = "Performance",
    baseline: tuple[str, str] = ("single", "single"),
    n_boot: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """Each variant's mean paired difference from the baseline variant, with a bootstrap CI.

    Args:
        sessions: One row per session (``task_id``, ``structure``, ``team``, ``metric``).
        metric: Column to compare.
        baseline: ``(structure, team)`` of the reference variant.
        n_boot: Bootstrap resamples of the paired tasks.
        seed: Seed of the bootstrap generator.

    Returns:
        One row per other variant: ``structure``, ``team``, ``n_tasks`` (paired tasks),
        ``baseline``, ``variant`` (their means over the paired tasks), ``delta``,
        ``ci_low``, ``ci_high``. Empty when the baseline is absent.
    """
    cols = ["structure", "team", "n_tasks", "baseline", "variant", "delta", "ci_low", "ci_high"]
    data = sessions[["structure", "team", "task_id", metric]].copy()
    data[metric] = pd.to_numeric(data[metric], errors="coerce")
    per_task = data.groupby(["structure", "team", "task_id"])[metric].mean().dropna().sort_index()
    if baseline not in per_task.index.droplevel("task_id"):
        return pd.DataFrame(columns=cols)
    base = per_task.loc[baseline]
    rng = np.random.default_rng(seed)
    rows = []
    variants = aggregate(sessions, metrics=[metric])[["structure", "team"]]
    for structure, team in variants.itertuples(index=False):
        if (structure, team) == baseline or (structure, team) not in per_task.index.droplevel(2):
            continue
        var = per_task.loc[(structure, team)]
        paired = var.index.intersection(base.index)
        if not len(paired):
            continue
        diff = (var.loc[paired] - base.loc[paired]).to_numpy(dtype=float)
        boots = rng.choice(diff, size=(n_boot, len(diff)), replace=True).mean(axis=1)
        low, high = np.percentile(boots, [2.5, 97.5])
        rows.append([structure, team, len(paired), float(base.loc[paired].mean()),
                     float(var.loc[paired].mean()), float(diff.mean()), float(low), float(high)])
    return pd.DataFrame(rows, columns=cols)


def _write_views(sessions: pd.DataFrame, out_dir: Path, notes: list[str]) -> list[str]:
    from collabsim.graphs.from_trace import TraceFormatError, graph_from_trace_file
    from collabsim.viewer import write_view

    links = []
    failed = 0
    for row in sessions.to_dict("records"):
        folder = row.get("session_dir") if isinstance(row.get("session_dir"), str) else ""
        trace = Path(folder) / "trace.jsonl" if folder else None
        if trace is None or not trace.is_file():
            links.append("")
            continue
        target = out_dir / "views" / f"{Path(folder).name}.html"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                write_view(graph_from_trace_file(trace), target, row=row)
        except (TraceFormatError, ValueError, OSError):
            failed += 1
            links.append("")
            continue
        links.append(f"views/{target.name}")
    if failed:
        notes.append(f"{failed} session view(s) could not be drawn (unreadable trace)")
    return links


def _md_rows(table_md: str) -> tuple[list[str], list[list[str]]]:
    lines = [ln for ln in table_md.strip().splitlines() if ln.startswith("|")]
    split = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    return split[0], split[2:]


def _html_table(header: Sequence[str], rows: Iterable[Sequence[str]], raw_cols: set[int] = frozenset()) -> str:
    out = ["<table><thead><tr>"]
    out += [f"<th>{html.escape(h)}</th>" for h in header]
    out.append("</tr></thead><tbody>")
    for row in rows:
        cells = [c if i in raw_cols else html.escape(c) for i, c in enumerate(row)]
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _fmt(value: object, nd: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{nd}f}" if isinstance(value, float) else str(value)


def _delta_rows(deltas: pd.DataFrame) -> list[list[str]]:
    return [[r.structure, r.team, str(r.n_tasks), _fmt(r.baseline), _fmt(r.variant),
             f"{r.delta:+.2f}", f"[{r.ci_low:+.2f}, {r.ci_high:+.2f}]"]
            for r in deltas.itertuples()]


DELTA_HEADER = ["structure", "team", "paired tasks", "single", "variant", "Δ Performance",
                "95% CI"]
SESSION_HEADER = ["task", "team", "structure", "seed", "status", "Performance", "H_init,norm",
                  "view"]


def _session_rows(sessions: pd.DataFrame) -> list[list[str]]:
    rows = []
    for r in sessions.itertuples():
        rows.append([str(r.task_id), str(r.team), str(r.structure), str(r.seed), str(r.status),
                     _fmt(getattr(r, "Performance", None)), _fmt(getattr(r, "H_init_norm", None)),
                     str(r.view or "")])
    return rows


def _summary_lines(sessions: pd.DataFrame, inputs_text: str) -> list[str]:
    statuses = sessions["status"].value_counts().to_dict()
    return [
        f"Inputs: {inputs_text}.",
        f"Sessions: {len(sessions)} (one per session key), {sessions['task_id'].nunique()} "
        f"task(s), {sessions['seed'].nunique()} seed(s), "
        f"{sessions.groupby(['structure', 'team']).ngroups} variant(s). Statuses: "
        + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())) + ".",
    ]


def _interpretation(agg: pd.DataFrame, deltas: pd.DataFrame) -> list[str]:
    lines = ["Performance has no chance level (a hypothesis must name the right variables, "
             "relation and context); the single agent is the reference. Each cell is the mean "
             "over tasks of the seed-averaged value, with its standard error in brackets."]
    if agg["n_tasks"].min() < 2:
        lines.append("Some variants have one task only: their SE is undefined (–).")
    if deltas.empty:
        lines.append("No single-agent sessions are in these results, so no difference from the "
                     "single agent is given (run with team=single or team=all to add them).")
    else:
        clear = deltas[(deltas["ci_low"] > 0) | (deltas["ci_high"] < 0)]
        lines.append(f"{len(clear)} of {len(deltas)} variant(s) differ from the single agent "
                     "with a 95% interval that excludes zero.")
    return lines


def build_report(
    paths: Sequence[str | Path],
    out_dir: str | Path,
    *,
    tasks_roots: Sequence[str | Path] = (),
    views: bool = True,
    title: str = "collabsim report",
) -> SweepReport:
    """Collect sessions from ``paths`` and write the report into ``out_dir``.

    Args:
        paths: Job folders, multirun folders and/or result stores.
        out_dir: Output folder (created).
        tasks_roots: Extra task roots for sessions found only in a store.
        views: Write one HTML session page per stored trace and link it.
        title: Report title.

    Raises:
        collabsim.experiment.collect.ReportInputError: An input cannot be used.
    """
    out_dir = Path(out_dir)
    collected = collect_sessions(paths, tasks_roots)
    sessions = collected.sessions
    notes = list(collected.notes)
    out_dir.mkdir(parents=True, exist_ok=True)
    sessions["view"] = _write_views(sessions, out_dir, notes) if views else ""
    agg = aggregate(sessions)
    deltas = paired_deltas(sessions)
    figs: dict[str, Path] = {}
    fig_dir = out_dir / "figures"
    made = {
        "performance_by_structure_team": figures.performance_by_structure_team(
            agg, fig_dir / "performance_by_structure_team.png"),
        "h_init_by_structure": figures.h_init_by_structure(agg, fig_dir / "h_init_by_structure.png"),
        "activity": figures.activity(agg, fig_dir / "activity.png"),
        "performance_vs_h_init": figures.performance_vs_h_init(
            sessions, agg, fig_dir / "performance_vs_h_init.png"),
        "deltas_vs_single": figures.deltas_vs_single(deltas, fig_dir / "deltas_vs_single.png"),
    }
    for name, path in made.items():
        if path is None:
            notes.append(f"figure {name}: no data for it in these results")
        else:
            figs[name] = path

    sessions.to_csv(out_dir / "report_sessions.csv", index=False)
    agg.to_csv(out_dir / "report_aggregate.csv", index=False)
    (out_dir / "report_aggregate.tex").write_text(format_table(agg, "latex"), encoding="utf-8")
    deltas.to_csv(out_dir / "report_deltas.csv", index=False)
    (out_dir / "report_deltas.tex").write_text(_deltas_latex(deltas), encoding="utf-8")

    inputs = collected.inputs
    inputs_text = f"{len(inputs.jobs)} job folder(s), {len(inputs.stores)} result store(s)"
    agg_md = format_table(agg, "markdown")
    summary = _summary_lines(sessions, inputs_text)
    interpretation = _interpretation(agg, deltas)
    _write_markdown(out_dir / "report.md", title, summary, notes, agg_md, interpretation,
                    deltas, figs, sessions)
    _write_html(out_dir / "report.html", title, summary, notes, agg_md, interpretation,
                deltas, figs, sessions)
    return SweepReport(out_dir, sessions, agg, deltas, figs,
                       int((sessions["view"] != "").sum()), notes)


def _deltas_latex(deltas: pd.DataFrame) -> str:
    lines = [r"\begin{tabular}{llrrrrl}", r"\toprule",
             r"structure & team & tasks & single & variant & $\Delta$ Performance & 95\% CI \\",
             r"\midrule"]
    for row in _delta_rows(deltas):
        lines.append(" & ".join(c.replace("_", r"\_") for c in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def _write_markdown(path: Path, title: str, summary: list[str], notes: list[str], agg_md: str,
                    interpretation: list[str], deltas: pd.DataFrame, figs: dict[str, Path],
                    sessions: pd.DataFrame) -> None:
    out = [f"# {title}", "", *summary, ""]
    if notes:
        out += ["Notes:", *[f"- {n}" for n in notes], ""]
    out += ["## By structure and team: mean (SE) over tasks, seeds averaged first", "", agg_md]
    out += [" ".join(interpretation), ""]
    out += ["## Difference from the single agent", ""]
    if deltas.empty:
        out += ["No single-agent baseline in these results.", ""]
    else:
        out += ["| " + " | ".join(DELTA_HEADER) + " |",
                "|" + "|".join([":---"] * 2 + ["---:"] * 5) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in _delta_rows(deltas)]
        out.append("")
    out += ["## Figures", ""]
    for name, fig in figs.items():
        out += [f"![{name}](figures/{fig.name})", "", FIGURE_CAPTIONS[name], ""]
    out += ["## Sessions", ""]
    shown = sessions.head(MAX_SESSION_ROWS_MD)
    out += ["| " + " | ".join(SESSION_HEADER) + " |",
            "|" + "|".join([":---"] * 5 + ["---:"] * 2 + [":---"]) + "|"]
    for row in _session_rows(shown):
        row[-1] = f"[view]({row[-1]})" if row[-1] else ""
        out.append("| " + " | ".join(row) + " |")
    if len(sessions) > len(shown):
        out.append(f"\n{len(sessions) - len(shown)} more in report_sessions.csv and report.html.")
    out += ["", "Files: report_sessions.csv, report_aggregate.csv/.tex, report_deltas.csv/.tex, "
            "figures/, views/.", ""]
    path.write_text("\n".join(out), encoding="utf-8")


_CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1f2933}
table{border-collapse:collapse;margin:8px 0 16px}td,th{border-bottom:1px solid #e3e7eb;
padding:3px 10px;text-align:right}td:first-child,th:first-child,td:nth-child(2),th:nth-child(2)
{text-align:left}th{background:#f4f6f8}img{max-width:100%;border:1px solid #e3e7eb}
figure{margin:16px 0}figcaption{color:#52606d;font-size:13px}.notes{color:#8a5a00}"""


def _write_html(path: Path, title: str, summary: list[str], notes: list[str], agg_md: str,
                interpretation: list[str], deltas: pd.DataFrame, figs: dict[str, Path],
                sessions: pd.DataFrame) -> None:
    esc = html.escape
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{esc(title)}</h1>", *[f"<p>{esc(s)}</p>" for s in summary]]
    if notes:
        out.append("<ul class='notes'>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    header, rows = _md_rows(agg_md)
    out += ["<h2>By structure and team: mean (SE) over tasks, seeds averaged first</h2>",
            _html_table(header, rows), f"<p>{esc(' '.join(interpretation))}</p>",
            "<h2>Difference from the single agent</h2>"]
    out.append(_html_table(DELTA_HEADER, _delta_rows(deltas)) if not deltas.empty
               else "<p>No single-agent baseline in these results.</p>")
    out.append("<h2>Figures</h2>")
    for name, fig in figs.items():
        data = base64.b64encode(fig.read_bytes()).decode("ascii")
        out.append(f"<figure><img alt='{esc(name)}' src='data:image/png;base64,{data}'>"
                   f"<figcaption>{esc(FIGURE_CAPTIONS[name])}</figcaption></figure>")
    out.append("<h2>Sessions</h2>")
    rows = _session_rows(sessions)
    for row in rows:
        link = row[-1]
        row[-1] = f"<a href='{esc(link)}'>view</a>" if link else ""
    out.append(_html_table(SESSION_HEADER, rows, raw_cols={len(SESSION_HEADER) - 1}))
    out.append("</body></html>")
    path.write_text("\n".join(out), encoding="utf-8")
