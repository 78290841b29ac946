"""``collabsim kolab``: the Kolab benchmark from the command line.

* ``collabsim kolab report --data PATH --out DIR [--predictors ...] [--tasks ...]``: build the
  instances, print their counts, run the predictors (progress bars), print every task's
  scores next to its chance levels (majority, stratified random, the global and the
  within-participant permutation nulls of the learned predictor) with bootstrap intervals over instances and over participants, warn
  when an offline forecaster scores implausibly high, and write report.md, metrics.csv,
  chance.csv, instances.csv, predictions.csv, dynamics.csv and PNG plots into DIR.
* ``collabsim kolab instances --data PATH [--tasks ...]``: print the instance counts only.

``--data`` is the Kolab explorer file (``explorer_sessions.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Any

from collabsim.cli.errors import user_error
from collabsim.core.outputs import OutputPathError, StagedOutput, check_output_dir

DEFAULT_PREDICTORS = "majority,mode,carry-forward,learned"
DEFAULT_TASKS = "1a,1b,1b+h,1c,1d,2a,2b"
DEFAULT_PERMUTATIONS = 100
KOLAB_REPORT_NAMES = (
    "report.md", "chance.csv", "nulls.csv", "metrics.csv", "instances.csv", "predictions.csv",
    "dynamics.csv", "confusion_*.png", "ratings_*.png", "label_distribution_*.png",
    "dynamics_w_vs_collaboration.png",
)
"""What ``kolab report`` writes: a folder holding only these is a previous report."""
"""Same as :data:`collabsim.kolab.chance.DEFAULT_PERMUTATIONS` (kept here so ``--help`` does
not import numpy; a test checks they agree)."""


def register(subparsers: Any) -> None:
    """Add the ``kolab`` command and its sub-commands to ``subparsers``."""
    parser = subparsers.add_parser("kolab", help="Kolab benchmark: instances, predictors, report")
    sub = parser.add_subparsers(dest="kolab_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--data", type=Path, required=True,
                       help="Kolab explorer sessions file (explorer_sessions.json)")  # fmt: skip
        p.add_argument("--tasks", default=DEFAULT_TASKS,
                       help=f"comma-separated tasks (1c = its k=1..3 variants); default {DEFAULT_TASKS}")  # fmt: skip

    inst = sub.add_parser("instances", help="print instance counts per task")
    common(inst)
    inst.set_defaults(func=_instances)

    rep = sub.add_parser("report", help="run predictors and write the benchmark report")
    common(rep)
    rep.add_argument("--out", required=True, help="output directory")
    rep.add_argument("--predictors", default=DEFAULT_PREDICTORS,
                     help="comma-separated: majority, mode, carry-forward, learned, "
                          "llm:<litellm model>")  # fmt: skip
    rep.add_argument("--modalities", default="graph",
                     help="LLM modality combinations, comma-separated, each like graph+chat "
                          "(graph, chat, frames); 'all' = all seven")  # fmt: skip
    rep.add_argument("--runs", type=int, default=3, help="runs per LLM setting (default 3)")
    rep.add_argument("--seed", type=int, default=0, help="seed (bootstrap, learned models)")
    rep.add_argument("--bootstrap", type=int, default=1000,
                     help="bootstrap resamples (over instances and over participants)")  # fmt: skip
    rep.add_argument("--learned-groups", default="text,cues,structure,history",
                     help="feature groups the learned predictor may use (switch one off by "
                          "leaving it out); default text,cues,structure,history")  # fmt: skip
    rep.add_argument("--inner-folds", type=int, default=None,
                     help="grouped inner folds of the learned predictor's nested selection "
                          "(default: leave one training participant out; fewer is faster)")  # fmt: skip
    rep.add_argument("--permutations", type=int, default=DEFAULT_PERMUTATIONS,
                     help="label permutations for each learned predictor's null (default "
                          f"{DEFAULT_PERMUTATIONS}: p resolves down to 1/(N+1); 0 = none)")  # fmt: skip
    rep.add_argument("--nulls", default="global,blocked",
                     help="permutation nulls of each learned predictor, comma-separated: global "
                          "(labels shuffled across all instances), blocked (shuffled within "
                          "each participant); default global,blocked")  # fmt: skip
    rep.add_argument("--temperature", type=float, default=0.0, help="LLM temperature")
    rep.add_argument("--llm-mock-response", default=None,
                     help="offline runs: litellm mock_response given to every LLM call")  # fmt: skip
    rep.add_argument("--llm-extra", default=None,
                     help="JSON object of extra litellm arguments (no API keys)")  # fmt: skip
    rep.add_argument("--llm-cache", type=Path, default=None, help="LLM reply cache directory")
    rep.add_argument("--frames", type=Path, default=None,
                     help="frame images root: <root>/<session>/<seconds>.jpg")  # fmt: skip
    rep.add_argument("--jobs", type=int, default=None,
                     help="processes the learned predictor spreads its folds and the figures over (default: "
                          "all cores; results do not depend on it)")  # fmt: skip
    rep.add_argument("--no-dynamics", action="store_true", help="skip the dynamics study")
    rep.add_argument("--no-progress", action="store_true",
                     help="no progress (default: a bar per stage in a terminal, else one line "
                          "per finished stage with its time)")  # fmt: skip
    rep.set_defaults(func=_report)


def _load(args: argparse.Namespace) -> tuple[list[Any], Any, tuple[str, ...], list[str]]:
    from collabsim.graphs.explorer_io import load_explorer
    from collabsim.kolab.instances import build_instances, expand_tasks

    path: Path = args.data
    if not path.is_file():
        raise SystemExit(f"collabsim kolab: data file not found: {path} (pass --data PATH)")
    tasks = expand_tasks(args.tasks.split(","))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graphs = load_explorer(path)
    if not graphs:
        raise ValueError(f"{path}: no sessions in this file")
    instances = build_instances(graphs, tasks)
    return graphs, instances, tasks, [str(w.message) for w in caught]


def _print_counts(counts: dict[str, int], n_sessions: int, notes: list[str]) -> None:
    from collabsim.kolab.instances import TASK_DESCRIPTIONS

    # Data quirks (self-loops dropped, edges backwards in time, implausible times, ...) are
    # listed, not only counted.
    for note in notes:
        print(f"data warning: {note}", file=sys.stderr)
    print(f"Kolab instances from {n_sessions} sessions ({len(notes)} data-quality warnings"
          f"{', listed on stderr' if notes else ''}):")
    print(f"{'task':<7} {'n':>5}  definition")
    for task, n in counts.items():
        print(f"{task:<7} {n:>5}  {TASK_DESCRIPTIONS.get(task, '')}")


def _instances(args: argparse.Namespace) -> int:
    try:
        graphs, instances, tasks, n_warn = _load(args)
    except ValueError as err:
        return user_error("kolab", str(err))
    _print_counts(instances.counts(tasks), len(graphs), n_warn)
    return 0


def _report(args: argparse.Namespace) -> int:
    """Execute ``collabsim kolab report``; returns the exit code."""
    from collabsim.kolab.benchmark import run_benchmark
    from collabsim.kolab.dynamics_study import dynamics_study
    from collabsim.kolab.progress import Stage
    from collabsim.kolab.report import summary_lines

    try:
        out = check_output_dir(args.out, option="--out", inputs=[args.data],
                               own_names=KOLAB_REPORT_NAMES)
    except OutputPathError as err:
        return user_error("kolab report", str(err))
    try:
        graphs, instances, tasks, n_warn = _load(args)
        predictors, null_schemes, extra = _report_setup(args, graphs)
    except ValueError as err:
        return user_error("kolab report", str(err))
    progress = not args.no_progress
    _print_counts(instances.counts(tasks), len(graphs), n_warn)
    result = run_benchmark(
        instances,
        predictors,
        tasks,
        seed=args.seed,
        n_boot=args.bootstrap,
        n_permutations=args.permutations,
        progress=progress,
        null_schemes=null_schemes,
    )
    for line in summary_lines(result):
        print(line)
    for alert in result.warnings:
        print(f"WARNING: {alert}", file=sys.stderr)
    study = None
    if not args.no_dynamics:
        with Stage("dynamics study", enabled=progress):
            study = dynamics_study(graphs)
    settings = _report_settings(args, graphs, n_warn, tasks, predictors, null_schemes, extra)
    return _write_report_files(out, result, study, settings, instances, progress, args.jobs)


_AT_LEAST = (
    ("permutations", "--permutations", 0),
    ("inner_folds", "--inner-folds", 2),
    ("jobs", "--jobs", 1),
    ("bootstrap", "--bootstrap", 1),
)
"""(attribute, option, least value) of the numeric options of ``kolab report`` (None: unset)."""


def _report_setup(
    args: argparse.Namespace, graphs: list[Any]
) -> tuple[list[Any], list[str], dict[str, Any]]:
    """Check the options of ``kolab report`` and build its predictors.

    Returns:
        The predictors, the permutation null schemes and the extra LLM arguments.

    Raises:
        ValueError: One line naming the option (or the data file) that is wrong.
    """
    from collabsim.kolab.benchmark import make_predictors
    from collabsim.kolab.render import DirectoryFrameSource

    combos = _modality_combos(args.modalities)
    extra = _llm_extra(args.llm_extra)
    null_schemes = _null_schemes(args.nulls)
    for attr, option, least in _AT_LEAST:
        value = getattr(args, attr)
        if value is not None and value < least:
            raise ValueError(f"{option} must be >= {least}, got {value}")
    if args.llm_mock_response is not None:
        extra["mock_response"] = args.llm_mock_response
    predictors = make_predictors(
        args.predictors,
        modalities=combos,
        runs=args.runs,
        seed=args.seed,
        temperature=args.temperature,
        llm_extra=extra,
        frame_source=DirectoryFrameSource(args.frames) if args.frames else None,
        cache_dir=args.llm_cache,
        progress=not args.no_progress,
        learned_groups=[g.strip() for g in args.learned_groups.split(",") if g.strip()],
        inner_folds=args.inner_folds,
        jobs=args.jobs,
    )
    _check_participants(graphs, predictors, args.data)
    return predictors, null_schemes, extra


def _modality_combos(modalities: str) -> list[Any]:
    """The LLM modality combinations of ``--modalities`` (``all``: all seven)."""
    from collabsim.kolab.render import ALL_COMBINATIONS, parse_modalities

    if modalities.strip().lower() == "all":
        return list(ALL_COMBINATIONS)
    return [parse_modalities(c) for c in modalities.split(",") if c.strip()]


def _llm_extra(text: str | None) -> dict[str, Any]:
    """The ``--llm-extra`` JSON object (empty when unset)."""
    extra: Any = json.loads(text) if text else {}
    if not isinstance(extra, dict):
        raise ValueError("--llm-extra must be a JSON object")
    return extra


def _null_schemes(text: str) -> list[str]:
    """The ``--nulls`` schemes (one or both of global and blocked)."""
    from collabsim.kolab.chance import NULL_SCHEMES

    null_schemes = [n.strip() for n in text.split(",") if n.strip()]
    if set(null_schemes) - set(NULL_SCHEMES) or not null_schemes:
        raise ValueError(f"--nulls must list global and/or blocked, got {text!r}")
    return null_schemes


def _check_participants(graphs: list[Any], predictors: list[Any], data: Path) -> None:
    """Refuse the learned predictor on data of fewer than 2 participants."""
    participants = sorted({g.session.participant_id for g in graphs})
    if len(participants) < 2 and any(p.name == "learned" for p in predictors):
        raise ValueError(
            f"--data {data}: the learned predictor is scored leave-one-participant-"
            f"out and needs sessions of at least 2 participants; this file has "
            f"{len(participants)} ({', '.join(participants) or 'none'}); leave `learned` "
            "out of --predictors"
        )


def _report_settings(
    args: argparse.Namespace,
    graphs: list[Any],
    n_warn: list[str],
    tasks: tuple[str, ...],
    predictors: list[Any],
    null_schemes: list[str],
    extra: dict[str, Any],
) -> dict[str, Any]:
    """The settings table of the report: the data, the options and how they were used."""
    settings = {
        "data": str(args.data),
        "sessions": len(graphs),
        "participants": len({g.session.participant_id for g in graphs}),
        "data-quality warnings while loading": len(n_warn),
        "tasks": ", ".join(tasks),
        "predictors": ", ".join(dict.fromkeys(f"{p.name} [{p.modality}]" for p in predictors)),
        "LLM runs per setting": args.runs,
        "seed": args.seed,
        "bootstrap": f"{args.bootstrap} resamples of instances and of participants, "
        "95% percentile",
        "permutations per learned predictor and null": args.permutations,
        "permutation nulls": ", ".join(null_schemes),
        "learned feature groups": args.learned_groups,
        "learned inner selection": "leave one participant out"
        if args.inner_folds is None
        else f"{args.inner_folds} grouped folds",
        "learned predictor": "leave-one-participant-out; feature fitting and model selection "
        "nested inside each training fold",
    }
    if extra:
        settings["LLM extra arguments"] = ", ".join(sorted(extra))
    return settings


def _write_report_files(
    out: Path, result: Any, study: Any, settings: dict[str, Any], instances: Any, progress: bool,
    jobs: int | None,
) -> int:
    """Write the report into ``out`` (staged beside it, moved in at the end); exit code."""
    from collabsim.kolab.progress import Stage
    from collabsim.kolab.report import write_report

    try:
        # Written beside --out first and moved in at the end: a failure leaves it as it was.
        with Stage("report files and plots", enabled=progress), StagedOutput(out) as staged:
            written = write_report(
                result,
                staged.dir,
                study=study,
                settings=settings,
                instances_by_id={i.instance_id: i for i in instances.instances},
                jobs=jobs,
            )
            staged.publish([path.name for path in written.values()])
    except OSError as err:
        return user_error("kolab report", f"--out {out}: cannot write: {err.strerror or err}")
    print(f"wrote {len(written)} files to {out} (report: {out / 'report.md'})")
    return 0
