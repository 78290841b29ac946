"""Write the benchmark report: Markdown, CSV tables and PNG plots (:mod:`~collabsim.kolab.plots`).

Files written to the output directory:

* ``report.md``: settings, leak warnings, instance counts, chance levels, adoption and
  rating tables with bootstrap 95% intervals over instances and over participants and the
  permutation null of each learned predictor, predicted vs true label distributions,
  skipped settings, the dynamics study.
* ``metrics.csv``: one row per task x predictor x modality (see :data:`METRIC_COLUMNS`).
* ``chance.csv``: per task, the majority / mode baseline and the stratified random guess.
* ``nulls.csv``: every permutation score of every null (task, predictor, modality, scheme,
  permutation index, score), so the null distributions can be checked and plotted.
* ``instances.csv``: instance counts per task.
* ``predictions.csv``: every prediction of every run (with raw LLM replies).
* ``dynamics.csv``: the per-session dynamics table.
* PNGs: ``confusion_<task>_<predictor>_<modality>.png`` (row-normalised confusion matrix with
  counts), ``ratings_<task>_<predictor>_<modality>.png`` (true x predicted heat map and
  scatter), ``label_distribution_<task>.png`` (predicted vs true label shares) and
  ``dynamics_w_vs_collaboration.png``.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from collabsim.core.csvsafe import safe_frame, safe_row
from collabsim.kolab.benchmark import BenchmarkResult, ResultRow
from collabsim.kolab.chance import PermutationNull
from collabsim.kolab.dynamics_study import DynamicsStudy
from collabsim.kolab.evaluate import LABELS, RATINGS
from collabsim.kolab.instances import TASK_DESCRIPTIONS
from collabsim.kolab.plots import write_plots

METRIC_COLUMNS: tuple[str, ...] = (
    "task", "history", "predictor", "modality", "kind", "n", "n_missing_modality", "runs",
    "n_invalid", "macro_f1", "macro_f1_std", "macro_f1_lo", "macro_f1_hi",
    "macro_f1_cluster_lo", "macro_f1_cluster_hi", "precision", "recall",
    "f1_adopt", "f1_modify", "f1_reject",
    "pred_share_adopt", "pred_share_modify", "pred_share_reject", "pred_share_invalid",
    "true_share_adopt", "true_share_modify", "true_share_reject",
    "mae", "mae_std", "mae_lo", "mae_hi", "within1", "within1_std", "within1_lo", "within1_hi",
    "spearman", "spearman_std", "spearman_p", "spearman_lo", "spearman_hi",
    "mae_cluster_lo", "mae_cluster_hi", "within1_cluster_lo", "within1_cluster_hi",
    "spearman_cluster_lo", "spearman_cluster_hi",
    "null_metric", "null_permutations", "null_mean", "null_p95", "null_p",
    "null_blocked_permutations", "null_blocked_mean", "null_blocked_p95", "null_blocked_p",
    "mae_true1", "mae_true2", "mae_true3", "mae_true4", "mae_true5",
    "status", "notes",
)  # fmt: skip


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return "–" if math.isnan(x) else f"{x:.{digits}f}"
    return str(x)


def metric_record(row: ResultRow) -> dict[str, Any]:
    """The metrics.csv record of one result row."""
    rec: dict[str, Any] = {c: "" for c in METRIC_COLUMNS}
    rec.update(task=row.task, predictor=row.predictor, modality=row.modality)
    rec["history"] = "yes" if row.uses_history else "no"
    if row.null is not None:
        rec.update(
            null_metric=row.null.metric, null_permutations=len(row.null.scores),
            null_mean=row.null.mean, null_p95=row.null.p95, null_p=row.null.p_value,
        )  # fmt: skip
    if row.null_blocked is not None:
        blocked = row.null_blocked
        rec.update(
            null_blocked_permutations=len(blocked.scores), null_blocked_mean=blocked.mean,
            null_blocked_p95=blocked.p95, null_blocked_p=blocked.p_value,
        )  # fmt: skip
    rec["n_missing_modality"] = row.n_missing
    rec["notes"] = "; ".join(row.notes)
    ev = row.evaluation
    if ev is None:
        rec.update(n=0, status="skipped", kind="")
        return rec
    rec.update(kind=ev.kind, n=ev.n, runs=ev.runs, n_invalid=ev.n_invalid, status="ok")
    for key, value in ev.values.items():
        if key in rec:
            rec[key] = value
    for key, value in ev.stds.items():
        if f"{key}_std" in rec:
            rec[f"{key}_std"] = value
    for key, (lo, hi) in ev.intervals.items():
        rec[f"{key}_lo"], rec[f"{key}_hi"] = lo, hi
    for key, (lo, hi) in ev.cluster_intervals.items():
        rec[f"{key}_cluster_lo"], rec[f"{key}_cluster_hi"] = lo, hi
    return rec


def chance_records(result: BenchmarkResult) -> list[dict[str, Any]]:
    """Rows of chance.csv: task, level, metric, expected value and 95% range."""
    return [
        {"task": task, "level": name, "metric": lvl.metric, "mean": lvl.mean,
         "lo": lvl.low, "hi": lvl.high, "draws": lvl.draws}
        for task, levels in result.chance.items()
        for name, lvl in levels.items()
    ]  # fmt: skip


def _write_csv(path: Path, columns: Sequence[str], records: Sequence[Mapping[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        for rec in records:
            writer.writerow(safe_row(
                {k: ("" if isinstance(v, float) and math.isnan(v) else v) for k, v in rec.items()}
            ))


# ----------------------------------------------------------------------------- markdown


def _ci(ev: Any, key: str, *, cluster: bool = False) -> str:
    source = ev.cluster_intervals if cluster else ev.intervals
    lo, hi = source.get(key, (math.nan, math.nan))
    return f"[{_fmt(lo)}, {_fmt(hi)}]"


def _null_cells(row: ResultRow) -> list[str]:
    """Mean, 95th percentile and p of the global null, then of the blocked null."""
    cells = []
    for null in (row.null, row.null_blocked):
        if null is None:
            cells += ["–", "–", "–"]
        else:
            cells += [_fmt(null.mean), _fmt(null.p95), _fmt(null.p_value)]
    return cells


def _null_line(null: PermutationNull) -> str:
    """One printed line describing a permutation null and its p-value's resolution."""
    what = "permutation null" if null.scheme == "global" else "within-participant null"
    return (
        f"{what} ({len(null.scores)}): mean {_fmt(null.mean)}, 95th pct {_fmt(null.p95)}, "
        f"p = {_fmt(null.p_value)} (smallest possible {_fmt(null.resolution, 4)})"
    )


def _chance_cell(result: BenchmarkResult, task: str, name: str) -> str:
    lvl = result.chance.get(task, {}).get(name)
    if lvl is None:
        return "–"
    if lvl.draws == 1:
        return _fmt(lvl.mean)
    return f"{_fmt(lvl.mean)} [{_fmt(lvl.low)}, {_fmt(lvl.high)}]"


def _task_rows(result: BenchmarkResult, task: str, kind: str) -> list[ResultRow]:
    """The evaluated rows of one task whose evaluation is of ``kind`` (adoption or rating)."""
    return [
        r for r in result.rows
        if r.task == task and r.evaluation is not None and r.evaluation.kind == kind
    ]  # fmt: skip


def _adoption_summary(result: BenchmarkResult, task: str, rows: list[ResultRow]) -> list[str]:
    """Summary lines of one adoption task: chance levels, then each predictor with its nulls."""
    lines = [f"{task} macro-F1 (n={rows[0].evaluation.n}):"]  # type: ignore[union-attr]
    lines.append(f"  {'majority class':<34} {_chance_cell(result, task, 'majority_macro_f1')}")
    lines.append(
        f"  {'stratified random (E, 95% range)':<34} "
        f"{_chance_cell(result, task, 'stratified_macro_f1')}"
    )
    for r in rows:
        ev = r.evaluation
        assert ev is not None
        name = f"{r.predictor} [{r.modality}]"
        line = (
            f"  {name:<34} {_fmt(ev.values['macro_f1'])}  CI instances "
            f"{_ci(ev, 'macro_f1')}  CI participants {_ci(ev, 'macro_f1', cluster=True)}"
        )
        for null in (r.null, r.null_blocked):
            if null is not None:
                line += f"\n  {'':<34} {_null_line(null)}"
        lines.append(line)
    return lines


def _rating_summary(result: BenchmarkResult, task: str, rows: list[ResultRow]) -> list[str]:
    """Summary lines of one rating task: its chance level, then each predictor with its nulls."""
    lines = [
        f"{task} Spearman rho (stratified random "
        f"{_chance_cell(result, task, 'stratified_spearman')}):"
    ]
    for r in rows:
        ev = r.evaluation
        assert ev is not None
        name = f"{r.predictor} [{r.modality}]"
        line = (
            f"  {name:<34} {_fmt(ev.values['spearman'])}  CI instances "
            f"{_ci(ev, 'spearman')}  CI participants {_ci(ev, 'spearman', cluster=True)}"
        )
        if r.null is not None:
            line += f"  (null mean {_fmt(r.null.mean)}, p = {_fmt(r.null.p_value)})"
        if r.null_blocked is not None:
            line += (
                f"  (within-participant null mean {_fmt(r.null_blocked.mean)}, "
                f"p = {_fmt(r.null_blocked.p_value)})"
            )
        lines.append(line)
    return lines


def summary_lines(result: BenchmarkResult) -> list[str]:
    """Plain-text summary of every adoption task against its chance levels (for stdout)."""
    lines: list[str] = []
    for kind, summary in (("adoption", _adoption_summary), ("rating", _rating_summary)):
        for task in result.counts:
            rows = _task_rows(result, task, kind)
            if rows:
                lines += summary(result, task, rows)
    return lines


def _pm(ev: Any, key: str) -> str:
    value = _fmt(ev.values.get(key, math.nan))
    if ev.runs > 1:
        return f"{value} ± {_fmt(ev.stds.get(key, math.nan))}"
    return value


_WINDOW_RULES = (
    "Windows are cut by node time intervals: no window node (other than the source and the "
    "AI node) starts at or after the window end; forecasting windows never contain the "
    "responder; window graphs carry no response labels and no step ratings; 1b+h adds "
    "only labels of the same session's responses finished strictly before the cut. 1c "
    "uses only responses whose source and AI node lie in the session's last step, and only when that step has at least k preceding steps."
)

_CHANCE_TEXT = (
    "A stratified random guess draws each label (rating) from the task's own "
    "distribution; its expected macro-F1 is about 1/3 whatever the class balance, "
    "which is the level a forecaster must beat. The majority class scores lower on "
    "macro-F1 because it never predicts two of the labels. Brackets: the 2.5-97.5% "
    "range of the random guess's score."
)

_ADOPTION_TEXT = (
    "Macro-F1 is the mean of the three labels' F1 (invalid replies count as wrong); "
    "± is the std across runs; the two brackets are bootstrap 95% intervals resampling "
    "instances and resampling whole participants. history = the inputs include the "
    "session's earlier labels (1b+h). For learned predictors the permutation null "
    "reruns the whole cross-validated procedure on shuffled labels: its mean, 95th "
    "percentile and the p-value (1 + #null >= observed) / (1 + N), whose smallest "
    "possible value with N permutations is 1/(N + 1). The global null shuffles labels "
    "across all instances (does the model use anything at all?); the blocked null "
    "shuffles them only within each participant, keeping every person's label mix "
    "(does it use anything beyond who the person is?). Both shuffle only the "
    "targets: where the inputs hold other instances' true labels (1b+h history, the "
    "rating models' carry-forward rating) the blocked null keeps each person's label "
    "mix visible to the model, so there it measures what the person's level alone "
    "gives and is likely inflated, not a clean test. Learned predictors are "
    "evaluated leave-one-participant-out with all model selection nested in the folds. "
    "carry-forward on 1b+h is a reference rule (the session's last finished label, the "
    "majority label when none), not a learned design."
)

_RATING_TEXT = (
    "MAE and within-1 accuracy over valid predictions; Spearman rho is undefined (–) "
    "for constant predictions. Brackets: bootstrap 95% intervals over instances and "
    "over participants. carry-forward predicts the session's previous step rating "
    "(5 when none; history = yes); the learned model predicts the deviation from it "
    "(history = yes). MAE per true rating shows whether low ratings are caught."
)


def _settings_section(settings: Mapping[str, Any]) -> list[str]:
    """The report's title and its settings list."""
    out = ["# Kolab benchmark report", "", "## Settings", ""]
    return out + [f"- {key}: {value}" for key, value in settings.items()]


def _instances_section(result: BenchmarkResult) -> list[str]:
    """Instance counts per task, how windows are cut and the instances skipped."""
    out = ["", "## Instances", "", "| task | definition | n |", "|---|---|---|"]
    for task, n in result.counts.items():
        out.append(f"| {task} | {TASK_DESCRIPTIONS.get(task, '')} | {n} |")
    out.append("")
    out.append(_WINDOW_RULES)
    if result.instance_notes:
        out += ["", "Skipped while building instances:"]
        out += [f"- {n}" for n in result.instance_notes]
    return out


def _warnings_section(result: BenchmarkResult) -> list[str]:
    """The leak warnings, in bold (nothing without warnings)."""
    if not result.warnings:
        return []
    return ["", "## Warnings", ""] + [f"- **{w}**" for w in result.warnings]


def _chance_section(result: BenchmarkResult) -> list[str]:
    """Every task's chance levels (nothing without any)."""
    if not result.chance:
        return []
    out = ["", "## Chance levels", "", _CHANCE_TEXT]
    out += ["", "| task | majority macro-F1 | stratified random macro-F1 | mode MAE | "
            "stratified MAE | stratified within-1 | stratified Spearman rho |",
            "|---|---|---|---|---|---|---|"]  # fmt: skip
    for task in result.chance:
        cells = [
            _chance_cell(result, task, n)
            for n in ("majority_macro_f1", "stratified_macro_f1", "mode_mae",
                      "stratified_mae", "stratified_within1", "stratified_spearman")
        ]  # fmt: skip
        out.append(f"| {task} | " + " | ".join(cells) + " |")
    return out


def _adoption_section(result: BenchmarkResult, adoption: list[ResultRow]) -> list[str]:
    """The adoption table (each task's stratified random guess, then its predictors)."""
    out = ["", "## Adoption (adopt / modify / reject)", "", _ADOPTION_TEXT]
    out += [
        "",
        "| task | history | predictor | modality | n | invalid | macro-F1 | 95% CI instances | 95% CI participants | null mean | null 95th | p | blocked null mean | blocked 95th | blocked p | F1 adopt | F1 modify | F1 reject |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for task in dict.fromkeys(r.task for r in adoption):
        lvl = result.chance.get(task, {}).get("stratified_macro_f1")
        if lvl is not None:
            out.append(
                f"| {task} | – | *stratified random* | – | {result.counts.get(task, '')} | – | "
                f"{_fmt(lvl.mean)} | [{_fmt(lvl.low)}, {_fmt(lvl.high)}] | – | – | – | – | "
                "– | – | – | – | – | – |"
            )
        for r in (x for x in adoption if x.task == task):
            ev = r.evaluation
            assert ev is not None
            null = " | ".join(_null_cells(r))
            out.append(
                f"| {r.task} | {'yes' if r.uses_history else 'no'} | {r.predictor} | "
                f"{r.modality} | {ev.n} | {ev.n_invalid} | {_pm(ev, 'macro_f1')} | "
                f"{_ci(ev, 'macro_f1')} | {_ci(ev, 'macro_f1', cluster=True)} | {null} | "
                f"{_fmt(ev.values['f1_adopt'])} | {_fmt(ev.values['f1_modify'])} | "
                f"{_fmt(ev.values['f1_reject'])} |"
            )
    return out


def _label_distribution_section(adoption: list[ResultRow]) -> list[str]:
    """Predicted vs true label shares of every adoption row."""
    out = ["", "### Predicted vs true label distribution", ""]
    out += [
        "| task | predictor | modality | adopt pred/true | modify pred/true | reject pred/true | invalid |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in adoption:
        ev = r.evaluation
        assert ev is not None
        cells = [
            f"{ev.values[f'pred_share_{lab}']:.1%} / {ev.values[f'true_share_{lab}']:.1%}"
            for lab in LABELS
        ]
        out.append(
            f"| {r.task} | {r.predictor} | {r.modality} | {' | '.join(cells)} | "
            f"{ev.values['pred_share_invalid']:.1%} |"
        )
    return out


def _rating_section(result: BenchmarkResult, rating: list[ResultRow]) -> list[str]:
    """The rating table (each task's stratified random guess, then its predictors)."""
    out = ["", "## Ratings (1–5)", "", _RATING_TEXT]
    out += [
        "",
        "| task | history | predictor | modality | n | invalid | MAE | 95% CI inst. | within-1 | Spearman rho | 95% CI instances | 95% CI participants | p | null mean | null 95th | perm. p | blocked null mean | blocked 95th | blocked p | MAE@1 | MAE@2 | MAE@3 | MAE@4 | MAE@5 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for task in dict.fromkeys(r.task for r in rating):
        lvl = result.chance.get(task, {})
        if "stratified_spearman" in lvl:
            mae, w1, rho = (lvl[f"stratified_{m}"] for m in ("mae", "within1", "spearman"))
            out.append(
                f"| {task} | – | *stratified random* | – | {result.counts.get(task, '')} | – | "
                f"{_fmt(mae.mean)} | [{_fmt(mae.low)}, {_fmt(mae.high)}] | {_fmt(w1.mean)} | "
                f"{_fmt(rho.mean)} | [{_fmt(rho.low)}, {_fmt(rho.high)}] | – | – | – | – | – |"
                " – | – | – | – | – | – | – | – |"
            )
        for r in (x for x in rating if x.task == task):
            ev = r.evaluation
            assert ev is not None
            bands = " | ".join(_fmt(ev.values.get(f"mae_true{k}", math.nan)) for k in RATINGS)
            null = " | ".join(_null_cells(r))
            out.append(
                f"| {r.task} | {'yes' if r.uses_history else 'no'} | {r.predictor} | "
                f"{r.modality} | {ev.n} | {ev.n_invalid} | {_pm(ev, 'mae')} | "
                f"{_ci(ev, 'mae')} | {_pm(ev, 'within1')} | {_pm(ev, 'spearman')} | "
                f"{_ci(ev, 'spearman')} | {_ci(ev, 'spearman', cluster=True)} | "
                f"{_fmt(ev.values.get('spearman_p'))} | {null} | {bands} |"
            )
    return out


def _skipped_section(result: BenchmarkResult) -> list[str]:
    """Settings that could not be evaluated (with why), then the notes of evaluated runs."""
    out: list[str] = []
    skipped = [r for r in result.rows if r.evaluation is None]
    if skipped:
        out += ["", "## Settings not evaluated", ""]
        for r in skipped:
            why = "; ".join(r.notes) or "nothing to evaluate"
            out.append(f"- {r.task} {r.predictor} [{r.modality}]: {why}")
    noted = [r for r in result.rows if r.evaluation is not None and r.notes]
    if noted:
        out += ["", "Notes from runs:"]
        out += [f"- {r.task} {r.predictor} [{r.modality}]: {'; '.join(r.notes)}" for r in noted]
    return out


def _dynamics_section(study: DynamicsStudy) -> list[str]:
    """The dynamics study's correlations and its per-session table."""
    out = ["", "## Dynamics study", ""]
    for c in study.correlations:
        out.append(
            f"- Spearman rho({c.x}, {c.y}) = {_fmt(c.rho)}, p = {_fmt(c.p, 4)}, n = {c.n} sessions"
        )
    out += [
        "",
        f"Per-session table ({len(study.table)} sessions; full table in dynamics.csv):",
        "",
    ]
    cols = ["session_id", "mean_collaboration", "human_burstiness", "topology_w", "h_cross",
            "retention_strict", "retention_broad", "solo_lead_in"]  # fmt: skip
    out.append("| " + " | ".join(cols) + " |")
    out.append("|" + "---|" * len(cols))
    for rec in study.table[cols].to_dict("records"):
        out.append("| " + " | ".join(_fmt(rec[c]) for c in cols) + " |")
    return out


def _plots_section(images: Mapping[str, list[str]]) -> list[str]:
    """The plots, one subsection per group (nothing without plots)."""
    if not images:
        return []
    out = ["", "## Plots", ""]
    for section, files in images.items():
        out.append(f"### {section}")
        out.append("")
        out += [f"![{f}]({f})" for f in files]
        out.append("")
    return out


def _markdown(
    result: BenchmarkResult,
    study: DynamicsStudy | None,
    images: Mapping[str, list[str]],
    settings: Mapping[str, Any],
) -> str:
    """The report page: its sections in order, those without content left out."""
    adoption = [
        r for r in result.rows if r.evaluation is not None and r.evaluation.kind == "adoption"
    ]
    rating = [r for r in result.rows if r.evaluation is not None and r.evaluation.kind == "rating"]
    out = _settings_section(settings) + _instances_section(result)
    out += _warnings_section(result) + _chance_section(result)
    if adoption:
        out += _adoption_section(result, adoption) + _label_distribution_section(adoption)
    if rating:
        out += _rating_section(result, rating)
    out += _skipped_section(result)
    if study is not None:
        out += _dynamics_section(study)
    out += _plots_section(images)
    return "\n".join(out).rstrip() + "\n"


def write_report(
    result: BenchmarkResult,
    out_dir: Path,
    *,
    study: DynamicsStudy | None = None,
    settings: Mapping[str, Any] | None = None,
    instances_by_id: Mapping[str, Any] | None = None,
    jobs: int | None = None,
) -> dict[str, Path]:
    """Write report.md, the CSVs and the PNGs into ``out_dir``; return name -> path.

    Args:
        result: Benchmark result.
        out_dir: Output directory (created).
        study: Dynamics study to include.
        settings: Settings listed at the top of the report.
        instances_by_id: Instance id -> Instance, to add session/participant/target columns
            to predictions.csv.
        jobs: Processes the figures are drawn in (None: all cores).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    images: dict[str, list[str]] = {}

    chance_path = out_dir / "chance.csv"
    _write_csv(chance_path, ("task", "level", "metric", "mean", "lo", "hi", "draws"),
               chance_records(result))  # fmt: skip
    written["chance.csv"] = chance_path

    nulls_path = out_dir / "nulls.csv"
    _write_csv(
        nulls_path,
        ("task", "predictor", "modality", "scheme", "permutation", "score"),
        [
            {"task": r.task, "predictor": r.predictor, "modality": r.modality,
             "scheme": null.scheme, "permutation": k, "score": score}
            for r in result.rows for null in (r.null, r.null_blocked) if null is not None
            for k, score in enumerate(null.scores)
        ],
    )  # fmt: skip
    written["nulls.csv"] = nulls_path

    metrics_path = out_dir / "metrics.csv"
    _write_csv(metrics_path, METRIC_COLUMNS, [metric_record(r) for r in result.rows])
    written["metrics.csv"] = metrics_path

    inst_path = out_dir / "instances.csv"
    _write_csv(
        inst_path,
        ("task", "definition", "n"),
        [
            {"task": t, "definition": TASK_DESCRIPTIONS.get(t, ""), "n": n}
            for t, n in result.counts.items()
        ],
    )
    written["instances.csv"] = inst_path

    pred_path = out_dir / "predictions.csv"
    pred_cols = ("task", "predictor", "modality", "run", "instance_id", "session_id",
                 "participant_id", "target", "prediction", "raw")  # fmt: skip
    records = []
    for run in result.runs:
        raws = run.raw or ("",) * len(run.instance_ids)
        for iid, pred, raw in zip(run.instance_ids, run.predictions, raws, strict=True):
            inst = instances_by_id.get(iid) if instances_by_id else None
            records.append({
                "task": run.task, "predictor": run.predictor, "modality": run.modality,
                "run": run.run, "instance_id": iid,
                "session_id": getattr(inst, "session_id", ""),
                "participant_id": getattr(inst, "participant_id", ""),
                "target": getattr(inst, "target", ""),
                "prediction": "INVALID" if pred is None else pred, "raw": raw,
            })  # fmt: skip
    _write_csv(pred_path, pred_cols, records)
    written["predictions.csv"] = pred_path

    if study is not None:
        dyn_path = out_dir / "dynamics.csv"
        safe_frame(study.table).to_csv(dyn_path, index=False)
        written["dynamics.csv"] = dyn_path
    for section, paths in write_plots(result, out_dir, study, jobs=jobs).items():
        images[section] = [path.name for path in paths]
        written.update({path.name: path for path in paths})

    report_path = out_dir / "report.md"
    report_path.write_text(_markdown(result, study, images, settings or {}), encoding="utf-8")
    written["report.md"] = report_path
    return written
