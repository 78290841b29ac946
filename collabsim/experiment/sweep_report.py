"""``collabsim report``: one report over any mix of job folders, sweeps and result stores.

Writes into the output folder:

* ``report.md`` and ``report.html`` (the same content; the HTML embeds the figures);
* ``report_sessions.csv`` (one row per session key, with a ``view`` link per session),
  ``report_aggregate.csv`` / ``.tex`` (the paper-style ``mean (SE)`` table from
  :mod:`collabsim.reporting.tables`), ``report_deltas.csv`` / ``.tex`` and
  ``report_noise.csv`` (per cell: seed SD, noise floor, pass^k, :mod:`collabsim.reporting.noise`);
* ``figures/*.png`` and ``figures/*.pdf`` and ``views/<session>.html`` (one session page per
  stored trace);
* ``report_ablation.csv`` / ``.tex`` and ``figures/coordination_ablation.png`` when the
  sessions differ in their coordination settings (:mod:`collabsim.reporting.ablation`), and
  ``report_owner_tables.csv`` when scaffolded and preassigned_gates sessions pair
  (:mod:`collabsim.reporting.owner_tables`).

**Variants** are structure × team × every setting that differs between the sessions
(:mod:`collabsim.reporting.variants`): sessions of different settings are never pooled,
seeds pool only within a variant, and the swept settings name the table columns and the
figure labels. A numeric swept setting (a sweep over a rate, an Optuna trial's parameter)
gets a line plot of Performance against it with 95% intervals.

**Paired differences** (:mod:`collabsim.reporting.paired`) compare every variant with its
reference, pairing sessions of the same task and seed, with percentile-bootstrap 95%
intervals over tasks: by default every structure against ``default`` (same team and
settings) and every team against the single agent, when those are present; ``baselines``
(``collabsim report --baseline structure=default``) chooses the references instead.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from collabsim.core.csvsafe import safe_frame
from collabsim.experiment.collect import collect_sessions
from collabsim.experiment.results_table import unscored_note
from collabsim.experiment.session_costs import add_cost_columns, cost_line, cost_totals
from collabsim.metrics.baselines import baseline_line, baselines_of_rows
from collabsim.reporting import ablation as coordination_ablation
from collabsim.reporting import figures
from collabsim.reporting import owner_tables as owners
from collabsim.reporting.latex import tabular
from collabsim.reporting.noise import mark_below_floor, report_noise_floor, seed_noise
from collabsim.reporting.pages import Section, write_html, write_markdown
from collabsim.reporting.paired import (
    all_paired_differences,
    check_baseline,
    default_baselines,
)
from collabsim.reporting.tables import aggregate, format_table, scored_sessions
from collabsim.reporting.variants import (
    OVERRIDES_COLUMN,
    SETTINGS_COLUMN,
    Variants,
    derive_variants,
    short_names,
    suite_warning,
)

MAX_SESSION_ROWS_MD = 300
PRIVATE_COLUMNS = (SETTINGS_COLUMN, OVERRIDES_COLUMN)

# Writes one session's page: (graph, path, row=the session's metrics row). The report does not
# import the viewer (which reads job folders through this package); the CLI passes
# ``collabsim.viewer.write_view``.
ViewWriter = Callable[..., Any]


REPORT_NAMES: tuple[str, ...] = ("report.md", "report.html", "report_*.csv", "report_*.tex",
                                 "figures", "views")
"""What a report writes in its folder (glob patterns of top-level names)."""


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
    variants: Variants = field(default_factory=lambda: Variants((), ()))
    noise: pd.DataFrame = field(default_factory=pd.DataFrame)
    noise_floor: float = float("nan")
    warning: str | None = None


def _write_views(sessions: pd.DataFrame, out_dir: Path, notes: list[str],
                 write_view: ViewWriter) -> list[str]:
    from collabsim.graphs.from_trace import TraceFormatError, graph_from_trace_file

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


def _fmt(value: object, nd: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.{nd}f}"
    return str(value)


def _setting_text(value: object) -> str:
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return f"{value:.4g}" if isinstance(value, float) else str(value)


BELOW_FLOOR_MARK = "below noise floor"


def _delta_section(deltas: pd.DataFrame, variants: Variants, floor: float) -> Section:
    by = list(variants.by)
    header = ["reference", *by, "paired tasks", "paired sessions", "reference mean",
              "variant mean", "Δ Performance", "95% CI", "noise"]
    rows = [[str(r["reference"]), *[_setting_text(r[c]) for c in by], str(int(r["n_tasks"])),
             str(int(r["n_pairs"])), _fmt(r["baseline"]), _fmt(r["variant"]),
             f"{r['delta']:+.2f}", f"[{r['ci_low']:+.2f}, {r['ci_high']:+.2f}]",
             BELOW_FLOOR_MARK if r.get("below_noise_floor") else ""]
            for _, r in deltas.iterrows()]
    section = Section("Paired differences (same task and seed)", header=header, rows=rows,
                      text_columns=1 + len(by))
    if deltas.empty:
        section.paragraphs.append(
            "No reference variant in these results: run structure=default beside the other "
            "structures, or the single agent (team=single / team=all), or choose one with "
            "--baseline KEY=VALUE.")
    else:
        clear = deltas[(deltas["ci_low"] > 0) | (deltas["ci_high"] < 0)]
        section.paragraphs.append(
            "Each variant minus its reference: the same team and swept settings under the "
            "reference structure (or the single agent), sessions paired by task and seed, "
            "seeds averaged within a task, the mean over tasks with a percentile-bootstrap "
            f"95% interval over tasks. {len(clear)} of {len(deltas)} difference(s) have an "
            "interval that excludes zero. " + _floor_sentence(deltas, floor))
    return section


def _floor_sentence(deltas: pd.DataFrame, floor: float) -> str:
    if not math.isfinite(floor):
        return ("No noise floor: it needs at least two seeds of a task (run seeds=[0,1,…]), "
                "so no difference is marked.")
    below = int(deltas["below_noise_floor"].sum()) if "below_noise_floor" in deltas else 0
    return (f"Noise floor {floor:.3f} (see the seed section): {below} difference(s) smaller "
            f"than it are marked '{BELOW_FLOOR_MARK}' (reseeding alone could produce them).")


def _noise_section(noise: pd.DataFrame, variants: Variants, floor: float) -> Section:
    by = list(variants.by)
    passes = [c for c in noise.columns if c.startswith("pass^")]
    header = [*by, "tasks", "seeds per task", "seed SD", "noise floor", *passes]
    rows = []
    for _, r in noise.iterrows():
        seeds = (str(r["seeds_min"]) if r["seeds_min"] == r["seeds_max"]
                 else f"{r['seeds_min']}–{r['seeds_max']}")
        rows.append([*[_setting_text(r[c]) for c in by], str(int(r["n_tasks"])), seeds,
                     _fmt(r["seed_sd"], 3), _fmt(r["noise_floor"], 3),
                     *[_fmt(r[c]) for c in passes]])
    floor_text = (f"The report's noise floor is {floor:.3f} (the largest cell floor)."
                  if math.isfinite(floor) else
                  "No cell has two seeds of a task, so there is no seed SD or noise floor.")
    return Section(
        "Seed-to-seed variance, noise floor and pass^k (Performance)", header=header,
        rows=rows, text_columns=len(by), paragraphs=[
            "Seed SD: the spread of one session's Performance when only the seed changes "
            "(root mean of the per-task seed variances). Noise floor: the 95% quantile of the "
            "difference between this cell and a reseeded copy of it (same tasks and number "
            "of seeds; normal approximation from the per-task seed variances, needs >= 2 "
            "seeds). pass^k: the chance that all k seeds of a task succeed (Performance = 1), "
            "C(c,k)/C(n,k) per task, averaged over the tasks with >= k seeds. "
            "Formulas: docs/reports.md.", floor_text])


def _deltas_latex(deltas: pd.DataFrame, variants: Variants, floor: float) -> str:
    section = _delta_section(deltas, variants, floor)
    return tabular(section.header, section.rows, section.text_columns)


def _summary(sessions: pd.DataFrame, variants: Variants, inputs_text: str) -> list[str]:
    statuses = sessions["status"].value_counts().to_dict()
    lines = [
        f"Inputs: {inputs_text}.",
        f"Sessions: {len(sessions)} (one per session key), {sessions['task_id'].nunique()} "
        f"task(s), {sessions['seed'].nunique()} seed(s), "
        f"{sessions.groupby(list(variants.by), dropna=False).ngroups} variant(s). Statuses: "
        + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())) + ".",
    ]
    note = unscored_note(statuses)
    if note:
        lines.append(note + ".")
    if variants.columns:
        lines.append(
            "Variants are keyed by structure, team and the swept setting(s) "
            + ", ".join(variants.columns) + ": sessions of different settings are never "
            "pooled; seeds are averaged within a variant.")
    return lines


def _interpretation(agg: pd.DataFrame) -> str:
    text = ("Performance has no chance level (a hypothesis must name the right variables, "
            "relation and context); the single agent, where present, is the reference. Each "
            "cell is the mean over tasks of the seed-averaged value, with its standard error "
            "in brackets.")
    if agg["n_tasks"].min() < 2:
        text += " Some variants have one task only: their SE is undefined (–)."
    return text


def _md_rows(table_md: str) -> tuple[list[str], list[list[str]]]:
    lines = [ln for ln in table_md.strip().splitlines() if ln.startswith("|")]
    split = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    return split[0], split[2:]


def _session_section(sessions: pd.DataFrame, variants: Variants) -> Section:
    header = ["task", "team", "structure", *variants.columns, "seed", "status", "Performance",
              "H_init,norm", "H_init,norm (work)", "view"]
    rows = []
    for _, r in sessions.iterrows():
        rows.append([str(r["task_id"]), str(r["team"]), str(r["structure"]),
                     *[_setting_text(r[c]) for c in variants.columns], str(r["seed"]),
                     str(r["status"]), _fmt(r.get("Performance")), _fmt(r.get("H_init_norm")),
                     _fmt(r.get("H_init_work")),
                     str(r.get("view") or "")])
    return Section("Sessions", header=header, rows=rows, text_columns=3 + len(variants.columns),
                   link_column=len(header) - 1, max_md_rows=MAX_SESSION_ROWS_MD)


def _make_figures(sessions: pd.DataFrame, agg: pd.DataFrame, deltas: pd.DataFrame,
                  variants: Variants, fig_dir: Path, notes: list[str]
                  ) -> tuple[dict[str, Path], dict[str, str]]:
    cols = list(variants.columns)
    named = ", ".join(cols)
    single = (" Dashed line: the single agent."
              if figures.single_reference(agg, "Performance") is not None else "")
    setting_note = f" Bars are split by the swept setting(s) {named}." if cols else ""
    made: dict[str, tuple[Path | None, str]] = {
        "performance_by_structure_team": (
            figures.performance_by_structure_team(
                agg, fig_dir / "performance_by_structure_team.png", cols),
            "Performance by structure and team (bars: mean over tasks after averaging seeds; "
            "error bars ± 1 SE, clipped to [0, 1])." + single + setting_note),
        "h_init_by_structure": (
            figures.h_init_by_structure(agg, fig_dir / "h_init_by_structure.png", cols),
            "Normalised initiative entropy H_init,norm by structure and team (1 = every member "
            "took the same share of initiative), over all events and over the work phase only "
            "(group-memory build phase left out)." + setting_note),
        "activity": (figures.activity(agg, fig_dir / "activity.png", cols),
                     "Activity: W_human (non-message actions by simulated humans) and M_team "
                     "(messages by all members)." + setting_note),
        "performance_vs_h_init": (
            figures.performance_vs_h_init(scored_sessions(sessions), agg,
                                          fig_dir / "performance_vs_h_init.png", cols),
            "Performance against H_init,norm: one dot per session (small jitter), coloured by "
            "structure; large markers (shape = team) are variant means ± SE."),
    }
    short = short_names(cols)
    for col in cols:
        if pd.api.types.is_numeric_dtype(sessions[col]):
            name = "performance_vs_" + "".join(ch if ch.isalnum() else "_" for ch in short[col])
            made[name] = (
                figures.metric_vs_setting(agg, col, cols, fig_dir / f"{name}.png"),
                f"Performance against the swept setting {col}: one line per structure/team"
                + (" and other setting" if len(cols) > 1 else "")
                + "; points are means over tasks (seeds averaged first), the band the 95% "
                "interval mean ± t·SE; a dashed line marks the single agent when it did not "
                "vary with the setting.")
    made["paired_differences"] = (
        figures.paired_differences(deltas, cols, fig_dir / "paired_differences.png"),
        "Paired differences in Performance from each reference (panel title): same team and "
        "settings, sessions paired by task and seed; dots: mean over tasks, lines: "
        "bootstrap 95% intervals; dotted: no difference.")
    figs, captions = {}, {}
    for name, (path, caption) in made.items():
        if path is None:
            notes.append(f"figure {name}: no data for it in these results")
        else:
            figs[name] = path
            captions[name] = caption
    return figs, captions



def _ablation_section(table: pd.DataFrame, variants: Variants, out_dir: Path,
                      notes: list[str]) -> Section:
    """The "Coordination ablation" section (table, sentence, figure); writes the CSV, the
    LaTeX table and the figure."""
    others = coordination_ablation.other_columns(variants)
    header, rows = coordination_ablation.table_rows(table, others)
    safe_frame(table).to_csv(out_dir / "report_ablation.csv", index=False)
    (out_dir / "report_ablation.tex").write_text(
        tabular(header, rows, 2 + len(others)), encoding="utf-8")
    figure = coordination_ablation.ablation_figure(
        table, out_dir / "figures" / "coordination_ablation.png")
    section = Section(
        "Coordination ablation", header=header, rows=rows, text_columns=2 + len(others),
        paragraphs=[
            "Per coordination option (the coordination config group: a cost or a structural "
            "remedy switched off, docs/running.md) and team: default - single (the team "
            "under default minus the single agent of the same option) and scaffolded - "
            "default (the same team and option), in Performance; sessions paired by task "
            "and seed, seeds averaged within a task, mean over tasks with a "
            "percentile-bootstrap 95% interval over tasks (n = paired tasks). "
            + coordination_ablation.summary_sentence(table)
            + " Files: report_ablation.csv/.tex."])
    if figure is None:
        notes.append("figure coordination_ablation: no data for it in these results")
    else:
        section.figures.append((figure, (
            "Coordination ablation: one panel per difference, one row per option; dots: "
            "mean paired difference over tasks (colour and shape = team), lines: bootstrap "
            "95% intervals; dotted: no difference.")))
    return section


def _owner_section(pairs: pd.DataFrame, groups: Sequence[str], out_dir: Path) -> Section:
    """The "Owner tables" section (scaffolded vs preassigned_gates, counted per ``groups``);
    writes the CSV."""
    safe_frame(pairs).to_csv(out_dir / "report_owner_tables.csv", index=False)
    groups = list(groups)
    summary = owners.owner_summary(pairs, groups)
    overall = owners.owner_summary(pairs)
    if coordination_ablation.ABLATION_COLUMN in groups:  # default first, as in the ablation
        order = coordination_ablation.option_order(
            list(summary[coordination_ablation.ABLATION_COLUMN]))
        summary = summary.sort_values(
            coordination_ablation.ABLATION_COLUMN, kind="stable",
            key=lambda column: column.map({o: i for i, o in enumerate(order)}))
    rows = [[*[_setting_text(r[c]) for c in groups], *[str(int(r[c]))
                                                       for c in owners.SUMMARY_COLUMNS]]
            for _, r in summary.iterrows()]
    header = [*["option" if g == coordination_ablation.ABLATION_COLUMN else g for g in groups],
              "pairs", "owner table differs", "Performance differs", "both"]
    return Section("Owner tables: scaffolded vs preassigned gates", header=header, rows=rows,
                   text_columns=len(groups), paragraphs=[
                       owners.summary_text(overall) + " Per pair: "
                       "report_owner_tables.csv."])


def _coordination_sections(sessions: pd.DataFrame, variants: Variants, options: pd.Series,
                           out_dir: Path, notes: list[str]) -> list[Section]:
    """The "Coordination ablation" section (when the sessions differ in their coordination
    settings) and the "Owner tables" section (when scaffolded and preassigned_gates sessions
    pair)."""
    sections = []
    several = options.nunique() > 1
    if several:
        ablation = coordination_ablation.ablation_table(sessions, variants, options)
        sections.append(_ablation_section(ablation, variants, out_dir, notes))
    column = coordination_ablation.ABLATION_COLUMN
    pairs = owners.owner_pairs(sessions.assign(**{column: options}),
                               [*variants.by, column])
    if not pairs.empty:
        groups = [*([column] if several else []),
                  *coordination_ablation.other_columns(variants), "team"]
        sections.append(_owner_section(pairs, groups, out_dir))
    return sections


def _optuna_sections(paths: Sequence[str | Path]) -> list[Section]:
    """The best trial of every Optuna sweep among ``paths`` (its optimization_results.yaml)."""
    import yaml

    out = []
    for raw in paths:
        path = Path(raw).expanduser() / "optimization_results.yaml"
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            continue
        if not isinstance(data, dict) or not isinstance(data.get("best_params"), dict):
            continue
        rows = [[str(k), _setting_text(v)] for k, v in data["best_params"].items()]
        direction = _optuna_direction(path.parent)
        out.append(Section(
            f"Optuna search: best trial ({path.parent.name})", header=["setting", "value"],
            rows=rows, text_columns=1,
            paragraphs=[f"Objective: the trial job's mean Performance, direction: "
                        f"{direction}. Best value: "
                        f"{_fmt(data.get('best_value'))}. One trial is one job, so the "
                        "best value is one noisy estimate; compare trials in the tables "
                        "above (mean and SE over tasks) before trusting it."]))
    return out


def _optuna_direction(sweep_root: Path) -> str:
    """The search's direction (``maximize``/``minimize``), read from a trial job's Hydra
    config (Optuna's results file does not record it); ``unknown`` without one."""
    import yaml

    for hydra_yaml in sorted(sweep_root.glob("*/.hydra/hydra.yaml")):
        try:
            node = yaml.safe_load(hydra_yaml.read_text(encoding="utf-8"))
            direction = node["hydra"]["sweeper"]["direction"]
        except (OSError, yaml.YAMLError, KeyError, TypeError):
            continue
        if isinstance(direction, list):
            return ", ".join(str(d) for d in direction)
        return str(direction).removeprefix("Direction.")
    return "unknown"


def build_report(
    paths: Sequence[str | Path],
    out_dir: str | Path,
    *,
    tasks_roots: Sequence[str | Path] = (),
    views: ViewWriter | None = None,
    title: str = "collabsim report",
    baselines: Sequence[Mapping[str, str]] | None = None,
) -> SweepReport:
    """Collect sessions from ``paths`` and write the report into ``out_dir``.

    Args:
        paths: Job folders, multirun folders and/or result stores.
        out_dir: Output folder (created).
        tasks_roots: Extra task roots for sessions found only in a store.
        views: Writer of one HTML session page per stored trace (e.g.
            :func:`collabsim.viewer.write_view`), each linked from the tables; None = no pages.
        title: Report title.
        baselines: References of the paired differences (column -> value, see
            :func:`collabsim.reporting.paired.parse_baseline`); None = ``structure=default``
            and the single agent, where present.

    Raises:
        collabsim.experiment.collect.ReportInputError: An input cannot be used.
        collabsim.reporting.paired.BaselineError: A baseline matches no session.
    """
    out_dir = Path(out_dir)
    collected = collect_sessions(paths, tasks_roots)
    notes = list(collected.notes)
    sessions, variants = derive_variants(collected.sessions)
    options = coordination_ablation.ablation_options(sessions, variants)
    sessions = sessions.drop(columns=[c for c in PRIVATE_COLUMNS if c in sessions])
    # Model use is read again from each session's call logs (a store-only session has no
    # sessions.csv row to carry it).
    sessions = add_cost_columns(sessions, list(sessions["session_dir"]))
    if baselines is None:
        baselines = default_baselines(sessions)
    for baseline in baselines:
        check_baseline(sessions, baseline)
    out_dir.mkdir(parents=True, exist_ok=True)
    sessions["view"] = _write_views(sessions, out_dir, notes, views) if views else ""
    by = list(variants.by)
    agg = aggregate(sessions, by=by)
    noise = seed_noise(sessions, by)
    floor = report_noise_floor(noise)
    deltas = mark_below_floor(all_paired_differences(sessions, by, baselines), floor)
    warning = suite_warning(sessions)
    figs, captions = _make_figures(sessions, agg, deltas, variants, out_dir / "figures", notes)

    safe_frame(sessions).to_csv(out_dir / "report_sessions.csv", index=False)
    safe_frame(agg).to_csv(out_dir / "report_aggregate.csv", index=False)
    (out_dir / "report_aggregate.tex").write_text(format_table(agg, "latex", by=by),
                                                  encoding="utf-8")
    safe_frame(deltas).to_csv(out_dir / "report_deltas.csv", index=False)
    (out_dir / "report_deltas.tex").write_text(_deltas_latex(deltas, variants, floor),
                                               encoding="utf-8")
    safe_frame(noise).to_csv(out_dir / "report_noise.csv", index=False)
    extra_sections = _coordination_sections(sessions, variants, options, out_dir, notes)

    inputs = collected.inputs
    inputs_text = f"{len(inputs.jobs)} job folder(s), {len(inputs.stores)} result store(s)"
    header, rows = _md_rows(format_table(agg, "markdown", by=by))
    heading = "By structure and team" + (" and " + ", ".join(variants.columns)
                                         if variants.columns else "")
    sections = [
        Section(f"{heading}: mean (SE) over tasks, seeds averaged first", header=header,
                rows=rows, text_columns=len(by), paragraphs=[_interpretation(agg)]),
        _delta_section(deltas, variants, floor),
        _noise_section(noise, variants, floor),
        *extra_sections,
        *_optuna_sections(paths),
        Section("Figures", paragraphs=["Every figure is also in figures/ as PNG (200 dpi) "
                                       "and PDF."],
                figures=[(figs[n], captions[n]) for n in figs]),
        _session_section(sessions, variants),
    ]
    intro = ([warning[0].upper() + warning[1:] + "."] if warning else []) + _summary(
        sessions, variants, inputs_text)
    chance = baseline_line(baselines_of_rows(sessions.to_dict("records")))
    if chance:
        intro.append(chance + "; Performance above them is more than chance.")
    costs = cost_totals(sessions)
    if costs is not None:
        intro.append(cost_line(costs) + ".")
    footer = ("Files: report_sessions.csv, report_aggregate.csv/.tex, report_deltas.csv/.tex, "
              "report_noise.csv, figures/ (PNG and PDF), views/.")
    write_markdown(out_dir / "report.md", title, intro, notes, sections, footer)
    write_html(out_dir / "report.html", title, intro, notes, sections, footer)
    return SweepReport(out_dir, sessions, agg, deltas, figs,
                       int((sessions["view"] != "").sum()), notes, variants, noise, floor,
                       warning)
